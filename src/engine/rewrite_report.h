// What a rewrite did, node by node: the library's answer to the CLI, which
// renders it as text or JSON.
#pragma once

#include <string>
#include <vector>

#include "core/shared_string.h"
#include "match/refusal.h"
#include "rules/source_map.h"

namespace remap {

// Fields that repeat from record to record are shared (core/shared_string.h):
// a hundred thousand nodes rewritten the same way hold one copy of what they
// have in common, and each its own node name.
struct NodeOutcome {
  SharedString graph;         // "main_graph", "main_graph/If_0.then_branch", "function pkg::Block"
  std::string node;           // node name
  SharedString op;            // "org.pytorch.aten::ATen"
  SharedString form;          // aten-fallback | aten-fallthrough | custom
  SharedString aten_operator;  // "asinh" (ATen forms)
  SharedString rule;          // rule that rewrote it (or would, for a scan)
  SourceLocation rule_location;
  SharedList<std::string> emitted;  // op names emitted
  std::string reason;         // why it was left unmapped
  int needs_opset = 0;        // left only because the target opset is too low: the opset it needs
  Refusal refusal = Refusal::kNone;
  SharedString refused_by;    // the rule whose no_standard_form refused it
  // Every candidate rule alternative considered, in order, with its outcome.
  SharedList<CandidateOutcome> candidates;
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
  // Rewritten nodes whose replacement was a copy of one made for a node
  // matched alike (RewriteOptions::memo_entries), not made afresh.
  size_t replacements_replayed = 0;
  // Of those, the ones found by the node's own key, with no rule bound.
  size_t replayed_by_node_key = 0;
};

}  // namespace remap
