// Python's math module in double precision. As in CPython, a NaN result from
// a non-NaN argument is a domain error and an infinite result from finite
// arguments is a domain error (a pole, e.g. log(0)) or a range error
// (overflow, e.g. exp(1000)): rules get an error, never a silent NaN.
#include <cmath>
#include <map>

#include <fmt/format.h>

#include "rules/expression_functions.h"
#include "rules/numeric.h"

namespace remap {

namespace {

using Args = std::vector<Value>;

bool Fail(std::string* why, std::string message) {
  *why = std::move(message);
  return false;
}

std::string Call(const char* name, Args& args) {
  std::string s = std::string(name) + "(";
  for (size_t k = 0; k < args.size(); ++k) s += (k ? ", " : "") + ToString(args[k]);
  return s + ")";
}

bool Numbers(const char* name, Args& args, std::string* why) {
  for (const Value& a : args) {
    if (!a.is_number()) return Fail(why, fmt::format("{}() takes numbers, got {}", name, KindName(a.kind)));
  }
  return true;
}

bool IsNonPositiveInteger(double x) { return x <= 0 && std::trunc(x) == x; }

// Applies CPython's error rules to a float result.
bool Checked(const char* name, Args& args, double r, bool pole_is_domain, Value* out, std::string* why) {
  bool any_nan = false, all_finite = true;
  for (const Value& a : args) {
    any_nan = any_nan || std::isnan(a.as_double());
    all_finite = all_finite && std::isfinite(a.as_double());
  }
  if (std::isnan(r) && !any_nan) return Fail(why, "math domain error in " + Call(name, args));
  if (std::isinf(r) && all_finite)
    return Fail(why, (pole_is_domain ? "math domain error in " : "math range error in ") + Call(name, args));
  *out = Value::Float(r);
  return true;
}

struct Unary {
  double (*f)(double);
  bool pole_is_domain;  // an infinite result from a finite argument is a pole, not an overflow
};

const std::map<std::string, Unary>& UnaryTable() {
  static const std::map<std::string, Unary> table = {
      {"exp", {[](double x) { return std::exp(x); }, false}},
      {"expm1", {[](double x) { return std::expm1(x); }, false}},
      {"log2", {[](double x) { return std::log2(x); }, true}},
      {"log10", {[](double x) { return std::log10(x); }, true}},
      {"log1p", {[](double x) { return std::log1p(x); }, true}},
      {"sqrt", {[](double x) { return std::sqrt(x); }, true}},
      {"sin", {[](double x) { return std::sin(x); }, true}},
      {"cos", {[](double x) { return std::cos(x); }, true}},
      {"tan", {[](double x) { return std::tan(x); }, true}},
      {"asin", {[](double x) { return std::asin(x); }, true}},
      {"acos", {[](double x) { return std::acos(x); }, true}},
      {"atan", {[](double x) { return std::atan(x); }, true}},
      {"sinh", {[](double x) { return std::sinh(x); }, false}},
      {"cosh", {[](double x) { return std::cosh(x); }, false}},
      {"tanh", {[](double x) { return std::tanh(x); }, true}},
      {"asinh", {[](double x) { return std::asinh(x); }, true}},
      {"acosh", {[](double x) { return std::acosh(x); }, true}},
      {"atanh", {[](double x) { return std::atanh(x); }, true}},
      {"erf", {[](double x) { return std::erf(x); }, true}},
      {"erfc", {[](double x) { return std::erfc(x); }, true}},
      {"fabs", {[](double x) { return std::fabs(x); }, true}},
  };
  return table;
}

bool CallUnary(const char* name, Args& args, Value* out, std::string* why) {
  if (!Numbers(name, args, why)) return false;
  const Unary& u = UnaryTable().at(name);
  return Checked(name, args, u.f(args[0].as_double()), u.pole_is_domain, out, why);
}

bool CallLog(const char* name, Args& args, Value* out, std::string* why) {
  if (!Numbers(name, args, why)) return false;
  double x = args[0].as_double();
  if (x <= 0) return Fail(why, "math domain error in " + Call(name, args));
  double r = std::log(x);
  if (args.size() == 2) {
    double base = args[1].as_double();
    if (base <= 0) return Fail(why, "math domain error in " + Call(name, args));
    if (base == 1) return Fail(why, "division by zero in " + Call(name, args));
    r /= std::log(base);
  }
  return Checked(name, args, r, true, out, why);
}

bool CallGamma(const char* name, Args& args, Value* out, std::string* why) {
  if (!Numbers(name, args, why)) return false;
  double x = args[0].as_double();
  if (IsNonPositiveInteger(x) || x == -INFINITY) return Fail(why, "math domain error in " + Call(name, args));
  return Checked(name, args, std::string(name) == "gamma" ? std::tgamma(x) : std::lgamma(x), false, out, why);
}

bool CallBinary(const char* name, Args& args, Value* out, std::string* why) {
  if (!Numbers(name, args, why)) return false;
  double a = args[0].as_double(), b = args[1].as_double();
  std::string n = name;
  if (n == "atan2") return Checked(name, args, std::atan2(a, b), true, out, why);
  if (n == "hypot") return Checked(name, args, std::hypot(a, b), false, out, why);
  // pow: always float, as math.pow.
  if (a == 0 && b < 0) return Fail(why, "math domain error in " + Call(name, args));
  return Checked(name, args, std::pow(a, b), false, out, why);
}

// floor, ceil, trunc: ints, as Python's math.floor.
bool CallToInt(const char* name, Args& args, Value* out, std::string* why) {
  if (!Numbers(name, args, why)) return false;
  if (args[0].is_int()) {
    *out = Value::Int(args[0].as_int());
    return true;
  }
  double x = args[0].f, r = std::string(name) == "floor" ? std::floor(x) : std::string(name) == "ceil" ? std::ceil(x) : std::trunc(x);
  int64_t i;
  if (!DoubleToInt64(r, &i)) return Fail(why, fmt::format("{} does not fit in int64", Call(name, args)));
  *out = Value::Int(i);
  return true;
}

bool CallClassify(const char* name, Args& args, Value* out, std::string* why) {
  if (!Numbers(name, args, why)) return false;
  double x = args[0].as_double();
  std::string n = name;
  *out = Value::Bool(n == "isnan" ? std::isnan(x) : n == "isinf" ? std::isinf(x) : std::isfinite(x));
  return true;
}

bool Ints(const char* name, Args& args, std::string* why) {
  for (const Value& a : args) {
    if (!a.is_int()) return Fail(why, fmt::format("{}() takes ints, got {}", name, KindName(a.kind)));
    if (a.as_int() < 0) return Fail(why, fmt::format("{}() takes non-negative ints, got {}", name, a.as_int()));
  }
  return true;
}

bool CallFactorial(const char* name, Args& args, Value* out, std::string* why) {
  if (!Ints(name, args, why)) return false;
  int64_t r = 1;
  for (int64_t k = 2; k <= args[0].as_int(); ++k) {
    if (!CheckedMul(r, k, &r)) return Fail(why, "integer overflow in " + Call(name, args));
  }
  *out = Value::Int(r);
  return true;
}

bool CallComb(const char* name, Args& args, Value* out, std::string* why) {
  if (!Ints(name, args, why)) return false;
  __extension__ typedef __int128 I128;
  int64_t n = args[0].as_int(), k = args[1].as_int();
  if (k > n) {
    *out = Value::Int(0);
    return true;
  }
  k = std::min(k, n - k);
  // C(n, i + 1) = C(n, i) * (n - i) / (i + 1) is exact and grows with i up to
  // n / 2, so the first intermediate beyond int64 means the result is too.
  int64_t r = 1;
  for (int64_t i = 0; i < k; ++i) {
    I128 next = static_cast<I128>(r) * (n - i) / (i + 1);
    if (next > INT64_MAX) return Fail(why, "integer overflow in " + Call(name, args));
    r = static_cast<int64_t>(next);
  }
  *out = Value::Int(r);
  return true;
}

}  // namespace

const std::vector<ExprFunction>& MathFunctions() {
  static const std::vector<ExprFunction> functions = [] {
    std::vector<ExprFunction> f;
    for (const auto& entry : UnaryTable()) f.push_back({entry.first.c_str(), 1, 1, CallUnary});
    f.push_back({"log", 1, 2, CallLog});
    f.push_back({"gamma", 1, 1, CallGamma});
    f.push_back({"lgamma", 1, 1, CallGamma});
    f.push_back({"atan2", 2, 2, CallBinary});
    f.push_back({"hypot", 2, 2, CallBinary});
    f.push_back({"pow", 2, 2, CallBinary});
    f.push_back({"floor", 1, 1, CallToInt});
    f.push_back({"ceil", 1, 1, CallToInt});
    f.push_back({"trunc", 1, 1, CallToInt});
    f.push_back({"isnan", 1, 1, CallClassify});
    f.push_back({"isinf", 1, 1, CallClassify});
    f.push_back({"isfinite", 1, 1, CallClassify});
    f.push_back({"factorial", 1, 1, CallFactorial});
    f.push_back({"comb", 2, 2, CallComb});
    return f;
  }();
  return functions;
}

bool FindMathConstant(const std::string& name, Value* out) {
  if (name == "math.pi") *out = Value::Float(M_PI);
  else if (name == "math.e") *out = Value::Float(M_E);
  else if (name == "math.tau") *out = Value::Float(2 * M_PI);
  else if (name == "math.inf") *out = Value::Float(INFINITY);
  else if (name == "math.nan") *out = Value::Float(NAN);
  else return false;
  return true;
}

}  // namespace remap
