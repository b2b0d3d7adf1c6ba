// OutcomeInterner: report records of nodes rewritten alike share one copy of
// what they have in common.
#include <catch2/catch.hpp>

#include "engine/engine.h"
#include "engine/outcome_interner.h"
#include "test_models.h"

using namespace remap;

TEST_CASE("equal values intern to one copy, different ones do not", "[interner]") {
  OutcomeInterner interner;
  const SharedString a = interner.String("org.pytorch.aten::ATen");
  CHECK(a.SharesWith(interner.String(std::string("org.pytorch.aten::") + "ATen")));
  CHECK_FALSE(a.SharesWith(interner.String("custom::pool")));
  CHECK(interner.String("").empty());

  const SharedList<std::string> names = interner.Names({"Constant", "Trilu"});
  CHECK(names.SharesWith(interner.Names({"Constant", "Trilu"})));
  CHECK_FALSE(names.SharesWith(interner.Names({"Trilu", "Constant"})));
  CHECK(interner.Names({"Trilu", "Constant"}) == std::vector<std::string>{"Trilu", "Constant"});

  const SourceLocation rule{"rules/aten/asinh.textproto", 2, 1};
  const SourceLocation alt{"rules/aten/asinh.textproto", 7, 3};
  auto trail = [&](const std::string& reason) {
    return std::vector<CandidateOutcome>{{"aten-asinh", rule, alt, Refusal::kGuard, reason, 0},
                                         {"aten-asinh", rule, {"rules/aten/asinh.textproto", 32, 3}, Refusal::kNone, "", 0}};
  };
  const SharedList<CandidateOutcome> first = interner.Candidates(trail("when 'dtype(self) == 'float64'' is false"));
  CHECK(first.SharesWith(interner.Candidates(trail("when 'dtype(self) == 'float64'' is false"))));
  const SharedList<CandidateOutcome> other = interner.Candidates(trail("when 'rank(self) == 0' is false"));
  CHECK_FALSE(first.SharesWith(other));
  CHECK(other[0].reason == "when 'rank(self) == 0' is false");
  // A location in another file is another trail.
  auto moved = trail("when 'dtype(self) == 'float64'' is false");
  moved[1].alternative_location.file = "my_rules/asinh.textproto";
  CHECK_FALSE(first.SharesWith(interner.Candidates(moved)));
}

TEST_CASE("a rewrite's records share their values across nodes and graphs", "[interner][engine]") {
  RuleSet rules = testing::RulesFromText(R"rule(
rule {
  id: "aten-asinh"
  match { aten: "asinh" }
  signature: "aten::asinh(Tensor self) -> Tensor"
  alternative { min_opset: 9 when: "rank(self) == 0" replace: "out = Asinh(self)" }
  alternative { min_opset: 9 replace: "out = Asinh(self)" }
}
)rule");
  auto model = testing::ModelFromText(R"(
    < ir_version: 8, opset_import: ["" : 17, "org.pytorch.aten" : 1] >
    g (float[4] x, bool c) => (float[4] y) {
      a = org.pytorch.aten.ATen<operator = "asinh", overload_name = "">(x)
      b = org.pytorch.aten.ATen<operator = "asinh", overload_name = "">(a)
      y = If(c) <
        then_branch = t () => (float[4] ty) { ty = org.pytorch.aten.ATen<operator = "asinh", overload_name = "">(b) },
        else_branch = e () => (float[4] ey) { ey = Identity(b) }
      >
    })");
  auto report = RewriteModel(&model, rules, {});
  REQUIRE(report.ok());
  REQUIRE(report->rewritten.size() == 3);
  const NodeOutcome& first = report->rewritten[0];
  REQUIRE(first.candidates.size() == 2);
  CHECK(first.candidates[0].refusal == Refusal::kGuard);
  CHECK(first.emitted == std::vector<std::string>{"Asinh"});
  for (const NodeOutcome& n : report->rewritten) {
    CHECK(n.candidates.SharesWith(first.candidates));
    CHECK(n.emitted.SharesWith(first.emitted));
    CHECK(n.op.SharesWith(first.op));
    CHECK(n.rule.SharesWith(first.rule));
    CHECK(n.rule == "aten-asinh");
  }
  // One graph path for the main graph's two nodes, another for the branch's.
  CHECK(report->rewritten[0].graph.str() == "g");
  CHECK(report->rewritten[0].graph.SharesWith(report->rewritten[1].graph));
  CHECK(report->rewritten[2].graph.str() == "g/.then_branch");
}
