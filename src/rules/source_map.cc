#include "rules/source_map.h"

#include <cctype>
#include <fmt/format.h>

namespace remap {

std::string SourceLocation::ToString() const {
  if (line <= 0) return file;
  if (column <= 0) return fmt::format("{}:{}", file, line);
  return fmt::format("{}:{}:{}", file, line, column);
}

StringSource::StringSource(const std::string& file, std::shared_ptr<const std::string> file_text, int line0, int col0)
    : field_{file, line0 + 1, col0 + 1}, text_(std::move(file_text)), decoded_(std::make_shared<Decoded>()) {}

std::vector<std::pair<int, int>> StringSource::DecodePositions() const {
  std::vector<std::pair<int, int>> positions;
  if (!text_) return positions;
  const std::string& text = *text_;
  const int line0 = field_.line - 1, col0 = field_.column - 1;
  // Find the byte offset of (line0, col0).
  size_t p = 0;
  int line = 0;
  while (p < text.size() && line < line0) {
    if (text[p++] == '\n') ++line;
  }
  p += static_cast<size_t>(col0);
  int cur_line = line0 + 1, cur_col = col0 + 1;
  auto advance = [&](size_t n) {
    for (size_t k = 0; k < n && p < text.size(); ++k, ++p) {
      if (text[p] == '\n') { ++cur_line; cur_col = 1; }
      else ++cur_col;
    }
  };
  // Skip the field name and the ':' before the first literal.
  while (p < text.size() && text[p] != '"' && text[p] != '\'') {
    if (text[p] == '#') {
      while (p < text.size() && text[p] != '\n') advance(1);
      continue;
    }
    advance(1);
  }
  std::pair<int, int> end{cur_line, cur_col};
  // Decode consecutive string literals (protobuf concatenates them).
  while (p < text.size() && (text[p] == '"' || text[p] == '\'')) {
    char quote = text[p];
    advance(1);
    while (p < text.size() && text[p] != quote && text[p] != '\n') {
      std::pair<int, int> at{cur_line, cur_col};
      if (text[p] == '\\' && p + 1 < text.size()) {
        char e = text[p + 1];
        size_t len = 2;
        if (e == 'x') {
          while (p + len < text.size() && len < 4 && std::isxdigit(static_cast<unsigned char>(text[p + len]))) ++len;
        } else if (e >= '0' && e <= '7') {
          while (p + len < text.size() && len < 4 && text[p + len] >= '0' && text[p + len] <= '7') ++len;
        }
        advance(len);
      } else {
        advance(1);
      }
      positions.push_back(at);
    }
    end = {cur_line, cur_col};  // the closing quote: where "end of value" errors point
    advance(1);
    // Whitespace and comments between literals.
    while (p < text.size()) {
      if (std::isspace(static_cast<unsigned char>(text[p]))) advance(1);
      else if (text[p] == '#') { while (p < text.size() && text[p] != '\n') advance(1); }
      else break;
    }
  }
  positions.push_back(end);  // one past the last character
  return positions;
}

SourceLocation StringSource::Locate(size_t offset) const {
  if (!decoded_) return field_;
  std::call_once(decoded_->once, [this] { decoded_->positions = DecodePositions(); });
  const std::vector<std::pair<int, int>>& positions = decoded_->positions;
  if (positions.empty()) return field_;
  const auto& at = positions[offset < positions.size() ? offset : positions.size() - 1];
  return SourceLocation{field_.file, at.first, at.second};
}

}  // namespace remap
