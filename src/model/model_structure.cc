#include "model/model_structure.h"

#include <optional>
#include <string_view>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "model/deferred_nodes.h"
#include "model/graph_index.h"
#include "model/last_defined.h"
#include "model/name_table.h"
#include "model/tensor_size.h"

namespace remap {

namespace {

std::string NodeLabel(const onnx::NodeProto& node, int index) {
  const std::string name = node.name().empty() ? fmt::format("#{}", index) : node.name();
  return fmt::format("node '{}' ({})", name, node.op_type());
}

std::string DimsText(const onnx::TensorProto& t) { return fmt::format("[{}]", fmt::join(t.dims(), ", ")); }

bool IsExternal(const onnx::TensorProto& t) { return t.data_location() == onnx::TensorProto::EXTERNAL; }

// `what()` names the tensor ("initializer 'w'", "node 'n' (Constant) attribute
// 'value'"); called only to report a fault.
template <typename What>
Status CheckTensor(const onnx::TensorProto& t, What what) {
  if (IsExternal(t)) return Status::Ok();  // CheckExternalData's job
  const std::optional<int64_t> declared = DeclaredElementCount(t);
  if (!declared)
    return Status(ErrorCode::kInvalidModel,
                  fmt::format("{} declares dims {}, over 2^63 elements", what(), DimsText(t)));
  const size_t bytes = ElementBytes(t.data_type());
  if (bytes != 0 && t.has_raw_data() && t.raw_data().size() % bytes != 0)
    return Status(ErrorCode::kInvalidModel, fmt::format("{} has {} bytes of raw_data, not a whole number of {}-byte "
                                                        "elements", what(), t.raw_data().size(), bytes));
  const std::optional<int64_t> held = HeldElementCount(t);
  if (held && *held != *declared)
    return Status(ErrorCode::kInvalidModel, fmt::format("{} declares {} elements (dims {}) but holds {}", what(),
                                                        *declared, DimsText(t), *held));
  return Status::Ok();
}

// One walk over a graph tree. The main graph's values are checked in the
// rewrite's own index, built in the same walk (MainGraphIndexBuilder):
// a million-node model costs one table of names, not two. `visible_` holds
// the values subgraphs define, with the graph (scope) and node that define
// them; a subgraph's definitions are undone when it ends, since outer nodes
// cannot read them, and restore what they shadowed. Its keys are views of the
// model's own strings (it does not change during the check). Within one
// main-graph node's subgraphs a name no scope defines any more keeps its
// item, with no scopes; after them the table is emptied.
class StructureCheck {
 public:
  StructureCheck(MainGraphIndexBuilder* main, const DeferredNodes* deferred) : main_(main), deferred_(deferred) {}

  // Whether a tensor the walk saw (initializers, sparse ones, attributes, at
  // every depth, in functions too) is stored as external data.
  bool external_data() const { return external_data_; }

  // The inline tensors of model-local functions' nodes.
  Status Functions(const onnx::ModelProto& model) {
    for (const auto& f : model.functions()) {
      for (const auto& node : f.node()) {
        for (const auto& a : node.attribute()) {
          for (const auto& t : a.tensors()) external_data_ |= IsExternal(t);
          if (!a.has_t()) continue;
          Status s = Tensor(a.t(), [&] {
            return fmt::format("function '{}': node '{}' ({}) attribute '{}'", f.name(), node.name(), node.op_type(),
                               a.name());
          });
          if (!s.ok()) return s;
        }
      }
    }
    return Status::Ok();
  }

