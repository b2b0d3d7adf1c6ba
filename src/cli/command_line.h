// The CLI11 app of onnx-remap: every subcommand and option, built in one
// place so that --help, the man page and the shell completions (which walk
// this app, see cli/generated_docs.h) come from the same source.
#pragma once

#include <CLI/CLI.hpp>

#include "cli/commands.h"

namespace remap::cli {

// The app and where each subcommand's options land. The app holds pointers
// into this struct, so it is built in place and never moved.
struct CommandLine {
  CLI::App app{"onnx-remap: rewrite the operators PyTorch could not export into standard ONNX"};
  ModelArgs rewrite, scan, check_models, convert;
  RulesArgs rules;
  CLI::App* rewrite_cmd = nullptr;
  CLI::App* scan_cmd = nullptr;
  CLI::App* check_cmd = nullptr;
  CLI::App* convert_cmd = nullptr;
  CLI::App* rules_list = nullptr;
  CLI::App* rules_show = nullptr;
  CLI::App* rules_targets = nullptr;
  CLI::App* rules_check = nullptr;
  RulesNewArgs rules_new_args;
  CLI::App* rules_new = nullptr;
  CLI::Option* rewrite_output = nullptr;
};

// Adds every subcommand and option to `cl->app`, and the hidden
// `--generate man|bash|zsh`, which prints the man page or a completion script
// and ends parsing with CLI::Success (exit 0).
void BuildCommandLine(CommandLine* cl);

}  // namespace remap::cli
