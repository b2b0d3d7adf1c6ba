// ReduceSum (13) and the other Reduce* operators (18): `axes` moved from an
// attribute to an optional input, and noop_with_empty_axes appeared.
#include <fmt/format.h>

#include "convert/adapters/adapters.h"
#include "convert/adapters/attribute_moves.h"
#include "convert/opset_adapter.h"

namespace remap {

Status ReduceAxesUp(onnx::NodeProto* node, AdapterContext* ctx) { return IntsAttributeToInput(node, ctx, "axes", 1); }

Status ReduceAxesDown(onnx::NodeProto* node, AdapterContext* ctx) {
  const onnx::AttributeProto* noop = FindAttribute(*node, "noop_with_empty_axes");
  const bool noop_on_empty = noop && noop->i() != 0;
  DropAttribute(node, "noop_with_empty_axes");
  const bool has_axes = node->input_size() > 1 && !node->input(1).empty();
  std::vector<int64_t> axes;
  if (has_axes && !ctx->ConstantInts(node->input(1), &axes))
    return Refuse(fmt::format("its axes '{}' are computed at run time; the older form needs them as an attribute", node->input(1)));
  if (noop_on_empty && axes.empty()) {
    // Reducing over no axes is the identity here; the older form would reduce over all.
    node->set_op_type("Identity");
    node->mutable_input()->DeleteSubrange(1, node->input_size() - 1);
    node->clear_attribute();
    return Status::Ok();
  }
  return InputToIntsAttribute(node, ctx, 1, "axes");
}

}  // namespace remap
