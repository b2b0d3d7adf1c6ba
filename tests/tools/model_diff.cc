// Compares a model with its rewrite and says what changed, to hold a rewrite
// to "change only what a rule must":
//   model_diff IN.onnx OUT.onnx
// Nodes are matched by name (unnamed ones by operator and first output) within each node list (graph, subgraph, function).
// A node of IN missing from OUT is "removed" (a rewritten node or a dead
// Constant); one of OUT missing from IN is "added". Every other node must be
// byte-identical (its subgraphs compared the same way, recursively) and keep
// its order; everything outside the node lists must be byte-identical too,
// except initializers that were removed (listed) and opset_import (printed).
// Unknown fields (newer than the linked ONNX) are compared as part of the
// bytes, and their total size is printed so a test can check a fixture has them.
// Exit 0 when nothing else differs, 1 with one line per difference, 2 on usage.
#include <fstream>
#include <iostream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <onnx/onnx_pb.h>

namespace {

using NodeList = google::protobuf::RepeatedPtrField<onnx::NodeProto>;
using Imports = google::protobuf::RepeatedPtrField<onnx::OperatorSetIdProto>;

struct Diff {
  size_t kept = 0;
  std::vector<std::string> removed, added, removed_initializers, problems;
};

bool Load(const char* path, onnx::ModelProto* model) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream bytes;
  bytes << in.rdbuf();
  return in && model->ParseFromString(bytes.str());
}

// The bytes of the unknown fields of one message, and of every message a model is made of.
size_t Own(const google::protobuf::Message& m) {
  std::string bytes;
  m.GetReflection()->GetUnknownFields(m).SerializeToString(&bytes);
  return bytes.size();
}
size_t UnknownBytes(const onnx::GraphProto& g);
size_t UnknownBytes(const onnx::TypeProto& t) { return Own(t); }
size_t UnknownBytes(const onnx::ValueInfoProto& v) { return Own(v) + UnknownBytes(v.type()); }
size_t UnknownBytes(const onnx::TensorProto& t) { return Own(t); }
size_t UnknownBytes(const onnx::AttributeProto& a) {
  size_t n = Own(a) + UnknownBytes(a.t());
  if (a.has_g()) n += UnknownBytes(a.g());
  for (const auto& g : a.graphs()) n += UnknownBytes(g);
  for (const auto& t : a.tensors()) n += UnknownBytes(t);
  return n;
}
size_t UnknownBytes(const onnx::NodeProto& node) {
  size_t n = Own(node);
  for (const auto& a : node.attribute()) n += UnknownBytes(a);
  return n;
}
size_t UnknownBytes(const onnx::GraphProto& g) {
  size_t n = Own(g);
  for (const auto& node : g.node()) n += UnknownBytes(node);
  for (const auto& t : g.initializer()) n += UnknownBytes(t);
  for (const auto* list : {&g.input(), &g.output(), &g.value_info()})
    for (const auto& v : *list) n += UnknownBytes(v);
  return n;
}
size_t UnknownBytes(const onnx::ModelProto& m) {
  size_t n = Own(m) + UnknownBytes(m.graph());
  for (const auto& f : m.functions()) {
    n += Own(f);
    for (const auto& node : f.node()) n += UnknownBytes(node);
  }
  return n;
}

std::string Deterministic(const google::protobuf::MessageLite& m) {
  std::string out;
  google::protobuf::io::StringOutputStream stream(&out);
  google::protobuf::io::CodedOutputStream coded(&stream);
  coded.SetSerializationDeterministic(true);
  m.SerializeToCodedStream(&coded);
  coded.Trim();
  return out;
}

void CompareGraph(const onnx::GraphProto& in, const onnx::GraphProto& out, const std::string& where, Diff* diff);

// The subgraphs of a node, keyed by attribute name and index.
std::map<std::string, const onnx::GraphProto*> Subgraphs(const onnx::NodeProto& node) {
  std::map<std::string, const onnx::GraphProto*> out;
  for (const auto& a : node.attribute()) {
    if (a.has_g()) out[a.name()] = &a.g();
    for (int i = 0; i < a.graphs_size(); ++i) out[a.name() + "[" + std::to_string(i) + "]"] = &a.graphs(i);
  }
  return out;
}

onnx::NodeProto WithoutSubgraphs(const onnx::NodeProto& node) {
  onnx::NodeProto copy = node;
  for (auto& a : *copy.mutable_attribute()) {
    a.clear_g();
    a.clear_graphs();
  }
  return copy;
}

// A node's identity: its name, or for an unnamed node (ONNX's own test models
// have many) its operator and first output, which SSA makes unique.
std::string Key(const onnx::NodeProto& node) {
  if (!node.name().empty()) return node.name();
  return node.domain() + "::" + node.op_type() + "(" + (node.output_size() ? node.output(0) : "") + ")";
}

