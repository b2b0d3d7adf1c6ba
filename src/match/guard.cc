#include "match/guard.h"

#include "rules/expression.h"

namespace remap {

bool EvaluateGuard(const Alternative& alt, const Binding& binding, bool* result, RuleFailure* failure) {
  if (alt.when.empty()) {
    *result = true;
    return true;
  }
  Value v;
  ExprError e;
  auto lookup = [&](const std::string& n, std::string* w) { return binding.Lookup(n, w); };
  std::string why;
  if (!alt.when.Evaluate(lookup, &v, &e) || (*result = Truthy(v, &why), !why.empty())) {
    *failure = RuleFailure{why.empty() ? e.message : why, alt.when_source->Locate(e.offset)};
    return false;
  }
  return true;
}

}  // namespace remap
