#include "cli/terminal_style.h"

#include <cstdlib>
#include <unistd.h>

namespace remap::cli {

TerminalStyle TerminalStyle::For(std::FILE* stream) {
  const bool terminal = ::isatty(::fileno(stream)) == 1;
  const char* no_color = std::getenv("NO_COLOR");
  const char* term = std::getenv("TERM");
  const bool dumb = term && std::string(term) == "dumb";
  return TerminalStyle(terminal && !(no_color && *no_color) && !dumb, terminal);
}

std::string TerminalStyle::Paint(const std::string& text, Color c) const {
  if (!color_) return text;
  const char* code = "";
  switch (c) {
    case Color::kRed: code = "31"; break;
    case Color::kGreen: code = "32"; break;
    case Color::kYellow: code = "33"; break;
    case Color::kBold: code = "1"; break;
    case Color::kDim: code = "2"; break;
  }
  return "\x1b[" + std::string(code) + "m" + text + "\x1b[0m";
}

}  // namespace remap::cli
