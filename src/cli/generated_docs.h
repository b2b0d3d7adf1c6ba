// The man page and the bash and zsh completion scripts, generated from the
// CLI11 app that --help prints (see cli/command_doc.h). The build runs
// `onnx-remap --generate man|bash|zsh` and installs what it prints.
#pragma once

#include <string>

#include <CLI/CLI.hpp>

#include "cli/command_doc.h"

namespace remap::cli {

std::string ManPage(const CommandDoc& root);         // roff for man(1)
std::string BashCompletion(const CommandDoc& root);  // defines _onnx_remap; `complete` registers it
std::string ZshCompletion(const CommandDoc& root);   // a #compdef onnx-remap file

// `what` is "man", "bash" or "zsh" (else empty).
std::string GenerateDoc(const CLI::App& app, const std::string& what);

}  // namespace remap::cli
