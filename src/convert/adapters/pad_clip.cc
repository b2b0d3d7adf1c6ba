// Pad (11): pads and the constant value moved to inputs.
// Clip (11): min and max moved to optional inputs of the data's type.
#include <fmt/format.h>

#include "convert/adapters/adapters.h"
#include "convert/adapters/attribute_moves.h"
#include "convert/opset_adapter.h"

namespace remap {

Status PadUp(onnx::NodeProto* node, AdapterContext* ctx) {
  const onnx::AttributeProto* pads = FindAttribute(*node, "pads");
  if (!pads) return Refuse("it has no pads attribute");
  const onnx::AttributeProto* value = FindAttribute(*node, "value");
  if (value && value->f() != 0.0f) {
    Status s = FloatAttributeToInput(node, ctx, "value", 2, 0);
    if (!s.ok()) return s;
  } else {
    DropAttribute(node, "value");  // 0 is the input's default
  }
  return IntsAttributeToInput(node, ctx, "pads", 1);
}

Status PadDown(onnx::NodeProto* node, AdapterContext* ctx) {
  if (node->input_size() > 3 && !node->input(3).empty()) return Refuse("it pads only some axes (the axes input), which the older form cannot");
  Status s = InputToFloatAttribute(node, ctx, 2, "value");
  if (s.ok()) s = InputToIntsAttribute(node, ctx, 1, "pads");
  return s;
}

Status ClipUp(onnx::NodeProto* node, AdapterContext* ctx) {
  Status s = FloatAttributeToInput(node, ctx, "min", 1, 0);
  if (s.ok()) s = FloatAttributeToInput(node, ctx, "max", 2, 0);
  return s;
}

Status ClipDown(onnx::NodeProto* node, AdapterContext* ctx) {
  Status s = InputToFloatAttribute(node, ctx, 2, "max");
  if (s.ok()) s = InputToFloatAttribute(node, ctx, 1, "min");
  return s;
}

}  // namespace remap
