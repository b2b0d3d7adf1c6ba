// Builds the versioned report (report.proto) from pipeline results, and
// prints it as JSON (report/proto_json) or parses it with protobuf's JSON parser.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/status.h"
#include "pipeline/pipeline.h"
#include "report/report.pb.h"

namespace remap {

namespace report = onnx_remap::report::v1;

inline constexpr const char kReportSchema[] = "onnx-remap-report/1";

struct ReportHeader {
  std::string command;  // rewrite | scan | check
  std::string version;  // the tool's
  std::string target;
  std::optional<int> target_opset;
};

report::ModelReport ModelReportOf(const ModelResult& r);

// A whole run: its models, errors outside any model, and its exit code.
report::Report BuildReport(const ReportHeader& header, const std::vector<ModelResult>& models,
                           const std::vector<Status>& errors, int exit_code, double seconds);

// One JSON object; `pretty` adds newlines and indentation.
std::string ReportToJson(const report::Report& r, bool pretty);

// Parses a report strictly: unknown fields and wrong types are errors (what
// the report-format test uses to hold the output to the schema).
Expected<report::Report> ReportFromJson(const std::string& json);

}  // namespace remap
