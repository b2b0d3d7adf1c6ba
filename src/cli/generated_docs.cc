#include "cli/generated_docs.h"

namespace remap::cli {

std::string GenerateDoc(const CLI::App& app, const std::string& what) {
  const CommandDoc root = DescribeCommand(app);
  if (what == "man") return ManPage(root);
  if (what == "bash") return BashCompletion(root);
  if (what == "zsh") return ZshCompletion(root);
  return "";
}

}  // namespace remap::cli
