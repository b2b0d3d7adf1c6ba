#include "cli/node_lookup.h"

#include <vector>

#include <fmt/format.h>

#include "rules/rule_set.h"

namespace remap::cli {

namespace {

struct Candidate {
  const onnx::NodeProto* node;
  const onnx::GraphProto* graph;
  const onnx::FunctionProto* function;
  std::string where;
};

// Every node in search order: each node of a graph, then the bodies it holds.
void CollectGraph(const onnx::GraphProto& g, const onnx::GraphProto* root, const std::string& where,
                  std::vector<Candidate>* out) {
  for (const auto& node : g.node()) {
    out->push_back({&node, root, nullptr, where});
    for (const auto& attr : node.attribute()) {
      std::string body = fmt::format("the {} of {} '{}'", attr.name(), node.op_type(), node.name());
      if (attr.has_g()) CollectGraph(attr.g(), root, body, out);
      for (const auto& sub : attr.graphs()) CollectGraph(sub, root, body, out);
    }
  }
}

std::vector<Candidate> AllNodes(const onnx::ModelProto& model) {
  std::vector<Candidate> out;
  CollectGraph(model.graph(), &model.graph(), "the main graph", &out);
  for (const auto& f : model.functions()) {
    std::string where = fmt::format("function {}::{}", f.domain(), f.name());
    for (const auto& node : f.node()) out.push_back({&node, nullptr, &f, where});
  }
  return out;
}

// Whether `form` of `node` is the operator `spec` names.
bool IsOperator(const onnx::NodeProto& node, const NodeForm& form, const std::string& spec) {
  if (!form.unmapped()) return false;
  bool aten = form.kind == NodeForm::Kind::kAtenFallback || form.kind == NodeForm::Kind::kAtenOpType;
  size_t colons = spec.rfind("::");
  if (colons == std::string::npos) return (aten && form.aten_operator == spec) || node.op_type() == spec;
  std::string domain = spec.substr(0, colons), name = spec.substr(colons + 2);
  if (domain == "aten") return aten && form.aten_operator == name;
  return node.domain() == domain && node.op_type() == name;
}

}  // namespace

Expected<FoundNode> FindNodeForRule(const onnx::ModelProto& model, const std::string& spec) {
  ClassifyContext context;  // no target: what default-domain ONNX does not define is unmapped
  for (const auto& f : model.functions()) context.local_functions.insert(MatchKeyOp(f.domain(), f.name()));
  std::vector<Candidate> nodes = AllNodes(model);
  auto found = [&](const Candidate& c) {
    FoundNode n;
    n.node = c.node;
    n.form = ClassifyNode(*c.node, context);
    n.graph = c.graph;
    n.function = c.function;
    n.where = c.where;
    return n;
  };
  for (const Candidate& c : nodes) {
    if (c.node->name() != spec) continue;
    FoundNode n = found(c);
    if (!n.form.unmapped())
      return Status(ErrorCode::kUsage, fmt::format("node '{}' ({}) is standard ONNX: rules apply only to unmapped nodes",
                                                   spec, OpName(*c.node)));
    return n;
  }
  for (const Candidate& c : nodes) {
    FoundNode n = found(c);
    if (IsOperator(*c.node, n.form, spec)) return n;
  }
  return Status(ErrorCode::kUsage, fmt::format("no node named '{}' and no unmapped node of operator '{}' "
                                               "(see 'onnx-remap scan' for the unmapped nodes)", spec, spec));
}

}  // namespace remap::cli
