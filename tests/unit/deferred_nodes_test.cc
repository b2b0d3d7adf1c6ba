// Main-graph nodes left as bytes (model/deferred_nodes.h): which nodes stay
// bytes, that the model written back is the file's bytes wherever no rewrite
// touched it, and that the loader, the index and the type oracle see such
// nodes as they see parsed ones.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include "model/deferred_nodes.h"
#include "model/graph_index.h"
#include "model/model_loader.h"
#include "model/type_oracle.h"
#include "rules/rule_set.h"
#include "saver/model_saver.h"
#include "temp_paths.h"
#include "test_models.h"

namespace remap {
namespace {

using testing::ModelFromText;
using testing::RulesFromText;

// Relu, Sigmoid (a run), a custom op, Abs and Neg in the ai.onnx domain (a
// run), LeakyRelu with an attribute and a two-input Add (parsed), Tanh (a run).
const char* kModel = R"(
  < ir_version: 8, opset_import: ["" : 13, "custom" : 1] >
  g (float[2, 3] x) => (float[2, 3] y) {
    a = Relu(x)
    b = Sigmoid(a)
    c = custom.Foo(b)
    d = Abs(c)
    e = ai.onnx.Neg(d)
    f = LeakyRelu<alpha = 0.2>(e)
    h = Add(f, x)
    y = Tanh(h)
  }
)";

std::string Serialized(const onnx::ModelProto& model) {
  std::string bytes;
  REQUIRE(model.SerializeToString(&bytes));
  return bytes;
}

std::vector<std::string> OpsOf(const DeferredNodes& d, size_t run) {
  std::vector<std::string> ops;
  for (const DeferredNode* n = d.begin(run); n != d.end(run); ++n) ops.emplace_back(n->op_type);
  return ops;
}

TEST_CASE("plain one-input nodes stay bytes, one placeholder per run", "[deferred]") {
  onnx::ModelProto model = ModelFromText(kModel);
  model.mutable_graph()->mutable_node(0)->set_name("relu");
  const std::string original = Serialized(model);
  FileBytes file(original);
  DeferredNodes deferred;
  std::optional<std::string> reduced = DeferPlainNodes(&file, 1, &deferred);
  REQUIRE(reduced);
  CHECK(file.empty());  // taken
  REQUIRE(deferred.run_count() == 3);
  CHECK(OpsOf(deferred, 0) == std::vector<std::string>{"Relu", "Sigmoid"});
  CHECK(OpsOf(deferred, 1) == std::vector<std::string>{"Abs", "Neg"});
  CHECK(OpsOf(deferred, 2) == std::vector<std::string>{"Tanh"});
  CHECK(deferred.begin(0)->name == "relu");
  CHECK(deferred.begin(0)->input == "x");
  CHECK(deferred.begin(0)->output == "a");

  onnx::ModelProto parsed;
  REQUIRE(parsed.ParseFromString(*reduced));
  std::vector<long> runs;
  std::vector<std::string> parsed_ops;
  for (const auto& n : parsed.graph().node()) {
    runs.push_back(DeferredRunOf(n));
    parsed_ops.push_back(n.op_type());
  }
  CHECK(runs == std::vector<long>{0, -1, 1, -1, -1, 2});
  CHECK(parsed_ops == std::vector<std::string>{"", "Foo", "", "LeakyRelu", "Add", ""});

  // Written back: the file's bytes.
  std::string written = Serialized(parsed);
  REQUIRE(ExpandDeferredRuns(deferred, &written));
  CHECK(written == original);
  CHECK(deferred.TakeFile().view() == original);
}

TEST_CASE("the saver writes a deferred model from its parts, as ExpandDeferredRuns assembles it", "[deferred]") {
  const std::string original = Serialized(ModelFromText(kModel));
  FileBytes file(original);
  DeferredNodes deferred;
  std::optional<std::string> reduced = DeferPlainNodes(&file, 1, &deferred);
  REQUIRE(reduced);
  onnx::ModelProto parsed;
  REQUIRE(parsed.ParseFromString(*reduced));
  std::string length_prefix;
  std::vector<std::string_view> pieces;
  const std::string bytes = Serialized(parsed);
  REQUIRE(DeferredRunPieces(deferred, bytes, &length_prefix, &pieces));
  CHECK(pieces.size() == 2 * deferred.run_count() + 3);
  std::string joined;
  for (std::string_view piece : pieces) joined.append(piece.data(), piece.size());
  CHECK(joined == original);

  testing::TempFile out("onnx-remap-deferred", "");
  SaveOptions options;
  options.deferred = &deferred;
  REQUIRE(SaveModel(parsed, out.path, options).ok());
  std::ifstream in(out.path, std::ios::binary);
  CHECK(std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>()) == original);

