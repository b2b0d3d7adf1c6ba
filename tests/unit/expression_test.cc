#include <cmath>
#include <map>

#include <catch2/catch.hpp>

#include "rules/expression.h"

using remap::ExprError;
using remap::Expression;
using remap::Value;

namespace {

const Value* TestLookup(const std::string& name, std::string* why) {
  static const std::map<std::string, Value> values = {
      {"two", Value::Int(2)},
      {"eps", Value::Float(0.25)},
      {"none", Value::None()},
      {"t", Value::Tensor("x")},
      {"h", Value::Tensor("h", 10, 2)},  // float16, rank 2
      {"d", Value::Tensor("d", 11, 1)},  // float64
      {"s", Value::Tensor("s", 8, 1)},   // string
      {"xs", Value::List({Value::Int(3), Value::Int(1), Value::Int(2)})},
  };
  auto it = values.find(name);
  if (it != values.end()) return &it->second;
  *why = "argument '" + name + "' is not a constant";
  return nullptr;
}

Value Eval(const std::string& text) {
  ExprError e;
  Expression x = Expression::Parse(text, &e);
  INFO(text << ": " << e.message);
  REQUIRE_FALSE(x.empty());
  Value v;
  bool ok = x.Evaluate(TestLookup, &v, &e);
  INFO(text << ": " << e.message);
  REQUIRE(ok);
  return v;
}

std::string Show(const std::string& text) { return ToString(Eval(text)); }

ExprError EvalError(const std::string& text) {
  ExprError e;
  Expression x = Expression::Parse(text, &e);
  if (x.empty()) return e;
  Value v;
  bool ok = x.Evaluate([](const std::string& n, std::string* why) -> const Value* {
    if (n == "two" || n == "eps") {  // these fail here, to test where errors point
      *why = "argument '" + n + "' is not a constant";
      return nullptr;
    }
    return TestLookup(n, why);
  }, &v, &e);
  INFO(text << " gave " << ToString(v));
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
  CHECK(Show("none is not None and none > 0") == "False");
  CHECK(Show("1 if True else bogus") == "1");
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

TEST_CASE("int64 edge values", "[expression]") {
  CHECK(Eval("-9223372036854775808").i == INT64_MIN);
  CHECK(Eval("-9223372036854775807 - 1").i == INT64_MIN);
  CHECK(Eval("9223372036854775807").i == INT64_MAX);
  CHECK(EvalError("-(-9223372036854775808)").message == "integer overflow in -(-9223372036854775808)");
  CHECK(EvalError("-9223372036854775808 // -1").message == "integer overflow in -9223372036854775808 // -1");
  CHECK(Eval("-9223372036854775808 % -1").i == 0);
  CHECK(EvalError("-9223372036854775808 - 1").offset == 21);
  CHECK(EvalError("3037000500 * 3037000500").message == "integer overflow in 3037000500 * 3037000500");
  CHECK(EvalError("abs(-9223372036854775808)").message == "integer overflow in abs(-9223372036854775808)");
  CHECK(Eval("9223372036854775807 // 2 * 2 + 1").i == INT64_MAX);
  // PyTorch's slice passes end=INT64_MAX: min() keeps it exact.
  CHECK(Eval("min(9223372036854775807, 5)").i == 5);
  CHECK(Eval("9223372036854775807 == 9223372036854775807").b);
  CHECK_FALSE(Eval("9223372036854775807 == 9223372036854775808.0").b);  // 2^63 as a float
  CHECK(Eval("9223372036854775807 < 9223372036854775808.0").b);
  CHECK(Eval("-9223372036854775808 == -9223372036854775808.0").b);
  CHECK(Eval("9223372036854775807 / 1") .f == 9223372036854775808.0);
  CHECK(Eval("9223372036854775807 / 3").f == 3.0744573456182584e18);
  CHECK(Eval("1 < float('inf')").b);
  CHECK_FALSE(Eval("1 < float('nan')").b);
  CHECK_FALSE(Eval("1 == float('nan')").b);
  CHECK(Eval("1 != float('nan')").b);
  CHECK(Eval("True + 1").i == 2);
  CHECK(Eval("int(-2.9)").i == -2);
  CHECK(Eval("int(-9223372036854775808.0)").i == INT64_MIN);
  CHECK(EvalError("int(9223372036854775808.0)").message.find("int()") != std::string::npos);
  CHECK(Eval("int('-12')").i == -12);
  CHECK(EvalError("int('1.5')").message.find("not a decimal integer") != std::string::npos);
  CHECK(EvalError("99999999999999999999").offset == 0);
  CHECK(EvalError("1e400").message == "number 1e400 is out of range");
  CHECK(EvalError("1.2.3").message == "invalid number '1.2.'");
}

TEST_CASE("float arithmetic follows Python", "[expression]") {
  CHECK(Eval("-7.5 // 2").f == -4.0);
  CHECK(Eval("-7.5 % 2").f == 0.5);
  CHECK(Eval("7.5 % -2").f == -0.5);
  CHECK(Eval("7 / 2 * 2").f == 7.0);
  CHECK(EvalError("1 / 0").message == "division by zero");
  CHECK(EvalError("1.0 / 0").message == "float division by zero");
  CHECK(EvalError("1.0 // 0.0").message == "float floor division by zero");
  CHECK(EvalError("1.0 % 0").message == "float modulo by zero");
  CHECK(Show("2.0") == "2.0");
  CHECK(Show("float('inf')") == "inf");
  CHECK(Show("[0.5, 1]") == "[0.5, 1]");
}

TEST_CASE("** is right-associative and binds tighter than unary minus", "[expression]") {
  CHECK(Eval("-2**2").i == -4);
  CHECK(Eval("2**3**2").i == 512);
  CHECK(Eval("(-2)**3").i == -8);
  CHECK(Eval("2**-1").f == 0.5);
  CHECK(Eval("2**62").i == (int64_t{1} << 62));
  CHECK(Eval("(-2)**63").i == INT64_MIN);
  CHECK(Eval("2.0**0.5").f == Approx(1.4142135623730951));
  CHECK(Eval("pow(2, 10)").i == 1024);
  CHECK(Eval("math.pow(2, 10)").f == 1024.0);
  ExprError overflow = EvalError("1 + 2**63");
  CHECK(overflow.message == "integer overflow in 2 ** 63");
  CHECK(overflow.offset == 5);
  CHECK(EvalError("0**-1").message == "0 cannot be raised to a negative power");
  CHECK(EvalError("(-8.0)**0.5").message.find("not a real number") != std::string::npos);
  CHECK(EvalError("10.0**400").message == "float overflow in 10.0 ** 400.0");
}

TEST_CASE("indexing and slicing lists and strings", "[expression]") {
  CHECK(Show("xs[-1]") == "2");
  CHECK(Show("'abc'[1]") == "\"b\"");
  CHECK(Show("[1, 2, 3, 4, 5][1:-1]") == "[2, 3, 4]");
  CHECK(Show("xs[::-1]") == "[2, 1, 3]");
  CHECK(Show("xs[1:]") == "[1, 2]");
  CHECK(Show("xs[:1]") == "[3]");
  CHECK(Show("xs[:]") == "[3, 1, 2]");
  CHECK(Show("xs[10:]") == "[]");
  CHECK(Show("xs[-10:2]") == "[3, 1]");
  CHECK(Show("'abcdef'[::-2]") == "\"fdb\"");
  CHECK(Show("'abcdef'[1:5:2]") == "\"bd\"");
  CHECK(Show("xs[::9223372036854775807]") == "[3]");
  CHECK(Show("xs[-9223372036854775808:]") == "[3, 1, 2]");
  ExprError step = EvalError("xs[::0]");
  CHECK(step.message == "slice step cannot be zero");
  CHECK(step.offset == 5);
  CHECK(EvalError("xs[0.5:]").message.find("slice bounds must be ints") != std::string::npos);
  CHECK(EvalError("xs[3]").offset == 2);
  CHECK(EvalError("t[0]").message.find("cannot index") != std::string::npos);
}

TEST_CASE("comparisons chain and order numbers, strings and lists", "[expression]") {
  CHECK(Eval("0 <= two < 3").b);
  CHECK_FALSE(Eval("0 <= two < 2").b);
  CHECK_FALSE(Eval("3 < two < bogus").b);  // short-circuits like Python
  CHECK(Eval("'a' < 'b'").b);
  CHECK(Eval("[1, 2] < [1, 3]").b);
  CHECK(Eval("[1, 2] < [1, 2, 0]").b);
  CHECK(Eval("1 == 1.0").b);
  CHECK(Eval("'bc' in 'abcd'").b);
  CHECK(Eval("none is None is None").b);
  ExprError order = EvalError("'a' < 1");
  CHECK(order.message == "cannot order str and int");
  CHECK(order.offset == 4);
}

TEST_CASE("lists of literals are built once, and compared and indexed in place", "[expression]") {
  // A list of literals is one value made when parsed; the same results as built per evaluation.
  CHECK(Show("[1, 2.5, 'a', None, True]") == "[1, 2.5, \"a\", None, True]");
  CHECK(Show("[[1, 2], [], [3]]") == "[[1, 2], [], [3]]");
  CHECK(Show("[[1, two], [3]]") == "[[1, 2], [3]]");  // not all literals: built per evaluation
  CHECK(Show("[1, 2] + [3]") == "[1, 2, 3]");
  CHECK(Show("[1, 2] * 2") == "[1, 2, 1, 2]");
  CHECK(Show("[x * 2 for x in [1, 2, 3]]") == "[2, 4, 6]");
  CHECK(Show("['uint8', 'int8', 'int16'][two]") == "\"int16\"");
  CHECK(Show("[[1, 2], [3, 4]][1][0]") == "3");
  // A literal evaluated twice is the same value: nothing changed the first one.
  CHECK(Show("[[1, 2] + [9], [1, 2]]") == "[[1, 2, 9], [1, 2]]");
  CHECK(Eval("'int8' in ['bool', 'uint8', 'int8']").b);
  CHECK_FALSE(Eval("'int32' in ['bool', 'uint8', 'int8']").b);
  CHECK(Eval("two not in [0, 1]").b);
  CHECK(Eval("[1, 2] == [1, 2.0]").b);
  // Chains whose operands are computed, named and literal, left to right.
  CHECK(Eval("0 < two + 1 < 4 < two * 3 < 7").b);
  CHECK_FALSE(Eval("0 < two + 1 < 2").b);
  CHECK(Eval("xs == [3, 1, 2] != [1]").b);
  CHECK(Eval("1 < two <= 2 < eps * 16").b);
  CHECK(EvalError("[1, 2][5]").message.find("out of range") != std::string::npos);
  CHECK(EvalError("1 in 5").message.find("list or string") != std::string::npos);
}

TEST_CASE("list comprehensions", "[expression]") {
  CHECK(Show("[i * j for i in range(3) for j in range(2)]") == "[0, 0, 0, 1, 0, 2]");
  CHECK(Show("[x + 1 for x in xs if x > 1]") == "[4, 3]");
  CHECK(Show("[[i, j] for i in range(3) if i for j in range(i)]") == "[[1, 0], [2, 0], [2, 1]]");
  CHECK(Show("[c for c in 'ab']") == "[\"a\", \"b\"]");
  CHECK(Show("[a * b for a, b in zip(xs, [10, 20, 30])]") == "[30, 20, 60]");
  CHECK(Show("[k for k, v in enumerate(xs) if v == 1]") == "[1]");
  CHECK(Show("sum(x * x for x in xs)") == "14");
  CHECK(Show("[two for two in range(2)] + [two]") == "[0, 1, 2]");  // the variable is local
  CHECK(Show("[[y for y in range(x)] for x in range(3)]") == "[[], [0], [0, 1]]");
  CHECK(EvalError("[x for x in t]").message == "cannot iterate over tensor");
  CHECK(EvalError("[x for x in 3]").offset == 12);
  CHECK(EvalError("[a for a, b in [[1]]]").message.find("cannot unpack") != std::string::npos);
  CHECK(EvalError("[x for None in xs]").message.find("expected a variable name") != std::string::npos);
  CHECK(EvalError("[i for i in range(2000) for j in range(1000)]").message.find("more than 1000000 items") !=
        std::string::npos);
  CHECK(EvalError("[1 for i in range(1000000) for j in range(1000000) if False]").message.find("steps") !=
        std::string::npos);
}

TEST_CASE("names are read in place: indexing a big list per item copies nothing, copying it costs its size",
          "[expression]") {
  // 400 x 400: big[r][c] = 400 * r + c. A comprehension that copied `big` for
  // every index (as affine_grid's table lookups once did) would do 160,000
  // copies of 160,000 values.
  std::vector<Value> rows;
  for (int r = 0; r < 400; ++r) {
    std::vector<Value> row;
    for (int c = 0; c < 400; ++c) row.push_back(Value::Int(400 * r + c));
    rows.push_back(Value::List(std::move(row)));
  }
  const Value big = Value::List(std::move(rows));
  int lookups = 0;
  auto lookup = [&](const std::string& name, std::string* why) -> const Value* {
    if (name != "big") {
      *why = "unbound";
      return nullptr;
    }
    ++lookups;
    return &big;
  };
  auto eval = [&](const std::string& text, Value* v, ExprError* e) {
    Expression x = Expression::Parse(text, e);
    REQUIRE_FALSE(x.empty());
    lookups = 0;
    return x.Evaluate(lookup, v, e);
  };
  Value v;
  ExprError e;
  REQUIRE(eval("sum(big[i][j] for i in range(400) for j in range(400))", &v, &e));
  CHECK(ToString(v) == "12799920000");
  CHECK(lookups == 1);  // once per evaluation, not per use
  REQUIRE(eval("sum(len(row) for row in big) + len(big[7][1:5])", &v, &e));
  CHECK(ToString(v) == "160004");
  // A copy of the whole list per item is counted as work: 100 x 160,401 values.
  CHECK_FALSE(eval("[len(big) for i in range(100)]", &v, &e));
  CHECK(e.message.find("steps") != std::string::npos);
}

TEST_CASE("names() lists only free names, with offsets", "[expression]") {
  ExprError e;
  Expression x = Expression::Parse("[i * k for i in range(n) if i != skip] + [i] + [math.pi]", &e);
  REQUIRE_FALSE(x.empty());
  using Names = std::vector<std::pair<std::string, size_t>>;
  CHECK(x.names() == Names{{"k", 5}, {"n", 22}, {"skip", 33}, {"i", 42}});
  // A later clause sees the earlier variable; the first iterable does not.
  Expression y = Expression::Parse("[j for i in [i] for j in range(i)]", &e);
  CHECK(y.names() == Names{{"i", 13}});
  Expression z = Expression::Parse("sum(v for v in vs)", &e);
  CHECK(z.names() == Names{{"vs", 15}});
}

TEST_CASE("built-in functions", "[expression]") {
  CHECK(Show("min(3, 1, 2)") == "1");
  CHECK(Show("max(xs)") == "3");
  CHECK(Show("max(1, 2.5)") == "2.5");
  CHECK(Show("min('b', 'a')") == "\"a\"");
  CHECK(EvalError("min([])").message == "min() of an empty list");
  CHECK(Show("abs(-3)") == "3");
  CHECK(Show("abs(-0.5)") == "0.5");
  CHECK(Show("sum(xs)") == "6");
  CHECK(Show("sum([0.5, 1])") == "1.5");
  CHECK(Show("sum([[1], [2]], [])") == "[1, 2]");
  CHECK(EvalError("sum([9223372036854775807, 1])").message == "integer overflow in 9223372036854775807 + 1");
  CHECK(Show("round(2.5)") == "2");
  CHECK(Show("round(3.5)") == "4");
  CHECK(Show("round(-0.5)") == "0");
  CHECK(Show("round(-1.5)") == "-2");
  CHECK(Show("round(7)") == "7");
  CHECK(EvalError("round(float('nan'))").message.find("does not fit in int64") != std::string::npos);
  CHECK(Show("all([1, True])") == "True");
  CHECK(Show("all([])") == "True");
  CHECK(Show("any([0, None])") == "False");
  CHECK(Show("any(x > 2 for x in xs)") == "True");
  CHECK(Show("len('abc')") == "3");
  CHECK(Show("range(3)") == "[0, 1, 2]");
  CHECK(Show("range(1, 4)") == "[1, 2, 3]");
  CHECK(Show("range(5, 0, -2)") == "[5, 3, 1]");
  CHECK(Show("range(0)") == "[]");
  CHECK(Show("range(-9223372036854775808, -9223372036854775806)") == "[-9223372036854775808, -9223372036854775807]");
  CHECK(EvalError("range(1, 2, 0)").message == "range() step must not be zero");
  CHECK(EvalError("range(-9223372036854775808, 9223372036854775807)").message.find("more than 1000000") !=
        std::string::npos);
  CHECK(Show("list(zip([1, 2, 3], 'ab'))") == "[[1, \"a\"], [2, \"b\"]]");
  CHECK(Show("[0] * 3") == "[0, 0, 0]");
  CHECK(Show("2 * 'ab'") == "\"abab\"");
  CHECK(EvalError("[0] * 2000000").message.find("more than 1000000") != std::string::npos);
  CHECK(Show("float('0.5')") == "0.5");
  CHECK(Show("str(1.0)") == "\"1.0\"");
  CHECK(Show("bool([])") == "False");
  ExprError arity = EvalError("1 + len(xs, xs)");
  CHECK(arity.message == "len() takes 1 argument, got 2");
  CHECK(arity.offset == 4);
  CHECK(EvalError("log()").message == "log() takes 1 to 2 arguments, got 0");
  CHECK(EvalError("isinstance(1, int)").message == "unknown function 'isinstance'");
}

TEST_CASE("math functions in double precision, errors instead of NaN", "[expression]") {
  CHECK(Eval("exp(1)").f == Approx(2.718281828459045));
  CHECK(Eval("math.exp(1) == math.e").b);
  CHECK(Eval("log(8, 2)").f == 3.0);
  CHECK(Eval("log(math.e)").f == 1.0);
  CHECK(Eval("log2(1024)").f == 10.0);
  CHECK(Eval("log10(1000)").f == 3.0);
  CHECK(Eval("log1p(0)").f == 0.0);
  CHECK(Eval("expm1(0)").f == 0.0);
  CHECK(Eval("sqrt(16)").f == 4.0);
  CHECK(Eval("sin(0) + cos(0) + tan(0)").f == 1.0);
  CHECK(Eval("asin(1) * 2").f == Approx(M_PI));
  CHECK(Eval("acos(1)").f == 0.0);
  CHECK(Eval("atan(1) * 4").f == Approx(M_PI));
  CHECK(Eval("atan2(1, 1) * 4").f == Approx(M_PI));
  CHECK(Eval("sinh(0) + tanh(0)").f == 0.0);
  CHECK(Eval("cosh(0)").f == 1.0);
  CHECK(Eval("asinh(0) + atanh(0) + acosh(1)").f == 0.0);
  CHECK(Show("floor(-0.5)") == "-1");
  CHECK(Show("ceil(0.5)") == "1");
  CHECK(Show("math.floor(7)") == "7");
  CHECK(EvalError("floor(float('inf'))").message.find("does not fit in int64") != std::string::npos);
  CHECK(Show("factorial(20)") == "2432902008176640000");
  CHECK(EvalError("factorial(21)").message == "integer overflow in factorial(21)");
  CHECK(EvalError("factorial(-1)").message.find("non-negative") != std::string::npos);
  CHECK(EvalError("factorial(2.0)").message == "factorial() takes ints, got float");
  CHECK(Show("comb(5, 2)") == "10");
  CHECK(Show("comb(2, 5)") == "0");
  CHECK(Show("comb(62, 31)") == "465428353255261088");
  CHECK(EvalError("comb(67, 33)").message == "integer overflow in comb(67, 33)");
  CHECK(Eval("gamma(5)").f == Approx(24.0));
  CHECK(Eval("lgamma(0.5)").f == Approx(0.5723649429247004));
  CHECK(Eval("erf(0.5)").f == Approx(0.5204998778130465));
  CHECK(Eval("erfc(0)").f == 1.0);
  CHECK(Eval("math.pow(2, 0.5)").f == Approx(1.4142135623730951));
  CHECK(Eval("isnan(float('nan'))").b);
  CHECK(Eval("isinf(-math.inf)").b);
  CHECK(Eval("isnan(math.nan)").b);
  CHECK(Eval("math.tau == 2 * math.pi").b);
  CHECK(Eval("math.pi").f == M_PI);
  CHECK(std::isnan(Eval("sqrt(float('nan'))").f));  // NaN in, NaN out: the rule asked for it
  ExprError log = EvalError("1 + log(-1)");
  CHECK(log.message == "math domain error in log(-1)");
  CHECK(log.offset == 4);
  CHECK(EvalError("log(0)").message == "math domain error in log(0)");
  CHECK(EvalError("log(2, 1)").message == "division by zero in log(2, 1)");
  CHECK(EvalError("sqrt(-1)").message == "math domain error in sqrt(-1)");
  CHECK(EvalError("math.sqrt(-1.0)").message == "math domain error in sqrt(-1.0)");
  CHECK(EvalError("asin(2)").message == "math domain error in asin(2)");
  CHECK(EvalError("exp(1000)").message == "math range error in exp(1000)");
  CHECK(EvalError("gamma(0)").message == "math domain error in gamma(0)");
  CHECK(EvalError("gamma(-2)").message == "math domain error in gamma(-2)");
  CHECK(EvalError("gamma(200)").message == "math range error in gamma(200)");
  CHECK(EvalError("lgamma(-1)").message == "math domain error in lgamma(-1)");
  CHECK(EvalError("atanh(1)").message == "math domain error in atanh(1)");
  CHECK(EvalError("math.pow(0, -1)").message == "math domain error in pow(0, -1)");
  CHECK(EvalError("sin(float('inf'))").message == "math domain error in sin(inf)");
  CHECK(EvalError("sqrt('x')").message == "sqrt() takes numbers, got str");
  CHECK(EvalError("math.foo").message == "unknown name 'math.foo'");
  CHECK(EvalError("math.len(xs)").message == "unknown function 'math.len'");
  CHECK(EvalError("math.").message == "expected a name after 'math.'");
}

TEST_CASE("tensor() marks a value with an element type", "[expression]") {
  Value v = Eval("tensor(0.5, h)");
  CHECK(v.kind == Value::Kind::kFloat);
  CHECK(v.tensor_elem_type == 10);
  CHECK(Show("tensor(0.5, h)") == "tensor(0.5, \"float16\")");
  CHECK(Eval("tensor([1, 2], 'int32')").tensor_elem_type == 6);
  CHECK(Eval("tensor(0.5, d)").tensor_elem_type == 11);
  CHECK(Eval("tensor(1.0, 'bfloat16')").tensor_elem_type == 16);
  CHECK(Eval("tensor(2, 'uint8') + 1").tensor_elem_type == 0);  // an operation gives a plain value
  CHECK(Show("dtype(h)") == "\"float16\"");
  CHECK(Show("rank(h)") == "2");
  CHECK(EvalError("tensor(0.5, t)").message == "the dtype of 'x' is not known");
  CHECK(EvalError("dtype(t)").message == "the dtype of 'x' is not known");
  CHECK(EvalError("rank(t)").message.find("the rank of 'x' is not known") != std::string::npos);
  CHECK(EvalError("tensor(1, s)").message.find("cannot make a string tensor") != std::string::npos);
  CHECK(EvalError("tensor(1, 'float')").message.find("unknown dtype \"float\"") != std::string::npos);
  CHECK(EvalError("tensor(0.5, 'int64')").message == "0.5 is not an integer (for a int64 tensor)");
  CHECK(EvalError("tensor(300, 'uint8')").message == "300 is out of range for uint8");
  CHECK(EvalError("tensor([1, -1], 'uint32')").message == "-1 is out of range for uint32");
  CHECK(EvalError("tensor(2, 'bool')").message == "2 is out of range for bool");
  CHECK(EvalError("tensor(65520, 'float16')").message == "65520 does not fit in float16");
  CHECK(EvalError("tensor(1e39, 'float32')").message == "1e+39 does not fit in float32");
  CHECK(EvalError("tensor([[1], [2, 3]], 'int64')").message.find("rectangular") != std::string::npos);
  CHECK(EvalError("tensor('a', 'int64')").message == "tensor() of str");
  CHECK(EvalError("tensor(1, 2)").message.find("takes a dtype name or a tensor argument") != std::string::npos);
}
