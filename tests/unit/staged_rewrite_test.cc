// The two-stage rewrite (a batch of matches, then their edits) gives what
// matching and applying one node at a time gives (RewriteOptions::match_batch),
// in the cases where a match reads what an earlier edit changes.
#include <string>
#include <vector>

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include "engine/engine.h"
#include "test_models.h"

using namespace remap;
using testing::ModelFromText;
using testing::RulesFromText;

namespace {

const std::string kRules = std::string(testing::kAsinhRule) + testing::kLogitRule + R"rule(
rule {
  id: "first-of-two"
  match { aten: "first_of_two" }
  signature: "aten::first_of_two(Tensor a, Tensor b) -> Tensor"
  alternative { min_opset: 9 replace: "out = Identity(a)" }
}
rule {
  id: "outer-of-inner"
  match { aten: "outer" }
  signature: "aten::outer(Tensor self) -> Tensor"
  producer {
    argument: "self"
    match { aten: "inner" }
    signature: "aten::inner(Tensor x) -> Tensor"
  }
  alternative { min_opset: 9 replace: "out = Neg(x)" }
}
rule {
  id: "custom-wrap"
  match { domain: "custom" op_type: "wrap" }
  signature: "custom::wrap(Tensor x) -> Tensor"
  alternative { min_opset: 9 replace: "out = Identity(x)" }
}
)rule";

// What a user sees of one rewrite: the model's bytes, each node's outcome
// with every candidate's reason, and the nodes the rewrite reports as added.
struct Seen {
  std::string bytes;
  std::vector<std::string> outcomes;
  std::vector<std::string> added;
};

Seen Rewrite(const std::string& text, uint64_t batch) {
  RuleSet rules = RulesFromText(kRules);
  onnx::ModelProto model = ModelFromText(text);
  std::vector<AddedNode> added;
  RewriteOptions options;
  options.match_batch = batch;
  options.added = &added;
  auto report = RewriteModel(&model, rules, options);
  REQUIRE(report.ok());
  Seen seen;
  REQUIRE(model.SerializeToString(&seen.bytes));
  auto describe = [&seen](const char* kind, const NodeOutcome& o) {
    std::string line = fmt::format("{} {} {} [{}] {}", kind, o.graph.str(), o.node, o.rule.str(), o.reason);
    for (const CandidateOutcome& c : o.candidates) line += fmt::format(" | {}: {}", c.rule, c.reason);
    seen.outcomes.push_back(line);
  };
  for (const NodeOutcome& o : report->rewritten) describe("rewritten", o);
  for (const NodeOutcome& o : report->remaining) describe("remaining", o);
  for (const AddedNode& a : added) seen.added.push_back(fmt::format("{} {}", a.node->op_type(), a.node->name()));
  return seen;
}

// Rewrites `text` one node at a time and in batches of `batch`, and checks
// that both give the same; returns what they gave.
Seen SameInBatches(const std::string& text, uint64_t batch = 64) {
  Seen one = Rewrite(text, 1);
  Seen staged = Rewrite(text, batch);
  CHECK(staged.outcomes == one.outcomes);
  CHECK(staged.added == one.added);
  CHECK(staged.bytes == one.bytes);
  return one;
}

bool HasOp(const onnx::GraphProto& g, const std::string& op) {
  for (const auto& n : g.node()) {
    if (n.op_type() == op) return true;
  }
  return false;
}

}  // namespace

TEST_CASE("staged: an argument computed by a node rewritten just before reads as one node at a time", "[engine][staged]") {
  // logit's eps comes from the asinh node, which is rewritten first: the
  // match of logit must see that node as already replaced.
  const Seen seen = SameInBatches(R"(
    < ir_version: 8, opset_import: ["" : 13, "org.pytorch.aten" : 1] >
    g (float[4] x, float e0) => (float[4] y) {
      e = org.pytorch.aten.ATen<operator = "asinh", overload_name = "">(e0)
      y = org.pytorch.aten.ATen<operator = "logit", overload_name = "">(x, e)
    })");
  REQUIRE(seen.outcomes.size() == 2);
  CHECK(seen.outcomes[0].rfind("rewritten", 0) == 0);
  CHECK(seen.outcomes[1].rfind("remaining", 0) == 0);
}

