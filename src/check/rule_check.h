// The rule self-check: for every alternative of every rule, build small typed
// models around a node the rule matches (at the alternative's lowest and
// highest opset, for each input dtype, for each value of its enum-like
// arguments), rewrite them with only that alternative, and validate the
// result with ONNX's strict type and shape inference and its checker.
#pragma once

#include <string>
#include <vector>

#include "rules/rule_set.h"
#include "rules/source_map.h"

namespace remap {

struct RuleCheckOptions {
  // Element types given to the tensor arguments (onnx::TensorProto::DataType).
  std::vector<int> dtypes = {1 /*FLOAT*/, 11 /*DOUBLE*/, 10 /*FLOAT16*/};
  // Only rules whose id is listed (all when empty).
  std::vector<std::string> rule_ids;
};

struct RuleCheckFinding {
  enum class Severity { kError, kWarning };
  Severity severity = Severity::kError;
  std::string rule_id;
  SourceLocation location;  // the alternative
  std::string setting;      // "opset 13, float16, reduction=2"
  std::string message;
};

struct RuleCheckReport {
  int alternatives = 0;  // checked
  int models = 0;        // synthetic models built
  int rewritten = 0;     // of those, rewritten by the alternative
  int validated = 0;     // of those, passed ONNX 1.12's strict inference and checker
  int beyond_onnx = 0;   // rewritten at an opset ONNX 1.12 does not know: not validated
  std::vector<RuleCheckFinding> findings;
  size_t errors() const;
};

RuleCheckReport CheckRules(const RuleSet& rules, const RuleCheckOptions& options);

}  // namespace remap
