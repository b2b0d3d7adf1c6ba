// Squeeze and Unsqueeze (13): `axes` moved from an attribute to an input.
#include "convert/adapters/adapters.h"
#include "convert/adapters/attribute_moves.h"

namespace remap {

Status AxesToInputUp(onnx::NodeProto* node, AdapterContext* ctx) { return IntsAttributeToInput(node, ctx, "axes", 1); }
Status AxesToInputDown(onnx::NodeProto* node, AdapterContext* ctx) { return InputToIntsAttribute(node, ctx, 1, "axes"); }

}  // namespace remap
