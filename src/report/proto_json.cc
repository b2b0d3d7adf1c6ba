#include "report/proto_json.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string_view>
#include <unordered_set>

#include <fmt/format.h>
#include <google/protobuf/descriptor.h>
#include <google/protobuf/util/json_util.h>

namespace remap {

namespace {

using google::protobuf::Descriptor;
using google::protobuf::FieldDescriptor;
using google::protobuf::Reflection;

// Protobuf's printer keeps the whole message as a tree of its own while it
// fills in default values: a 100k-node report took longer to print than the
// rewrite it reports, with 0.5 GB more memory. This writer walks the message
// by reflection and appends to one string.
class JsonWriter {
 public:
  JsonWriter(std::string* out, bool pretty) : out_(out), pretty_(pretty) {}

  void Message(const google::protobuf::Message& m, int depth) {
    const Descriptor* d = m.GetDescriptor();
    const Reflection* r = m.GetReflection();
    *out_ += '{';
    bool first = true;
    for (int i = 0; i < d->field_count(); ++i) {
      const FieldDescriptor* f = d->field(i);
      // Unset messages are left out; scalars and lists always print.
      if (f->cpp_type() == FieldDescriptor::CPPTYPE_MESSAGE && !f->is_repeated() && !r->HasField(m, f)) continue;
      if (!first) *out_ += ',';
      first = false;
      NewLine(depth + 1);
      String(f->name());
      *out_ += pretty_ ? ": " : ":";
      if (!f->is_repeated()) {
        Value(m, r, f, -1, depth + 1);
        continue;
      }
      const int n = r->FieldSize(m, f);
      *out_ += '[';
      for (int k = 0; k < n; ++k) {
        if (k > 0) *out_ += ',';
        NewLine(depth + 2);
        Value(m, r, f, k, depth + 2);
      }
      if (n > 0) NewLine(depth + 1);
      *out_ += ']';
    }
    if (!first) NewLine(depth);
    *out_ += '}';
  }

 private:
  // Element `k` of a repeated field, or the singular field when k < 0. Only
  // the types PlainMessage accepts.
  void Value(const google::protobuf::Message& m, const Reflection* r, const FieldDescriptor* f, int k, int depth) {
    const bool rep = k >= 0;
    switch (f->cpp_type()) {
      case FieldDescriptor::CPPTYPE_INT32: fmt::format_to(std::back_inserter(*out_), "{}", r->GetInt32(m, f)); break;
      case FieldDescriptor::CPPTYPE_DOUBLE: Double(r->GetDouble(m, f)); break;
      case FieldDescriptor::CPPTYPE_BOOL: *out_ += r->GetBool(m, f) ? "true" : "false"; break;
      case FieldDescriptor::CPPTYPE_STRING: {
        std::string scratch;
        String(rep ? r->GetRepeatedStringReference(m, f, k, &scratch) : r->GetStringReference(m, f, &scratch));
        break;
      }
      case FieldDescriptor::CPPTYPE_MESSAGE: Message(rep ? r->GetRepeatedMessage(m, f, k) : r->GetMessage(m, f), depth); break;
      default: break;
    }
  }

  void NewLine(int depth) {
    if (!pretty_) return;
    *out_ += '\n';
    out_->append(static_cast<size_t>(depth), ' ');
  }

  // 15 significant digits when they read back the same, else 17 (protobuf's
  // SimpleDtoa).
  void Double(double v) {
    if (std::isnan(v)) {
      *out_ += "\"NaN\"";
      return;
    }
    if (std::isinf(v)) {
      *out_ += v > 0 ? "\"Infinity\"" : "\"-Infinity\"";
      return;
    }
    char buf[40];
    std::snprintf(buf, sizeof buf, "%.15g", v);
    if (std::strtod(buf, nullptr) != v) std::snprintf(buf, sizeof buf, "%.17g", v);
    *out_ += buf;
  }

  // What protobuf escapes besides ASCII controls: C1 controls and Unicode's
  // invisible format characters (a reader's terminal would hide them).
  static bool EscapedCodePoint(uint32_t cp) {
    return (cp >= 0x80 && cp <= 0x9f) || cp == 0xad || (cp >= 0x600 && cp <= 0x603) || cp == 0x6dd || cp == 0x70f ||
           cp == 0x17b4 || cp == 0x17b5 || (cp >= 0x200b && cp <= 0x200f) || (cp >= 0x2028 && cp <= 0x202e) ||
           (cp >= 0x2060 && cp <= 0x2064) || (cp >= 0x206a && cp <= 0x206f) || cp == 0xfeff ||
           (cp >= 0xfff9 && cp <= 0xfffb) || (cp >= 0x1d173 && cp <= 0x1d17a) || cp == 0xe0001 || (cp >= 0xe0020 && cp <= 0xe007f);
  }

