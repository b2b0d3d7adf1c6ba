#include "rules/numeric.h"

#include <cmath>
#include <limits>

namespace remap {

namespace {

__extension__ typedef unsigned __int128 U128;

constexpr double kTwo63 = 9223372036854775808.0;  // 2^63, exact in a double

uint64_t Magnitude(int64_t v) { return v < 0 ? 0 - static_cast<uint64_t>(v) : static_cast<uint64_t>(v); }

int BitLength(U128 v) {
  int n = 0;
  for (; v; v >>= 1) ++n;
  return n;
}

}  // namespace

bool CheckedAdd(int64_t a, int64_t b, int64_t* out) { return !__builtin_add_overflow(a, b, out); }
bool CheckedSub(int64_t a, int64_t b, int64_t* out) { return !__builtin_sub_overflow(a, b, out); }
bool CheckedMul(int64_t a, int64_t b, int64_t* out) { return !__builtin_mul_overflow(a, b, out); }
bool CheckedNeg(int64_t a, int64_t* out) { return !__builtin_sub_overflow(int64_t{0}, a, out); }

bool CheckedFloorDiv(int64_t a, int64_t b, int64_t* out) {
  if (b == -1) return CheckedNeg(a, out);  // also keeps INT64_MIN / -1 (UB in C++) away
  int64_t q = a / b;
  if (a % b != 0 && ((a < 0) != (b < 0))) --q;
  *out = q;
  return true;
}

int64_t FloorMod(int64_t a, int64_t b) {
  if (b == -1) return 0;  // INT64_MIN % -1 is UB in C++
  int64_t r = a % b;
  if (r != 0 && ((r < 0) != (b < 0))) r += b;
  return r;
}

bool CheckedPow(int64_t a, int64_t b, int64_t* out) {
  int64_t result = 1, base = a;
  while (b > 0) {
    if ((b & 1) && !CheckedMul(result, base, &result)) return false;
    b >>= 1;
    // Squaring is needed only while bits remain; if it overflows then, so does the result.
    if (b > 0 && !CheckedMul(base, base, &base)) return false;
  }
  *out = result;
  return true;
}

double TrueDivide(int64_t a, int64_t b) {
  const bool negative = (a < 0) != (b < 0);
  const uint64_t n = Magnitude(a), d = Magnitude(b);
  constexpr uint64_t kExact = uint64_t{1} << 53;
  if (n <= kExact && d <= kExact) {  // both exact: one IEEE division rounds correctly
    double q = static_cast<double>(n) / static_cast<double>(d);
    return negative ? -q : q;
  }
  // Scale n so the integer quotient has at least 55 bits, then fold the
  // remainder into a sticky bit: converting that to double rounds correctly.
  int shift = std::max(0, BitLength(d) + 55 - BitLength(n));
  U128 num = static_cast<U128>(n) << shift;
  U128 q = num / d;
  if (num % d != 0) q |= 1;
  double r = std::ldexp(static_cast<double>(q), -shift);
  return negative ? -r : r;
}

double FloatMod(double a, double b) {
  double mod = std::fmod(a, b);
  if (mod != 0.0) {
    if ((b < 0) != (mod < 0)) mod += b;
  } else {
    mod = std::copysign(0.0, b);
  }
  return mod;
}

double FloatFloorDiv(double a, double b) {
  // CPython's float_divmod, so results agree to the last bit.
  double mod = std::fmod(a, b);
  double div = (a - mod) / b;
  if (mod != 0.0 && ((b < 0) != (mod < 0))) div -= 1.0;
  if (div == 0.0) return std::copysign(0.0, a / b);
  double floordiv = std::floor(div);
  if (div - floordiv > 0.5) floordiv += 1.0;
  return floordiv;
}

bool CompareIntDouble(int64_t i, double d, int* order) {
  if (std::isnan(d)) return false;
  if (d >= kTwo63) { *order = -1; return true; }
  if (d < -kTwo63) { *order = 1; return true; }
  double t = std::trunc(d);
  int64_t ti = static_cast<int64_t>(t);  // in [-2^63, 2^63): exact
  if (i != ti) { *order = i < ti ? -1 : 1; return true; }
  double frac = d - t;  // exact
  *order = frac > 0 ? -1 : frac < 0 ? 1 : 0;
  return true;
}

bool DoubleToInt64(double d, int64_t* out) {
  if (!std::isfinite(d)) return false;
  double t = std::trunc(d);
  if (t < -kTwo63 || t >= kTwo63) return false;
  *out = static_cast<int64_t>(t);
  return true;
}

double RoundHalfEven(double d) {
  if (!std::isfinite(d)) return d;
  double fl = std::floor(d);
  double diff = d - fl;  // exact
  if (diff > 0.5 || (diff == 0.5 && std::fmod(fl, 2.0) != 0.0)) fl += 1.0;
  return fl;
}

}  // namespace remap
