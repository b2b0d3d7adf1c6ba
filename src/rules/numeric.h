// Python number semantics on int64 and double, without undefined behaviour:
// integer operations report overflow instead of wrapping, int/float
// comparisons are exact, float->int conversions are checked.
#pragma once

#include <cstdint>

namespace remap {

// Each returns false on overflow (or division by zero, see below).
bool CheckedAdd(int64_t a, int64_t b, int64_t* out);
bool CheckedSub(int64_t a, int64_t b, int64_t* out);
bool CheckedMul(int64_t a, int64_t b, int64_t* out);
bool CheckedNeg(int64_t a, int64_t* out);
// Python's // and % (the quotient floors, the remainder takes b's sign).
// The caller rejects b == 0; INT64_MIN // -1 overflows.
bool CheckedFloorDiv(int64_t a, int64_t b, int64_t* out);
int64_t FloorMod(int64_t a, int64_t b);
// a ** b for b >= 0.
bool CheckedPow(int64_t a, int64_t b, int64_t* out);

// a / b correctly rounded to the nearest double (b != 0), as Python's int true division.
double TrueDivide(int64_t a, int64_t b);

// Python's float // and %: floor quotient, remainder with the sign of b (b != 0).
double FloatFloorDiv(double a, double b);
double FloatMod(double a, double b);

// Exact three-way comparison of an int with a double: -1, 0 or 1; false for NaN.
bool CompareIntDouble(int64_t i, double d, int* order);

// The int64 a double truncates to; false when it is not finite or out of range.
bool DoubleToInt64(double d, int64_t* out);

// Round half to even (Python's round()), independent of the FPU rounding mode.
double RoundHalfEven(double d);

}  // namespace remap