  Status Main(const onnx::GraphProto& g) {
    Sparse(g);
    for (const auto& t : g.initializer()) {
      Status s = Tensor(t, [&] { return fmt::format("graph '{}': initializer '{}'", g.name(), t.name()); });
      if (!s.ok()) return s;
    }
    constexpr int kAhead = 8;  // as in GraphIndex::IndexGraph: load the slots of a node ahead
    for (int i = 0; i < g.node_size(); ++i) {
      if (i + kAhead < g.node_size()) main_->Prefetch(g.node(i + kAhead));
      const onnx::NodeProto& node = g.node(i);
      if (deferred_) {
        const long run = DeferredRunOf(node);
        if (run >= 0) {
          if (static_cast<size_t>(run) != runs_seen_++ || !Deferred(static_cast<size_t>(run)))
            return Status(ErrorCode::kInvalidModel, fmt::format("graph '{}': a node left as bytes is not sound", g.name()));
          continue;
        }
      }
      std::string_view name;
      if (!main_->UseInputs(node, &name)) return Unreadable(g, i, std::string(name));
      Status s = Attributes(g, i, 0);
      if (!s.ok()) return s;
      // Every subgraph scope has ended: the next node's subgraphs start from
      // an empty table, one the size of a node's subgraphs, not of all of them.
      visible_.Clear();
      Producer first;
      if (!main_->DefineOutputs(node, &name, &first)) {
        const std::string label = first.kind == Producer::Kind::kNode
                                      ? NodeLabel(*first.node, IndexOf(g, first.node)) + " already writes"
                                      : "a graph input or initializer already defines";
        return Status(ErrorCode::kInvalidModel, fmt::format("graph '{}': {} writes '{}', which {}", g.name(),
                                                            NodeLabel(node, i), name, label));
      }
    }
    if (deferred_ && runs_seen_ != deferred_->run_count())
      return Status(ErrorCode::kInvalidModel, fmt::format("graph '{}': a run of nodes left as bytes is missing", g.name()));
    for (const auto& o : g.output()) {
      if (!main_->Defined(o.name()))
        return Status(ErrorCode::kInvalidModel,
                      fmt::format("graph '{}': output '{}' is produced by nothing", g.name(), o.name()));
    }
    return Status::Ok();
  }

 private:
  // The nodes of a run left as bytes, checked as the loop above checks a
  // parsed node; false on any fault (the loader reloads the model whole).
  bool Deferred(size_t run) {
    constexpr int kAhead = 8;  // as for parsed nodes
    const DeferredNode* end = deferred_->end(run);
    for (const DeferredNode* n = deferred_->begin(run); n != end; ++n) {
      if (end - n > kAhead) main_->Prefetch(n[kAhead]);
      if (!main_->UseInput(*n) || !main_->DefineOutput(*n)) return false;
    }
    return true;
  }

  // A subgraph at `depth` > 0.
  Status Graph(const onnx::GraphProto& g, int depth) {
    if (depth > kMaxSubgraphDepth)
      return Status(ErrorCode::kInvalidModel,
                    fmt::format("subgraphs nested more than {0} deep (the limit is {0})", kMaxSubgraphDepth));
    const size_t undo_mark = undo_.size();
    const int scope = next_scope_++;
    // An initializer may also be an input (IR < 4): defining it twice is fine.
    for (const auto& v : g.input()) DefineInput(v.name(), scope);
    for (const auto& t : g.initializer()) {
      DefineInput(t.name(), scope);
      Status s = Tensor(t, [&] { return fmt::format("graph '{}': initializer '{}'", g.name(), t.name()); });
      if (!s.ok()) return s;
    }
    for (const auto& sp : g.sparse_initializer()) DefineInput(sp.values().name(), scope);
    Sparse(g);
    constexpr int kAhead = 8;  // as in GraphIndex::IndexGraph: load the slots of a node ahead
    // The last output the graph's previous node defined is in scope.
    LastDefined<Definition> last;
    for (int i = 0; i < g.node_size(); ++i) {
      if (i + kAhead < g.node_size())
        for (const auto& out : g.node(i + kAhead).output()) visible_.Prefetch(out);
      const onnx::NodeProto& node = g.node(i);
      for (const auto& in : node.input()) {
        if (in.empty() || last.Get(in) || Visible(in)) continue;
        return Unreadable(g, i, in);
      }
      Status s = Attributes(g, i, depth);
      if (!s.ok()) return s;
      for (const auto& out : node.output()) {
        if (out.empty()) continue;
        Definition& d = Lookup(out);
        if (d.scopes > 0 && d.scope == scope) {
          const std::string first = d.writer < 0 ? "a graph input or initializer already defines"
                                                 : NodeLabel(g.node(d.writer), d.writer) + " already writes";
          return Status(ErrorCode::kInvalidModel, fmt::format("graph '{}': {} writes '{}', which {}", g.name(),
                                                              NodeLabel(node, i), out, first));
        }
        Define(&d, scope, i);
        last.Set(out, &d);
      }
    }
    for (const auto& o : g.output()) {
      if (!Visible(o.name()))
        return Status(ErrorCode::kInvalidModel,
                      fmt::format("graph '{}': output '{}' is produced by nothing", g.name(), o.name()));
    }
    Undo(undo_mark);
    return Status::Ok();
  }