  // Placeholders that are not the runs': refused, nothing written.
  parsed.mutable_graph()->mutable_node()->DeleteSubrange(5, 1);
  const Status refused = SaveModel(parsed, out.path + ".bad", options);
  CHECK(refused.code() == ErrorCode::kOutputFailed);
  CHECK_FALSE(std::filesystem::exists(out.path + ".bad"));
}

TEST_CASE("nothing deferred leaves the file where it was", "[deferred]") {
  const std::string original = Serialized(ModelFromText(kModel));
  DeferredNodes deferred;
  FileBytes file(original);
  SECTION("fewer bytes than asked") { CHECK_FALSE(DeferPlainNodes(&file, 1 << 20, &deferred)); }
  SECTION("a node of the file has no op_type: a placeholder must not be mistaken for it") {
    onnx::ModelProto model = ModelFromText(kModel);
    model.mutable_graph()->mutable_node(2)->clear_op_type();
    const std::string before = Serialized(model);
    file = FileBytes(before);
    CHECK_FALSE(DeferPlainNodes(&file, 1, &deferred));
    CHECK(file.view() == before);
    return;
  }
  SECTION("no plain node") {
    const std::string before = Serialized(ModelFromText(R"(
      < ir_version: 8, opset_import: ["" : 13] >
      g (float[2] x) => (float[2] y) { y = Add(x, x) }
    )"));
    file = FileBytes(before);
    CHECK_FALSE(DeferPlainNodes(&file, 1, &deferred));
    CHECK(file.view() == before);
    return;
  }
  CHECK(file.view() == original);
  CHECK(deferred.run_count() == 0);
}

TEST_CASE("writing back refuses placeholders that are not the runs'", "[deferred]") {
  FileBytes file(Serialized(ModelFromText(kModel)));
  DeferredNodes deferred;
  std::optional<std::string> reduced = DeferPlainNodes(&file, 1, &deferred);
  REQUIRE(reduced);
  onnx::ModelProto parsed;
  REQUIRE(parsed.ParseFromString(*reduced));
  SECTION("a run missing") {
    parsed.mutable_graph()->mutable_node()->DeleteSubrange(5, 1);
    std::string bytes = Serialized(parsed);
    CHECK_FALSE(ExpandDeferredRuns(deferred, &bytes));
  }
  SECTION("a run twice") {
    *parsed.mutable_graph()->add_node() = parsed.graph().node(0);
    std::string bytes = Serialized(parsed);
    CHECK_FALSE(ExpandDeferredRuns(deferred, &bytes));
  }
  SECTION("a run that does not exist") {
    parsed.mutable_graph()->mutable_node(5)->set_doc_string("\x01" "7");
    std::string bytes = Serialized(parsed);
    CHECK_FALSE(ExpandDeferredRuns(deferred, &bytes));
  }
}


TEST_CASE("a load with nodes left as bytes indexes and types them", "[deferred]") {
  testing::TempFile file("onnx-remap-deferred", Serialized(ModelFromText(kModel)));
  DeferredNodes deferred;
  GraphIndex index;
  auto model = LoadModel(file.path, &index, DeferOptions{&deferred, 1});
  REQUIRE(model);
  REQUIRE(deferred.run_count() == 3);
  CHECK(model->graph().node_size() == 6);
  for (const char* value : {"a", "b", "d", "e", "y"}) {
    INFO(value);
    CHECK(index.ProducerOf(value).kind == Producer::Kind::kDeferred);
  }
  CHECK(index.ProducerOf("c").kind == Producer::Kind::kNode);
  CHECK(index.Uses("x") == 2);  // Relu and Add
  CHECK(index.Uses("b") == 1);
  CHECK(index.FreshValueName("a") == "a_1");

  TypeOracle oracle(&index, {{"", 13}, {"custom", 1}});
  index.AttachTypeOracle(&oracle);
  const TensorType b = index.TypeOf("b");  // through Sigmoid and Relu to x
  CHECK(b.elem_type == onnx::TensorProto::FLOAT);
  CHECK(b.rank == 2);
  CHECK(index.TypeOf("d").elem_type == 0);  // the custom op's output is not known
}

// x -> Relu -> Sigmoid -> Relu ... -> y, all left as bytes; `recorded_at`:
// the node whose output the model records in value_info, with a dim_param
// where x has 2, so the type can tell where it came from.
onnx::ModelProto LongChain(int nodes, int recorded_at) {
  onnx::ModelProto model = ModelFromText(R"(
    < ir_version: 8, opset_import: ["" : 13] >
    g (float[2, 3] x) => (float[2, 3] y) { y = Identity(x) }
  )");
  onnx::GraphProto* g = model.mutable_graph();
  g->clear_node();
  std::string prev = "x";
  for (int k = 0; k < nodes; ++k) {
    onnx::NodeProto* n = g->add_node();
    n->set_op_type(k % 2 ? "Sigmoid" : "Relu");
    n->set_name("n" + std::to_string(k));
    n->add_input(prev);
    prev = k + 1 == nodes ? "y" : "v" + std::to_string(k);
    n->add_output(prev);
  }
  onnx::ValueInfoProto* vi = g->add_value_info();
  vi->set_name("v" + std::to_string(recorded_at));
  auto* t = vi->mutable_type()->mutable_tensor_type();
  t->set_elem_type(onnx::TensorProto::FLOAT);
  t->mutable_shape()->add_dim()->set_dim_param("batch");
  t->mutable_shape()->add_dim()->set_dim_value(3);
  return model;
}

TEST_CASE("the type oracle types the end of a chain left as bytes from where the chain starts", "[deferred]") {
  // Types pass unchanged along such a chain: the answer comes from the value
  // the model records (v9), not from x, and without typing the nodes between.
  testing::TempFile file("onnx-remap-deferred", Serialized(LongChain(40, 9)));
  DeferredNodes deferred;
  GraphIndex index;
  auto model = LoadModel(file.path, &index, DeferOptions{&deferred, 1});
  REQUIRE(model);
  REQUIRE(deferred.node_count() == 40);
  TypeOracle oracle(&index, {{"", 13}});
  index.AttachTypeOracle(&oracle);
  const onnx::TypeProto* y = oracle.TypeProtoOf("v30");
  REQUIRE(y);
  REQUIRE(y->tensor_type().shape().dim_size() == 2);
  CHECK(y->tensor_type().shape().dim(0).dim_param() == "batch");
  CHECK(oracle.nodes_typed() == 1);
  CHECK(oracle.KnownTypeProto("v20") == nullptr);  // nothing between was typed
  // Before the recorded value, the chain starts at x.
  const onnx::TypeProto* v5 = oracle.TypeProtoOf("v5");
  REQUIRE(v5);
  CHECK(v5->tensor_type().shape().dim(0).dim_value() == 2);
  CHECK(oracle.nodes_typed() == 2);
}

TEST_CASE("a fault among nodes left as bytes is reported as a whole load reports it", "[deferred]") {
  onnx::ModelProto broken = ModelFromText(kModel);
  broken.mutable_graph()->mutable_node(1)->set_input(0, "nowhere");  // the Sigmoid
  testing::TempFile file("onnx-remap-deferred", Serialized(broken));
  DeferredNodes deferred;
  auto with = LoadModel(file.path, nullptr, DeferOptions{&deferred, 1});
  auto without = LoadModel(file.path);
  REQUIRE_FALSE(with);
  REQUIRE_FALSE(without);
  CHECK(with.status().message() == without.status().message());
  CHECK(with.status().message().find("node '#1' (Sigmoid) reads 'nowhere'") != std::string::npos);
  CHECK(deferred.run_count() == 0);
}

TEST_CASE("rules that want a default-domain producer turn the deferral off", "[deferred]") {
  CHECK_FALSE(RulesFromText(R"R(
    rule {
      id: "fft"
      match { aten: "view_as_real" }
      signature: "aten::view_as_real(Tensor self) -> Tensor"
      producer { argument: "self" match { aten: "fft_rfft" } signature: "aten::fft_rfft(Tensor x) -> Tensor" }
      alternative { min_opset: 17 replace: "out = Identity(x)" }
    }
  )R").AnyDefaultDomainProducer());
  CHECK(RulesFromText(R"R(
    rule {
      id: "relu-pair"
      match { domain: "custom" op_type: "Foo" }
      signature: "custom::Foo(Tensor self) -> Tensor"
      producer { argument: "self" match { op_type: "Relu" } signature: "Relu(Tensor x) -> Tensor" }
      alternative { min_opset: 13 replace: "out = Identity(x)" }
    }
  )R").AnyDefaultDomainProducer());
}

TEST_CASE("no built-in rule wants a default-domain producer", "[deferred]") {
  // Built-in rule files are read on demand, after the pipeline has decided;
  // the decision relies on this.
  RuleLoadResult loaded = LoadRules(/*builtins=*/true, {});
  REQUIRE(loaded.errors.empty());
  for (const Rule* rule : loaded.rules.All()) {
    for (const ProducerPattern& p : rule->producers) {
      INFO(rule->id);
      const bool default_domain = p.match.aten.empty() && (p.match.domain.empty() || p.match.domain == "ai.onnx");
      CHECK_FALSE(default_domain);
    }
  }
}

}  // namespace
}  // namespace remap
