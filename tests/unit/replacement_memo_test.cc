// Replayed replacements (match/replacement_memo.h): a rewrite that copies the
// replacement of a node matched alike writes what a rewrite that makes every
// replacement afresh writes, names, types and outcome records included.
#include <optional>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "engine/engine.h"
#include "match/node_form.h"
#include "match/replacement_memo.h"
#include "rules/rule_set.h"
#include "test_models.h"

namespace remap {
namespace {

using testing::ModelFromText;

// ATen nodes rewritten by the built-in rules, many of them alike: the same
// operator, constant arguments and input types. Others differ from those in
// one thing the key holds: an element type (a3, c2), a rank and a dim name
// (c3), a constant (t2), which inputs are one value (b2, b4), a constant
// input (b5), a missing name (the second node without one). Integer
// bitwise_and below opset 18 calls a fragment: never replayed (e1, e2).
const char* kModel = R"(
  < ir_version: 8, opset_import: ["" : 17, "org.pytorch.aten" : 1] >
  g (float[2, 3] x, double[4, 4] d, int64[2, 2] i, float[N, 3] s, bool[3] a, bool[3] b, int32[3] ia, int32[3] ib)
    => (float[2, 3] a1, float[2, 3] a2, double[4, 4] a3, float[2, 3] t1, float[2, 3] t2, float[2, 3] t3,
        float[2, 3] c1, int64[2, 2] c2, float[N, 3] c3, float[2, 3] c4,
        bool[3] b1, bool[3] b2, bool[3] b3, bool[3] b4, bool[3] b5, int32[3] e1, int32[3] e2, float[2, 3] taken) {
    a1 = org.pytorch.aten.ATen<operator = "asinh", overload_name = "">(x)
    a2 = org.pytorch.aten.ATen<operator = "asinh", overload_name = "">(x)
    a3 = org.pytorch.aten.ATen<operator = "asinh", overload_name = "">(d)
    k0 = Constant<value = int64 {0}>()
    t1 = org.pytorch.aten.ATen<operator = "triu", overload_name = "">(a1, k0)
    k1 = Constant<value = int64 {1}>()
    t2 = org.pytorch.aten.ATen<operator = "triu", overload_name = "">(a2, k1)
    k2 = Constant<value = int64 {0}>()
    t3 = org.pytorch.aten.ATen<operator = "triu", overload_name = "">(a2, k2)
    dim = Constant<value = int64 {1}>()
    c1 = org.pytorch.aten.ATen<operator = "cumsum", overload_name = "">(x, dim)
    dim2 = Constant<value = int64 {1}>()
    c2 = org.pytorch.aten.ATen<operator = "cumsum", overload_name = "">(i, dim2)
    dim3 = Constant<value = int64 {1}>()
    c3 = org.pytorch.aten.ATen<operator = "cumsum", overload_name = "">(s, dim3)
    dim4 = Constant<value = int64 {1}>()
    c4 = org.pytorch.aten.ATen<operator = "cumsum", overload_name = "">(t1, dim4)
    b1 = org.pytorch.aten.ATen<operator = "bitwise_and", overload_name = "">(a, b)
    b2 = org.pytorch.aten.ATen<operator = "bitwise_and", overload_name = "">(a, a)
    b3 = org.pytorch.aten.ATen<operator = "bitwise_and", overload_name = "">(b, a)
    b4 = org.pytorch.aten.ATen<operator = "bitwise_and", overload_name = "">(b, b)
    w = Constant<value = bool[3] {1, 0, 1}>()
    b5 = org.pytorch.aten.ATen<operator = "bitwise_and", overload_name = "">(a, w)
    e1 = org.pytorch.aten.ATen<operator = "bitwise_and", overload_name = "">(ia, ib)
    e2 = org.pytorch.aten.ATen<operator = "bitwise_and", overload_name = "">(ia, ib)
    taken = Identity(x)
  }
)";

onnx::ModelProto NamedModel() {
  onnx::ModelProto model = ModelFromText(kModel);
  // Torch-style names; one node unnamed (its replacement is named after the
  // rule); one name a replacement would take, so its copy must take the next.
  for (auto& n : *model.mutable_graph()->mutable_node()) n.set_name("/" + n.output(0));
  model.mutable_graph()->mutable_node(1)->clear_name();
  model.mutable_graph()->mutable_node(25)->set_name("/t3/Trilu");
  return model;
}

struct Rewritten {
  std::string bytes;
  RewriteReport report;
};

Rewritten Rewrite(const RuleSet& rules, uint64_t memo_entries) {
  onnx::ModelProto model = NamedModel();
  RewriteOptions options;
  options.memo_entries = memo_entries;
  auto report = RewriteModel(&model, rules, options);
  REQUIRE(report.ok());
  return {model.SerializeAsString(), std::move(*report)};
}

TEST_CASE("a rewrite with replayed replacements writes what one without them writes", "[memo]") {
  REQUIRE(NamedModel().graph().node(25).op_type() == "Identity");
  RuleLoadResult loaded = LoadRuleTexts(true, {});
  REQUIRE(loaded.errors.empty());
  const Rewritten fresh = Rewrite(loaded.rules, 0);
  const Rewritten replayed = Rewrite(loaded.rules, 4096);
  CHECK(fresh.report.replacements_replayed == 0);
  // a2 (a1's), t3 (t1's, k0 and k2 both 0), c4 (c1's), b3 (b1's), b4 (b2's).
  CHECK(replayed.report.replacements_replayed == 5);
  // All five alike in the node's own key too: none bound a rule.
  CHECK(replayed.report.replayed_by_node_key == 5);
  CHECK(replayed.report.rewritten.size() == 17);
  CHECK(replayed.report.remaining.empty());
  CHECK(replayed.bytes == fresh.bytes);
  CHECK(replayed.report.nodes_typed == fresh.report.nodes_typed);
  REQUIRE(replayed.report.rewritten.size() == fresh.report.rewritten.size());
  for (size_t k = 0; k < fresh.report.rewritten.size(); ++k) {
    const NodeOutcome& a = fresh.report.rewritten[k];
    const NodeOutcome& b = replayed.report.rewritten[k];
    CAPTURE(a.node);
    CHECK(b.node == a.node);
    CHECK(b.graph.str() == a.graph.str());
    CHECK(b.op.str() == a.op.str());
    CHECK(b.form.str() == a.form.str());
    CHECK(b.aten_operator.str() == a.aten_operator.str());
    CHECK(b.rule.str() == a.rule.str());
    CHECK(b.rule_location == a.rule_location);
    CHECK(std::vector<std::string>(b.emitted.begin(), b.emitted.end()) ==
          std::vector<std::string>(a.emitted.begin(), a.emitted.end()));
    CHECK(std::vector<CandidateOutcome>(b.candidates.begin(), b.candidates.end()) ==
          std::vector<CandidateOutcome>(a.candidates.begin(), a.candidates.end()));
  }
  // A memo of one entry holds the first replacement only: it still writes the same.
  CHECK(Rewrite(loaded.rules, 1).bytes == fresh.bytes);
}

// Memo keys of a model's nodes (opset 17, domain "custom"), bound as
// MatchNode binds them before it asks for a key.
class NodeKeys {
 public:
  explicit NodeKeys(const onnx::ModelProto& model)
      : model_(model), index_(GraphIndex::ForGraph(model.graph())), oracle_(&index_, {{"", 17}, {"custom", 1}}) {
    index_.AttachTypeOracle(&oracle_);
  }
  NodeKeys(const NodeKeys&) = delete;
  NodeKeys& operator=(const NodeKeys&) = delete;

