// Python built-ins rule expressions can call, and rank(), dtype(), tensor().
#include "rules/expression_functions.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <utility>

#include <fmt/format.h>

#include "rules/element_types.h"
#include "rules/expression.h"
#include "rules/numeric.h"
#include "rules/value_ops.h"

namespace remap {

namespace {

using Args = std::vector<Value>;
using K = Value::Kind;

bool Fail(std::string* why, std::string message) {
  *why = std::move(message);
  return false;
}

bool Len(const char*, Args& a, Value* out, std::string* why) {
  if (a[0].kind == K::kList) *out = Value::Int(static_cast<int64_t>(a[0].list.size()));
  else if (a[0].kind == K::kString) *out = Value::Int(static_cast<int64_t>(a[0].s.size()));
  else return Fail(why, fmt::format("len() of {}", KindName(a[0].kind)));
  return true;
}

bool Int(const char*, Args& a, Value* out, std::string* why) {
  const Value& v = a[0];
  if (v.is_int()) {
    *out = Value::Int(v.as_int());
    return true;
  }
  if (v.kind == K::kFloat) {
    int64_t i;
    if (!DoubleToInt64(v.f, &i)) return Fail(why, fmt::format("int() of {}: not a finite value within int64", ToString(v)));
    *out = Value::Int(i);
    return true;
  }
  if (v.kind == K::kString) {
    errno = 0;
    char* end = nullptr;
    long long i = std::strtoll(v.s.c_str(), &end, 10);
    if (v.s.empty() || *end != '\0' || std::isspace(static_cast<unsigned char>(v.s[0])))
      return Fail(why, fmt::format("int() of {}: not a decimal integer", ToString(v)));
    if (errno == ERANGE) return Fail(why, fmt::format("int() of {}: does not fit in int64", ToString(v)));
    *out = Value::Int(i);
    return true;
  }
  return Fail(why, fmt::format("int() of {}", KindName(v.kind)));
}

bool Float(const char*, Args& a, Value* out, std::string* why) {
  const Value& v = a[0];
  if (v.is_number()) {
    *out = Value::Float(v.as_double());
    return true;
  }
  if (v.kind == K::kString) {  // float('inf'), float('-inf'), float('nan'), float('0.5')
    const std::string& t = v.s;
    if (t == "inf" || t == "+inf" || t == "infinity") *out = Value::Float(std::numeric_limits<double>::infinity());
    else if (t == "-inf" || t == "-infinity") *out = Value::Float(-std::numeric_limits<double>::infinity());
    else if (t == "nan" || t == "+nan" || t == "-nan") *out = Value::Float(std::numeric_limits<double>::quiet_NaN());
    else {
      char* end = nullptr;
      double d = std::strtod(t.c_str(), &end);
      if (t.empty() || *end != '\0' || std::isspace(static_cast<unsigned char>(t[0])) || !std::isfinite(d))
        return Fail(why, fmt::format("float() of {}: not a number", ToString(v)));
      *out = Value::Float(d);
    }
    return true;
  }
  return Fail(why, fmt::format("float() of {}", KindName(v.kind)));
}

bool Bool(const char*, Args& a, Value* out, std::string* why) {
  bool b = Truthy(a[0], why);
  if (!why->empty()) return false;
  *out = Value::Bool(b);
  return true;
}

bool Str(const char*, Args& a, Value* out, std::string*) {
  *out = a[0].kind == K::kString ? Value::String(a[0].s) : Value::String(ToString(a[0]));
  return true;
}

bool List(const char*, Args& a, Value* out, std::string* why) {
  if (a[0].kind == K::kList) {
    *out = Value::List(a[0].list);
  } else if (a[0].kind == K::kString) {
    std::vector<Value> chars;
    for (char c : a[0].s) chars.push_back(Value::String(std::string(1, c)));
    *out = Value::List(std::move(chars));
  } else {
    return Fail(why, fmt::format("list() of {}", KindName(a[0].kind)));
  }
  return true;
}

// The items of min/max/sum/all/any: one list argument, or (min/max) several arguments.
bool Items(const char* name, Args& a, bool allow_several, const std::vector<Value>** items, std::string* why) {
  if (a.size() > 1 && allow_several) {
    *items = &a;
    return true;
  }
  if (a[0].kind != K::kList) return Fail(why, fmt::format("{}() takes a list, got {}", name, KindName(a[0].kind)));
  *items = &a[0].list;
  return true;
}

bool MinMax(const char* name, Args& a, Value* out, std::string* why) {
  const std::vector<Value>* items;
  if (!Items(name, a, true, &items, why)) return false;
  if (items->empty()) return Fail(why, fmt::format("{}() of an empty list", name));
  const bool want_max = std::string(name) == "max";
  const Value* best = &(*items)[0];
  for (const Value& item : *items) {
    int order;
    bool unordered;
    if (!Compare(item, *best, &order, &unordered, why)) return false;
    if (!unordered && (want_max ? order > 0 : order < 0)) best = &item;  // ties keep the first, as Python
  }
  *out = *best;
  out->tensor_elem_type = 0;
  return true;
}

bool Sum(const char* name, Args& a, Value* out, std::string* why) {
  const std::vector<Value>* items;
  if (!Items(name, a, false, &items, why)) return false;
  Value total = a.size() == 2 ? a[1] : Value::Int(0);
  for (const Value& item : *items) {
    if (!Arithmetic(ArithOp::kAdd, total, item, &total, why)) return false;
  }
  *out = total;
  return true;
}

bool AllAny(const char* name, Args& a, Value* out, std::string* why) {
  const std::vector<Value>* items;
  if (!Items(name, a, false, &items, why)) return false;
  const bool all = std::string(name) == "all";
  for (const Value& item : *items) {
    bool b = Truthy(item, why);
    if (!why->empty()) return false;
    if (b != all) {
      *out = Value::Bool(!all);
      return true;
    }
  }
  *out = Value::Bool(all);
  return true;
}

bool Abs(const char*, Args& a, Value* out, std::string* why) {
  const Value& v = a[0];
  if (v.is_int()) {
    if (v.as_int() >= 0) *out = Value::Int(v.as_int());
    else if (!Negate(v, out, why)) return Fail(why, fmt::format("integer overflow in abs({})", v.as_int()));
    return true;
  }
  if (v.kind == K::kFloat) {
    *out = Value::Float(std::fabs(v.f));
    return true;
  }
  return Fail(why, fmt::format("abs() of {}", KindName(v.kind)));
}

// round(x): Python's round half to even, to an int.
bool Round(const char*, Args& a, Value* out, std::string* why) {
  const Value& v = a[0];
  if (v.is_int()) {
    *out = Value::Int(v.as_int());
    return true;
  }
  if (v.kind != K::kFloat) return Fail(why, fmt::format("round() of {}", KindName(v.kind)));
  int64_t i;
  if (!DoubleToInt64(RoundHalfEven(v.f), &i)) return Fail(why, fmt::format("round({}) does not fit in int64", ToString(v)));
  *out = Value::Int(i);
  return true;
}

bool Pow(const char*, Args& a, Value* out, std::string* why) { return Arithmetic(ArithOp::kPow, a[0], a[1], out, why); }

bool Range(const char*, Args& a, Value* out, std::string* why) {
  for (const Value& v : a) {
    if (!v.is_int()) return Fail(why, fmt::format("range() takes ints, got {}", KindName(v.kind)));
  }
  int64_t start = a.size() > 1 ? a[0].as_int() : 0;
  int64_t stop = a.size() > 1 ? a[1].as_int() : a[0].as_int();
  int64_t step = a.size() > 2 ? a[2].as_int() : 1;
  if (step == 0) return Fail(why, "range() step must not be zero");
  // Length in 128 bits: stop - start can exceed int64.
  __extension__ typedef __int128 I128;
  I128 span = step > 0 ? static_cast<I128>(stop) - start : static_cast<I128>(start) - stop;
  I128 abs_step = step > 0 ? static_cast<I128>(step) : -static_cast<I128>(step);
  I128 count = span <= 0 ? 0 : (span + abs_step - 1) / abs_step;
  if (count > static_cast<I128>(kMaxExprListSize))
    return Fail(why, fmt::format("range() would make more than {} items", kMaxExprListSize));
  std::vector<Value> items;
  items.reserve(static_cast<size_t>(count));
  for (I128 k = 0; k < count; ++k) items.push_back(Value::Int(static_cast<int64_t>(start + k * step)));
  *out = Value::List(std::move(items));
  return true;
}

bool Zip(const char* name, Args& a, Value* out, std::string* why) {
  size_t n = std::numeric_limits<size_t>::max();
  std::vector<Value> lists(a.size());
  for (size_t k = 0; k < a.size(); ++k) {
    Args one = {a[k]};
    if (!List(name, one, &lists[k], why)) return Fail(why, fmt::format("zip() takes lists, got {}", KindName(a[k].kind)));
    n = std::min(n, lists[k].list.size());
  }
  std::vector<Value> rows(n);
  for (size_t k = 0; k < n; ++k) {
    std::vector<Value> row;
    for (const Value& v : lists) row.push_back(v.list[k]);
    rows[k] = Value::List(std::move(row));
  }
  *out = Value::List(std::move(rows));
  return true;
}

bool Enumerate(const char*, Args& a, Value* out, std::string* why) {
  if (a[0].kind != K::kList) return Fail(why, fmt::format("enumerate() takes a list, got {}", KindName(a[0].kind)));
  std::vector<Value> rows;
  for (size_t k = 0; k < a[0].list.size(); ++k) rows.push_back(Value::List({Value::Int(static_cast<int64_t>(k)), a[0].list[k]}));
  *out = Value::List(std::move(rows));
  return true;
}

bool Rank(const char*, Args& a, Value* out, std::string* why) {
  if (a[0].kind != K::kTensor) return Fail(why, fmt::format("rank() takes a tensor argument, got {}", ToString(a[0])));
  if (a[0].rank < 0) return Fail(why, fmt::format("the rank of '{}' is not known (the model has no shape for it)", a[0].s));
  *out = Value::Int(a[0].rank);
  return true;
}

// dims(x): the size of each dim, None where the model does not fix it: static
// sizes let a rule use the older operators that take sizes as attributes.
bool Dims(const char*, Args& a, Value* out, std::string* why) {
  if (a[0].kind != K::kTensor) return Fail(why, fmt::format("dims() takes a tensor argument, got {}", ToString(a[0])));
  if (a[0].rank < 0) return Fail(why, fmt::format("the rank of '{}' is not known (the model has no shape for it)", a[0].s));
  std::vector<Value> dims;
  for (int k = 0; k < a[0].rank; ++k) {
    const bool known = static_cast<size_t>(k) < a[0].dims.size() && a[0].dims[static_cast<size_t>(k)] >= 0;
    dims.push_back(known ? Value::Int(a[0].dims[static_cast<size_t>(k)]) : Value::None());
  }
  *out = Value::List(std::move(dims));
  return true;
}

bool Dtype(const char*, Args& a, Value* out, std::string* why) {
  if (a[0].kind != K::kTensor) return Fail(why, fmt::format("dtype() takes a tensor argument, got {}", ToString(a[0])));
  if (a[0].elem_type == 0) return Fail(why, fmt::format("the dtype of '{}' is not known", a[0].s));
  *out = Value::String(ElementTypeName(a[0].elem_type));
  return true;
}

// Every number of a (nested, rectangular) list fits the element type.
bool CheckTensorItems(const Value& v, int elem_type, std::string* why) {
  if (v.kind != K::kList) return CheckFitsElementType(v, elem_type, why);
  for (const Value& item : v.list) {
    if (item.kind == K::kList && (v.list[0].kind != K::kList || item.list.size() != v.list[0].list.size()))
      return Fail(why, fmt::format("tensor() needs a rectangular list, got {}", ToString(v)));
    if (item.kind != K::kList && v.list[0].kind == K::kList)
      return Fail(why, fmt::format("tensor() needs a rectangular list, got {}", ToString(v)));
    if (!CheckTensorItems(item, elem_type, why)) return false;
  }
  return true;
}

// tensor(value, dtype): `value` marked to be emitted as a tensor of `dtype`,
// a name ("float16") or a tensor argument whose element type it takes.
bool Tensor(const char*, Args& a, Value* out, std::string* why) {
  const Value& dtype = a[1];
  int elem_type = 0;
  if (dtype.kind == K::kString) {
    elem_type = ElementTypeFromName(dtype.s);
    if (elem_type == 0) return Fail(why, fmt::format("unknown dtype \"{}\" (known: {})", dtype.s, ElementTypeNames()));
  } else if (dtype.kind == K::kTensor) {
    if (dtype.elem_type == 0) return Fail(why, fmt::format("the dtype of '{}' is not known", dtype.s));
    elem_type = dtype.elem_type;
    if (ElementTypeFromName(ElementTypeName(elem_type)) == 0)
      return Fail(why, fmt::format("tensor() cannot make a {} tensor (the dtype of '{}')", ElementTypeName(elem_type), dtype.s));
  } else {
    return Fail(why, fmt::format("tensor() takes a dtype name or a tensor argument, got {}", ToString(dtype)));
  }
  Value& v = a[0];
  if (!v.is_number() && v.kind != K::kList) return Fail(why, fmt::format("tensor() of {}", KindName(v.kind)));
  if (!CheckTensorItems(v, elem_type, why)) return false;
  *out = std::move(v);
  out->tensor_elem_type = elem_type;
  return true;
}

const std::vector<ExprFunction>& Builtins() {
  static const std::vector<ExprFunction> functions = {
      {"len", 1, 1, Len},          {"int", 1, 1, Int},       {"float", 1, 1, Float},   {"bool", 1, 1, Bool},
      {"str", 1, 1, Str},          {"list", 1, 1, List},     {"min", 1, -1, MinMax},   {"max", 1, -1, MinMax},
      {"sum", 1, 2, Sum},          {"all", 1, 1, AllAny},    {"any", 1, 1, AllAny},    {"abs", 1, 1, Abs},
      {"round", 1, 1, Round},      {"pow", 2, 2, Pow},       {"range", 1, 3, Range},   {"zip", 1, -1, Zip},
      {"enumerate", 1, 1, Enumerate}, {"rank", 1, 1, Rank},  {"dims", 1, 1, Dims},     {"dtype", 1, 1, Dtype},   {"tensor", 2, 2, Tensor},
  };
  return functions;
}

}  // namespace

const ExprFunction* FindExprFunction(const std::string& name) {
  const bool math = name.compare(0, 5, "math.") == 0;
  if (!math) {
    for (const ExprFunction& f : Builtins()) {
      if (name == f.name) return &f;
    }
  }
  const std::string bare = math ? name.substr(5) : name;
  for (const ExprFunction& f : MathFunctions()) {
    if (bare == f.name) return &f;
  }
  return nullptr;
}

}  // namespace remap
