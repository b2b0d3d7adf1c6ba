#include "model/graph_index.h"

#include <fmt/format.h>

namespace remap {

GraphIndex GraphIndex::ForGraph(const onnx::GraphProto& graph) {
  GraphIndex index;
  index.IndexGraph(graph);
  return index;
}

GraphIndex GraphIndex::ForFunction(const onnx::FunctionProto& function) {
  GraphIndex index;
  for (const auto& in : function.input()) {
    index.producers_[in] = Producer{Producer::Kind::kGraphInput, nullptr, nullptr};
    index.taken_.insert(in);
  }
  for (const auto& out : function.output()) {
    ++index.uses_[out];
    index.taken_.insert(out);
  }
  for (const auto& node : function.node()) index.IndexNode(node);
  return index;
}

void GraphIndex::IndexGraph(const onnx::GraphProto& graph) {
  taken_.insert(graph.name());
  for (const auto& in : graph.input()) {
    producers_[in.name()] = Producer{Producer::Kind::kGraphInput, nullptr, nullptr};
    taken_.insert(in.name());
  }
  // An initializer that is also a graph input stays an input: callers may override it.
  for (const auto& init : graph.initializer()) {
    if (!producers_.count(init.name())) producers_[init.name()] = Producer{Producer::Kind::kInitializer, nullptr, &init};
    taken_.insert(init.name());
  }
  for (const auto& init : graph.sparse_initializer()) taken_.insert(init.values().name());
  for (const auto& out : graph.output()) {
    ++uses_[out.name()];
    taken_.insert(out.name());
  }
  for (const auto& vi : graph.value_info()) taken_.insert(vi.name());
  for (const auto& node : graph.node()) IndexNode(node);
}

void GraphIndex::IndexNode(const onnx::NodeProto& node) {
  taken_.insert(node.name());
  for (const auto& in : node.input()) {
    if (!in.empty()) ++uses_[in];
  }
  for (const auto& out : node.output()) {
    if (out.empty()) continue;
    producers_[out] = Producer{Producer::Kind::kNode, &node, nullptr};
    taken_.insert(out);
  }
  ForEachSubgraph(node, [this](const onnx::GraphProto& g) { IndexGraph(g); });
}

Producer GraphIndex::ProducerOf(const std::string& value) const {
  auto it = producers_.find(value);
  return it == producers_.end() ? Producer{} : it->second;
}

int GraphIndex::Uses(const std::string& value) const {
  auto it = uses_.find(value);
  return it == uses_.end() ? 0 : it->second;
}

std::string GraphIndex::FreshName(const std::string& base) {
  if (taken_.insert(base).second) return base;
  int& suffix = next_suffix_[base];
  std::string name;
  do {
    name = fmt::format("{}_{}", base, ++suffix);
  } while (!taken_.insert(name).second);
  return name;
}

}  // namespace remap
