// The load-time structure check builds the main graph's index in its own
// walk (MainGraphIndexBuilder), and the rewrite takes it over. That index must
// be the one GraphIndex::ForGraph builds, and the check must refuse what it
// refused when it kept a table of its own.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <set>

#include "model/deferred_nodes.h"
#include "model/graph_index.h"
#include "model/model_loader.h"
#include "model/model_structure.h"
#include "test_models.h"

namespace remap {
namespace {

using testing::ModelFromText;

void NamesOf(const onnx::GraphProto& g, std::set<std::string>* out) {
  for (const auto& v : g.input()) out->insert(v.name());
  for (const auto& v : g.output()) out->insert(v.name());
  for (const auto& v : g.value_info()) out->insert(v.name());
  for (const auto& t : g.initializer()) out->insert(t.name());
  for (const auto& n : g.node()) {
    out->insert(n.input().begin(), n.input().end());
    out->insert(n.output().begin(), n.output().end());
    ForEachSubgraph(n, [out](const onnx::GraphProto& sub) { NamesOf(sub, out); });
  }
}

void CheckSameIndex(const onnx::ModelProto& model) {
  GraphIndex loaded;
  REQUIRE(CheckModelStructure(model, &loaded).ok());
  GraphIndex built = GraphIndex::ForGraph(model.graph());
  std::set<std::string> names;
  NamesOf(model.graph(), &names);
  names.insert("not_in_the_model");
  for (const std::string& name : names) {
    INFO(name);
    const Producer a = loaded.ProducerOf(name), b = built.ProducerOf(name);
    CHECK(a.kind == b.kind);
    CHECK(a.node == b.node);
    CHECK(a.initializer == b.initializer);
    CHECK(loaded.Uses(name) == built.Uses(name));
    CHECK(loaded.RecordedTypeOf(name).elem_type == built.RecordedTypeOf(name).elem_type);
    CHECK(loaded.RecordedTypeOf(name).rank == built.RecordedTypeOf(name).rank);
    CHECK(loaded.RecordedTypeProto(name) == built.RecordedTypeProto(name));
  }
  // Node names of every depth are taken, in both.
  for (const char* base : {"A", "T", "E", "fresh"}) CHECK(loaded.FreshNodeName(base) == built.FreshNodeName(base));
  CHECK(loaded.FreshValueName("y") == built.FreshValueName("y"));
}

constexpr const char* kWithIf = R"(
  < ir_version: 8, opset_import: ["" : 13] >
  g (float[2] x, bool c, float[2] w) => (float[2] y) <float[2] w = {1.0, 2.0}, float[1] k = {3.0}> {
    a = Add(x, w)
    A = Relu(a)
    y = If(c) <
      then_branch = t () => (float[2] ty) { T = Add(A, k)  ty = Neg(T) },
      else_branch = e () => (float[2] ey) { ey = Abs(a) }
    >
  }
)";

TEST_CASE("the index the structure check builds is ForGraph's", "[index][loader]") {
  onnx::ModelProto model = ModelFromText(kWithIf);
  auto* vi = model.mutable_graph()->add_value_info();
  vi->set_name("a");
  vi->mutable_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto::FLOAT);
  model.mutable_graph()->mutable_node(1)->set_name("E");  // a named node, beside unnamed ones
  CheckSameIndex(model);
}

TEST_CASE("uses of a value read by the next node, twice, and by later nodes are all counted", "[index][loader]") {
  // Inside a branch, each node reads the output of the one before it (the
  // index takes that entry without a lookup); T is read twice by one node,
  // once by the next and once by a node after that, and E by the next branch.
  onnx::ModelProto model = ModelFromText(R"(
    < ir_version: 8, opset_import: ["" : 13] >
    g (float[2] x, bool c) => (float[2] y, float[2] z) {
      E = Relu(x)
      y = If(c) <
        then_branch = t () => (float[2] ty) { T = Neg(E)  M = Mul(T, T)  N = Add(M, T)  ty = Sub(N, T) },
        else_branch = e () => (float[2] ey) { ey = Abs(E) }
      >
      z = Neg(E)
    }
  )");
  CheckSameIndex(model);
  GraphIndex built = GraphIndex::ForGraph(model.graph());
  CHECK(built.Uses("T") == 4);
  CHECK(built.Uses("M") == 1);
  CHECK(built.Uses("N") == 1);
  CHECK(built.Uses("E") == 3);
  CHECK(built.ProducerOf("M").node == &model.graph().node(1).attribute(0).g().node(1));
}

