#include "engine/engine.h"

#include <map>
#include <memory>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include <fmt/format.h>

#include "core/pointer_set.h"
#include "match/constant_reader.h"
#include "match/node_form.h"
#include "match/node_matcher.h"
#include "model/deferred_nodes.h"
#include "model/graph_index.h"
#include "model/opset_import.h"
#include "model/type_oracle.h"
#include "engine/outcome_interner.h"
#include "convert/opset_converter.h"
#include "opset/opset_raise.h"
#include "rewrite/node_list_editor.h"
#include "rewrite/replacement_emitter.h"

namespace remap {

namespace {

using NodeList = google::protobuf::RepeatedPtrField<onnx::NodeProto>;

// The matcher picks alternatives; the rewriters instantiate them.
InstantiateFn Instantiator(int target_opset, GraphIndex* index) {
  return [target_opset, index](const onnx::NodeProto& node, const Rule& rule, const Alternative& alt,
                               const Binding& binding, std::vector<onnx::NodeProto>* out, RuleFailure* failure,
                               EmitRecord* record) {
    return EmitReplacement(node, rule, alt, binding, target_opset, index, out, failure, record);
  };
}

// Rewrites one graph tree (a main graph with its subgraphs, or a function).
class TreeRewriter {
 public:
  // `function`: the model-local function this tree is, or null; `added` may be null.
  TreeRewriter(const ClassifyContext& classify, const MatchContext& match, GraphIndex* index, RewriteReport* report,
               OutcomeInterner* interner, std::vector<AddedNode>* added, const onnx::FunctionProto* function,
               uint64_t batch)
      : classify_(classify), match_(match), index_(index), report_(report), interner_(interner), added_(added),
        function_(function), batch_(batch) {}

  void RewriteGraph(onnx::GraphProto* graph, const std::string& path) { RewriteNodes(graph->mutable_node(), path); }

  // Rewrites in stages, each run over a batch of unmapped nodes in turn:
  // walk the tree and pick them out, match them (making their replacements),
  // then record and apply each. Each stage's code then stays in the
  // instruction cache from one node to the next, where one node's whole path
  // does not fit (docs/design.md, "Stages"). The result is that of matching
  // and applying one node at a time: what a match reads of an earlier node's
  // rewrite is done at that node's match (MatchWalked), or, for the use
  // counts a producer pattern reads, before it reads them (MatchContext::settle).
  void RewriteNodes(NodeList* nodes, const std::string& path) {
    ++depth_;
    std::unique_ptr<ListEdit> list;  // made at the list's first unmapped node
    for (int i = 0; i < nodes->size(); ++i) {
      onnx::NodeProto* node = nodes->Mutable(i);
      // Nodes left as bytes: plain operators, never a candidate.
      if (node->op_type().empty() && DeferredRunOf(*node) >= 0) continue;
      for (auto& attr : *node->mutable_attribute()) {
        if (!attr.has_g() && attr.graphs_size() == 0) continue;
        // Appended rather than formatted: a control-flow model has a path per body.
        std::string sub;
        sub.reserve(path.size() + node->name().size() + attr.name().size() + 2);
        sub.append(path).append(1, '/').append(node->name()).append(1, '.').append(attr.name());
        if (attr.has_g()) RewriteGraph(attr.mutable_g(), sub);
        for (int k = 0; k < attr.graphs_size(); ++k) RewriteGraph(attr.mutable_graphs(k), fmt::format("{}[{}]", sub, k));
      }
      // A node with subgraphs is never replaced itself (no rule reads a
      // graph attribute: AttributeToValue), so no replacement frees a list
      // whose edits are still to be committed.
      NodeForm form = ClassifyNode(*node, classify_);
      if (!form.unmapped()) continue;
      // Made at the list's first unmapped node: most lists of a model have
      // none, and a path names one list, so there is nothing to intern it against.
      if (!list) list = std::make_unique<ListEdit>(nodes, path);
      walked_.push_back(Walked{node, i, std::move(form), list.get()});
      if (walked_.size() >= batch_) RewriteWalked();
    }
    // Committed once the nodes walked before its end are applied.
    if (list) finished_.push_back(std::move(list));
    if (--depth_ == 0) RewriteWalked();
  }

