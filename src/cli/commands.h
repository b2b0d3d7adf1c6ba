// The subcommands of the onnx-remap CLI. Each returns the process exit code.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace remap::cli {

struct RuleOptions {
  std::vector<std::string> paths;  // --rules
  bool no_builtin = false;         // --no-builtin-rules
};

struct RewriteArgs {
  std::string input;
  std::string output;
  std::optional<int> opset;
  std::string target = "onnx";  // --target
  bool dry_run = false;
  bool json = false;
  RuleOptions rules;
};

struct ScanArgs {
  std::vector<std::string> inputs;
  std::optional<int> opset;
  std::string target = "onnx";  // --target
  bool json = false;
  RuleOptions rules;
};

struct RulesArgs {
  std::string action;  // list | show | targets | check
  std::string id;
  std::string format = "text";  // text | json | markdown
  RuleOptions rules;
  std::vector<std::string> check_ids;     // rules check --rule
  std::vector<std::string> check_dtypes;  // rules check --dtype
};

struct RulesNewArgs {
  std::string model_or_operator;  // MODEL, or with no NODE an operator of the schema table
  std::string node;               // NODE: a node name or an operator
  std::string output;             // -o FILE; empty: stdout
};

int RunRewrite(const RewriteArgs& args);
int RunScan(const ScanArgs& args);
int RunRules(const RulesArgs& args);
int RunRulesCheck(const RulesArgs& args);
int RunRulesNew(const RulesNewArgs& args);

}  // namespace remap::cli
