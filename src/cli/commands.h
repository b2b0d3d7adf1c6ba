// The subcommands of the onnx-remap CLI. Each returns the process exit code.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace remap::cli {

struct RuleOptions {
  std::vector<std::string> paths;  // --rules
  bool no_builtin = false;         // --no-builtin-rules
};

// Options shared by rewrite, scan and check.
struct ModelArgs {
  std::vector<std::string> inputs;  // model files or folders
  std::string output;               // rewrite: a file, or a folder for a folder input
  std::optional<int> opset;
  std::string target = "onnx";  // --target
  bool dry_run = false;
  bool infer_shapes = false;         // rewrite --infer-shapes
  std::string validate = "added";    // rewrite --validate: added | full
  bool json = false;                 // the report as JSON on stdout
  std::string report_path;           // --report FILE
  std::string report_format = "json";  // --report-format json|junit
  std::string explain;               // --explain NODE
  int jobs = 0;                      // --jobs (0: one per core)
  std::string shard;                 // --shard I/N
  bool skip_existing = false;
  std::string other_files = "skip";  // --other-files skip|copy
  std::string data_files = "auto";   // --data-files auto|reflink|link|copy
  bool save_external_data = false;   // --save-external-data
  bool save_embedded = false;        // --save-embedded
  uint64_t external_threshold = 1024;  // --external-data-threshold BYTES
  std::string external_file;           // --external-data-file NAME
  bool no_fsync = false;               // --no-fsync
  int verbosity = 0;                 // -v: 1, -q: -1
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

enum class ModelCommand { kRewrite, kScan, kCheck, kConvert };

int RunModelCommand(ModelCommand command, const ModelArgs& args);
int RunRules(const RulesArgs& args);
int RunRulesCheck(const RulesArgs& args);
int RunRulesNew(const RulesNewArgs& args);

}  // namespace remap::cli