  // Applies the matched nodes: the index then reads as if each had been
  // applied right after its match.
  void ApplyMatched() {
    for (Pending& p : pending_) RewriteNode(&p);
    pending_.clear();
  }

  // Removes the argument producers (Constant, SequenceConstruct,
  // prim::ListConstruct, prim::Constant nodes and initializers) that fed
  // rewritten nodes and now feed nothing, in one compaction pass.
  void RemoveDeadProducers(onnx::GraphProto* graph) {
    CollectDead();
    RemoveDeadIn(graph->mutable_node());
    RemoveElements(graph->mutable_initializer(), dead_initializers_);
  }
  void RemoveDeadProducers(onnx::FunctionProto* function) {
    CollectDead();
    RemoveDeadIn(function->mutable_node());
  }

  const std::map<std::string, int64_t>& imports_needed() const { return imports_needed_; }
  const std::vector<std::string>& domains_rewritten() const { return domains_rewritten_; }

 private:
  // One list's edits, and its path for the report.
  struct ListEdit {
    ListEdit(NodeList* nodes, const std::string& path) : editor(nodes), graph(path) {}
    NodeListEditor editor;
    SharedString graph;
  };
  // An unmapped node the walk found.
  struct Walked {
    onnx::NodeProto* node;
    int i;  // its place in its list
    NodeForm form;
    ListEdit* list;
  };
  // A matched node waiting to be recorded and applied.
  struct Pending {
    Walked walked;
    MatchResult m;
  };

  // Matches the walked nodes, applies them, and commits the lists walked to their end.
  void RewriteWalked() {
    for (Walked& w : walked_) MatchWalked(&w);
    walked_.clear();
    ApplyMatched();
    for (auto& list : finished_) {
      if (!added_) {
        list->editor.Commit();
        continue;
      }
      placed_.clear();
      list->editor.Commit(&placed_);
      for (const onnx::NodeProto* n : placed_) added_->push_back(AddedNode{n, function_});
    }
    finished_.clear();
  }

  // Out of line, as the other stages: a stage's code is what stays in the
  // cache while it runs over the batch.
  __attribute__((noinline)) void MatchWalked(Walked* w) {
    MatchResult m = MatchNode(*w->node, w->form, match_, index_);
    // Forgotten now, not when applied: a later node's match reads its
    // inputs' producers, and must find this node already replaced.
    if (m.ok) {
      for (const auto& out : w->node->output()) index_->ForgetProducer(out);
    }
    pending_.push_back(Pending{std::move(*w), std::move(m)});
  }

