// An alternative's `when` guard, evaluated against a node's bound arguments.
#pragma once

#include <string>

#include "match/argument_binding.h"
#include "rules/rule.h"

namespace remap {

// What went wrong evaluating a rule's expression or instantiating its
// replacement, and where in the rule file.
struct RuleFailure {
  std::string message;
  SourceLocation location;  // of the expression or field at fault
};

// Evaluates an alternative's `when` guard. false + empty message: the guard is false.
bool EvaluateGuard(const Alternative& alt, const Binding& binding, bool* result, RuleFailure* failure);

}  // namespace remap