// The walk of the structure check, with node names hashed on another thread
// from `names_apart_from` nodes on.
GraphIndex WalkWithBuilder(const onnx::ModelProto& model, size_t names_apart_from) {
  MainGraphIndexBuilder builder(model.graph(), nullptr, names_apart_from);
  for (const auto& node : model.graph().node()) {
    std::string_view name;
    Producer first;
    REQUIRE(builder.UseInputs(node, &name));
    REQUIRE(builder.DefineOutputs(node, &name, &first));
  }
  return std::move(builder).Finish();
}

TEST_CASE("node names hashed on another core are the names the walk takes", "[index][loader]") {
  onnx::ModelProto model = ModelFromText(kWithIf);
  model.mutable_graph()->mutable_node(0)->set_name("A");
  model.mutable_graph()->mutable_node(1)->set_name("E");
  GraphIndex built = GraphIndex::ForGraph(model.graph());
  for (size_t apart_from : {size_t{1}, MainGraphIndexBuilder::kNamesApartFrom}) {
    INFO(apart_from);
    GraphIndex walked = WalkWithBuilder(model, apart_from);
    // Main-graph names (the other thread's), subgraph names (Finish's) and a free one.
    for (const char* base : {"A", "E", "T", "free"}) CHECK(walked.FreshNodeName(base) == built.FreshNodeName(base));
    built = GraphIndex::ForGraph(model.graph());
  }
}

TEST_CASE("a large graph with nodes left as bytes takes the same node names", "[index][loader][deferred]") {
  // 70k nodes, past kNamesApartFrom: a chain of named Relu nodes, plain (left
  // as bytes), with a parsed LeakyRelu in the middle.
  constexpr int kNodes = 70000;
  static_assert(kNodes > static_cast<int>(MainGraphIndexBuilder::kNamesApartFrom), "the threaded path");
  onnx::ModelProto model;
  model.set_ir_version(8);
  model.add_opset_import()->set_version(13);
  onnx::GraphProto* g = model.mutable_graph();
  g->set_name("g");
  auto* in = g->add_input();
  in->set_name("x");
  in->mutable_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto::FLOAT);
  std::string prev = "x";
  for (int i = 0; i < kNodes; ++i) {
    onnx::NodeProto* n = g->add_node();
    const bool leaky = i == kNodes / 2;
    n->set_op_type(leaky ? "LeakyRelu" : "Relu");
    n->set_name(leaky ? "leaky" : "n" + std::to_string(i));
    if (leaky) {
      auto* alpha = n->add_attribute();
      alpha->set_name("alpha");
      alpha->set_type(onnx::AttributeProto::FLOAT);
      alpha->set_f(0.1f);
    }
    n->add_input(prev);
    prev = "v" + std::to_string(i);
    n->add_output(prev);
  }
  g->add_output()->set_name(prev);
  std::string bytes;
  REQUIRE(model.SerializeToString(&bytes));
  const std::string path = (std::filesystem::temp_directory_path() /
                            ("onnx-remap-names-" + std::to_string(reinterpret_cast<uintptr_t>(&bytes)) + ".onnx"))
                               .string();
  std::ofstream(path, std::ios::binary) << bytes;

  DeferredNodes deferred;
  GraphIndex loaded;
  auto with = LoadModel(path, &loaded, DeferOptions{&deferred, 1});
  std::filesystem::remove(path);
  REQUIRE(with);
  REQUIRE(deferred.node_count() == kNodes - 1);
  GraphIndex built = GraphIndex::ForGraph(model.graph());
  for (const char* base : {"n0", "n1", "n34999", "n69999", "leaky", "v3", "free"})
    CHECK(loaded.FreshNodeName(base) == built.FreshNodeName(base));
  CHECK(loaded.FreshValueName("v3") == built.FreshValueName("v3"));
}