  // Records what came of one matched node; a replacement goes to its list's editor.
  __attribute__((noinline)) void RewriteNode(Pending* p) {
    onnx::NodeProto* node = p->walked.node;
    const NodeForm& form = p->walked.form;
    MatchResult& m = p->m;
    // Built where it is kept: a local moved into the report ran a move and a
    // destructor of the record per node, code the instruction cache holds
    // for nothing else (the per-node path already overflows it).
    NodeOutcome& outcome = m.ok ? report_->rewritten.emplace_back() : report_->remaining.emplace_back();
    outcome.graph = p->walked.list->graph;
    outcome.node = node->name();
    // A node replayed by its node key records what the first node of that
    // key recorded: interned once, not per node. The key holds the node's
    // form, domain, op_type and ATen operator, so those are alike too.
    const ReplayRecord* same = nullptr;
    if (m.node_key_hit) {
      auto it = replay_records_.find(m.node_key_hit);
      if (it != replay_records_.end()) same = &it->second;
    }
    if (same) {
      outcome.op = same->op;
      outcome.form = same->form;
      outcome.aten_operator = same->aten_operator;
      outcome.candidates = same->candidates;
    } else {
      outcome.op = interner_->String(OpName(*node));
      outcome.form = interner_->String(form.KindName());
      outcome.aten_operator = interner_->String(form.aten_operator);
      outcome.candidates = m.node_key_hit ? interner_->Candidates(m.node_key_hit->entry->outcomes)
                                          : interner_->Candidates(std::move(m.candidates));
    }
    if (!m.ok) {
      outcome.reason = m.reason;
      outcome.needs_opset = m.needs_opset;
      outcome.refusal = m.refusal;
      if (m.refused_by) outcome.refused_by = interner_->String(m.refused_by->id);
      // Unmapped only if it survives: a prim::ListConstruct or prim::Constant
      // usually feeds an ATen node and goes with it, and a producer pattern
      // (fft_rfft under view_as_real) is rewritten with its consumer.
      unmapped_nodes_.emplace_back(node, report_->remaining.size() - 1);
      return;
    }
    if (m.replayed) ++report_->replacements_replayed;
    if (m.node_key_hit) ++report_->replayed_by_node_key;
    outcome.rule_location = m.alternative->location;
    if (same) {
      outcome.rule = same->rule;
      outcome.emitted = same->emitted;
    } else {
      outcome.rule = interner_->String(m.rule->id);
      std::vector<std::string> emitted;
      emitted.reserve(m.replacement.size());
      for (const auto& n : m.replacement) emitted.push_back(OpName(n));
      outcome.emitted = interner_->Names(std::move(emitted));
      if (m.node_key_hit)
        replay_records_.emplace(m.node_key_hit, ReplayRecord{outcome.op, outcome.form, outcome.aten_operator, outcome.rule,
                                                              outcome.emitted, outcome.candidates});
    }
    for (const auto& n : m.replacement) {
      for (const auto& in : n.input()) {
        if (!in.empty()) index_->AddUse(in);
      }
    }
    for (const auto& in : node->input()) {
      if (in.empty()) continue;
      index_->RemoveUse(in);
      released_.push_back(index_->KeyOf(in));  // the node's own strings go with it
    }
    Release(&released_);
    absorbed_.insert(absorbed_.end(), m.absorbed.begin(), m.absorbed.end());
    for (const auto& [domain, version] : m.alternative->imports) imports_needed_[domain] = version;
    NoteRewrittenDomain(node->domain());
    p->walked.list->editor.Replace(p->walked.i, std::move(m.replacement));
  }

