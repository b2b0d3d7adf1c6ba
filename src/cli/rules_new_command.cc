// onnx-remap rules new [MODEL] NODE|OPERATOR [-o FILE]: a starting rule for a
// node no rule covers (see cli/rule_skeleton.h for what it holds).
#include <filesystem>
#include <fstream>

#include <fmt/core.h>

#include "cli/commands.h"
#include "report/exit_codes.h"
#include "cli/node_lookup.h"
#include "cli/rule_skeleton.h"
#include "model/model_loader.h"

namespace remap::cli {

namespace {

int Fail(const std::string& message, int code) {
  fmt::print(stderr, "onnx-remap: error: {}\n", message);
  return code;
}

}  // namespace

int RunRulesNew(const RulesNewArgs& args) {
  // Refused before any work: a rule being written by hand may live there.
  std::error_code ec;
  if (!args.output.empty() && std::filesystem::exists(args.output, ec))
    return Fail(fmt::format("{}: already exists; 'rules new' does not overwrite a file (choose another name)", args.output),
                kExitOutputError);
  Expected<std::string> rule = std::string();
  if (args.node.empty()) {  // one argument: an operator of the schema table
    rule = RuleForOperator(args.model_or_operator);
    if (!rule) return Fail(rule.status().message(), ExitCodeFor(rule.status().code()));
  } else {
    const std::string& path = args.model_or_operator;
    auto model = LoadModel(path);
    if (!model) return Fail(model.status().message(), ExitCodeFor(model.status().code()));
    auto found = FindNodeForRule(*model, args.node);
    if (!found) return Fail(fmt::format("{}: {}", path, found.status().message()), ExitCodeFor(found.status().code()));
    rule = RuleForNode(path, *model, *found);
    if (!rule) return Fail(fmt::format("{}: node '{}': {}", path, found->node->name(), rule.status().message()),
                           ExitCodeFor(rule.status().code()));
  }
  if (args.output.empty()) {
    fmt::print("{}", *rule);
    return kExitOk;
  }
  std::ofstream out(args.output, std::ios::binary);
  out << *rule;
  out.close();
  if (!out) return Fail(fmt::format("{}: cannot be written", args.output), kExitOutputError);
  fmt::print(stderr, "wrote {}\n", args.output);
  return kExitOk;
}

}  // namespace remap::cli
