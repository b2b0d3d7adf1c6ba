// The functions and constants rule expressions can call: Python built-ins
// (len, min, range, round, ...), the `math` module (bare or as math.NAME),
// and onnx-remap's own rank(), dtype() and tensor().
#pragma once

#include <string>
#include <vector>

#include "rules/value.h"

namespace remap {

struct ExprFunction {
  const char* name;
  int min_args;
  int max_args;  // -1: any number
  // Computes the result from evaluated arguments, or fails with a message;
  // `name` is this entry's name (shared implementations use it in messages).
  // The arguments are the evaluator's own, and the function may move from
  // them: tensor() passes a list of a million items on without a copy.
  bool (*call)(const char* name, std::vector<Value>& args, Value* out, std::string* why);
};

// A function by the name written in the expression: a built-in or a math
// function for a bare name (built-ins win: `pow` is `**`), only math
// functions for "math.NAME" (`math.pow` is always float). nullptr if none.
const ExprFunction* FindExprFunction(const std::string& name);

// math.pi, math.e, math.tau, math.inf, math.nan.
bool FindMathConstant(const std::string& name, Value* out);

// Math-module functions (expression_math.cc), searched by FindExprFunction.
const std::vector<ExprFunction>& MathFunctions();

}  // namespace remap
