// The rule engine: visits the main graph, every If/Loop/Scan subgraph (at any
// depth) and every model-local function, and rewrites each unmapped node the
// rules cover. Fixes opset_import for what it emitted and removed.
#pragma once

#include <optional>

#include <onnx/onnx_pb.h>

#include "core/status.h"
#include "engine/rewrite_report.h"
#include "rules/rule_set.h"
#include "saver/model_validator.h"

namespace remap {

class GraphIndex;

struct RewriteOptions {
  // Default-domain opset of the result; alternatives are chosen for it. Unset:
  // the model's own. Above the model's: the model is raised, if that is safe.
  std::optional<int> target_opset;
  // The runtime the result is for: what counts as runnable and which
  // alternatives apply. A target the RuleSet holds, by name...
  std::string target_name = kDefaultTargetName;
  // ...or given directly; when set, target_name is not looked up.
  const Target* target = nullptr;
  // When set, receives every node the rewrite added, where it is in the
  // model, so that validation can check only those (CheckAddedNodes).
  std::vector<AddedNode>* added = nullptr;
  // The main graph's index, when the loader built it (LoadModel's
  // main_index): taken over, unless the rewrite converts the opset first
  // (which edits the nodes it points to); else built here.
  GraphIndex* main_index = nullptr;
  // Replacements remembered per graph tree (match/replacement_memo.h): a node
  // matched as one before (same rule, constant arguments and input types)
  // gets a copy of that replacement with its own names, not a new
  // instantiation. The output is the same either way; 0 turns it off.
  uint64_t memo_entries = 4096;
  // How many unmapped nodes are matched before those matches are applied.
  // The rewrite runs in two stages, each over a batch of nodes, so that each
  // stage's code stays in the instruction cache (engine.cc). The output is
  // the same for any value; 1 applies each match before the next node is
  // matched, as a one-stage rewrite would.
  uint64_t match_batch = 64;
};

// Rewrites `model` in place. An unknown target_name is a kUsage error. On error the model may be partly edited: callers
// that must keep it work on a copy.
Expected<RewriteReport> RewriteModel(onnx::ModelProto* model, const RuleSet& rules, const RewriteOptions& options);

}  // namespace remap
