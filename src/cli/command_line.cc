#include "cli/command_line.h"

#include <fmt/core.h>

#include "cli/allocator.h"
#include "cli/generated_docs.h"
#include "core/version.h"

namespace remap::cli {

namespace {

void AddRuleOptions(CLI::App* cmd, RuleOptions* rules) {
  // One path per --rules, so `--rules FILE MODEL` leaves MODEL to the positionals.
  cmd->add_option("--rules", rules->paths, "Rule file or folder (repeatable; later ones override earlier and built-in rules)")
      ->allow_extra_args(false);
  cmd->add_flag("--no-builtin-rules", rules->no_builtin, "Use only the rules given with --rules");
}

void AddTargetOption(CLI::App* cmd, std::string* target) {
  cmd->add_option("--target", *target, "Runtime the result is for (see 'onnx-remap rules targets'; default onnx)");
}

// What rewrite, scan and check share: inputs, opset, target, reports, batch control.
void AddModelOptions(CLI::App* cmd, ModelArgs* args, const char* inputs_help) {
  cmd->add_option("inputs", args->inputs, inputs_help)->required();
  cmd->add_option("--opset", args->opset, "Default-domain opset of the result (the model is converted to it first, up or down)")->check(CLI::Range(1, 1000));
  AddTargetOption(cmd, &args->target);
  cmd->add_flag("--json", args->json, "Print the report (docs/report-format.md) as JSON on stdout, instead of text");
  cmd->add_option("--report", args->report_path, "Also write the report to FILE");
  cmd->add_option("--report-format", args->report_format, "Format of --report: json (default) or junit")
      ->check(CLI::IsMember({"json", "junit"}));
  cmd->add_option("--explain", args->explain, "Show every candidate rule for the unmapped node NODE (by name) and why each did or did not apply");
  cmd->add_option("-j,--jobs", args->jobs, "Models processed in parallel (default: one per core)")->check(CLI::Range(1, 1024));
  cmd->add_option("--shard", args->shard, "Process only shard I of N (I/N, 0-based): split a folder of models across machines");
  cmd->add_flag("-v,--verbose", [args](int64_t n) { args->verbosity = static_cast<int>(n); }, "List every node, not only counts per rule");
  cmd->add_flag("-q,--quiet", [args](int64_t) { args->verbosity = -1; }, "Print only errors");
  AddRuleOptions(cmd, &args->rules);
}

void AddDataFilesOption(CLI::App* cmd, std::string* mode) {
  cmd->add_option("--data-files", *mode,
                  "How external data files reach another output folder: auto (default: reflink, else hard link, else "
                  "copy), reflink, link or copy")
      ->check(CLI::IsMember({"auto", "reflink", "link", "copy"}));
}

void AddWeightOptions(CLI::App* cmd, ModelArgs* args) {
  CLI::Option* ext = cmd->add_flag("--save-external-data", args->save_external_data,
                                   "Move initializers of --external-data-threshold bytes or more to one external data "
                                   "file next to the output (done anyway for a model past 2 GiB)");
  cmd->add_flag("--save-embedded", args->save_embedded,
                "Read external data back into the model (refused when it would pass protobuf's 2 GiB limit)")
      ->excludes(ext);
  cmd->add_option("--external-data-threshold", args->external_threshold,
                  "Initializers of this many bytes or more go to the external data file (default 1024)");
  cmd->add_option("--external-data-file", args->external_file,
                  "Name of that file, relative to the output's folder (default: the output's file name + .data)");
}

void AddNoFsyncOption(CLI::App* cmd, bool* no_fsync) {
  cmd->add_flag("--no-fsync", *no_fsync,
                "Do not sync the output to the disk before renaming it into place: faster for large weights; a killed "
                "run still leaves the old file or the new, but a power loss soon after may leave the new one incomplete");
}

// Hidden (empty group): the generators themselves leave it out of what they describe.
void AddGenerateOption(CLI::App* app) {
  app->add_option_function<std::string>(
         "--generate",
         [app](const std::string& what) {
           fmt::print("{}", GenerateDoc(*app, what));
           throw CLI::Success();
         },
         "Print the man page or a shell completion script")
      ->check(CLI::IsMember({"man", "bash", "zsh"}))
      ->group("");
}

}  // namespace

void BuildCommandLine(CommandLine* cl) {
  CLI::App& app = cl->app;
  app.set_version_flag("--version", fmt::format("{}; allocator: {}", VersionLine(), AllocatorName()));
  app.set_config("--config", "", "Read options from a TOML or INI file (a [rewrite], [scan] or [check] section per command)");
  app.require_subcommand(1);
  AddGenerateOption(&app);

  CLI::App* rw = app.add_subcommand("rewrite", "Rewrite unmapped nodes by rules and save the model (or a folder of models)");
  AddModelOptions(rw, &cl->rewrite, "Model to rewrite, or a folder: every *.onnx below it");
  cl->rewrite_output = rw->add_option("-o,--output", cl->rewrite.output, "Where to write: a file, or for a folder the output folder (the tree is mirrored)");
  rw->add_flag("--dry-run", cl->rewrite.dry_run, "Report what would change; write nothing");
  rw->add_flag("--infer-shapes", cl->rewrite.infer_shapes,
               "Also write the value_info that ONNX shape inference adds (by default the output keeps the types it "
               "came with)");
  rw->add_option("--validate", cl->rewrite.validate,
                 "What to validate: added (default: the nodes the rewrite added) or full (ONNX shape inference and the "
                 "checker over the whole result)")
      ->check(CLI::IsMember({"added", "full"}));
  rw->add_flag("--skip-existing", cl->rewrite.skip_existing, "Do not redo a model whose output exists (resume an interrupted batch)");
  rw->add_option("--other-files", cl->rewrite.other_files, "Files other than models in an input folder: skip (default) or copy")
      ->check(CLI::IsMember({"skip", "copy"}));
  AddDataFilesOption(rw, &cl->rewrite.data_files);
  AddWeightOptions(rw, &cl->rewrite);
  AddNoFsyncOption(rw, &cl->rewrite.no_fsync);
  cl->rewrite_cmd = rw;

  cl->scan_cmd = app.add_subcommand("scan", "List the unmapped nodes of models and the rules that cover them");
  AddModelOptions(cl->scan_cmd, &cl->scan, "Models or folders to scan");

  cl->check_cmd = app.add_subcommand(
      "check", "CI gate: exit 0 when every unmapped node would be rewritten and the result validates; writes nothing");
  AddModelOptions(cl->check_cmd, &cl->check_models, "Models or folders to check");

  // convert: the opset conversion alone, no rules (unmapped nodes are carried along untouched).
  ModelArgs& conv = cl->convert;
  CLI::App* cv = app.add_subcommand("convert", "Convert models to another default-domain opset (7 to 21 and up), applying no rules");
  cv->add_option("inputs", conv.inputs, "Model to convert, or a folder: every *.onnx below it")->required();
  cv->add_option("-o,--output", conv.output, "Where to write: a file, or for a folder the output folder")->required();
  cv->add_option("--opset", conv.opset, "Default-domain opset of the result")->required()->check(CLI::Range(1, 1000));
  cv->add_flag("--dry-run", conv.dry_run, "Report what would change; write nothing");
  cv->add_flag("--infer-shapes", conv.infer_shapes, "Also write the value_info that ONNX shape inference adds");
  cv->add_flag("--json", conv.json, "Print the report (docs/report-format.md) as JSON on stdout, instead of text");
  cv->add_option("--report", conv.report_path, "Also write the report to FILE");
  cv->add_option("--report-format", conv.report_format, "Format of --report: json (default) or junit")
      ->check(CLI::IsMember({"json", "junit"}));
  cv->add_option("-j,--jobs", conv.jobs, "Models processed in parallel (default: one per core)")->check(CLI::Range(1, 1024));
  AddDataFilesOption(cv, &conv.data_files);
  AddWeightOptions(cv, &conv);
  AddNoFsyncOption(cv, &conv.no_fsync);
  cv->add_flag("--skip-existing", conv.skip_existing, "Do not redo a model whose output exists (resume an interrupted batch)");
  cv->add_flag("-v,--verbose", [&conv](int64_t n) { conv.verbosity = static_cast<int>(n); }, "List every adapted node");
  cv->add_flag("-q,--quiet", [&conv](int64_t) { conv.verbosity = -1; }, "Print only errors");
  conv.rules.no_builtin = true;
  cl->convert_cmd = cv;

  RulesArgs& rules = cl->rules;
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
  check->add_option("--rule", rules.check_ids, "Check only this rule id (repeatable)")->allow_extra_args(false);
  check->add_option("--dtype", rules.check_dtypes, "Input element types to try (repeatable; default float32 float64 float16)");
  check->add_option("--format", rules.format, "text or json")->check(CLI::IsMember({"text", "json"}));
  AddRuleOptions(check, &rules.rules);
  RulesNewArgs& rules_new = cl->rules_new_args;
  CLI::App* new_rule = ru->add_subcommand("new", "Write a starting rule for a node no rule covers: 'new MODEL NODE' or 'new aten::foo'");
  new_rule->add_option("model_or_operator", rules_new.model_or_operator, "MODEL, or alone an ATen operator of the schema table")->required();
  new_rule->add_option("node", rules_new.node, "A node name, or an operator (aten::foo, foo, domain::OpType): its first node");
  new_rule->add_option("-o,--output", rules_new.output, "Write the rule to this new file (never overwritten) instead of stdout");
  cl->rules_new = new_rule;
  cl->rules_list = list;
  cl->rules_show = show;
  cl->rules_targets = targets;
  cl->rules_check = check;
}

}  // namespace remap::cli
