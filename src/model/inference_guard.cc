#include "model/inference_guard.h"

#include <fmt/format.h>

#include "model/graph_index.h"

namespace remap {

bool SafeForShapeInference(const onnx::NodeProto& node, std::string* why) {
  for (const auto& attr : node.attribute()) {
    if (attr.name() != "strides" && attr.name() != "dilations" && attr.name() != "kernel_shape") continue;
    for (int64_t v : attr.ints()) {
      if (v <= 0) {
        *why = fmt::format("{} '{}' has {} {}: each must be at least 1", node.op_type(), node.name(), attr.name(), v);
        return false;
      }
    }
  }
  return true;
}

namespace {

bool NodesSafe(const google::protobuf::RepeatedPtrField<onnx::NodeProto>& nodes, std::string* why) {
  for (const auto& node : nodes) {
    if (!SafeForShapeInference(node, why)) return false;
    bool ok = true;
    ForEachSubgraph(node, [&](const onnx::GraphProto& g) { ok = ok && NodesSafe(g.node(), why); });
    if (!ok) return false;
  }
  return true;
}

}  // namespace

bool ModelSafeForShapeInference(const onnx::ModelProto& model, std::string* why) {
  if (!NodesSafe(model.graph().node(), why)) return false;
  for (const auto& f : model.functions())
    if (!NodesSafe(f.node(), why)) return false;
  return true;
}

}  // namespace remap
