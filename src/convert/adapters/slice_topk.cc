// Slice (10): starts/ends/axes moved to inputs and steps appeared.
// TopK (10): k moved to an input.
#include <fmt/format.h>

#include "convert/adapters/adapters.h"
#include "convert/adapters/attribute_moves.h"
#include "convert/opset_adapter.h"

namespace remap {

Status SliceUp(onnx::NodeProto* node, AdapterContext* ctx) {
  Status s = IntsAttributeToInput(node, ctx, "starts", 1);
  if (s.ok()) s = IntsAttributeToInput(node, ctx, "ends", 2);
  if (s.ok()) s = IntsAttributeToInput(node, ctx, "axes", 3);
  return s;
}

Status SliceDown(onnx::NodeProto* node, AdapterContext* ctx) {
  if (node->input_size() > 4 && !node->input(4).empty()) {
    std::vector<int64_t> steps;
    if (!ctx->ConstantInts(node->input(4), &steps))
      return Refuse(fmt::format("its steps '{}' are computed at run time", node->input(4)));
    for (int64_t step : steps)
      if (step != 1) return Refuse("it slices with a step other than 1, which the older form cannot");
    node->set_input(4, "");
  }
  Status s = InputToIntsAttribute(node, ctx, 3, "axes");
  if (s.ok()) s = InputToIntsAttribute(node, ctx, 2, "ends");
  if (s.ok()) s = InputToIntsAttribute(node, ctx, 1, "starts");
  return s;
}

Status TopKUp(onnx::NodeProto* node, AdapterContext* ctx) { return IntsAttributeToInput(node, ctx, "k", 1); }
Status TopKDown(onnx::NodeProto* node, AdapterContext* ctx) { return InputToIntsAttribute(node, ctx, 1, "k", /*scalar=*/true); }

}  // namespace remap