  // The inline tensors and subgraphs of node `i` of `g`, a graph at `depth`.
  Status Attributes(const onnx::GraphProto& g, int i, int depth) {
    const onnx::NodeProto& node = g.node(i);
    for (const auto& a : node.attribute()) {
      auto what = [&] { return fmt::format("graph '{}': {} attribute '{}'", g.name(), NodeLabel(node, i), a.name()); };
      if (a.has_t()) {
        Status s = Tensor(a.t(), what);
        if (!s.ok()) return s;
      }
      for (const auto& t : a.tensors()) {
        Status s = Tensor(t, what);
        if (!s.ok()) return s;
      }
      if (a.has_g()) {
        Status s = Graph(a.g(), depth + 1);
        if (!s.ok()) return s;
      }
      for (const auto& sub : a.graphs()) {
        Status s = Graph(sub, depth + 1);
        if (!s.ok()) return s;
      }
    }
    return Status::Ok();
  }

  // CheckTensor, noting a tensor stored as external data.
  template <typename What>
  Status Tensor(const onnx::TensorProto& t, What what) {
    external_data_ |= IsExternal(t);
    return CheckTensor(t, what);
  }
  void Sparse(const onnx::GraphProto& g) {
    for (const auto& sp : g.sparse_initializer()) external_data_ |= IsExternal(sp.values()) || IsExternal(sp.indices());
  }

  static int IndexOf(const onnx::GraphProto& g, const onnx::NodeProto* node) {
    for (int k = 0; k < g.node_size(); ++k) {
      if (&g.node(k) == node) return k;
    }
    return -1;
  }

  struct Definition {
    int scopes = 0;  // how many scopes in the current path define the name
    int scope = -1;  // the innermost of them
    int writer = -1;  // its node index there; -1 a graph input or initializer
  };

  // Node `i` reads `in`, which is not in scope: written later in the same
  // graph (a cycle, or nodes out of order), or by nothing.
  static Status Unreadable(const onnx::GraphProto& g, int i, const std::string& in) {
    for (int later = i; later < g.node_size(); ++later) {
      for (const auto& out : g.node(later).output()) {
        if (out == in)
          return Status(ErrorCode::kInvalidModel,
                        fmt::format("graph '{}': {} reads '{}', which a later {} produces (a cycle, or nodes out of "
                                    "topological order)", g.name(), NodeLabel(g.node(i), i), in,
                                    NodeLabel(g.node(later), later)));
      }
    }
    return Status(ErrorCode::kInvalidModel,
                  fmt::format("graph '{}': {} reads '{}', which nothing produces", g.name(), NodeLabel(g.node(i), i), in));
  }

  // In a subgraph's scope, or defined by the main graph before the node
  // whose subgraphs are being checked.
  bool Visible(std::string_view name) const {
    const auto* item = visible_.Find(name);
    return (item && item->value.scopes > 0) || main_->Defined(name);
  }
  Definition& Lookup(std::string_view name) {
    return visible_.FindOrInsert(name).value;
  }
  void DefineInput(std::string_view name, int scope) {
    Definition& d = Lookup(name);
    if (d.scopes > 0 && d.scope == scope) return;
    Define(&d, scope, -1);
  }
  // Shadowing an outer name is left to ONNX's checker; here it only has to be
  // undone right. Items never move, so the undo keeps the definition's
  // address, not its name to look up again.
  void Define(Definition* d, int scope, int writer) {
    undo_.push_back({d, *d});
    *d = Definition{d->scopes + 1, scope, writer};
  }
  void Undo(size_t mark) {
    while (undo_.size() > mark) {
      const auto& [where, previous] = undo_.back();
      *where = previous;
      undo_.pop_back();
    }
  }

