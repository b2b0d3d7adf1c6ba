// A plain description of the CLI11 app (commands, options, choices), read
// off the app itself: what the man page and completion generators write from.
#pragma once

#include <string>
#include <vector>

#include <CLI/CLI.hpp>

namespace remap::cli {

struct OptionDoc {
  std::vector<std::string> names;  // "-j", "--jobs"; for a positional its one name ("inputs")
  std::string value;               // the value's type ("TEXT", "INT"), "" for a flag
  std::string limits;              // what a validator adds to --help, e.g. "INT in [1 - 1000]"
  std::vector<std::string> choices;  // the allowed values, when a validator lists them
  std::string description;
  bool positional = false;
  bool required = false;
  bool repeatable = false;  // may be given several times, or takes several values
};

struct CommandDoc {
  std::vector<std::string> path;  // {"rules", "list"}; empty for the program itself
  std::string description;
  std::vector<OptionDoc> options;      // in --help order, hidden ones left out
  std::vector<OptionDoc> positionals;  // in order
  std::vector<CommandDoc> subcommands;
  bool needs_subcommand = false;
};

// Walks `app` and its subcommands.
CommandDoc DescribeCommand(const CLI::App& app);

// "onnx-remap rules list"
std::string CommandName(const CommandDoc& c);

}  // namespace remap::cli
