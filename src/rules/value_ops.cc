#include "rules/value_ops.h"

#include <cmath>

#include <fmt/format.h>

#include "rules/numeric.h"

namespace remap {

namespace {

bool Fail(std::string* why, std::string message) {
  *why = std::move(message);
  return false;
}

// list * n and str * n, within the size cap (n <= 0 gives an empty result).
bool Repeat(const Value& seq, int64_t n, Value* out, std::string* why) {
  size_t size = seq.kind == Value::Kind::kList ? seq.list.size() : seq.s.size();
  if (n <= 0 || size == 0) {
    *out = seq.kind == Value::Kind::kList ? Value::List({}) : Value::String("");
    return true;
  }
  if (static_cast<uint64_t>(n) > kMaxExprListSize / size)
    return Fail(why, fmt::format("repetition would make more than {} items", kMaxExprListSize));
  if (seq.kind == Value::Kind::kList) {
    std::vector<Value> items;
    items.reserve(size * static_cast<size_t>(n));
    for (int64_t k = 0; k < n; ++k) items.insert(items.end(), seq.list.begin(), seq.list.end());
    *out = Value::List(std::move(items));
  } else {
    std::string s;
    for (int64_t k = 0; k < n; ++k) s += seq.s;
    *out = Value::String(std::move(s));
  }
  return true;
}

bool IntArithmetic(ArithOp op, int64_t a, int64_t b, Value* out, std::string* why) {
  int64_t r = 0;
  bool ok = true;
  switch (op) {
    case ArithOp::kAdd: ok = CheckedAdd(a, b, &r); break;
    case ArithOp::kSub: ok = CheckedSub(a, b, &r); break;
    case ArithOp::kMul: ok = CheckedMul(a, b, &r); break;
    case ArithOp::kDiv:
      if (b == 0) return Fail(why, "division by zero");
      *out = Value::Float(TrueDivide(a, b));
      return true;
    case ArithOp::kFloorDiv:
      if (b == 0) return Fail(why, "integer division by zero");
      ok = CheckedFloorDiv(a, b, &r);
      break;
    case ArithOp::kMod:
      if (b == 0) return Fail(why, "integer modulo by zero");
      r = FloorMod(a, b);
      break;
    case ArithOp::kPow:
      if (b < 0) {  // a negative exponent makes a float, as in Python
        if (a == 0) return Fail(why, "0 cannot be raised to a negative power");
        *out = Value::Float(std::pow(static_cast<double>(a), static_cast<double>(b)));
        return true;
      }
      ok = CheckedPow(a, b, &r);
      break;
  }
  if (!ok) return Fail(why, fmt::format("integer overflow in {} {} {}", a, ArithOpText(op), b));
  *out = Value::Int(r);
  return true;
}

bool FloatArithmetic(ArithOp op, double a, double b, Value* out, std::string* why) {
  double r = 0;
  switch (op) {
    case ArithOp::kAdd: r = a + b; break;
    case ArithOp::kSub: r = a - b; break;
    case ArithOp::kMul: r = a * b; break;
    case ArithOp::kDiv:
      if (b == 0) return Fail(why, "float division by zero");
      r = a / b;
      break;
    case ArithOp::kFloorDiv:
      if (b == 0) return Fail(why, "float floor division by zero");
      r = FloatFloorDiv(a, b);
      break;
    case ArithOp::kMod:
      if (b == 0) return Fail(why, "float modulo by zero");
      r = FloatMod(a, b);
      break;
    case ArithOp::kPow:
      if (a == 0 && b < 0) return Fail(why, "0.0 cannot be raised to a negative power");
      if (a < 0 && std::isfinite(a) && std::isfinite(b) && std::trunc(b) != b)
        return Fail(why, fmt::format("{} ** {} is not a real number", ToString(Value::Float(a)), ToString(Value::Float(b))));
      r = std::pow(a, b);
      if (std::isinf(r) && std::isfinite(a) && std::isfinite(b))
        return Fail(why, fmt::format("float overflow in {} ** {}", ToString(Value::Float(a)), ToString(Value::Float(b))));
      break;
  }
  *out = Value::Float(r);
  return true;
}

int Sign(int64_t v) { return v < 0 ? -1 : v > 0 ? 1 : 0; }

}  // namespace

const char* ArithOpText(ArithOp op) {
  switch (op) {
    case ArithOp::kAdd: return "+";
    case ArithOp::kSub: return "-";
    case ArithOp::kMul: return "*";
    case ArithOp::kDiv: return "/";
    case ArithOp::kFloorDiv: return "//";
    case ArithOp::kMod: return "%";
    case ArithOp::kPow: return "**";
  }
  return "?";
}

bool Arithmetic(ArithOp op, const Value& a, const Value& b, Value* out, std::string* why) {
  using K = Value::Kind;
  if (op == ArithOp::kAdd && a.kind == K::kList && b.kind == K::kList) {
    if (a.list.size() + b.list.size() > kMaxExprListSize)
      return Fail(why, fmt::format("the list would have more than {} items", kMaxExprListSize));
    std::vector<Value> joined = a.list;
    joined.insert(joined.end(), b.list.begin(), b.list.end());
    *out = Value::List(std::move(joined));
    return true;
  }
  if (op == ArithOp::kAdd && a.kind == K::kString && b.kind == K::kString) {
    *out = Value::String(a.s + b.s);
    return true;
  }
  if (op == ArithOp::kMul) {
    bool a_seq = a.kind == K::kList || a.kind == K::kString, b_seq = b.kind == K::kList || b.kind == K::kString;
    if (a_seq && b.is_int()) return Repeat(a, b.as_int(), out, why);
    if (b_seq && a.is_int()) return Repeat(b, a.as_int(), out, why);
  }
  if (!a.is_number() || !b.is_number())
    return Fail(why, fmt::format("unsupported operand types for {}: {} and {}", ArithOpText(op), KindName(a.kind),
                                 KindName(b.kind)));
  if (a.is_int() && b.is_int()) return IntArithmetic(op, a.as_int(), b.as_int(), out, why);
  return FloatArithmetic(op, a.as_double(), b.as_double(), out, why);
}

bool Negate(const Value& v, Value* out, std::string* why) {
  if (v.is_int()) {
    int64_t r;
    if (!CheckedNeg(v.as_int(), &r)) return Fail(why, fmt::format("integer overflow in -({})", v.as_int()));
    *out = Value::Int(r);
    return true;
  }
  if (v.kind == Value::Kind::kFloat) {
    *out = Value::Float(-v.f);
    return true;
  }
  return Fail(why, fmt::format("cannot negate {}", KindName(v.kind)));
}

bool Compare(const Value& a, const Value& b, int* order, bool* unordered, std::string* why) {
  using K = Value::Kind;
  *unordered = false;
  if (a.is_number() && b.is_number()) {
    if (a.is_int() && b.is_int()) {
      *order = a.as_int() < b.as_int() ? -1 : a.as_int() > b.as_int() ? 1 : 0;
      return true;
    }
    if (a.is_int() || b.is_int()) {
      bool a_int = a.is_int();
      int o;
      if (!CompareIntDouble(a_int ? a.as_int() : b.as_int(), a_int ? b.f : a.f, &o)) {
        *unordered = true;
        return true;
      }
      *order = a_int ? o : -o;
      return true;
    }
    if (std::isnan(a.f) || std::isnan(b.f)) {
      *unordered = true;
      return true;
    }
    *order = a.f < b.f ? -1 : a.f > b.f ? 1 : 0;
    return true;
  }
  if (a.kind == K::kString && b.kind == K::kString) {
    *order = Sign(a.s.compare(b.s));
    return true;
  }
  if (a.kind == K::kList && b.kind == K::kList) {
    // Python: the first items that differ decide; otherwise the shorter list is smaller.
    for (size_t k = 0; k < a.list.size() && k < b.list.size(); ++k) {
      if (a.list[k] == b.list[k]) continue;
      return Compare(a.list[k], b.list[k], order, unordered, why);
    }
    *order = Sign(static_cast<int64_t>(a.list.size()) - static_cast<int64_t>(b.list.size()));
    return true;
  }
  return Fail(why, fmt::format("cannot order {} and {}", KindName(a.kind), KindName(b.kind)));
}

}  // namespace remap
