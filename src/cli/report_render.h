// Renders rewrite reports for people (text) and machines (JSON, docs/cli.md).
#pragma once

#include <string>

#include "cli/json_writer.h"
#include "engine/rewrite_report.h"

namespace remap::cli {

std::string RenderRewriteText(const std::string& input, const RewriteReport& report);
void WriteNodeOutcome(JsonWriter& json, const NodeOutcome& n);

}  // namespace remap::cli
