// Load-time checks of the targets an alternative lists, once every rule file
// (and so every target) is read.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "rules/rule.h"
#include "rules/target.h"

namespace remap {

using FindTargetFn = std::function<const Target*(const std::string& name)>;

// Every listed name must be a known target; every op of a non-default domain
// the replacement emits must be run by each listed target; and a built-in
// alternative emitting such an op must list its targets (a user rule need not:
// its domains then count as runnable under every target). Appends
// "file:line:col: error: ..." lines; `known` lists the names for messages.
void CheckAlternativeTargets(const Rule& rule, const FindTargetFn& find, const std::string& known,
                             std::vector<std::string>* errors);

}  // namespace remap
