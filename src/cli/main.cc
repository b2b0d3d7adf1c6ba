// onnx-remap: the command line over the remap library. It parses options,
// calls the library, renders what it reports and picks the exit code.
#include <csignal>
#include <cstdio>
#include <cstdlib>
#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include <fmt/core.h>

#include "cli/command_line.h"
#include "cli/commands.h"
#include "model/file_bytes.h"
#include "report/exit_codes.h"

namespace {

// Ends the process once a command is done, without the destructors of
// static objects: the whole exit was about 2 ms of a small model's run of
// 45 ms (docs/performance-history.md), most of it tearing down ONNX's schema
// registry, which `rules check` still fills. Nothing is left for them to do: the
// command's outputs are written, synced and named by then, and the threads
// it started are joined; only stdio's buffers wait to be flushed. A
// sanitizer build exits as usual, for LeakSanitizer's check at exit.
int EndProcess(int exit_code) {
#if !defined(ONNX_REMAP_SANITIZE)
  std::fflush(nullptr);
  std::_Exit(exit_code);
#endif
  return exit_code;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace remap::cli;
  using remap::kExitUsage;
  // Under a file-size limit (ulimit -f) a write past it must fail with EFBIG
  // and be reported (exit 6, temp file removed), not kill the process.
  std::signal(SIGXFSZ, SIG_IGN);
  // Input models are read through mappings: one that another process
  // truncates mid-run is reported by name (exit 3), not a "Bus error".
  remap::InstallMappedFileFaultHandler(remap::kExitInputError);
#if defined(__GLIBC__)
  // A rewrite frees the nodes it replaces while it allocates their
  // replacements; glibc's fastbins keep such small chunks apart and cost
  // more to consolidate than they save (docs/performance-history.md: about 0.9x the
  // CPU on a 1M-node rewrite, 0.8x on 200k nodes).
  mallopt(M_MXFAST, 0);
#endif
  CommandLine cl;
  BuildCommandLine(&cl);
  CLI::App& app = cl.app;
  ModelArgs& rewrite = cl.rewrite;
  CLI::App* rw = cl.rewrite_cmd;

  try {
    app.parse(argc, argv);
    if (rw->parsed() && !rewrite.dry_run && cl.rewrite_output->count() == 0)
      throw CLI::RequiredError("-o,--output (or --dry-run)");
    if (rw->parsed() && rewrite.inputs.size() != 1)
      throw CLI::ValidationError("rewrite", "takes one model file or one folder");
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);  // --help, --version, --generate
    fmt::print(stderr, "onnx-remap: error: {}\n", e.what());
    fmt::print(stderr, "run 'onnx-remap --help' for usage\n");
    return kExitUsage;
  }
  if (rw->parsed()) return EndProcess(RunModelCommand(ModelCommand::kRewrite, rewrite));
  if (cl.scan_cmd->parsed()) return EndProcess(RunModelCommand(ModelCommand::kScan, cl.scan));
  if (cl.convert_cmd->parsed()) {
    if (cl.convert.inputs.size() != 1) {
      fmt::print(stderr, "onnx-remap: error: convert takes one model file or one folder\n");
      return kExitUsage;
    }
    return EndProcess(RunModelCommand(ModelCommand::kConvert, cl.convert));
  }
  if (cl.check_cmd->parsed()) return EndProcess(RunModelCommand(ModelCommand::kCheck, cl.check_models));
  RulesArgs& rules = cl.rules;
  if (cl.rules_check->parsed()) return EndProcess(RunRulesCheck(rules));
  if (cl.rules_new->parsed()) return EndProcess(RunRulesNew(cl.rules_new_args));
  rules.action = cl.rules_list->parsed() ? "list" : cl.rules_targets->parsed() ? "targets" : "show";
  return EndProcess(RunRules(rules));
}
