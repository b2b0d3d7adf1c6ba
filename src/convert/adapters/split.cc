// Split: `split` moved to an input (13); without it, the number of outputs
// must be given as num_outputs (18), which may also leave a smaller last chunk.
#include <algorithm>

#include <fmt/format.h>

#include "convert/adapters/adapters.h"
#include "convert/adapters/attribute_moves.h"
#include "convert/opset_adapter.h"

namespace remap {

Status SplitToInputUp(onnx::NodeProto* node, AdapterContext* ctx) { return IntsAttributeToInput(node, ctx, "split", 1); }
Status SplitToInputDown(onnx::NodeProto* node, AdapterContext* ctx) { return InputToIntsAttribute(node, ctx, 1, "split"); }

Status SplitNumOutputsUp(onnx::NodeProto* node, AdapterContext*) {
  const bool has_split = node->input_size() > 1 && !node->input(1).empty();
  if (!has_split) SetInt(node, "num_outputs", node->output_size());
  return Status::Ok();
}

Status SplitNumOutputsDown(onnx::NodeProto* node, AdapterContext* ctx) {
  const onnx::AttributeProto* n = FindAttribute(*node, "num_outputs");
  if (!n) return Status::Ok();
  const int64_t parts = n->i();
  DropAttribute(node, "num_outputs");
  // Equal parts are what the older form does without `split`; an uneven
  // division (a smaller last chunk) needs the sizes, so the dim must be static.
  int64_t axis = 0;
  if (const onnx::AttributeProto* a = FindAttribute(*node, "axis")) axis = a->i();
  const int rank = ctx->Rank(node->input(0));
  std::vector<int64_t> dims = ctx->StaticDims(node->input(0));
  if (rank > 0 && axis < 0) axis += rank;
  if (rank < 0 || axis < 0 || axis >= static_cast<int64_t>(dims.size()) || dims[static_cast<size_t>(axis)] < 0) {
    return Refuse(fmt::format("num_outputs={} on a dim whose size is not known: the older form splits only into equal parts", parts));
  }
  const int64_t size = dims[static_cast<size_t>(axis)];
  if (size % parts == 0) return Status::Ok();
  const int64_t chunk = (size + parts - 1) / parts;
  std::vector<int64_t> split;
  for (int64_t left = size; left > 0; left -= chunk) split.push_back(std::min(chunk, left));
  if (static_cast<int64_t>(split.size()) != parts)
    return Refuse(fmt::format("num_outputs={} over {} elements leaves an empty output", parts, size));
  const std::string hint = (node->name().empty() ? node->op_type() : node->name()) + "_split";
  SetInput(node, 1, ctx->Int64s(split, hint));
  return Status::Ok();
}

}  // namespace remap
