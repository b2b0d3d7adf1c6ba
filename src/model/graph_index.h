// GraphIndex: built once per graph tree (a main graph with its If/Loop/Scan
// subgraphs, or one model-local function). Value names are unique across such
// a tree (ONNX SSA), so one map serves every nesting level: name -> producer,
// name -> number of uses, and the set of taken names for fresh ones.
#pragma once

#include <string>
#include <unordered_map>
#include <unordered_set>

#include <onnx/onnx_pb.h>

namespace remap {

struct Producer {
  enum class Kind { kUnknown, kGraphInput, kInitializer, kNode };
  Kind kind = Kind::kUnknown;
  const onnx::NodeProto* node = nullptr;
  const onnx::TensorProto* initializer = nullptr;
};

class GraphIndex {
 public:
  static GraphIndex ForGraph(const onnx::GraphProto& graph);
  static GraphIndex ForFunction(const onnx::FunctionProto& function);

  Producer ProducerOf(const std::string& value) const;
  // Uses by node inputs (at any depth) and graph outputs.
  int Uses(const std::string& value) const;
  void AddUse(const std::string& value) { ++uses_[value]; }
  void RemoveUse(const std::string& value) { --uses_[value]; }
  // The value's producer was rewritten: it is no longer a known node.
  void ForgetProducer(const std::string& value) { producers_[value] = Producer{}; }

  // A value or node name not used anywhere in the tree, derived from `base`.
  std::string FreshName(const std::string& base);

 private:
  void IndexGraph(const onnx::GraphProto& graph);
  void IndexNode(const onnx::NodeProto& node);

  std::unordered_map<std::string, Producer> producers_;
  std::unordered_map<std::string, int> uses_;
  std::unordered_set<std::string> taken_;
  std::unordered_map<std::string, int> next_suffix_;
};

// Calls f(graph) for every subgraph attribute of `node` (If branches, Loop/Scan bodies).
template <typename F>
void ForEachSubgraph(onnx::NodeProto& node, F&& f) {
  for (auto& attr : *node.mutable_attribute()) {
    if (attr.has_g()) f(*attr.mutable_g());
    for (auto& g : *attr.mutable_graphs()) f(g);
  }
}
template <typename F>
void ForEachSubgraph(const onnx::NodeProto& node, F&& f) {
  for (const auto& attr : node.attribute()) {
    if (attr.has_g()) f(attr.g());
    for (const auto& g : attr.graphs()) f(g);
  }
}

}  // namespace remap
