#include <filesystem>
#include <fstream>
#include <sstream>

#include <catch2/catch.hpp>

#include "engine/engine.h"
#include "rules/rule_parser.h"
#include "test_models.h"

using namespace remap;

namespace {

std::string Read(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace

// Every file in bad_rules/ starts with "# expect: LINE:COL: MESSAGE"; loading it
// must report exactly that error at that position.
TEST_CASE("rule file errors are reported as file:line:col", "[rule_parser]") {
  const auto dir = std::filesystem::path(testing::SourceDir()) / "tests/unit/bad_rules";
  int checked = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    const std::string text = Read(entry.path());
    const std::string prefix = "# expect: ";
    REQUIRE(text.rfind(prefix, 0) == 0);
    const std::string expect = text.substr(prefix.size(), text.find('\n') - prefix.size());
    const std::string name = entry.path().filename().string();
    RuleLoadResult result = LoadRuleTexts(false, {{name, text}});
    const size_t colon = expect.find(": ");
    const std::string position = name + ":" + expect.substr(0, colon) + ": error: ";
    const std::string message = expect.substr(colon + 2);
    INFO(name << " expected " << position << message);
    bool found = false;
    for (const auto& e : result.errors) {
      UNSCOPED_INFO("got: " << e);
      found = found || (e.rfind(position, 0) == 0 && e.find(message) != std::string::npos);
    }
    CHECK(found);
    ++checked;
  }
  CHECK(checked >= 10);
}

// Files parse on several threads; what comes back must still follow the order
// of the files, as one thread would give it.
TEST_CASE("rule files parsed in parallel report and load in file order", "[rule_parser]") {
  std::vector<std::pair<std::string, std::string>> files;
  for (int k = 0; k < 40; ++k) {
    const std::string name = "f" + std::to_string(k) + ".textproto";
    if (k % 2)
      files.push_back({name, "rule { id: \"Bad " + std::to_string(k) + "\" }"});
    else
      files.push_back({name, "rule { id: \"user-op" + std::to_string(k) + "\" match { domain: \"custom\" op_type: \"op" +
                                 std::to_string(k) + "\" } signature: \"custom::op" + std::to_string(k) +
                                 "(Tensor x) -> Tensor\" alternative { min_opset: 9 replace: \"out = Abs(x)\" } }"});
  }
  RuleLoadResult loaded = LoadRuleTexts(false, files);
  std::vector<std::string> error_files;
  // A bad file reports several errors, one after the other.
  for (const std::string& e : loaded.errors)
    if (error_files.empty() || error_files.back() != e.substr(0, e.find(':'))) error_files.push_back(e.substr(0, e.find(':')));
  std::vector<std::string> bad_files;
  for (int k = 1; k < 40; k += 2) bad_files.push_back("f" + std::to_string(k) + ".textproto");
  CHECK(error_files == bad_files);
  std::vector<std::string> ids;
  for (const Rule* r : loaded.rules.All()) ids.push_back(r->id);
  CHECK(ids.size() == 20);
}

TEST_CASE("a valid rule compiles with its parts", "[rule_parser]") {
  RuleFileResult r = ParseRuleFile("ok.textproto", R"rule(
rule {
  id: "custom-thing"
  doc: "test"
  match { domain: "custom" op_type: "thing" min_inputs: 1 attribute { name: "mode" equals: "'fast'" } }
  signature: "custom::thing(Tensor x, int[2] k, str mode) -> Tensor"
  alternative {
    min_opset: 11
    max_opset: 17
    when: "mode == 'fast'"
    import { domain: "com.example" version: 2 }
    replace: "y = com.example.Fast<k = ${k + k}>(x)\n out = Identity(y)"
  }
}
)rule", true);
  REQUIRE(r.errors.empty());
  REQUIRE(r.rules.size() == 1);
  const Rule& rule = *r.rules[0];
  CHECK(rule.builtin);
  CHECK(rule.matches[0].Describe() == "custom::thing");
  CHECK(*rule.matches[0].min_inputs == 1);
  CHECK(rule.matches[0].attribute_equals[0].second.s == "fast");
  const Alternative& alt = rule.alternatives[0];
  CHECK(alt.imports.at("com.example") == 2);
  CHECK(alt.replacement.EmittedOps() == std::vector<std::string>{"com.example::Fast", "Identity"});
  CHECK(alt.replacement.locals() == std::set<std::string>{"y"});
  CHECK(alt.location.ToString() == "ok.textproto:7:3");
}

TEST_CASE("user rules override built-ins by id and come first", "[rule_set]") {
  RuleSet set;
  const char* base = R"rule(rule { id: "aten-x" match { aten: "x" } signature: "aten::x(Tensor self) -> Tensor"
    alternative { min_opset: 9 replace: "out = Abs(self)" } })rule";
  const char* other = R"rule(rule { id: "my-x" match { aten: "x" } signature: "aten::x(Tensor self) -> Tensor"
    alternative { min_opset: 9 replace: "out = Neg(self)" } })rule";
  set.Add(ParseRuleFile("builtin.textproto", base, true).rules);
  set.Add(ParseRuleFile("user.textproto", other, false).rules);
  auto& c = set.Candidates(MatchKeyAten("x"));
  REQUIRE(c.size() == 2);
  CHECK(c[0]->id == "my-x");
  set.Add(ParseRuleFile("user2.textproto", R"rule(rule { id: "aten-x" match { aten: "x" } signature: "aten::x(Tensor self) -> Tensor"
    alternative { min_opset: 9 replace: "out = Relu(self)" } })rule", false).rules);
  CHECK(set.Find("aten-x")->location.file == "user2.textproto");
  CHECK(set.Candidates(MatchKeyAten("x")).size() == 2);
}

