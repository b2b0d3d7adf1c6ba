#include "rules/expression.h"

#include <fmt/format.h>

#include "rules/expression_parser.h"

namespace remap {

bool Truthy(const Value& v, std::string* why) {
  switch (v.kind) {
    case Value::Kind::kNone: return false;
    case Value::Kind::kBool: return v.b;
    case Value::Kind::kInt: return v.i != 0;
    case Value::Kind::kFloat: return v.f != 0.0;  // NaN is true, as in Python
    case Value::Kind::kString: return !v.s.empty();
    case Value::Kind::kList: return !v.list.empty();
    case Value::Kind::kTensor:
      *why = fmt::format("{} has no truth value; test it with 'is None' or 'is not None'", ToString(v));
      return false;
  }
  return false;
}

Expression Expression::Parse(const std::string& text, ExprError* error) {
  Expression e;
  e.text_ = text;
  e.root_ = ParseExpressionTree(text, error);
  if (e.root_) e.names_ = FreeNames(*e.root_);
  return e;
}

}  // namespace remap