  // Producers rewritten with their consumer (absorbed) die with the whole
  // tree's rewrite; their inputs are released then.
  void CollectDead() {
    std::vector<std::string_view> work;
    for (const onnx::NodeProto* p : absorbed_) {
      if (!dead_nodes_.insert(p)) continue;
      NoteRewrittenDomain(p->domain());
      for (const auto& out : p->output()) index_->ForgetProducer(out);
      for (const auto& in : p->input()) {
        if (in.empty()) continue;
        index_->RemoveUse(in);
        work.push_back(index_->KeyOf(in));
      }
      // Freed now, as Release frees the dead it finds; RemoveDeadIn relies on it.
      FreeNodeContent(const_cast<onnx::NodeProto*>(p));
    }
    Release(&work);
    DropRemovedFromRemaining();
  }
  // A worklist over values that lost uses (`work` holds the index's copies of
  // their names): an argument producer (Constant, SequenceConstruct,
  // prim::ListConstruct, ...) left with no use is dead, and so may be its own
  // producers (a Constant that fed only the SequenceConstruct). It dies at
  // once: its content is freed now (a million-node rewrite would otherwise
  // hold every scalar Constant it bound until the end) and RemoveDeadIn drops
  // the emptied node from its list. Values only lose uses, so a dead node
  // stays dead.
  void Release(std::vector<std::string_view>* work) {
    const GraphIndex& index = *index_;
    while (!work->empty()) {
      const GraphIndex::Entry* entry = index.Find(work->back());
      work->pop_back();
      if (!entry || entry->uses > 0) continue;
      const Producer p = entry->producer();
      if (p.kind == Producer::Kind::kInitializer) dead_initializers_.insert(p.initializer);
      if (p.kind != Producer::Kind::kNode || !p.node || !IsArgumentProducer(*p.node) || dead_nodes_.contains(p.node)) continue;
      bool unused = true;
      for (const auto& out : p.node->output()) unused = unused && (out.empty() || index_->Uses(out) == 0);
      if (!unused) continue;
      dead_nodes_.insert(p.node);
      NoteRewrittenDomain(p.node->domain());  // its import may now be unused
      for (const auto& in : p.node->input()) {
        if (in.empty()) continue;
        index_->RemoveUse(in);
        work->push_back(index_->KeyOf(in));
      }
      for (const auto& out : p.node->output()) {
        if (!out.empty()) index_->ForgetProducer(out);
      }
      // The index holds nodes as const; the model they belong to is ours to edit.
      FreeNodeContent(const_cast<onnx::NodeProto*>(p.node));
    }
  }
  // A model's rewritten and removed nodes come from a handful of domains: a
  // scan of those seen is less code, run per node, than a set insert.
  void NoteRewrittenDomain(const std::string& domain) {
    for (const std::string& d : domains_rewritten_) {
      if (d == domain) return;
    }
    domains_rewritten_.push_back(domain);
  }
  // The unmapped argument producers that were removed are no longer left.
  void DropRemovedFromRemaining() {
    std::vector<bool> drop(report_->remaining.size(), false);
    bool any = false;
    for (const auto& [node, at] : unmapped_nodes_) {
      if (dead_nodes_.contains(node)) drop[at] = any = true;
    }
    if (!any) return;
    size_t write = 0;
    for (size_t read = 0; read < report_->remaining.size(); ++read) {
      if (drop[read]) continue;
      if (write != read) report_->remaining[write] = std::move(report_->remaining[read]);
      ++write;
    }
    report_->remaining.resize(write);
  }
  void RemoveDeadIn(NodeList* nodes) {
    if (dead_nodes_.empty() && dead_initializers_.empty()) return;
    // Every dead node was emptied when it died: only an empty node needs the
    // set's confirmation (a model may hold nodes without op_type of its own).
    if (!dead_nodes_.empty())
      RemoveElementsIf(nodes, [this](const onnx::NodeProto& n) { return n.op_type().empty() && dead_nodes_.contains(&n); });
    for (auto& node : *nodes) {
      ForEachSubgraph(node, [this](onnx::GraphProto& g) {
        RemoveDeadIn(g.mutable_node());
        RemoveElements(g.mutable_initializer(), dead_initializers_);
      });
    }
  }

