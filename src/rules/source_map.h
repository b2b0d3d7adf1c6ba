// Maps byte offsets inside a string field of a rule file back to the file's
// line and column, so errors in expressions and replacements point at the
// exact character even when the value spans several concatenated literals.
#pragma once

#include <fmt/format.h>

#include "core/shared_string.h"

#include <memory>
#include <mutex>
#include <string_view>
#include <string>
#include <utility>
#include <vector>

namespace remap {

// A rule file's name as locations hold it: copying a location copies a
// pointer, not the name (each report record holds several locations).
using FileName = SharedString;

struct SourceLocation {
  FileName file;
  int line = 0;    // 1-based; 0 = unknown
  int column = 0;  // 1-based

  std::string ToString() const;  // "file:line:col" (or less when unknown)

  friend bool operator==(const SourceLocation& a, const SourceLocation& b) {
    return a.line == b.line && a.column == b.column && a.file == b.file;
  }
};

class StringSource {
 public:
  StringSource() = default;
  // `file_text` is the whole rule file, shared by every field of it; (line0,
  // col0) is the 0-based position of the field name, as protobuf's
  // ParseInfoTree records it.
  StringSource(const std::string& file, std::shared_ptr<const std::string> file_text, int line0, int col0);

  // Decodes the literals only when first asked: locations are wanted for
  // errors, and decoding every field of every rule file at load cost a fifth
  // of it. Then kept: a rule refused on each of thousands of nodes asks for
  // the same field's locations each time.
  SourceLocation Locate(size_t offset) const;
  const SourceLocation& field() const { return field_; }

 private:
  // The 1-based position of each decoded character, and one past the last.
  std::vector<std::pair<int, int>> DecodePositions() const;

  // The decoded positions, made once; shared by copies of this source, and
  // safe to ask for from the threads that match models of a batch.
  struct Decoded {
    std::once_flag once;
    std::vector<std::pair<int, int>> positions;
  };

  SourceLocation field_;
  std::shared_ptr<const std::string> text_;
  std::shared_ptr<Decoded> decoded_;
};

}  // namespace remap
