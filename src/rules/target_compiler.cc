#include "rules/target_compiler.h"

#include <cctype>

#include <fmt/format.h>

#include "model/opset_import.h"
#include "rules/field_positions.h"

namespace remap {

namespace {

bool ValidTargetName(const std::string& name) {
  if (name.empty() || !std::islower(static_cast<unsigned char>(name[0]))) return false;
  for (char c : name) {
    const auto u = static_cast<unsigned char>(c);
    if (!(std::islower(u) || std::isdigit(u) || c == '-' || c == '_' || c == '.')) return false;
  }
  return true;
}

}  // namespace

std::unique_ptr<Target> CompileTarget(const rulefile::Target& msg, const rulefile::FieldPositions* tree,
                                      const SourceLocation& where, std::vector<std::string>* errors) {
  const size_t errors_before = errors->size();
  auto error = [&](const SourceLocation& at, const std::string& message) {
    errors->push_back(fmt::format("{}: error: {}", at.ToString(), message));
  };
  auto target = std::make_unique<Target>();
  target->name = msg.name();
  target->doc = msg.doc();
  target->location = where;

  if (!ValidTargetName(msg.name()))
    error(LocationOf(tree, rulefile::Target::kNameFieldNumber, where),
          msg.name().empty() ? "target has no name"
                             : fmt::format("target name '{}' must be lower-case, e.g. onnxruntime", msg.name()));

  constexpr int domain_field = rulefile::Target::kDomainFieldNumber;
  for (int k = 0; k < msg.domain_size(); ++k) {
    const std::string& d = msg.domain(k);
    if (IsDefaultDomain(d))
      error(LocationOf(tree, domain_field, where, k), "the default ONNX domain is in every target; list only other domains");
    else
      target->domains.insert(d);
  }

  constexpr int op_field = rulefile::Target::kOpFieldNumber;
  for (int k = 0; k < msg.op_size(); ++k) {
    const std::string& op = msg.op(k);
    const size_t sep = op.find("::");
    if (sep == std::string::npos || sep + 2 == op.size()) {
      error(LocationOf(tree, op_field, where, k),
            fmt::format("op '{}' must be written DOMAIN::OP_TYPE, e.g. 'com.microsoft::Inverse' "
                        "or '::EfficientNMS_TRT' for the default domain",
                        op));
      continue;
    }
    std::string domain = op.substr(0, sep);
    if (IsDefaultDomain(domain)) domain.clear();
    target->ops.emplace(domain, op.substr(sep + 2));
  }
  if (errors->size() != errors_before) return nullptr;
  return target;
}

}  // namespace remap