  std::optional<ReplacementMemo::Key> Of(int node, const Rule& rule) {
    const onnx::NodeProto& n = model_.graph().node(node);
    Binding binding;
    std::string why;
    REQUIRE(BindArguments(n, ClassifyNode(n, classify_), rule.signature, index_, &binding, &why));
    return ReplacementMemo::KeyOf(n, rule, binding, index_, &oracle_);
  }

 private:
  const onnx::ModelProto& model_;
  GraphIndex index_;
  TypeOracle oracle_;
  ClassifyContext classify_;
};

TEST_CASE("a match is remembered only when a replay can redo it", "[memo]") {
  RuleSet rules = testing::RulesFromText(R"rule(
rule {
  id: "pair"
  match { domain: "custom" op_type: "pair" }
  signature: "custom::pair(Tensor[] xs) -> Tensor"
  alternative { min_opset: 13 replace: "out = Concat<axis = 0>(${xs})" }
}
rule {
  id: "two"
  match { domain: "custom" op_type: "two" }
  signature: "custom::two(Tensor x, Tensor y) -> Tensor"
  alternative { min_opset: 13 replace: "out = Add(x, y)" }
}
)rule");
  onnx::ModelProto model = ModelFromText(R"(
    < ir_version: 8, opset_import: ["" : 17, "custom" : 1] >
    g (float[2] x, float[2] y) => (float[4] p, float[2] q) {
      l = SequenceConstruct(x, y)
      p = custom.pair(l)
      q = custom.two(x, y)
    }
  )");
  NodeKeys keys(model);
  auto key_of = [&](int node, const char* rule_id) { return keys.Of(node, *rules.Find(rule_id)); };
  // The list's tensors are the SequenceConstruct's inputs, not the node's: no key.
  CHECK_FALSE(key_of(1, "pair"));
  // Plain tensor inputs: a key, with both inputs' types in it.
  auto key = key_of(2, "two");
  REQUIRE(key);
  CHECK(key->typed_inputs == 3);
  CHECK(key->constant_inputs == 0);
}

TEST_CASE("a key holds every byte of a long argument", "[memo]") {
  // Longer than the buffer a key is gathered in on the stack.
  RuleSet rules = testing::RulesFromText(R"rule(
rule {
  id: "named"
  match { domain: "custom" op_type: "named" }
  signature: "custom::named(Tensor x, str mode) -> Tensor"
  alternative { min_opset: 13 replace: "out = Identity(x)" }
}
)rule");
  const std::string long_mode(600, 'm');
  std::string other_mode = long_mode;
  other_mode.back() = 'n';
  onnx::ModelProto model = ModelFromText(R"(
    < ir_version: 8, opset_import: ["" : 17, "custom" : 1] >
    g (float[2] x) => (float[2] p, float[2] q, float[2] r) {
      p = custom.named<mode = "a">(x)
      q = custom.named<mode = "a">(x)
      r = custom.named<mode = "a">(x)
    }
  )");
  model.mutable_graph()->mutable_node(0)->mutable_attribute(0)->set_s(long_mode);
  model.mutable_graph()->mutable_node(1)->mutable_attribute(0)->set_s(long_mode);
  model.mutable_graph()->mutable_node(2)->mutable_attribute(0)->set_s(other_mode);
  NodeKeys keys(model);
  auto key_of = [&](int node) {
    auto key = keys.Of(node, *rules.Find("named"));
    REQUIRE(key);
    return key->bytes;
  };
  const std::string p = key_of(0);
  CHECK(p.size() > long_mode.size());
  CHECK(p.find(long_mode) != std::string::npos);
  CHECK(key_of(1) == p);
  CHECK(key_of(2) != p);
  CHECK(key_of(2).size() == p.size());
}

// Rewrites `text` with `rules` with a memo and without, and checks that both
// write the same model and the same outcome records.
RewriteReport SameWithAndWithoutMemo(const RuleSet& rules, const char* text) {
  auto rewrite = [&](uint64_t memo_entries) {
    onnx::ModelProto model = ModelFromText(text);
    for (auto& n : *model.mutable_graph()->mutable_node()) n.set_name("/" + n.output(0));
    RewriteOptions options;
    options.memo_entries = memo_entries;
    auto report = RewriteModel(&model, rules, options);
    REQUIRE(report.ok());
    return Rewritten{model.SerializeAsString(), std::move(*report)};
  };
  const Rewritten fresh = rewrite(0);
  Rewritten replayed = rewrite(4096);
  CHECK(replayed.bytes == fresh.bytes);
  CHECK(replayed.report.nodes_typed == fresh.report.nodes_typed);
  REQUIRE(replayed.report.rewritten.size() == fresh.report.rewritten.size());
  for (size_t k = 0; k < fresh.report.rewritten.size(); ++k) {
    const NodeOutcome& a = fresh.report.rewritten[k];
    const NodeOutcome& b = replayed.report.rewritten[k];
    CAPTURE(a.node);
    CHECK(b.rule.str() == a.rule.str());
    CHECK(std::vector<std::string>(b.emitted.begin(), b.emitted.end()) ==
          std::vector<std::string>(a.emitted.begin(), a.emitted.end()));
    CHECK(std::vector<CandidateOutcome>(b.candidates.begin(), b.candidates.end()) ==
          std::vector<CandidateOutcome>(a.candidates.begin(), a.candidates.end()));
  }
  return std::move(replayed.report);
}

TEST_CASE("a node key holds each Constant input's value as the Constant writes it", "[memo]") {
  RuleLoadResult loaded = LoadRuleTexts(true, {});
  REQUIRE(loaded.errors.empty());
  // t2's k is 0 written as value_int: bound, it is t1's 0, so t2 replays t1's
  // replacement by the bound key; its node key differs. t3 and t5 are t1
  // again (t5's records those t3's replay recorded); t4's k is 1.
  const RewriteReport report = SameWithAndWithoutMemo(loaded.rules, R"(
    < ir_version: 8, opset_import: ["" : 17, "org.pytorch.aten" : 1] >
    g (float[2, 3] x) => (float[2, 3] t1, float[2, 3] t2, float[2, 3] t3, float[2, 3] t4, float[2, 3] t5) {
      k1 = Constant<value = int64 {0}>()
      t1 = org.pytorch.aten.ATen<operator = "triu", overload_name = "">(x, k1)
      k2 = Constant<value_int = 0>()
      t2 = org.pytorch.aten.ATen<operator = "triu", overload_name = "">(x, k2)
      k3 = Constant<value = int64 {0}>()
      t3 = org.pytorch.aten.ATen<operator = "triu", overload_name = "">(x, k3)
      k4 = Constant<value = int64 {1}>()
      t4 = org.pytorch.aten.ATen<operator = "triu", overload_name = "">(x, k4)
      k5 = Constant<value = int64 {0}>()
      t5 = org.pytorch.aten.ATen<operator = "triu", overload_name = "">(x, k5)
    }
  )");
  CHECK(report.rewritten.size() == 5);
  CHECK(report.replacements_replayed == 3);  // t2, t3, t5
  CHECK(report.replayed_by_node_key == 2);   // t3, t5
}

TEST_CASE("a node whose first candidate rule refused it is matched in full each time", "[memo]") {
  // Later rules are tried first. "one" returns one output, so it refuses a
  // node whose second output is used, naming that output; "both" applies.
  // The refusal differs by node.
  RuleSet rules = testing::RulesFromText(R"rule(
rule {
  id: "both"
  match { domain: "custom" op_type: "split2" }
  signature: "custom::split2(Tensor x) -> (Tensor a, Tensor b)"
  alternative { min_opset: 13 replace: "a = Identity(x)\nb = Neg(x)" }
}
rule {
  id: "one"
  match { domain: "custom" op_type: "split2" }
  signature: "custom::split2(Tensor x) -> Tensor"
  alternative { min_opset: 13 replace: "out = Identity(x)" }
}
)rule");
  const RewriteReport report = SameWithAndWithoutMemo(rules, R"(
    < ir_version: 8, opset_import: ["" : 17, "custom" : 1] >
    g (float[2] x) => (float[2] p1, float[2] q1, float[2] p2, float[2] q2, float[2] p3, float[2] q3) {
      p1, q1 = custom.split2(x)
      p2, q2 = custom.split2(x)
      p3, q3 = custom.split2(x)
    }
  )");
  REQUIRE(report.rewritten.size() == 3);
  CHECK(report.replacements_replayed == 2);
  CHECK(report.replayed_by_node_key == 0);
  REQUIRE(report.rewritten[2].candidates.size() == 2);
  CHECK(report.rewritten[2].candidates[0].reason.find("'q3'") != std::string::npos);
}

TEST_CASE("a node key tells apart what a match reads of the node, and only that", "[memo]") {
  // Node names differ throughout: a key never holds them.
  onnx::ModelProto model = ModelFromText(R"(
    < ir_version: 8, opset_import: ["" : 17, "org.pytorch.aten" : 1] >
    g (float[2, 3] x, float[2, 3] y, double[2, 3] d) => (float[2, 3] a1, float[2, 3] a2, float[2, 3] a3, double[2, 3] a4,
                                                         float[2, 3] t1, float[2, 3] t2, float[2, 3] t3, float[2, 3] w1,
                                                         float[2, 3] l1, float[2, 3] s1) {
      a1 = org.pytorch.aten.ATen<operator = "asinh", overload_name = "">(x)
      a2 = org.pytorch.aten.ATen<operator = "asinh", overload_name = "">(y)
      a3 = org.pytorch.aten.ATen<operator = "asinh", overload_name = "int">(x)
      a4 = org.pytorch.aten.ATen<operator = "asinh", overload_name = "">(d)
      k0 = Constant<value = int64 {0}>()
      t1 = org.pytorch.aten.ATen<operator = "triu", overload_name = "">(x, k0)
      k1 = Constant<value = int64 {0}>()
      t2 = org.pytorch.aten.ATen<operator = "triu", overload_name = "">(y, k1)
      k2 = Constant<value = int64 {1}>()
      t3 = org.pytorch.aten.ATen<operator = "triu", overload_name = "">(x, k2)
      w1 = org.pytorch.aten.ATen<operator = "triu", overload_name = "">(x, w)
      l = SequenceConstruct(x, y)
      l1 = org.pytorch.aten.ATen<operator = "cat", overload_name = "">(l)
      unused = org.pytorch.aten.ATen<operator = "asinh", overload_name = "">(x)
      s1 = Identity(x)
      dup = org.pytorch.aten.ATen<operator = "asinh", operator = "asinh">(x)
    }
  )");
  onnx::TensorProto* w = model.mutable_graph()->add_initializer();
  w->set_name("w");
  w->set_data_type(onnx::TensorProto::INT64);
  w->add_int64_data(0);
  GraphIndex index = GraphIndex::ForGraph(model.graph());
  TypeOracle oracle(&index, {{"", 17}});
  index.AttachTypeOracle(&oracle);
  ClassifyContext classify;
  ReplacementMemo memo(16);
  auto key_of = [&](int k) {
    const onnx::NodeProto& n = model.graph().node(k);
    return memo.NodeKeyOf(n, ClassifyNode(n, classify), index, &oracle);
  };
  auto bytes_of = [&](int k) {
    auto key = key_of(k);
    REQUIRE(key);
    return key->bytes;
  };
  // Inputs of one type are alike, whichever value; the input is typed, and its bit set.
  CHECK(bytes_of(1) == bytes_of(0));
  CHECK(key_of(0)->other_inputs == 1);
  CHECK(bytes_of(2) != bytes_of(0));  // another overload
  CHECK(bytes_of(3) != bytes_of(0));  // another element type
  // Constants by value: equal ones alike, another differs; a Constant's input is not typed.
  CHECK(bytes_of(7) == bytes_of(5));
  CHECK(key_of(5)->other_inputs == 1);
  CHECK(bytes_of(9) != bytes_of(5));
  // An initializer's or a list node's output: no node key.
  CHECK_FALSE(key_of(10));
  CHECK_FALSE(key_of(12));
  // An output no node or graph output uses: the match reads that too.
  CHECK(bytes_of(13) != bytes_of(0));
  // operator twice, no overload_name (unused output, as `unused`): the form
  // is the same, the attributes are not.
  CHECK(bytes_of(15) != bytes_of(13));
}

TEST_CASE("a replayed node has every field of the remembered one, under the new node's names", "[memo]") {
  onnx::ModelProto model = ModelFromText(R"(
    < ir_version: 8, opset_import: ["" : 17, "custom" : 1] >
    g (float[2] x, float[2] x2) => (float[2] y, float[2] y2) {
      y = custom.op(x)
      y2 = custom.op(x2)
    }
  )");
  auto* nodes = model.mutable_graph()->mutable_node();
  nodes->Mutable(0)->set_name("first");
  nodes->Mutable(1)->set_name("second");
  GraphIndex index = GraphIndex::ForGraph(model.graph());
  TypeOracle oracle(&index, {{"", 17}, {"custom", 1}});
  index.AttachTypeOracle(&oracle);

  // What an instantiation for the first node made: every field of ONNX
  // 1.12's NodeProto set on one node, a domain set to "" (present, unlike an
  // unset one) and a field this ONNX does not know.
  EmitRecord record;
  record.fresh = {{true, "/A", index.FreshNodeName("first/A")},
                  {false, "/t", index.FreshValueName("first/t")},
                  {true, "/B", index.FreshNodeName("first/B")}};
  std::vector<onnx::NodeProto> made(2);
  made[0].set_name(record.fresh[0].name);
  made[0].add_input("x");
  made[0].add_output(record.fresh[1].name);
  made[0].set_op_type("LeakyRelu");
  made[0].set_domain("");
  made[0].set_doc_string("why this node");
  auto* alpha = made[0].add_attribute();
  alpha->set_name("alpha");
  alpha->set_type(onnx::AttributeProto::FLOAT);
  alpha->set_f(0.25f);
  made[0].mutable_unknown_fields()->AddVarint(99, 5);
  made[1].set_name(record.fresh[2].name);
  made[1].add_input(record.fresh[1].name);
  made[1].add_output("y");
  made[1].set_op_type("Neg");

  ReplacementMemo memo(16);
  ReplacementMemo::Key key;
  key.bytes = "k";
  key.typed_inputs = 1;
  TypeOracle::ReplacementTyping typing;
  typing.outputs = {nullptr, nullptr};
  const Alternative alternative;
  const ReplacementMemo::Entry* entry =
      memo.Store(key, model.graph().node(0), alternative, made, record, typing, {});
  REQUIRE(entry);

  Rule rule;
  rule.id = "r";
  std::vector<onnx::NodeProto> replayed;
  memo.Replay(*entry, model.graph().node(1), rule, &index, &oracle, &replayed);
  REQUIRE(replayed.size() == 2);
  // The expected nodes: the remembered ones under the second node's names.
  std::vector<onnx::NodeProto> expected = made;
  expected[0].set_name("second/A");
  expected[0].set_input(0, "x2");
  expected[0].set_output(0, "second/t");
  expected[1].set_name("second/B");
  expected[1].set_input(0, "second/t");
  expected[1].set_output(0, "y2");
  for (size_t k = 0; k < 2; ++k) {
    CAPTURE(k);
    CHECK(replayed[k].SerializeAsString() == expected[k].SerializeAsString());
  }
  CHECK(replayed[0].has_domain());
  CHECK_FALSE(replayed[1].has_domain());
  CHECK_FALSE(replayed[1].has_doc_string());
}

TEST_CASE("nodes of two forms replayed from one replacement each record their own form", "[memo]") {
  // An ATen fallback and a fall-through node of one operator, on one input:
  // the same rule and arguments, so one remembered replacement, but two node
  // keys, whose nodes differ in op and form.
  onnx::ModelProto model = ModelFromText(R"(
    < ir_version: 8, opset_import: ["" : 17, "org.pytorch.aten" : 1] >
    g (float[2, 3] x) => (float[2, 3] a1, float[2, 3] a2, float[2, 3] a3, float[2, 3] a4, float[2, 3] a5) {
      a1 = org.pytorch.aten.ATen<operator = "asinh", overload_name = "">(x)
      a2 = org.pytorch.aten.asinh(x)
      a3 = org.pytorch.aten.ATen<operator = "asinh", overload_name = "">(x)
      a4 = org.pytorch.aten.asinh(x)
      a5 = org.pytorch.aten.asinh(x)
    }
  )");
  RuleLoadResult loaded = LoadRuleTexts(true, {});
  REQUIRE(loaded.errors.empty());
  RewriteOptions options;
  options.memo_entries = 4096;
  auto report = RewriteModel(&model, loaded.rules, options);
  REQUIRE(report.ok());
  REQUIRE(report->rewritten.size() == 5);
  CHECK(report->replayed_by_node_key >= 2);
  const char* ops[] = {"org.pytorch.aten::ATen", "org.pytorch.aten::asinh", "org.pytorch.aten::ATen",
                       "org.pytorch.aten::asinh", "org.pytorch.aten::asinh"};
  const char* forms[] = {"aten-fallback", "aten-fallthrough", "aten-fallback", "aten-fallthrough", "aten-fallthrough"};
  for (size_t k = 0; k < 5; ++k) {
    CAPTURE(k);
    CHECK(report->rewritten[k].op.str() == ops[k]);
    CHECK(report->rewritten[k].form.str() == forms[k]);
    CHECK(report->rewritten[k].aten_operator.str() == "asinh");
    CHECK(report->rewritten[k].rule.str() == "aten-asinh");
  }
}

}  // namespace
}  // namespace remap
