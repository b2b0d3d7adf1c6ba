// What a rewrite did, node by node: the library's answer to the CLI, which
// renders it as text or JSON.
#pragma once

#include <string>
#include <vector>

#include "match/refusal.h"
#include "rules/source_map.h"

namespace remap {

struct NodeOutcome {
  std::string graph;          // "main_graph", "main_graph/If_0.then_branch", "function pkg::Block"
  std::string node;           // node name
  std::string op;             // "org.pytorch.aten::ATen"
  std::string form;           // aten-fallback | aten-fallthrough | custom
  std::string aten_operator;  // "asinh" (ATen forms)
  std::string rule;           // rule that rewrote it (or would, for a scan)
  SourceLocation rule_location;
  std::vector<std::string> emitted;  // op names emitted
  std::string reason;         // why it was left unmapped
  int needs_opset = 0;        // left only because the target opset is too low: the opset it needs
  Refusal refusal = Refusal::kNone;
  std::string refused_by;     // the rule whose no_standard_form refused it
  // Every candidate rule alternative considered, in order, with its outcome.
  std::vector<CandidateOutcome> candidates;
};

struct RewriteReport {
  int opset_before = 0;
  int opset_after = 0;
  int ir_before = 0;
  int ir_after = 0;
  std::vector<NodeOutcome> rewritten;
  std::vector<NodeOutcome> remaining;
  std::vector<std::string> notes;  // plain statements about validation and opsets
  // Nodes whose output types were inferred, counting a node once per time:
  // types are computed only where a rule asks, and each emitted node once.
  size_t nodes_typed = 0;
};

}  // namespace remap