  MainGraphIndexBuilder* main_;
  const DeferredNodes* deferred_;
  size_t runs_seen_ = 0;
  NameTable<Definition> visible_;
  std::vector<std::pair<Definition*, Definition>> undo_;
  int next_scope_ = 1;  // 0 would be the main graph's
  bool external_data_ = false;
};

}  // namespace

Status CheckModelStructure(const onnx::ModelProto& model, GraphIndex* main_index, const DeferredNodes* deferred) {
  MainGraphIndexBuilder builder(model.graph(), deferred);
  StructureCheck check(&builder, deferred);
  Status s = check.Main(model.graph());
  if (!s.ok()) return s;
  s = check.Functions(model);
  if (!s.ok()) return s;
  if (main_index) {
    builder.SetExternalData(check.external_data());
    *main_index = std::move(builder).Finish();
  }
  return Status::Ok();
}

namespace {

// Wire-format fields that lead to a subgraph: ModelProto.graph (7) and
// .functions (25), GraphProto.node (1), FunctionProto.node (7),
// NodeProto.attribute (5), AttributeProto.g (6) and .graphs (11).
enum class Kind { kModel, kGraph, kFunction, kNode, kAttribute, kOther };

Kind ChildKind(Kind parent, uint64_t field) {
  switch (parent) {
    case Kind::kModel: return field == 7 ? Kind::kGraph : field == 25 ? Kind::kFunction : Kind::kOther;
    case Kind::kGraph: return field == 1 ? Kind::kNode : Kind::kOther;
    case Kind::kFunction: return field == 7 ? Kind::kNode : Kind::kOther;
    case Kind::kNode: return field == 5 ? Kind::kAttribute : Kind::kOther;
    case Kind::kAttribute: return field == 6 || field == 11 ? Kind::kGraph : Kind::kOther;
    default: return Kind::kOther;
  }
}

bool ReadVarint(std::string_view b, size_t* pos, size_t end, uint64_t* v) {
  *v = 0;
  for (int shift = 0; shift < 64 && *pos < end; shift += 7) {
    const uint8_t byte = static_cast<uint8_t>(b[(*pos)++]);
    *v |= static_cast<uint64_t>(byte & 0x7f) << shift;
    if (!(byte & 0x80)) return true;
  }
  return false;
}

}  // namespace

int SerializedSubgraphDepth(std::string_view bytes, int stop_at) {
  struct Open {
    Kind kind;
    size_t end;
    int depth;  // subgraph depth of the message
  };
  std::vector<Open> stack{{Kind::kModel, bytes.size(), 0}};
  int deepest = 0;
  size_t pos = 0;
  while (!stack.empty()) {
    Open& top = stack.back();
    if (pos >= top.end) {
      pos = top.end;
      stack.pop_back();
      continue;
    }
    uint64_t tag = 0, value = 0;
    if (!ReadVarint(bytes, &pos, top.end, &tag)) break;
    switch (tag & 7) {
      case 0: if (!ReadVarint(bytes, &pos, top.end, &value)) return deepest; break;
      case 1: pos += 8; break;
      case 5: pos += 4; break;
      case 2: {
        if (!ReadVarint(bytes, &pos, top.end, &value) || value > top.end - pos) return deepest;
        const Kind child = ChildKind(top.kind, tag >> 3);
        if (child == Kind::kOther) {
          pos += value;
          break;
        }
        const int depth = top.depth + (top.kind == Kind::kAttribute ? 1 : 0);
        if (depth > deepest) deepest = depth;
        if (deepest >= stop_at) return deepest;
        stack.push_back({child, pos + static_cast<size_t>(value), depth});
        break;
      }
      default: return deepest;  // groups (3, 4) are not in ONNX
    }
  }
  return deepest;
}

}  // namespace remap