TEST_CASE("the structure check refuses across scopes as before", "[loader]") {
  SECTION("a main-graph node reads a value only a subgraph defines") {
    onnx::ModelProto model = ModelFromText(kWithIf);
    auto* node = model.mutable_graph()->add_node();
    node->set_op_type("Relu");
    node->add_input("T");
    node->add_output("z");
    Status s = CheckModelStructure(model);
    CHECK(s.message() == "graph 'g': node '#3' (Relu) reads 'T', which nothing produces");
  }
  SECTION("a subgraph reads its own node's output") {
    onnx::ModelProto model = ModelFromText(kWithIf);
    model.mutable_graph()->mutable_node(2)->mutable_attribute(1)->mutable_g()->mutable_node(0)->set_input(0, "y");
    Status s = CheckModelStructure(model);
    CHECK(s.message() == "graph 'e': node '#0' (Abs) reads 'y', which nothing produces");
  }
  SECTION("a node writes what an initializer defines") {
    onnx::ModelProto model = ModelFromText(kWithIf);
    model.mutable_graph()->mutable_node(1)->set_output(0, "k");
    Status s = CheckModelStructure(model);
    CHECK(s.message() == "graph 'g': node '#1' (Relu) writes 'k', which a graph input or initializer already defines");
  }
  SECTION("an unnamed node writes what an earlier unnamed node wrote") {
    onnx::ModelProto model = ModelFromText(kWithIf);
    model.mutable_graph()->mutable_node(1)->set_output(0, "a");
    Status s = CheckModelStructure(model);
    CHECK(s.message() == "graph 'g': node '#1' (Relu) writes 'a', which node '#0' (Add) already writes");
  }
}

// Two main-graph nodes with subgraphs: the check's table of subgraph names
// is emptied between them.
constexpr const char* kTwoIfs = R"(
  < ir_version: 8, opset_import: ["" : 13] >
  g (float[2] x, bool c) => (float[2] z) {
    y = If(c) <
      then_branch = t1 () => (float[2] a) { T = Neg(x)  a = Abs(T) },
      else_branch = e1 () => (float[2] b) { b = Relu(x) }
    >
    z = If(c) <
      then_branch = t2 () => (float[2] p) { U = Neg(y)  p = Abs(U) },
      else_branch = e2 () => (float[2] q) { q = Relu(y) }
    >
  }
)";

TEST_CASE("the structure check scopes the subgraphs of one node apart from the next node's", "[loader]") {
  // The second If's then branch, 't2'.
  auto t2 = [](onnx::ModelProto* model) { return model->mutable_graph()->mutable_node(1)->mutable_attribute(0)->mutable_g(); };
  SECTION("sound: each If's branches read the main graph") {
    onnx::ModelProto model = ModelFromText(kTwoIfs);
    CHECK(CheckModelStructure(model).ok());
    CheckSameIndex(model);
  }
  SECTION("a later node's branch reads a value only an earlier node's branch defines") {
    onnx::ModelProto model = ModelFromText(kTwoIfs);
    t2(&model)->mutable_node(0)->set_input(0, "T");
    Status s = CheckModelStructure(model);
    CHECK(s.message() == "graph 't2': node '#0' (Neg) reads 'T', which nothing produces");
  }
  SECTION("a later node's branch defines a name an earlier node's branch defined") {
    // Not visible from there, so not a second definition in any scope.
    onnx::ModelProto model = ModelFromText(kTwoIfs);
    t2(&model)->mutable_node(0)->set_output(0, "T");
    t2(&model)->mutable_node(1)->set_input(0, "T");
    CHECK(CheckModelStructure(model).ok());
  }
  SECTION("a branch defines a name twice, after an earlier node's branches") {
    onnx::ModelProto model = ModelFromText(kTwoIfs);
    t2(&model)->mutable_node(1)->set_output(0, "U");
    Status s = CheckModelStructure(model);
    CHECK(s.message() == "graph 't2': node '#1' (Abs) writes 'U', which node '#0' (Neg) already writes");
  }
}

