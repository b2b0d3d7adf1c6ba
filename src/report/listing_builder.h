// The rules, targets and a rules-check result as listing.proto messages, for
// `rules list|show|targets|check --format json`.
#pragma once

#include <vector>

#include "check/rule_check.h"
#include "report/listing.pb.h"
#include "rules/rule_set.h"

namespace remap {

namespace listing = onnx_remap::listing::v1;

listing::RuleListing RuleListingOf(const std::vector<const Rule*>& rules);
listing::TargetListing TargetListingOf(const std::vector<const Target*>& targets);
listing::RuleCheckSummary RuleCheckSummaryOf(const RuleCheckReport& report);

}  // namespace remap
