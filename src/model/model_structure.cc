#include "model/model_structure.h"

#include <optional>
#include <unordered_map>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "model/tensor_size.h"

namespace remap {

namespace {

std::string NodeLabel(const onnx::NodeProto& node, int index) {
  const std::string name = node.name().empty() ? fmt::format("#{}", index) : node.name();
  return fmt::format("node '{}' ({})", name, node.op_type());
}

std::string DimsText(const onnx::TensorProto& t) { return fmt::format("[{}]", fmt::join(t.dims(), ", ")); }

// `what()` names the tensor ("initializer 'w'", "node 'n' (Constant) attribute
// 'value'"); called only to report a fault.
template <typename What>
Status CheckTensor(const onnx::TensorProto& t, What what) {
  if (t.data_location() == onnx::TensorProto::EXTERNAL) return Status::Ok();  // CheckExternalData's job
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

// One walk over a graph tree. `visible_` maps each value in scope to the node
// index that writes it (-1: a graph input or initializer); a subgraph's
// definitions are undone when it ends, since outer nodes cannot read them.
class StructureCheck {
 public:
  Status Graph(const onnx::GraphProto& g, int depth) {
    if (depth > kMaxSubgraphDepth)
      return Status(ErrorCode::kInvalidModel,
                    fmt::format("subgraphs nested more than {0} deep (the limit is {0})", kMaxSubgraphDepth));
    const size_t undo_mark = undo_.size();
    std::unordered_map<std::string, int> local;  // values this graph defines -> writer (-1 input/initializer)
    for (const auto& v : g.input()) local.emplace(v.name(), -1);
    for (const auto& t : g.initializer()) {
      local.emplace(t.name(), -1);  // an initializer may also be an input (IR < 4)
      Status s = CheckTensor(t, [&] { return fmt::format("graph '{}': initializer '{}'", g.name(), t.name()); });
      if (!s.ok()) return s;
    }
    for (const auto& s : g.sparse_initializer()) local.emplace(s.values().name(), -1);
    for (int i = 0; i < g.node_size(); ++i) {
      for (const auto& out : g.node(i).output()) {
        if (out.empty()) continue;
        auto [it, inserted] = local.emplace(out, i);
        if (!inserted) {
          const std::string first = it->second < 0 ? "a graph input or initializer already defines"
                                                   : NodeLabel(g.node(it->second), it->second) + " already writes";
          return Status(ErrorCode::kInvalidModel, fmt::format("graph '{}': {} writes '{}', which {}", g.name(),
                                                              NodeLabel(g.node(i), i), out, first));
        }
      }
    }
    for (const auto& [name, writer] : local)
      if (writer < 0) Define(name);
    for (int i = 0; i < g.node_size(); ++i) {
      const onnx::NodeProto& node = g.node(i);
      for (const auto& in : node.input()) {
        if (in.empty() || visible_.count(in)) continue;
        auto later = local.find(in);
        if (later != local.end())
          return Status(ErrorCode::kInvalidModel,
                        fmt::format("graph '{}': {} reads '{}', which a later {} produces (a cycle, or nodes out of "
                                    "topological order)", g.name(), NodeLabel(node, i), in,
                                    NodeLabel(g.node(later->second), later->second)));
        return Status(ErrorCode::kInvalidModel,
                      fmt::format("graph '{}': {} reads '{}', which nothing produces", g.name(), NodeLabel(node, i), in));
      }
      for (const auto& a : node.attribute()) {
        auto what = [&] { return fmt::format("graph '{}': {} attribute '{}'", g.name(), NodeLabel(node, i), a.name()); };
        if (a.has_t()) {
          Status s = CheckTensor(a.t(), what);
          if (!s.ok()) return s;
        }
        for (const auto& t : a.tensors()) {
          Status s = CheckTensor(t, what);
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
      for (const auto& out : node.output())
        if (!out.empty()) Define(out);
    }
    for (const auto& o : g.output()) {
      if (!visible_.count(o.name()))
        return Status(ErrorCode::kInvalidModel,
                      fmt::format("graph '{}': output '{}' is produced by nothing", g.name(), o.name()));
    }
    Undo(undo_mark);
    return Status::Ok();
  }

 private:
  // Shadowing an outer name is left to ONNX's checker; here it only has to be undone right.
  void Define(const std::string& name) {
    undo_.push_back(name);
    ++visible_[name];
  }
  void Undo(size_t mark) {
    while (undo_.size() > mark) {
      auto it = visible_.find(undo_.back());
      if (--it->second == 0) visible_.erase(it);
      undo_.pop_back();
    }
  }
  std::unordered_map<std::string, int> visible_;  // name -> how many scopes define it
  std::vector<std::string> undo_;
};

}  // namespace

Status CheckModelStructure(const onnx::ModelProto& model) {
  Status s = StructureCheck().Graph(model.graph(), 0);
  if (!s.ok()) return s;
  for (const auto& f : model.functions()) {
    for (const auto& node : f.node()) {
      for (const auto& a : node.attribute()) {
        auto what = [&] {
          return fmt::format("function '{}': node '{}' ({}) attribute '{}'", f.name(), node.name(), node.op_type(),
                             a.name());
        };
        if (a.has_t()) {
          Status t = CheckTensor(a.t(), what);
          if (!t.ok()) return t;
        }
      }
    }
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

bool ReadVarint(const std::string& b, size_t* pos, size_t end, uint64_t* v) {
  *v = 0;
  for (int shift = 0; shift < 64 && *pos < end; shift += 7) {
    const uint8_t byte = static_cast<uint8_t>(b[(*pos)++]);
    *v |= static_cast<uint64_t>(byte & 0x7f) << shift;
    if (!(byte & 0x80)) return true;
  }
  return false;
}

}  // namespace

int SerializedSubgraphDepth(const std::string& bytes, int stop_at) {
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
