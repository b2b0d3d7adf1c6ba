#include "rules/value.h"

#include <cmath>

#include <fmt/format.h>

#include "rules/element_types.h"
#include "rules/numeric.h"

namespace remap {

bool Value::operator==(const Value& other) const {
  if (is_number() && other.is_number()) {
    if (is_int() && other.is_int()) return as_int() == other.as_int();
    if (!is_int() && !other.is_int()) return f == other.f;
    int order;
    return is_int() ? CompareIntDouble(as_int(), other.f, &order) && order == 0
                    : CompareIntDouble(other.as_int(), f, &order) && order == 0;
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

namespace {

std::string PlainToString(const Value& v);

}  // namespace

std::string ToString(const Value& v) {
  if (v.tensor_elem_type != 0 && v.kind != Value::Kind::kTensor)
    return fmt::format("tensor({}, \"{}\")", PlainToString(v), ElementTypeName(v.tensor_elem_type));
  return PlainToString(v);
}

namespace {

std::string PlainToString(const Value& v) {
  switch (v.kind) {
    case Value::Kind::kNone: return "None";
    case Value::Kind::kBool: return v.b ? "True" : "False";
    case Value::Kind::kInt: return std::to_string(v.i);
    case Value::Kind::kFloat: {
      // Python spells the special values inf, -inf, nan and keeps a ".0" on integral floats.
      if (std::isnan(v.f)) return "nan";
      if (std::isinf(v.f)) return v.f > 0 ? "inf" : "-inf";
      std::string s = fmt::format("{}", v.f);
      if (s.find_first_of(".e") == std::string::npos) s += ".0";
      return s;
    }
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

}  // namespace

}  // namespace remap
