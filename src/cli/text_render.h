// What people read: one model's result as a summary (counts per rule, the
// nodes left grouped by reason), every node with -v, the scan listing, a
// check verdict, one node's candidates (--explain), and a batch's summary.
#pragma once

#include <string>
#include <vector>

#include "cli/commands.h"
#include "cli/terminal_style.h"
#include "pipeline/pipeline.h"

namespace remap::cli {

// A model's result for rewrite (summary, or every node when verbose) and check.
std::string RenderModelText(const ModelResult& r, ModelCommand command, bool verbose, const TerminalStyle& style);

// A model's result for scan: unmapped nodes grouped by operator, with the rule
// that covers each group or the reason none does.
std::string RenderScanText(const ModelResult& r, const std::string& target, const TerminalStyle& style);

// Every candidate rule for the unmapped nodes named `node`, and why each did or
// did not apply. Empty when the model has no unmapped node of that name.
std::string RenderExplain(const ModelResult& r, const std::string& node, const TerminalStyle& style);

// The end of a batch: models per outcome, nodes, the rules that applied.
std::string RenderBatchSummary(const std::vector<ModelResult>& results, double seconds, const TerminalStyle& style);

}  // namespace remap::cli
