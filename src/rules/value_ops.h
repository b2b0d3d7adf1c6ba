// Python's arithmetic and ordering on Values: ints stay int64 (overflow is an
// error), a float operand makes the result float, `/` is true division.
#pragma once

#include <cstddef>
#include <string>

#include "rules/value.h"

namespace remap {

// Largest list (or string) an expression may build: rules cannot exhaust memory.
constexpr size_t kMaxExprListSize = 1000000;

enum class ArithOp { kAdd, kSub, kMul, kDiv, kFloorDiv, kMod, kPow };

const char* ArithOpText(ArithOp op);  // "+", "//", "**", ...

// a op b; false with `why` set ("integer overflow in 9223372036854775807 + 1").
bool Arithmetic(ArithOp op, const Value& a, const Value& b, Value* out, std::string* why);
bool Negate(const Value& v, Value* out, std::string* why);

// Three-way comparison of numbers (exact across int and float), strings and
// lists (item by item). Returns false with `why` set for types that do not
// order; sets *unordered (and returns true) when a NaN is involved.
bool Compare(const Value& a, const Value& b, int* order, bool* unordered, std::string* why);

}  // namespace remap
