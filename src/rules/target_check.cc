#include "rules/target_check.h"

#include <set>

#include <fmt/format.h>

#include "model/opset_import.h"

namespace remap {

void CheckAlternativeTargets(const Rule& rule, const FindTargetFn& find, const std::string& known,
                             std::vector<std::string>* errors) {
  auto error = [&](const SourceLocation& at, const std::string& message) {
    errors->push_back(fmt::format("{}: error: {}", at.ToString(), message));
  };
  for (const Alternative& alt : rule.alternatives) {
    std::vector<const Target*> listed;
    for (const TargetRef& ref : alt.targets) {
      const Target* t = find(ref.name);
      if (!t)
        error(ref.location, fmt::format("unknown target '{}' (known targets: {})", ref.name, known));
      else
        listed.push_back(t);
    }
    if (listed.size() != alt.targets.size()) continue;
    const SourceLocation replace_at = alt.replace_source ? alt.replace_source->field() : alt.location;
    std::set<std::string> seen;
    std::vector<const onnx::NodeProto*> nodes;
    alt.replacement.ForEachNode([&nodes](const onnx::NodeProto& n) { nodes.push_back(&n); });
    for (const onnx::NodeProto* n : nodes) {
      const onnx::NodeProto& node = *n;
      if (IsDefaultDomain(node.domain())) continue;
      const std::string op = node.domain() + "::" + node.op_type();
      if (!seen.insert(op).second) continue;
      if (alt.targets.empty()) {
        if (rule.builtin)
          error(replace_at, fmt::format("replace emits {}, which standard ONNX does not define: a built-in "
                                        "alternative must list the targets that run it (target: \"NAME\")",
                                        op));
        continue;
      }
      for (size_t k = 0; k < listed.size(); ++k) {
        if (!listed[k]->Runs(node.domain(), node.op_type()))
          error(alt.targets[k].location,
                fmt::format("target '{}' does not run {}, which the replacement emits", listed[k]->name, op));
      }
    }
  }
}

}  // namespace remap
