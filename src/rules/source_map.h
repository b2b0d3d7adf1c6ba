// Maps byte offsets inside a string field of a rule file back to the file's
// line and column, so errors in expressions and replacements point at the
// exact character even when the value spans several concatenated literals.
#pragma once

#include <fmt/format.h>

#include <memory>
#include <string_view>
#include <string>
#include <utility>
#include <vector>

namespace remap {

// A rule file's name as locations hold it: copying a location copies a
// pointer, not the name (each report record of a rewritten node holds three
// locations, and a million-node model has a hundred thousand such records).
class FileName {
 public:
  FileName() = default;
  FileName(const std::string& name)  // NOLINT: implicit, a location is built from a name
      : name_(name.empty() ? nullptr : std::make_shared<const std::string>(name)) {}
  FileName(const char* name) : FileName(std::string(name)) {}  // NOLINT: implicit

  const std::string& str() const { return name_ ? *name_ : Empty(); }
  operator const std::string&() const { return str(); }  // NOLINT: implicit, reads as a string
  bool empty() const { return str().empty(); }
  friend bool operator==(const FileName& a, const std::string& b) { return a.str() == b; }
  friend bool operator==(const FileName& a, const char* b) { return a.str() == b; }

 private:
  static const std::string& Empty() {
    static const std::string empty;
    return empty;
  }
  std::shared_ptr<const std::string> name_;
};

struct SourceLocation {
  FileName file;
  int line = 0;    // 1-based; 0 = unknown
  int column = 0;  // 1-based

  std::string ToString() const;  // "file:line:col" (or less when unknown)
};

class StringSource {
 public:
  StringSource() = default;
  // `file_text` is the whole rule file, shared by every field of it; (line0,
  // col0) is the 0-based position of the field name, as protobuf's
  // ParseInfoTree records it.
  StringSource(const std::string& file, std::shared_ptr<const std::string> file_text, int line0, int col0);

  // Decodes the literals only when asked: locations are wanted for errors,
  // and decoding every field of every rule file at load cost a fifth of it.
  SourceLocation Locate(size_t offset) const;
  const SourceLocation& field() const { return field_; }

 private:
  // The 1-based position of each decoded character, and one past the last.
  std::vector<std::pair<int, int>> DecodePositions() const;

  SourceLocation field_;
  std::shared_ptr<const std::string> text_;
};

}  // namespace remap

template <>
struct fmt::formatter<remap::FileName> : fmt::formatter<std::string_view> {
  template <typename Context>
  auto format(const remap::FileName& f, Context& ctx) const {
    return fmt::formatter<std::string_view>::format(f.str(), ctx);
  }
};