void CompareNodes(const NodeList& in, const NodeList& out, const std::string& where, Diff* diff) {
  std::map<std::string, int> out_index;
  for (int i = 0; i < out.size(); ++i) {
    if (!out_index.emplace(Key(out[i]), i).second)
      diff->problems.push_back(where + ": two output nodes are '" + Key(out[i]) + "'");
  }
  std::set<std::string> in_names;
  int last = -1;
  for (const auto& node : in) {
    const std::string key = Key(node);
    in_names.insert(key);
    auto it = out_index.find(key);
    if (it == out_index.end()) {
      diff->removed.push_back(where + "/" + key);
      continue;
    }
    const onnx::NodeProto& other = out[it->second];
    if (it->second < last) diff->problems.push_back(where + ": node '" + key + "' moved before an earlier node");
    last = it->second;
    if (Deterministic(WithoutSubgraphs(node)) != Deterministic(WithoutSubgraphs(other))) {
      diff->problems.push_back(where + ": node '" + key + "' changed");
      continue;
    }
    auto in_subgraphs = Subgraphs(node), out_subgraphs = Subgraphs(other);
    for (const auto& [name, g] : in_subgraphs) {
      auto o = out_subgraphs.find(name);
      if (o == out_subgraphs.end()) {
        diff->problems.push_back(where + ": node '" + key + "' lost subgraph " + name);
        continue;
      }
      CompareGraph(*g, *o->second, where + "/" + key + "." + name, diff);
    }
    ++diff->kept;
  }
  for (const auto& node : out) {
    if (!in_names.count(Key(node))) diff->added.push_back(where + "/" + Key(node));
  }
}

// The fields of a graph other than its nodes, after dropping the initializers OUT no longer has.
void CompareGraph(const onnx::GraphProto& in, const onnx::GraphProto& out, const std::string& where, Diff* diff) {
  CompareNodes(in.node(), out.node(), where, diff);
  std::set<std::string> out_initializers;
  for (const auto& t : out.initializer()) out_initializers.insert(t.name());
  onnx::GraphProto a = in, b = out;
  a.clear_node();
  b.clear_node();
  a.clear_initializer();
  for (const auto& t : in.initializer()) {
    if (out_initializers.count(t.name())) *a.add_initializer() = t;
    else diff->removed_initializers.push_back(where + "/" + t.name());
  }
  if (Deterministic(a) == Deterministic(b)) return;
  // Name the field that differs.
  auto field = [&](const char* what, const google::protobuf::MessageLite& x, const google::protobuf::MessageLite& y) {
    if (Deterministic(x) != Deterministic(y)) diff->problems.push_back(where + ": graph " + what + " differ");
  };
  onnx::GraphProto part_a, part_b;
  *part_a.mutable_initializer() = a.initializer();
  *part_b.mutable_initializer() = b.initializer();
  field("initializers", part_a, part_b);
  part_a.Clear(), part_b.Clear();
  *part_a.mutable_input() = a.input(), *part_b.mutable_input() = b.input();
  *part_a.mutable_output() = a.output(), *part_b.mutable_output() = b.output();
  field("inputs/outputs", part_a, part_b);
  part_a.Clear(), part_b.Clear();
  *part_a.mutable_value_info() = a.value_info(), *part_b.mutable_value_info() = b.value_info();
  field("value_info", part_a, part_b);
  a.clear_initializer(), b.clear_initializer(), a.clear_input(), b.clear_input();
  a.clear_output(), b.clear_output(), a.clear_value_info(), b.clear_value_info();
  field("other fields (name, doc_string, annotations, unknown fields)", a, b);
}

std::string ImportsText(const Imports& imports) {
  std::string out;
  for (const auto& op : imports) out += (out.empty() ? "" : " ") + op.domain() + ":" + std::to_string(op.version());
  return out;
}

std::string Join(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& s : items) out += (out.empty() ? "" : " ") + s;
  return out.empty() ? "-" : out;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::cerr << "usage: model_diff IN.onnx OUT.onnx\n";
    return 2;
  }
  onnx::ModelProto in, out;
  if (!Load(argv[1], &in) || !Load(argv[2], &out)) {
    std::cerr << "model_diff: cannot read or parse " << (Load(argv[1], &in) ? argv[2] : argv[1]) << "\n";
    return 2;
  }
  Diff diff;
  CompareGraph(in.graph(), out.graph(), "graph", &diff);
  if (in.functions_size() != out.functions_size()) {
    diff.problems.push_back("model: function count changed");
  } else {
    for (int i = 0; i < in.functions_size(); ++i) {
      const auto& f = in.functions(i);
      const std::string where = "function " + f.domain() + "::" + f.name();
      CompareNodes(f.node(), out.functions(i).node(), where, &diff);
      onnx::FunctionProto a = f, b = out.functions(i);
      std::cout << where << " opset_import: " << ImportsText(f.opset_import()) << " -> "
                << ImportsText(b.opset_import()) << "\n";
      a.clear_node(), b.clear_node(), a.clear_opset_import(), b.clear_opset_import();
      if (Deterministic(a) != Deterministic(b)) diff.problems.push_back(where + ": fields outside its nodes differ");
    }
  }
  onnx::ModelProto a = in, b = out;
  a.clear_graph(), b.clear_graph(), a.clear_functions(), b.clear_functions();
  a.clear_opset_import(), b.clear_opset_import();
  if (Deterministic(a) != Deterministic(b))
    diff.problems.push_back("model: fields outside graph, functions and opset_import differ");

  std::cout << "opset_import: " << ImportsText(in.opset_import()) << " -> " << ImportsText(out.opset_import()) << "\n";
  std::cout << "nodes: " << diff.kept << " kept byte-identical, " << diff.removed.size() << " removed, "
            << diff.added.size() << " added\n";
  std::cout << "removed: " << Join(diff.removed) << "\n";
  std::cout << "removed initializers: " << Join(diff.removed_initializers) << "\n";
  std::cout << "unknown-field bytes: " << UnknownBytes(in) << " in, " << UnknownBytes(out) << " out\n";
  for (const auto& p : diff.problems) std::cout << "DIFFERS: " << p << "\n";
  return diff.problems.empty() ? 0 : 1;
}
