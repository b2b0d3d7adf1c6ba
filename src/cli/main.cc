// onnx-remap: the command line over the remap library. It parses options,
// calls the library, renders what it reports and picks the exit code.
#include <CLI/CLI.hpp>
#include <fmt/core.h>

#include "cli/commands.h"
#include "cli/exit_codes.h"

namespace {

void AddRuleOptions(CLI::App* cmd, remap::cli::RuleOptions* rules) {
  cmd->add_option("--rules", rules->paths, "Rule file or folder (repeatable; later ones override earlier and built-in rules)");
  cmd->add_flag("--no-builtin-rules", rules->no_builtin, "Use only the rules given with --rules");
}

void AddTargetOption(CLI::App* cmd, std::string* target) {
  cmd->add_option("--target", *target, "Runtime the result is for (see 'onnx-remap rules targets'; default onnx)");
}

}  // namespace

int main(int argc, char** argv) {
  using namespace remap::cli;
  CLI::App app{"onnx-remap: rewrite the operators PyTorch could not export into standard ONNX"};
  app.set_version_flag("--version", "onnx-remap 0.1.0");
  app.require_subcommand(1);

  RewriteArgs rewrite;
  CLI::App* rw = app.add_subcommand("rewrite", "Rewrite unmapped nodes by rules and save the model");
  rw->add_option("input", rewrite.input, "Model to rewrite")->required();
  auto* out_opt = rw->add_option("-o,--output", rewrite.output, "Where to write the rewritten model");
  rw->add_option("--opset", rewrite.opset, "Default-domain opset of the result (raised only when safe)")->check(CLI::Range(1, 1000));
  AddTargetOption(rw, &rewrite.target);
  rw->add_flag("--dry-run", rewrite.dry_run, "Report what would change; write nothing");
  rw->add_flag("--json", rewrite.json, "Print the report as JSON");
  AddRuleOptions(rw, &rewrite.rules);

  ScanArgs scan;
  CLI::App* sc = app.add_subcommand("scan", "List the unmapped nodes of models and the rules that cover them");
  sc->add_option("inputs", scan.inputs, "Models to scan")->required();
  sc->add_option("--opset", scan.opset, "Target opset used to pick rules")->check(CLI::Range(1, 1000));
  AddTargetOption(sc, &scan.target);
  sc->add_flag("--json", scan.json, "Print the result as JSON");
  AddRuleOptions(sc, &scan.rules);

  RulesArgs rules;
  CLI::App* ru = app.add_subcommand("rules", "Show the loaded rules");
  ru->require_subcommand(1);
  CLI::App* list = ru->add_subcommand("list", "One line per rule");
  list->add_option("--format", rules.format, "text, json or markdown")->check(CLI::IsMember({"text", "json", "markdown"}));
  AddRuleOptions(list, &rules.rules);
  CLI::App* show = ru->add_subcommand("show", "One rule in full");
  show->add_option("id", rules.id, "Rule id")->required();
  show->add_option("--format", rules.format, "text or json")->check(CLI::IsMember({"text", "json"}));
  AddRuleOptions(show, &rules.rules);
  CLI::App* targets = ru->add_subcommand("targets", "The runtime targets and what each runs");
  targets->add_option("--format", rules.format, "text or json")->check(CLI::IsMember({"text", "json"}));
  AddRuleOptions(targets, &rules.rules);
  CLI::App* check = ru->add_subcommand(
      "check", "Self-check: rewrite a small typed model for every alternative (each opset end, dtype and enum value) and validate it");
  check->add_option("--rule", rules.check_ids, "Check only this rule id (repeatable)");
  check->add_option("--dtype", rules.check_dtypes, "Input element types to try (repeatable; default float32 float64 float16)");
  check->add_option("--format", rules.format, "text or json")->check(CLI::IsMember({"text", "json"}));
  AddRuleOptions(check, &rules.rules);
  RulesNewArgs rules_new;
  CLI::App* new_rule = ru->add_subcommand("new", "Write a starting rule for a node no rule covers: 'new MODEL NODE' or 'new aten::foo'");
  new_rule->add_option("model_or_operator", rules_new.model_or_operator, "MODEL, or alone an ATen operator of the schema table")->required();
  new_rule->add_option("node", rules_new.node, "A node name, or an operator (aten::foo, foo, domain::OpType): its first node");
  new_rule->add_option("-o,--output", rules_new.output, "Write the rule to this new file (never overwritten) instead of stdout");

  try {
    app.parse(argc, argv);
    if (rw->parsed() && !rewrite.dry_run && out_opt->count() == 0)
      throw CLI::RequiredError("-o,--output (or --dry-run)");
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);  // --help, --version
    fmt::print(stderr, "onnx-remap: error: {}\n", e.what());
    fmt::print(stderr, "run 'onnx-remap --help' for usage\n");
    return kExitUsage;
  }
  if (rw->parsed()) return RunRewrite(rewrite);
  if (sc->parsed()) return RunScan(scan);
  if (check->parsed()) return RunRulesCheck(rules);
  if (new_rule->parsed()) return RunRulesNew(rules_new);
  rules.action = list->parsed() ? "list" : targets->parsed() ? "targets" : "show";
  return RunRules(rules);
}