  const ClassifyContext& classify_;
  const MatchContext& match_;
  GraphIndex* index_;
  RewriteReport* report_;
  OutcomeInterner* interner_;
  std::vector<AddedNode>* added_;
  const onnx::FunctionProto* function_;
  const uint64_t batch_;  // RewriteOptions::match_batch
  std::vector<std::string_view> released_;  // Release's worklist, kept to reuse its buffer
  int depth_ = 0;  // of RewriteNodes calls: the tree's walk is over at 0
  std::vector<Walked> walked_;
  std::vector<Pending> pending_;
  std::vector<std::unique_ptr<ListEdit>> finished_;  // walked lists, committed by RewriteWalked
  std::vector<const onnx::NodeProto*> placed_;  // a commit's placed nodes, kept to reuse its buffer
  PointerSet<onnx::NodeProto> dead_nodes_;
  std::unordered_set<const onnx::TensorProto*> dead_initializers_;
  std::vector<std::pair<const onnx::NodeProto*, size_t>> unmapped_nodes_;  // node, index in report_->remaining
  std::vector<const onnx::NodeProto*> absorbed_;  // producers rewritten with their consumer
  std::map<std::string, int64_t> imports_needed_;
  std::vector<std::string> domains_rewritten_;  // each once
  // What the nodes replayed by one node key record (ReplacementMemo::NodeEntry).
  struct ReplayRecord {
    SharedString op;
    SharedString form;
    SharedString aten_operator;
    SharedString rule;
    SharedList<std::string> emitted;
    SharedList<CandidateOutcome> candidates;
  };
  std::unordered_map<const ReplacementMemo::NodeEntry*, ReplayRecord> replay_records_;
};

std::map<std::string, int64_t> NonDefaultImports(const google::protobuf::RepeatedPtrField<onnx::OperatorSetIdProto>& ops) {
  std::map<std::string, int64_t> out;
  for (const auto& op : ops) {
    if (!IsDefaultDomain(op.domain())) out[op.domain()] = op.version();
  }
  return out;
}

void AddImports(google::protobuf::RepeatedPtrField<onnx::OperatorSetIdProto>* ops, const std::map<std::string, int64_t>& needed) {
  auto have = NonDefaultImports(*ops);
  for (const auto& [domain, version] : needed) {
    if (have.count(domain)) continue;
    auto* op = ops->Add();
    op->set_domain(domain);
    op->set_version(version);
  }
}

std::unordered_map<std::string, int> OracleOpsets(const std::map<std::string, int64_t>& imports, int default_opset) {
  std::unordered_map<std::string, int> out;
  for (const auto& [domain, version] : imports) out[domain] = static_cast<int>(version);
  out[""] = default_opset;
  return out;
}

void CollectDomains(const NodeList& nodes, std::set<std::string>* out) {
  const std::string* last = nullptr;  // neighbours mostly share a domain: one set insert per run
  for (const auto& n : nodes) {
    if (!last || n.domain() != *last) out->insert(n.domain());
    last = &n.domain();
    ForEachSubgraph(n, [out](const onnx::GraphProto& g) { CollectDomains(g.node(), out); });
  }
}

// Drops imports of domains the rewrite emptied (others stay, used or not).
void DropImports(google::protobuf::RepeatedPtrField<onnx::OperatorSetIdProto>* ops, const std::set<std::string>& drop) {
  std::unordered_set<const onnx::OperatorSetIdProto*> remove;
  for (const auto& op : *ops) {
    if (drop.count(op.domain())) remove.insert(&op);
  }
  RemoveElements(ops, remove);
}

}  // namespace

Expected<RewriteReport> RewriteModel(onnx::ModelProto* model, const RuleSet& rules, const RewriteOptions& options) {
  const Target* runtime = options.target ? options.target : rules.FindTarget(options.target_name);
  if (!runtime)
    return Status(ErrorCode::kUsage,
                  fmt::format("unknown target '{}' (known targets: {})", options.target_name, rules.TargetNames()));
  RewriteReport report;
  report.ir_before = static_cast<int>(model->ir_version());
  // 0 when the model imports only other domains (ONNX's training tests import only
  // ai.onnx.preview.training): valid, and it has no default-domain node to rewrite or raise.
  // Without --opset, rules that emit default-domain ops are left ("needs opset N");
  // with it, the default domain is imported at N.
  const int model_opset = DefaultOpset(model->opset_import());
  const int target = options.target_opset.value_or(model_opset);
  report.opset_before = model_opset;
  // Converted first: the rules then work on (and emit into) a model at the target opset.
  bool converted_opset = false;
  if (target != model_opset && model_opset != 0) {
    converted_opset = true;
    auto converted = ConvertOpset(model, target);
    if (!converted) return converted.status();
    if (!converted->refused.empty()) return Status(ErrorCode::kOpsetRefused, DescribeRefusals(*converted));
    report.notes.push_back(DescribeConversion(*converted));
  } else if (target > NewestConvertibleOpset()) {
    return Status(ErrorCode::kOpsetRefused, fmt::format("opset {} is outside the opsets onnx-remap converts between ({} to {})", target,
                                                        OldestConvertibleOpset(), NewestConvertibleOpset()));
  }

  ClassifyContext classify;
  classify.target = runtime;
  classify.emitted_domains = rules.DomainsEmittedForEveryTarget();
  for (const auto& f : model->functions()) classify.local_functions.insert(MatchKeyOp(f.domain(), f.name()));

  std::set<std::string> rewritten_domains;
  OutcomeInterner interner;
  // Main graph tree.
  {
    auto imports = NonDefaultImports(model->opset_import());
    GraphIndex index = options.main_index && !converted_opset ? std::move(*options.main_index)
                                                              : GraphIndex::ForGraph(model->graph());
    TypeOracle oracle(&index, OracleOpsets(imports, target));
    index.AttachTypeOracle(&oracle);
    ReplacementMemo memo(options.memo_entries);
    MatchContext match{&rules, target, &imports, runtime, &oracle, &classify, Instantiator(target, &index),
                       options.memo_entries > 0 ? &memo : nullptr, {}};
    TreeRewriter rewriter(classify, match, &index, &report, &interner, options.added, nullptr, options.match_batch);
    match.settle = [&rewriter] { rewriter.ApplyMatched(); };
    rewriter.RewriteGraph(model->mutable_graph(), model->graph().name());
    rewriter.RemoveDeadProducers(model->mutable_graph());
    report.nodes_typed += oracle.nodes_typed();
    AddImports(model->mutable_opset_import(), rewriter.imports_needed());
    rewritten_domains.insert(rewriter.domains_rewritten().begin(), rewriter.domains_rewritten().end());
  }
  // Model-local functions: their own scope and opset_import.
  for (auto& f : *model->mutable_functions()) {
    auto imports = NonDefaultImports(f.opset_import());
    int f_opset = DefaultOpset(f.opset_import());
    const int f_target = f_opset && target == model_opset ? f_opset : target;
    GraphIndex index = GraphIndex::ForFunction(f);
    TypeOracle oracle(&index, OracleOpsets(imports, f_target));
    index.AttachTypeOracle(&oracle);
    ReplacementMemo memo(options.memo_entries);
    MatchContext match{&rules, f_target, &imports, runtime, &oracle, &classify, Instantiator(f_target, &index),
                       options.memo_entries > 0 ? &memo : nullptr, {}};
    TreeRewriter rewriter(classify, match, &index, &report, &interner, options.added, &f, options.match_batch);
    match.settle = [&rewriter] { rewriter.ApplyMatched(); };
    rewriter.RewriteNodes(f.mutable_node(), fmt::format("function {}::{}", f.domain(), f.name()));
    rewriter.RemoveDeadProducers(&f);
    report.nodes_typed += oracle.nodes_typed();
    AddImports(f.mutable_opset_import(), rewriter.imports_needed());
    AddImports(model->mutable_opset_import(), rewriter.imports_needed());
    rewritten_domains.insert(rewriter.domains_rewritten().begin(), rewriter.domains_rewritten().end());
  }

  // Imports of domains no node uses any more (org.pytorch.aten, custom, ...).
  std::set<std::string> used;
  CollectDomains(model->graph().node(), &used);
  for (const auto& f : model->functions()) {
    CollectDomains(f.node(), &used);
    used.insert(f.domain());
  }
  std::set<std::string> drop;
  for (const std::string& d : rewritten_domains) {
    if (!IsDefaultDomain(d) && !used.count(d)) drop.insert(d);
  }
  DropImports(model->mutable_opset_import(), drop);
  for (auto& f : *model->mutable_functions()) DropImports(f.mutable_opset_import(), drop);

  if (model_opset == 0 && target > 0) {
    SetDefaultOpset(model, target);
    report.notes.push_back(fmt::format("default opset {} imported", target));
  }
  report.opset_after = DefaultOpset(model->opset_import());
  report.ir_after = static_cast<int>(model->ir_version());
  if (report.ir_after != report.ir_before)
    report.notes.push_back(fmt::format("IR version raised from {} to {} to match opset {}", report.ir_before, report.ir_after, target));
  return report;
}

}  // namespace remap
