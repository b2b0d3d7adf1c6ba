// Builds the syntax tree of a rule expression (Python's grammar, restricted).
#pragma once

#include <string>

#include "rules/expression.h"
#include "rules/expression_node.h"

namespace remap {

// nullptr with `error` set when `text` is not a valid expression.
ExprNodePtr ParseExpressionTree(const std::string& text, ExprError* error);

// The names the tree reads that it does not bind itself (comprehension
// variables are bound), in source order, with their offsets.
std::vector<std::pair<std::string, size_t>> FreeNames(const ExprNode& root);

}  // namespace remap
