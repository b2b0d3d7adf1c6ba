// Picks the rule and alternative for one unmapped node, or says why none fits.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include <onnx/onnx_pb.h>

#include "match/argument_binding.h"
#include "match/guard.h"
#include "match/node_form.h"
#include "match/emit_record.h"
#include "match/refusal.h"
#include "match/replacement_memo.h"
#include "model/graph_index.h"
#include "model/type_oracle.h"
#include "rules/rule_set.h"

namespace remap {

struct MatchResult {
  bool ok = false;
  const Rule* rule = nullptr;
  const Alternative* alternative = nullptr;
  std::vector<onnx::NodeProto> replacement;
  std::string reason;   // when !ok
  int needs_opset = 0;  // when !ok only for want of opset
  Refusal refusal = Refusal::kNone;  // when !ok: the kind of the last refusal
  const Rule* refused_by = nullptr;  // when refusal is kNoStandardForm
  // Producer nodes the rule rewrote together with the node: to be removed.
  std::vector<const onnx::NodeProto*> absorbed;
  // Every candidate considered, in order: why each gave way, and the one that applied.
  std::vector<CandidateOutcome> candidates;
  // The replacement is a copy of one made for a node matched alike (MatchContext::memo).
  bool replayed = false;
  // ... found by the node's own key, before any rule was bound
  // (ReplacementMemo::NodeKeyOf): the memo's record of that key, else null.
  // `candidates` is then empty: those of the remembered match, whole, are in
  // the record's entry. The record is one identity for every node of the
  // key, which share their op, form, rule, emitted ops and candidates. (Two
  // keys may share a replacement: an ATen fallback and a fall-through node
  // of one operator and arguments.)
  const ReplacementMemo::NodeEntry* node_key_hit = nullptr;
};

// Instantiates a fitting alternative's replacement (the rewriters' job; the
// engine supplies it, so matching does not depend on rewriting). false with
// `failure` set: the alternative gives way to the next.
// `record` receives the fresh names the instantiation asks for.
using InstantiateFn = std::function<bool(const onnx::NodeProto& node, const Rule& rule, const Alternative& alt,
                                         const Binding& binding, std::vector<onnx::NodeProto>* out, RuleFailure* failure,
                                         EmitRecord* record)>;

struct MatchContext {
  const RuleSet* rules = nullptr;
  int target_opset = 0;
  // Non-default domains the model already imports, with versions.
  const std::map<std::string, int64_t>* imports = nullptr;
  // The runtime the result is for: alternatives for other targets are skipped.
  const Target* target = nullptr;
  // Types replacements as they are emitted; a replacement with a type error is refused.
  TypeOracle* oracle = nullptr;
  // How nodes are classified, for producer patterns.
  const ClassifyContext* classify = nullptr;
  InstantiateFn instantiate;
  // Replacements made before, replayed for nodes matched alike; may be null.
  ReplacementMemo* memo = nullptr;
  // Called before a rule's producer patterns read how often values are
  // used: a rewriter that applies its matches later applies those it holds,
  // so that the counts are as each applied rewrite leaves them. May be empty.
  std::function<void()> settle;
};

MatchResult MatchNode(const onnx::NodeProto& node, const NodeForm& form, const MatchContext& context,
                      GraphIndex* index);

}  // namespace remap
