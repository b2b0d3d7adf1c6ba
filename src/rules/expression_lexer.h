// Tokens of a rule expression. `math.NAME` is one identifier token.
#pragma once

#include <string>
#include <vector>

#include "rules/expression.h"

namespace remap {

struct ExprToken {
  enum class Kind { kEnd, kInt, kFloat, kString, kIdent, kPunct };
  Kind kind = Kind::kEnd;
  std::string text;  // kString: the decoded string
  size_t offset = 0;
};

// Splits `text` into tokens ending with a kEnd token; false with `error` set
// on a character or literal that cannot start a token.
bool LexExpression(const std::string& text, std::vector<ExprToken>* tokens, ExprError* error);

}  // namespace remap
