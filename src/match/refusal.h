// Why a node was not rewritten, as values: the kind of each refusal and, per
// candidate rule alternative, what it said. Reports, --explain and the
// renderers all read these; the joined reason string is for people.
#pragma once

#include <string>
#include <vector>

#include "rules/source_map.h"

namespace remap {

enum class Refusal {
  kNone,     // rewritten (or, for a candidate, the alternative that applied)
  kNoRule,   // no rule matches the operator
  kMatch,    // a rule's match conditions (overload, arity, attributes) fail
  kBinding,  // the node's inputs do not bind to the signature
  kGuard,    // every alternative's `when` is false
  kGuardError,  // a guard cannot be evaluated (an unknown rank or dtype, a non-constant argument)
  kOpset,    // only alternatives for a higher (or lower) opset
  kTarget,   // only alternatives for other runtime targets
  kEmit,     // the replacement could not be instantiated (an expression or name error)
  kType,     // the replacement is not type-correct for the node's inputs
  kNoStandardForm,  // a rule says standard ONNX cannot express it (Rule::no_standard_form)
};

// Stable names for reports: "no-rule", "no-standard-form", ...
const char* RefusalName(Refusal r);

// One candidate rule (and alternative, when it got that far) considered for a
// node: applied, or why not.
struct CandidateOutcome {
  std::string rule;                  // rule id
  SourceLocation rule_location;      // where the rule is defined
  SourceLocation alternative_location;  // the alternative's, when one was considered
  Refusal refusal = Refusal::kNone;  // kNone: this candidate rewrote the node
  std::string reason;                // why not, for people
  int needs_opset = 0;               // kOpset: the opset the alternative needs

  friend bool operator==(const CandidateOutcome& a, const CandidateOutcome& b) {
    return a.refusal == b.refusal && a.needs_opset == b.needs_opset && a.rule == b.rule && a.reason == b.reason &&
           a.rule_location == b.rule_location && a.alternative_location == b.alternative_location;
  }
};

}  // namespace remap
