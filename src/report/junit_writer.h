// The report as JUnit XML, which CI systems (GitLab, Jenkins, GitHub
// actions with a JUnit reporter) show natively: one testsuite per model, one
// testcase per unmapped node (passed when rewritten, failed when left), and
// one testcase for the model itself (an error when a stage failed).
#pragma once

#include <string>

#include "report/report_builder.h"

namespace remap {

std::string ReportToJUnit(const report::Report& r);

}  // namespace remap
