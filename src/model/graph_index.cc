#include "model/graph_index.h"

#include <utility>

#include <fmt/format.h>

#include "model/deferred_nodes.h"
#include "model/name_hash.h"
#include "model/type_oracle.h"

namespace remap {

size_t ValuesDefinedIn(const onnx::GraphProto& g) {
  size_t values = static_cast<size_t>(g.input_size()) + static_cast<size_t>(g.initializer_size());
  for (const auto& node : g.node()) values += static_cast<size_t>(node.output_size());
  return values;
}

namespace {

// What indexing a graph and every subgraph in it adds to the tables, at most:
// reserved up front, the tables never regrow while the walk fills them (on
// a model of many small subgraphs each regrowth rehashed every name so far).
struct TreeCount {
  size_t values = 0;
  size_t nodes = 0;
};

void CountTree(const onnx::GraphProto& g, TreeCount* count) {
  count->values += ValuesDefinedIn(g);
  count->nodes += static_cast<size_t>(g.node_size());
  for (const auto& node : g.node())
    ForEachSubgraph(node, [count](const onnx::GraphProto& sub) { CountTree(sub, count); });
}

}  // namespace

GraphIndex::GraphIndex() : t_(std::make_unique<Tables>()) {}

GraphIndex GraphIndex::ForGraph(const onnx::GraphProto& graph) {
  GraphIndex index;
  TreeCount count;
  CountTree(graph, &count);
  index.t_->values.Reserve(count.values);
  index.t_->node_name_hashes.Reserve(count.nodes);
  LastOutput last;
  index.IndexGraph(graph, &last);
  return index;
}

GraphIndex GraphIndex::ForFunction(const onnx::FunctionProto& function) {
  GraphIndex index;
  for (const auto& in : function.input()) index.Slot(in).set_producer(Producer{Producer::Kind::kGraphInput, nullptr, nullptr});
  for (const auto& out : function.output()) ++index.Slot(out).uses;
  LastOutput last;
  for (const auto& node : function.node()) index.IndexNode(node, &last);
  return index;
}

MainGraphIndexBuilder::MainGraphIndexBuilder(const onnx::GraphProto& graph, const DeferredNodes* deferred,
                                             size_t names_apart_from) {
  const size_t deferred_nodes = deferred ? deferred->node_count() : 0;
  const size_t nodes = static_cast<size_t>(graph.node_size()) + deferred_nodes;
  index_.t_->values.Reserve(ValuesDefinedIn(graph) + deferred_nodes);
  // Room for every name now: the set never grows while the other core fills it.
  index_.t_->node_name_hashes.Reserve(nodes);
  if (nodes >= names_apart_from) {
    // The names the walk would insert: those of parsed nodes (not of the
    // placeholders of runs left as bytes) and of nodes left as bytes. Only
    // this thread touches the set until JoinNames; the walk reads the same
    // nodes and writes no field this reads. With no thread to be had, the
    // walk inserts the names itself.
    names_.TryRun([&graph, deferred, set = &index_.t_->node_name_hashes] {
      for (const auto& node : graph.node()) {
        if (!node.name().empty() && !(deferred && DeferredRunOf(node) >= 0)) set->Insert(NameHash(node.name()));
      }
      for (size_t run = 0; deferred && run < deferred->run_count(); ++run) {
        for (const DeferredNode* n = deferred->begin(run); n != deferred->end(run); ++n) {
          if (!n->name.empty()) set->Insert(NameHash(n->name));
        }
      }
    });
  }
  index_.IndexGraphValues(graph);
  for (const auto& init : graph.sparse_initializer()) sparse_.insert(init.values().name());
}

MainGraphIndexBuilder::~MainGraphIndexBuilder() { JoinNames(); }

bool MainGraphIndexBuilder::UseInputs(const onnx::NodeProto& node, std::string_view* undefined) {
  if (!names_.Running() && !node.name().empty()) index_.t_->node_name_hashes.Insert(NameHash(node.name()));
  for (const auto& in : node.input()) {
    if (in.empty()) continue;
    GraphIndex::Entry& e = SlotOf(in);
    if (e.producer().kind == Producer::Kind::kUnknown && !Sparse(in)) {
      *undefined = in;
      return false;
    }
    ++e.uses;
  }
  return true;
}

bool MainGraphIndexBuilder::DefineOutputs(const onnx::NodeProto& node, std::string_view* twice, Producer* first) {
  for (const auto& out : node.output()) {
    if (out.empty()) continue;
    GraphIndex::Entry& e = index_.Slot(out);
    if (e.producer().kind != Producer::Kind::kUnknown || Sparse(out)) {
      *twice = out;
      *first = e.producer();
      return false;
    }
    e.set_producer(Producer{Producer::Kind::kNode, &node, nullptr});
    last_.Set(out, &e);
  }
  ForEachSubgraph(node, [&](const onnx::GraphProto&) {
    if (with_subgraphs_.empty() || with_subgraphs_.back() != &node) with_subgraphs_.push_back(&node);
  });
  return true;
}

bool MainGraphIndexBuilder::UseInput(const DeferredNode& node) {
  if (!names_.Running() && !node.name.empty()) index_.t_->node_name_hashes.Insert(NameHash(node.name));
  GraphIndex::Entry& e = SlotOf(node.input);
  const Producer p = e.producer();
  if (p.kind == Producer::Kind::kUnknown && !Sparse(node.input)) return false;
  ++e.uses;
  node.input_entry = &e;
  // The chain goes on through a value whose type the model does not record.
  node.chain_head = p.kind == Producer::Kind::kDeferred && !e.type_proto() ? p.deferred->chain_head : &node;
  return true;
}

bool MainGraphIndexBuilder::DefineOutput(const DeferredNode& node) {
  GraphIndex::Entry& e = index_.Slot(node.output);
  if (e.producer().kind != Producer::Kind::kUnknown || Sparse(node.output)) return false;
  Producer p;
  p.kind = Producer::Kind::kDeferred;
  p.deferred = &node;
  e.set_producer(p);
  last_.Set(node.output, &e);
  return true;
}

bool MainGraphIndexBuilder::Defined(std::string_view value) const {
  const GraphIndex::Entry* e = index_.Find(value);
  return (e && e->producer().kind != Producer::Kind::kUnknown) || Sparse(value);
}

void MainGraphIndexBuilder::Prefetch(const DeferredNode& node) const {
  if (!names_.Running() && !node.name.empty()) index_.t_->node_name_hashes.Prefetch(NameHash(node.name));
  index_.t_->values.Prefetch(node.output);
}

void MainGraphIndexBuilder::Prefetch(const onnx::NodeProto& node) const {
  if (!names_.Running() && !node.name().empty()) index_.t_->node_name_hashes.Prefetch(NameHash(node.name()));
  for (const auto& out : node.output()) index_.t_->values.Prefetch(out);
}

GraphIndex MainGraphIndexBuilder::Finish() && {
  JoinNames();  // subgraphs add their node names to the same set
  if (!with_subgraphs_.empty()) {
    TreeCount count;
    for (const onnx::NodeProto* node : with_subgraphs_)
      ForEachSubgraph(*node, [&count](const onnx::GraphProto& g) { CountTree(g, &count); });
    index_.t_->values.Reserve(index_.t_->values.size() + count.values);
    index_.t_->node_name_hashes.Reserve(index_.t_->node_name_hashes.size() + count.nodes);
  }
  GraphIndex::LastOutput last;
  for (const onnx::NodeProto* node : with_subgraphs_) {
    ForEachSubgraph(*node, [this, &last](const onnx::GraphProto& g) { index_.IndexGraph(g, &last); });
  }
  return std::move(index_);
}

void GraphIndex::IndexGraphValues(const onnx::GraphProto& graph) {
  for (const auto& in : graph.input()) {
    Slot(in.name()).set_producer(Producer{Producer::Kind::kGraphInput, nullptr, nullptr});
    NoteType(in);
  }
  // An initializer that is also a graph input stays an input: callers may override it.
  for (const auto& init : graph.initializer()) {
    Entry& e = Slot(init.name());
    if (e.producer().kind == Producer::Kind::kUnknown) e.set_producer(Producer{Producer::Kind::kInitializer, nullptr, &init});
    e.type = TensorType{init.data_type(), init.dims_size()};
  }
  for (const auto& init : graph.sparse_initializer()) Slot(init.values().name());
  for (const auto& out : graph.output()) {
    ++Slot(out.name()).uses;
    NoteType(out);
  }
  for (const auto& vi : graph.value_info()) NoteType(vi);
}

void GraphIndex::IndexGraph(const onnx::GraphProto& graph, LastOutput* last) {
  IndexGraphValues(graph);
  // Each node inserts names at random places of tables too large for the
  // cache: the slots of a node a few places ahead are loaded while this one
  // is indexed.
  constexpr int kAhead = 8;
  const int count = graph.node_size();
  for (int k = 0; k < count; ++k) {
    if (k + kAhead < count) {
      const onnx::NodeProto& ahead = graph.node(k + kAhead);
      if (!ahead.name().empty()) t_->node_name_hashes.Prefetch(NameHash(ahead.name()));
      for (const auto& out : ahead.output()) t_->values.Prefetch(out);
    }
    IndexNode(graph.node(k), last);
  }
}

void GraphIndex::IndexNode(const onnx::NodeProto& node, LastOutput* last) {
  if (!node.name().empty()) t_->node_name_hashes.Insert(NameHash(node.name()));
  Entry* first_input = nullptr;
  for (const auto& in : node.input()) {
    if (in.empty()) continue;
    Entry* last_output = last->Get(in);
    Entry& e = last_output ? *last_output : Slot(in);
    ++e.uses;
    if (!first_input) first_input = &e;
  }
  Entry* output = nullptr;
  for (const auto& out : node.output()) {
    if (out.empty()) continue;
    output = &Slot(out);
    output->set_producer(Producer{Producer::Kind::kNode, &node, nullptr});
    last->Set(out, output);
  }
  if (first_input && output && IsSameTypeUnary(node)) output->set_same_type_as(first_input);
  ForEachSubgraph(node, [this, last](const onnx::GraphProto& g) { IndexGraph(g, last); });
}

void GraphIndex::NoteType(const onnx::ValueInfoProto& vi) {
  Entry& e = Slot(vi.name());
  if (!vi.type().has_tensor_type()) return;
  const auto& t = vi.type().tensor_type();
  if (t.elem_type() != 0) e.type.elem_type = t.elem_type();
  if (t.has_shape()) e.type.rank = t.shape().dim_size();
  if (t.elem_type() != 0) e.set_type_proto(&vi.type());
}

TensorType GraphIndex::TypeOf(const std::string& value) const {
  return oracle_ ? oracle_->TypeOf(value) : RecordedTypeOf(value);
}

std::vector<int64_t> GraphIndex::StaticDims(const std::string& value, bool* known) const {
  *known = false;
  std::vector<int64_t> dims;
  const onnx::TypeProto* t = oracle_ ? oracle_->TypeProtoOf(value) : RecordedTypeProto(value);
  if (t && t->has_tensor_type() && t->tensor_type().has_shape()) {
    const auto& shape = t->tensor_type().shape();
    dims.reserve(static_cast<size_t>(shape.dim_size()));  // one allocation, not one per doubling
    for (const auto& d : shape.dim()) dims.push_back(d.has_dim_value() ? d.dim_value() : -1);
    *known = true;
    return dims;
  }
  Producer p = ProducerOf(value);
  if (p.kind == Producer::Kind::kInitializer && p.initializer) {
    dims.assign(p.initializer->dims().begin(), p.initializer->dims().end());
    *known = true;
  }
  return dims;
}

TensorType GraphIndex::TypeAndDims(const std::string& value, std::vector<int64_t>* dims) const {
  if (oracle_) return oracle_->TypeAndDims(value, dims);
  const Entry* e = Find(value);
  if (!e) return TensorType{};
  if (e->type.rank > 0) DimsOf(e->type_proto(), *e, e->type.rank, dims);
  return e->type;
}

void GraphIndex::DimsOf(const onnx::TypeProto* type, const Entry& entry, int rank, std::vector<int64_t>* dims) {
  if (type && type->has_tensor_type() && type->tensor_type().has_shape()) {
    const auto& shape = type->tensor_type().shape();
    // Only a shape that agrees with the rank: the recorded and inferred types may differ in detail.
    if (shape.dim_size() != rank) return;
    dims->reserve(static_cast<size_t>(rank));
    for (const auto& d : shape.dim()) dims->push_back(d.has_dim_value() ? d.dim_value() : -1);
    return;
  }
  const Producer p = entry.producer();
  if (p.kind == Producer::Kind::kInitializer && p.initializer && p.initializer->dims_size() == rank)
    dims->assign(p.initializer->dims().begin(), p.initializer->dims().end());
}

namespace {

// Every lookup below goes through this one copy of the table's probe. The
// rewrite makes five kinds of lookup per rewritten node; with the probe
// inlined into each, the instruction cache held it five times over, on a
// per-node path that already overflows that cache (docs/performance.md,
// "What is left").
using ValueTable = NameTable<GraphIndex::Entry>;
__attribute__((noinline)) const ValueTable::Item* FindItem(const ValueTable& values, std::string_view value) {
  return values.Find(value);
}

}  // namespace

const GraphIndex::Entry* GraphIndex::Find(std::string_view value) const {
  const auto* item = FindItem(t_->values, value);
  return item ? &item->value : nullptr;
}

GraphIndex::Entry* GraphIndex::Find(std::string_view value) {
  return const_cast<Entry*>(std::as_const(*this).Find(value));
}

TensorType GraphIndex::RecordedTypeOf(const std::string& value) const {
  const Entry* e = Find(value);
  return e ? e->type : TensorType{};
}

const onnx::TypeProto* GraphIndex::RecordedTypeProto(const std::string& value) const {
  const Entry* e = Find(value);
  return e ? e->type_proto() : nullptr;
}

Producer GraphIndex::ProducerOf(std::string_view value) const {
  const Entry* e = Find(value);
  return e ? e->producer() : Producer{};
}

std::string_view GraphIndex::KeyOf(std::string_view value) const {
  const auto* item = FindItem(t_->values, value);
  return item ? item->key : std::string_view();
}

int GraphIndex::Uses(std::string_view value) const {
  const Entry* e = Find(value);
  return e ? e->uses : 0;
}

// A name once taken stays taken, so the first free base_N is the same
// whichever N the search starts from: next_suffix_ only saves trying again
// the ones found taken. A base taken once (the second Cast of a
// replacement) is answered by base_1 without an entry there.
template <typename Claim>
std::string GraphIndex::Fresh(const std::string& base, Claim claim) {
  if (claim(base)) return base;
  auto known = next_suffix_.find(base);
  if (known == next_suffix_.end()) {
    std::string first = base + "_1";
    if (claim(first)) return first;
    known = next_suffix_.emplace(base, 1).first;
  }
  int& suffix = known->second;
  while (true) {
    std::string name = fmt::format("{}_{}", base, ++suffix);
    if (claim(name)) return name;
  }
}

std::string GraphIndex::FreshValueName(const std::string& base) {
  return Fresh(base, [this](const std::string& name) {
    const size_t before = t_->values.size();
    Slot(name);  // takes the name when it is free: one lookup
    return t_->values.size() != before;
  });
}

std::string GraphIndex::FreshNodeName(const std::string& base) {
  return Fresh(base, [this](const std::string& name) {
    return t_->node_name_hashes.Insert(NameHash(name));
  });
}

void CapturedNames(const onnx::GraphProto& g, std::vector<std::string>* out) {
  std::unordered_set<std::string> own;
  for (const auto& in : g.input()) own.insert(in.name());
  for (const auto& init : g.initializer()) own.insert(init.name());
  for (const auto& n : g.node()) {
    for (const auto& in : n.input()) {
      if (!in.empty() && !own.count(in)) out->push_back(in);
    }
    ForEachSubgraph(n, [out](const onnx::GraphProto& sub) { CapturedNames(sub, out); });
    for (const auto& o : n.output()) own.insert(o);
  }
}

}  // namespace remap
