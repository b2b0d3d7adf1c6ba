// Colour for people at a terminal: only when the stream is a terminal and
// NO_COLOR (https://no-color.org) is not set.
#pragma once

#include <cstdio>
#include <string>

namespace remap::cli {

enum class Color { kRed, kGreen, kYellow, kBold, kDim };

class TerminalStyle {
 public:
  // Decides for `stream` (stdout or stderr).
  static TerminalStyle For(std::FILE* stream);
  static TerminalStyle Plain() { return TerminalStyle(false); }

  bool color() const { return color_; }
  bool is_terminal() const { return terminal_; }
  std::string Paint(const std::string& text, Color c) const;

 private:
  explicit TerminalStyle(bool color, bool terminal = false) : color_(color), terminal_(terminal) {}
  bool color_;
  bool terminal_;
};

}  // namespace remap::cli