TEST_CASE("staged: a producer pattern counts the uses an earlier rewrite left", "[engine][staged]") {
  // `v` feeds first_of_two and outer. first_of_two's replacement drops it, so
  // once that rewrite is applied outer is v's only use and may take its producer.
  const std::string text = R"(
    < ir_version: 8, opset_import: ["" : 13, "org.pytorch.aten" : 1] >
    g (float[4] x) => (float[4] y, float[4] f) {
      v = org.pytorch.aten.ATen<operator = "inner", overload_name = "">(x)
      f = org.pytorch.aten.ATen<operator = "first_of_two", overload_name = "">(x, v)
      y = org.pytorch.aten.ATen<operator = "outer", overload_name = "">(v)
    })";
  const Seen seen = SameInBatches(text);
  onnx::ModelProto model;
  REQUIRE(model.ParseFromString(seen.bytes));
  CHECK(HasOp(model.graph(), "Neg"));
  CHECK_FALSE(HasOp(model.graph(), "ATen"));  // inner went with outer
  for (const std::string& o : seen.outcomes) CHECK(o.rfind("rewritten", 0) == 0);
}

TEST_CASE("staged: an unmapped node with a subgraph is matched alone, after its body", "[engine][staged]") {
  // No rule binds a graph attribute, so wrap stays; its body is rewritten
  // and committed before it is matched, as one node at a time.
  const Seen seen = SameInBatches(R"(
    < ir_version: 8, opset_import: ["" : 13, "org.pytorch.aten" : 1, "custom" : 1] >
    g (float[4] x) => (float[4] y) {
      a = org.pytorch.aten.ATen<operator = "asinh", overload_name = "">(x)
      w = custom.wrap<body = b () => (float[4] o) { o = org.pytorch.aten.ATen<operator = "asinh", overload_name = "">(x) }>(a)
      y = org.pytorch.aten.ATen<operator = "asinh", overload_name = "">(w)
    })");
  REQUIRE(seen.outcomes.size() == 4);
  CHECK(seen.outcomes[1].rfind("rewritten g/.body", 0) == 0);
  CHECK(seen.outcomes[3].find("attribute 'body' is not an argument") != std::string::npos);
  // The body's list is committed first, then the main graph's.
  CHECK(seen.added == std::vector<std::string>{"Asinh aten-asinh/Asinh_1", "Asinh aten-asinh/Asinh", "Asinh aten-asinh/Asinh_2"});
}

TEST_CASE("staged: nodes of many bodies, in batches smaller and larger than the tree", "[engine][staged]") {
  const std::string text = R"(
    < ir_version: 8, opset_import: ["" : 13, "org.pytorch.aten" : 1] >
    g (bool c, float[4] x) => (float[4] y) {
      a = org.pytorch.aten.ATen<operator = "asinh", overload_name = "">(x)
      i1 = If(c) <
        then_branch = t () => (float[4] p) {
          p0 = org.pytorch.aten.ATen<operator = "asinh", overload_name = "">(a)
          p = org.pytorch.aten.ATen<operator = "asinh", overload_name = "">(p0)
        },
        else_branch = e () => (float[4] q) { q = org.pytorch.aten.ATen<operator = "asinh", overload_name = "">(a) }
      >
      i2 = If(c) <
        then_branch = t2 () => (float[4] r) {
          r0 = Relu(i1)
          r = org.pytorch.aten.ATen<operator = "asinh", overload_name = "">(r0)
        },
        else_branch = e2 () => (float[4] s) { s = org.pytorch.aten.ATen<operator = "logit", overload_name = "">(i1, a) }
      >
      y = org.pytorch.aten.ATen<operator = "asinh", overload_name = "">(i2)
    })";
  for (uint64_t batch : {2, 3, 64}) {
    INFO("batch " << batch);
    const Seen seen = SameInBatches(text, batch);
    CHECK(seen.added.size() == 6);
    CHECK(seen.outcomes.size() == 7);
  }
}