TEST_CASE("every built-in rule loads", "[rule_set]") {
  RuleLoadResult loaded = LoadRules(true, {});
  for (const auto& e : loaded.errors) UNSCOPED_INFO(e);
  CHECK(loaded.errors.empty());
  CHECK(loaded.rules.All().size() >= 7);
}

// Model commands compile built-in rules when first handed out; what they get
// must be what a load that compiles everything gets.
TEST_CASE("built-in rules compiled on demand equal the ones compiled at load", "[rule_set]") {
  RuleLoadResult eager = LoadRules(true, {});
  RuleLoadResult lazy = LoadRules(true, {}, BuiltinCompile::kOnDemand);
  REQUIRE(eager.errors.empty());
  REQUIRE(lazy.errors.empty());
  // Read before anything is compiled: from the imports of the uncompiled rules.
  CHECK(lazy.rules.DomainsEmittedForEveryTarget() == eager.rules.DomainsEmittedForEveryTarget());
  const std::vector<const Rule*> a = eager.rules.All();
  const std::vector<const Rule*> b = lazy.rules.All();
  REQUIRE(a.size() == b.size());
  size_t alternatives = 0;
  for (size_t k = 0; k < a.size(); ++k) {
    INFO(a[k]->id);
    REQUIRE(a[k]->id == b[k]->id);
    CHECK_FALSE(b[k]->deferred);
    REQUIRE(a[k]->alternatives.size() == b[k]->alternatives.size());
    for (size_t i = 0; i < a[k]->alternatives.size(); ++i) {
      const Alternative& x = a[k]->alternatives[i];
      const Alternative& y = b[k]->alternatives[i];
      CHECK(y.compile_error.empty());
      CHECK(x.when.text() == y.when.text());
      CHECK(x.replacement.EmittedOps() == y.replacement.EmittedOps());
      CHECK(x.replacement.fragment_calls().size() == y.replacement.fragment_calls().size());
      ++alternatives;
    }
  }
  CHECK(alternatives > 400);
  for (const Fragment* f : lazy.rules.AllFragments()) {
    INFO(f->name);
    CHECK_FALSE(f->deferred);
    CHECK(f->compile_error.empty());
    CHECK(f->replacement.EmittedOps() == eager.rules.FindFragment(f->name)->replacement.EmittedOps());
  }
}

TEST_CASE("a deferred rule that does not compile is refused with its file:line, not loaded", "[rule_set]") {
  RuleFileResult file = ParseRuleFile("late.textproto", R"rule(rule {
  id: "aten-late"
  match { aten: "late" }
  signature: "aten::late(Tensor self) -> Tensor"
  alternative { min_opset: 9 when: "rank(self) >" replace: "out = Relu(self)" }
  alternative { min_opset: 9 replace: "out = Relu(nothing)" }
})rule", true, /*defer=*/true);
  REQUIRE(file.errors.empty());  // deferred: nothing compiled yet
  REQUIRE(file.rules.size() == 1);
  CHECK(file.rules[0]->deferred);
  RuleSet set = LoadRules(false, {}).rules;  // the built-in targets
  set.Add(std::move(file.rules));
  // The rewrite compiles it on first use and refuses the node, naming the error.
  auto model = testing::ModelFromText(R"(
    < ir_version: 7, opset_import: ["" : 13, "org.pytorch.aten" : 1] >
    g (float[2] x) => (float[2] y) {
      y = org.pytorch.aten.ATen<operator = "late", overload_name = "">(x)
    })");
  auto report = RewriteModel(&model, set, {});
  REQUIRE(report.ok());
  REQUIRE(report->remaining.size() == 1);
  CHECK_THAT(report->remaining[0].reason, Catch::Matchers::Contains("late.textproto:5:") &&
                                              Catch::Matchers::Contains("late.textproto:6:"));
  const auto& candidates = set.Candidates(MatchKeyAten("late"));
  REQUIRE(candidates.size() == 1);
  CHECK_FALSE(candidates[0]->deferred);
  const auto& alts = candidates[0]->alternatives;
  CHECK_THAT(alts[0].compile_error, Catch::Matchers::StartsWith("late.textproto:5:") &&
                                         Catch::Matchers::Contains("error: when:"));
  CHECK_THAT(alts[1].compile_error, Catch::Matchers::StartsWith("late.textproto:6:") &&
                                         Catch::Matchers::Contains("error: replace:"));
}