TEST_CASE("the structure check tells whether any tensor is stored as external data", "[loader]") {
  auto externalize = [](onnx::TensorProto* t) {
    t->clear_raw_data();
    t->clear_float_data();
    t->set_data_location(onnx::TensorProto::EXTERNAL);
    auto* kv = t->add_external_data();
    kv->set_key("location");
    kv->set_value("w.bin");
  };
  auto external_data = [](const onnx::ModelProto& model) {
    GraphIndex index;
    REQUIRE(CheckModelStructure(model, &index).ok());
    return index.may_hold_external_data();
  };
  onnx::ModelProto model = ModelFromText(kWithIf);
  CHECK_FALSE(external_data(model));
  CHECK(GraphIndex().may_hold_external_data());  // not checked: it may
  SECTION("a main-graph initializer") {
    externalize(model.mutable_graph()->mutable_initializer(0));
    CHECK(external_data(model));
  }
  SECTION("an initializer of a subgraph") {
    auto* branch = model.mutable_graph()->mutable_node(2)->mutable_attribute(0)->mutable_g();
    auto* t = branch->add_initializer();
    t->set_name("bk");
    t->set_data_type(onnx::TensorProto::FLOAT);
    t->add_dims(1);
    externalize(t);
    CHECK(external_data(model));
  }
  SECTION("a Constant's value in a subgraph") {
    auto* branch = model.mutable_graph()->mutable_node(2)->mutable_attribute(1)->mutable_g();
    auto* c = branch->add_node();
    c->set_op_type("Constant");
    c->add_output("ck");
    auto* a = c->add_attribute();
    a->set_name("value");
    a->set_type(onnx::AttributeProto::TENSOR);
    a->mutable_t()->set_data_type(onnx::TensorProto::FLOAT);
    externalize(a->mutable_t());
    CHECK(external_data(model));
  }
  SECTION("a sparse initializer's values") {
    auto* sp = model.mutable_graph()->add_sparse_initializer();
    sp->mutable_values()->set_name("s");
    sp->mutable_values()->set_data_type(onnx::TensorProto::FLOAT);
    sp->mutable_indices()->set_data_type(onnx::TensorProto::INT64);
    sp->add_dims(4);
    externalize(sp->mutable_values());
    CHECK(external_data(model));
  }
  SECTION("a tensor list attribute of a function's node") {
    auto* f = model.add_functions();
    f->set_name("f");
    f->set_domain("local");
    auto* n = f->add_node();
    n->set_op_type("Custom");
    n->set_domain("local");
    auto* a = n->add_attribute();
    a->set_name("ts");
    a->set_type(onnx::AttributeProto::TENSORS);
    externalize(a->add_tensors());
    CHECK(external_data(model));
  }
}

TEST_CASE("a sparse initializer defines its name for the structure check", "[loader]") {
  onnx::ModelProto model = ModelFromText(R"(
    < ir_version: 8, opset_import: ["" : 13] >
    g (float[2] x) => (float[2] y) { y = Add(x, s) }
  )");
  auto* sparse = model.mutable_graph()->add_sparse_initializer();
  sparse->mutable_values()->set_name("s");
  sparse->mutable_values()->set_data_type(onnx::TensorProto::FLOAT);
  sparse->add_dims(2);
  CHECK(CheckModelStructure(model).ok());
  CheckSameIndex(model);
  model.mutable_graph()->mutable_node(0)->set_output(0, "s");
  model.mutable_graph()->mutable_output(0)->set_name("s");
  CHECK(CheckModelStructure(model).message() ==
        "graph 'g': node '#0' (Add) writes 's', which a graph input or initializer already defines");
}

}  // namespace
}  // namespace remap
