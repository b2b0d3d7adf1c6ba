#include "cli/json_writer.h"

#include <fmt/format.h>

namespace remap::cli {

std::string JsonEscape(const std::string& s) {
  std::string out;
  out.reserve(s.size() + 2);
  for (unsigned char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        if (c < 0x20) out += fmt::format("\\u{:04x}", c);
        else out += static_cast<char>(c);
    }
  }
  return out;
}

void JsonWriter::Separate() {
  if (after_key_) {
    after_key_ = false;
    return;
  }
  if (!first_.empty()) {
    if (!first_.back()) out_ += ',';
    first_.back() = false;
  }
}

JsonWriter& JsonWriter::BeginObject() { Separate(); out_ += '{'; first_.push_back(true); return *this; }
JsonWriter& JsonWriter::EndObject() { out_ += '}'; first_.pop_back(); return *this; }
JsonWriter& JsonWriter::BeginArray() { Separate(); out_ += '['; first_.push_back(true); return *this; }
JsonWriter& JsonWriter::EndArray() { out_ += ']'; first_.pop_back(); return *this; }
JsonWriter& JsonWriter::Key(const std::string& key) {
  Separate();
  out_ += '"' + JsonEscape(key) + "\":";
  after_key_ = true;
  return *this;
}
JsonWriter& JsonWriter::String(const std::string& v) { Separate(); out_ += '"' + JsonEscape(v) + '"'; return *this; }
JsonWriter& JsonWriter::Int(long long v) { Separate(); out_ += std::to_string(v); return *this; }
JsonWriter& JsonWriter::Bool(bool v) { Separate(); out_ += v ? "true" : "false"; return *this; }
JsonWriter& JsonWriter::Null() { Separate(); out_ += "null"; return *this; }
JsonWriter& JsonWriter::StringArray(const std::vector<std::string>& values) {
  BeginArray();
  for (const auto& v : values) String(v);
  return EndArray();
}

}  // namespace remap::cli
