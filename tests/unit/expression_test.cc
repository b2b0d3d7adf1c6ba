#include <cmath>

#include <catch2/catch.hpp>

#include "rules/expression.h"

using remap::ExprError;
using remap::Expression;
using remap::Value;

namespace {

Value Eval(const std::string& text) {
  ExprError e;
  Expression x = Expression::Parse(text, &e);
  INFO(text << ": " << e.message);
  REQUIRE_FALSE(x.empty());
  auto lookup = [](const std::string& name, Value* out, std::string* why) {
    if (name == "two") { *out = Value::Int(2); return true; }
    if (name == "eps") { *out = Value::Float(0.25); return true; }
    if (name == "none") { *out = Value::None(); return true; }
    if (name == "t") { *out = Value::Tensor("x"); return true; }
    *why = "argument '" + name + "' is not a constant";
    return false;
  };
  Value v;
  REQUIRE(x.Evaluate(lookup, &v, &e));
  return v;
}

ExprError EvalError(const std::string& text) {
  ExprError e;
  Expression x = Expression::Parse(text, &e);
  if (x.empty()) return e;
  Value v;
  bool ok = x.Evaluate([](const std::string& n, Value* out, std::string* why) {
    if (n == "t") { *out = Value::Tensor("x"); return true; }
    *why = "argument '" + n + "' is not a constant";
    return false;
  }, &v, &e);
  REQUIRE_FALSE(ok);
  return e;
}

}  // namespace

TEST_CASE("expressions compute lists, enums and guards", "[expression]") {
  CHECK(ToString(Eval("[two, two]")) == "[2, 2]");
  CHECK(ToString(Eval("[1, two] + [3]")) == "[1, 2, 3]");
  CHECK(ToString(Eval("['bilinear', 'nearest', 'bicubic'][two]")) == "\"bicubic\"");
  CHECK(ToString(Eval("['a', 'b'][-1]")) == "\"b\"");
  CHECK(Eval("1.0 - eps").f == Approx(0.75));
  CHECK(Eval("none is None").b);
  CHECK(Eval("t is not None").b);
  CHECK(Eval("not none is None") .b == false);
  CHECK(Eval("two == 2 and eps < 1").b);
  CHECK(Eval("'half_pixel' if two else 'output_half_pixel'").s == "half_pixel");
  CHECK(Eval("0 if -two < 0 else two").i == 0);
  CHECK(Eval("-7 // two").i == -4);  // floors like Python
  CHECK(Eval("-7 % two").i == 1);
  CHECK(Eval("len([1, 2, 3])").i == 3);
  CHECK(Eval("int(2.9)").i == 2);
  CHECK(Eval("True").b);
  CHECK(Eval("two in [1, 2]").b);
  CHECK(std::isinf(Eval("float('-inf')").f));
  CHECK(std::isnan(Eval("float('nan')").f));
  CHECK(Eval("'x' not in ['a', 'b']").b);
  CHECK_FALSE(Eval("3 in [1, 2]").b);
}

TEST_CASE("expression errors point at the offending character", "[expression]") {
  CHECK(EvalError("[1, 2").offset == 5);
  CHECK(EvalError("two +").message == "expression is incomplete");
  ExprError unknown = EvalError("1 + bogus(2)");
  CHECK(unknown.offset == 4);
  CHECK(unknown.message.find("unknown function 'bogus'") != std::string::npos);
  ExprError range = EvalError("[1, 2][5]");
  CHECK(range.offset == 6);
  CHECK(range.message.find("out of range") != std::string::npos);
  ExprError not_const = EvalError("1 + eps");
  CHECK(not_const.offset == 4);
  CHECK(not_const.message == "argument 'eps' is not a constant");
  CHECK(EvalError("t == 1").message.find("tensors only compare with None") != std::string::npos);
  CHECK(EvalError("x is 3").message.find("only 'is None'") != std::string::npos);
  CHECK(EvalError("a = 1").message.find("unexpected character '='") != std::string::npos);
}

TEST_CASE("and/or return an operand and short-circuit, as in Python", "[expression]") {
  CHECK(ToString(Eval("none or 2.0")) == "2.0");
  CHECK(ToString(Eval("0 or []")) == "[]");
  CHECK(Eval("two and 3").i == 3);
  CHECK(Eval("0 and bogus").i == 0);  // the right side is not evaluated
  CHECK(Eval("none is None or none > 0").b);
  CHECK(ToString(Eval("none and 1")) == "None");
}

TEST_CASE("integers stay int64 end to end", "[expression]") {
  CHECK(Eval("9007199254740993 + 0").i == 9007199254740993LL);
  CHECK(Eval("9223372036854775807 - 1").i == 9223372036854775806LL);
  CHECK(Eval("9223372036854775807 // 3").i == 3074457345618258602LL);
  CHECK_FALSE(Eval("9007199254740993 == 9007199254740992.0").b);
  CHECK(Eval("9007199254740993 > 9007199254740992.0").b);
  ExprError overflow = EvalError("9223372036854775807 + 1");
  CHECK(overflow.message == "integer overflow in 9223372036854775807 + 1");
  CHECK(overflow.offset == 20);
  CHECK(EvalError("int(float('inf'))").message.find("int()") != std::string::npos);
  CHECK(EvalError("int(float('nan'))").message.find("int()") != std::string::npos);
  CHECK(EvalError("int(1e19)").message.find("int()") != std::string::npos);
  CHECK(EvalError("9223372036854775808").message.find("does not fit in int64") != std::string::npos);
  CHECK(EvalError("7 // 0").message == "integer division by zero");
  CHECK(EvalError("7 % 0").message == "integer modulo by zero");
  CHECK(Eval("7 / 2").f == 3.5);
  CHECK(Eval("4 / 2").kind == Value::Kind::kFloat);
}
