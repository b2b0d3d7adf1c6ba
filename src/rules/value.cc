#include "rules/value.h"

#include <fmt/format.h>

namespace remap {

bool Value::operator==(const Value& other) const {
  if (is_number() && other.is_number()) {
    if (kind == Kind::kFloat || other.kind == Kind::kFloat) return as_double() == other.as_double();
    return as_double() == other.as_double() && (kind == Kind::kBool ? b : i) == (other.kind == Kind::kBool ? other.b : other.i);
  }
  if (kind != other.kind) return false;
  switch (kind) {
    case Kind::kNone: return true;
    case Kind::kString:
    case Kind::kTensor: return s == other.s;
    case Kind::kList: return list == other.list;
    default: return false;
  }
}

const char* KindName(Value::Kind kind) {
  switch (kind) {
    case Value::Kind::kNone: return "None";
    case Value::Kind::kBool: return "bool";
    case Value::Kind::kInt: return "int";
    case Value::Kind::kFloat: return "float";
    case Value::Kind::kString: return "str";
    case Value::Kind::kList: return "list";
    case Value::Kind::kTensor: return "tensor";
  }
  return "?";
}

std::string ToString(const Value& v) {
  switch (v.kind) {
    case Value::Kind::kNone: return "None";
    case Value::Kind::kBool: return v.b ? "True" : "False";
    case Value::Kind::kInt: return std::to_string(v.i);
    case Value::Kind::kFloat: return fmt::format("{}", v.f);
    case Value::Kind::kString: return fmt::format("\"{}\"", v.s);
    case Value::Kind::kTensor: return fmt::format("tensor '{}'", v.s);
    case Value::Kind::kList: {
      std::string out = "[";
      for (size_t k = 0; k < v.list.size(); ++k) {
        if (k) out += ", ";
        out += ToString(v.list[k]);
      }
      return out + "]";
    }
  }
  return "?";
}

}  // namespace remap
