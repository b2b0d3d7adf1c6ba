// Convolution and pooling changes whose old text was ambiguous or whose new
// attributes have neutral defaults.
#include <fmt/format.h>

#include "convert/adapters/adapters.h"
#include "convert/opset_adapter.h"

namespace remap {

// ConvTranspose (11): SAME_* padding splits an odd total the other way round.
Status ConvTransposeSameRefused(onnx::NodeProto* node, AdapterContext*) {
  const onnx::AttributeProto* pad = FindAttribute(*node, "auto_pad");
  if (pad && (pad->s() == "SAME_UPPER" || pad->s() == "SAME_LOWER"))
    return Refuse(fmt::format("auto_pad {} splits the padding differently before and from opset 11; give explicit pads", pad->s()));
  return Status::Ok();
}

// AveragePool (19): dilations appeared.
Status AveragePoolDilationsDown(onnx::NodeProto* node, AdapterContext*) {
  if (const onnx::AttributeProto* d = FindAttribute(*node, "dilations")) {
    for (int64_t v : d->ints())
      if (v != 1) return Refuse("dilations other than 1 do not exist before opset 19");
    DropAttribute(node, "dilations");
  }
  return Status::Ok();
}

// MaxPool (8): the Indices output appeared.
Status MaxPoolIndicesDown(onnx::NodeProto* node, AdapterContext*) {
  if (node->output_size() > 1 && !node->output(1).empty()) return Refuse("its Indices output does not exist before opset 8");
  if (node->output_size() > 1) node->mutable_output()->DeleteSubrange(1, node->output_size() - 1);
  return Status::Ok();
}

// Gemm (11): C became optional. Lowered, an absent C is a zero of A's type.
Status GemmBiasDown(onnx::NodeProto* node, AdapterContext* ctx) {
  if (node->input_size() > 2 && !node->input(2).empty()) return Status::Ok();
  const int type = ctx->ElemType(node->input(0));
  if (type == 0) return Refuse("it has no C, and the type of A (for a zero C) is not known");
  SetInput(node, 2, ctx->Scalar(0, type, (node->name().empty() ? "Gemm" : node->name()) + "_no_bias"));
  return Status::Ok();
}

}  // namespace remap