  // The code point of the UTF-8 sequence at s[i], and its length; 0 when the
  // bytes there are not UTF-8 (overlong, surrogate, cut short, past U+10FFFF).
  static size_t DecodeUtf8(std::string_view s, size_t i, uint32_t* cp) {
    const auto b = [&](size_t k) { return static_cast<uint8_t>(s[i + k]); };
    const uint8_t lead = b(0);
    size_t len = lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc0 ? 2 : 0;
    if (len == 0 || lead > 0xf4 || i + len > s.size()) return 0;
    uint32_t v = lead & (0x7f >> len);
    for (size_t k = 1; k < len; ++k) {
      if ((b(k) & 0xc0) != 0x80) return 0;
      v = v << 6 | (b(k) & 0x3f);
    }
    static constexpr uint32_t kMin[] = {0, 0, 0x80, 0x800, 0x10000};
    if (v < kMin[len] || v > 0x10ffff || (v >= 0xd800 && v <= 0xdfff)) return 0;
    *cp = v;
    return len;
  }

  void Unit(uint32_t u) { fmt::format_to(std::back_inserter(*out_), "\\u{:04x}", u); }

  void String(std::string_view s) {
    *out_ += '"';
    size_t plain = 0;  // start of the run not yet copied
    for (size_t i = 0; i < s.size();) {
      const uint8_t c = static_cast<uint8_t>(s[i]);
      if (c >= 0x80) {
        uint32_t cp = 0;
        const size_t len = DecodeUtf8(s, i, &cp);
        if (len != 0 && !EscapedCodePoint(cp)) {
          i += len;
          continue;
        }
        out_->append(s.data() + plain, i - plain);
        if (len == 0) {
          *out_ += "\xef\xbf\xbd";  // U+FFFD for each byte that is not UTF-8
          i += 1;
        } else if (cp >= 0x10000) {
          Unit(0xd800 + ((cp - 0x10000) >> 10));
          Unit(0xdc00 + ((cp - 0x10000) & 0x3ff));
          i += len;
        } else {
          Unit(cp);
          i += len;
        }
        plain = i;
        continue;
      }
      const char* escape = nullptr;
      switch (c) {
        case '"': escape = "\\\""; break;
        case '\\': escape = "\\\\"; break;
        case '\b': escape = "\\b"; break;
        case '\t': escape = "\\t"; break;
        case '\n': escape = "\\n"; break;
        case '\f': escape = "\\f"; break;
        case '\r': escape = "\\r"; break;
        default: break;
      }
      // '<' and '>' too, so that a report pasted into HTML cannot open a tag.
      const bool unit = !escape && (c < 0x20 || c == 0x7f || c == '<' || c == '>');
      if (!escape && !unit) {
        ++i;
        continue;
      }
      out_->append(s.data() + plain, i - plain);
      if (escape) *out_ += escape;
      else Unit(c);
      plain = ++i;
    }
    out_->append(s.data() + plain, s.size() - plain);
    *out_ += '"';
  }

  std::string* out_;
  bool pretty_;
};

// The messages this writer prints: proto3, with fields of the types the
// reports use (int32, double, bool, string, messages; lists of strings and of
// messages) and no oneof. Others (maps, enums, 64-bit integers, bytes, the
// well-known types, proto2 presence) have JSON forms of their own, and a
// message that holds any is printed by protobuf.
bool PlainMessage(const Descriptor* d, std::unordered_set<const Descriptor*>* seen) {
  if (!seen->insert(d).second) return true;
  if (d->file()->syntax() != google::protobuf::FileDescriptor::SYNTAX_PROTO3 || d->file()->package() == "google.protobuf")
    return false;
  for (int i = 0; i < d->field_count(); ++i) {
    const FieldDescriptor* f = d->field(i);
    if (f->is_map() || f->containing_oneof()) return false;
    switch (f->cpp_type()) {
      case FieldDescriptor::CPPTYPE_MESSAGE:
        if (!PlainMessage(f->message_type(), seen)) return false;
        break;
      case FieldDescriptor::CPPTYPE_STRING:
        if (f->type() == FieldDescriptor::TYPE_BYTES) return false;
        break;
      case FieldDescriptor::CPPTYPE_INT32:
      case FieldDescriptor::CPPTYPE_DOUBLE:
      case FieldDescriptor::CPPTYPE_BOOL:
        if (f->is_repeated()) return false;
        break;
      default: return false;
    }
  }
  return true;
}

}  // namespace

std::string MessageToJson(const google::protobuf::Message& message, bool pretty) {
  std::unordered_set<const Descriptor*> seen;
  if (!PlainMessage(message.GetDescriptor(), &seen)) return MessageToJsonWithProtobuf(message, pretty);
  std::string json;
  JsonWriter(&json, pretty).Message(message, 0);
  json += '\n';
  return json;
}

std::string MessageToJsonWithProtobuf(const google::protobuf::Message& message, bool pretty) {
  google::protobuf::util::JsonPrintOptions options;
  options.add_whitespace = pretty;
  options.always_print_primitive_fields = true;
  options.preserve_proto_field_names = true;
  std::string json;
  auto status = google::protobuf::util::MessageToJsonString(message, &json, options);
  if (!status.ok()) return fmt::format("{{\"error\": \"does not print as JSON: {}\"}}\n", status.ToString());
  if (json.empty() || json.back() != '\n') json += "\n";
  return json;
}

}  // namespace remap
