// Model commands parse a built-in rule file only when a node key its rules
// match, or a fragment it defines, is asked for (rules/builtin_rules.h,
// RuleSet::AddPendingBuiltins). What they get must be what a load that parses
// everything gets, and they must parse no more than they need.
#include <algorithm>
#include <map>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <catch2/catch.hpp>

#include "rules/builtin_rules.h"
#include "rules/rule_set.h"

using namespace remap;

namespace {

std::vector<std::string> Ids(const std::vector<const Rule*>& rules) {
  std::vector<std::string> ids;
  for (const Rule* r : rules) ids.push_back(r->id);
  return ids;
}

std::set<std::string> Strings(const std::vector<const char*>& items) { return {items.begin(), items.end()}; }

const BuiltinRuleFileIndex* IndexOf(const std::string& path) {
  for (const BuiltinRuleFileIndex& entry : *BuiltinRuleIndex())
    if (entry.path == path) return &entry;
  return nullptr;
}

// Every match key of the built-in rules, from a load that parses everything.
std::set<std::string> AllKeys(const RuleSet& rules) {
  std::set<std::string> keys;
  for (const Rule* r : rules.All())
    for (const NodeMatch& m : r->matches) keys.insert(MatchKeyOf(m));
  return keys;
}

}  // namespace

TEST_CASE("the built-in rule index says what each rule file holds", "[rule_index]") {
  REQUIRE(BuiltinRuleIndex() != nullptr);
  RuleLoadResult eager = LoadRules(true, {});
  REQUIRE(eager.errors.empty());
  std::map<std::string, std::set<std::string>> keys, fragments;
  for (const Rule* r : eager.rules.All())
    for (const NodeMatch& m : r->matches) keys[r->location.file].insert(MatchKeyOf(m));
  for (const Fragment* f : eager.rules.AllFragments()) fragments[f->location.file].insert(f->name);
  std::set<std::string> targets;
  for (const Target* t : eager.rules.Targets()) targets.insert(t->location.file);

  REQUIRE(BuiltinRuleIndex()->size() == BuiltinRuleFiles().size());
  size_t lazy = 0;
  for (const EmbeddedRuleFile& file : BuiltinRuleFiles()) {
    INFO(file.path);
    const BuiltinRuleFileIndex* entry = IndexOf(file.path);
    REQUIRE(entry);
    CHECK(Strings(entry->keys) == keys[file.path]);
    CHECK(Strings(entry->fragments) == fragments[file.path]);
    if (targets.count(file.path)) CHECK(entry->eager);
    for (const char* need : entry->needs) CHECK(IndexOf(need));
    if (!entry->eager) ++lazy;
  }
  // The point of the index: nearly every file can wait.
  CHECK(lazy + targets.size() == BuiltinRuleFiles().size());
  // A file's needs hold the files of the fragments its rules call: asinh's
  // float64 form calls Log1pExact, which another file defines.
  const BuiltinRuleFileIndex* asinh = IndexOf("rules/aten/asinh.textproto");
  REQUIRE(asinh);
  const Fragment* log1p = eager.rules.FindFragment("Log1pExact");
  REQUIRE(log1p);
  CHECK(Strings(asinh->needs).count(log1p->location.file));
}

TEST_CASE("on demand, each key gets the candidates of a full load, parsing only the files it needs",
          "[rule_index]") {
  RuleLoadResult eager = LoadRules(true, {});
  REQUIRE(eager.errors.empty());
  const std::set<std::string> keys = AllKeys(eager.rules);
  REQUIRE(keys.size() > 200);
  for (const std::string& key : keys) {
    INFO(key);
    RuleLoadResult lazy = LoadRules(true, {}, BuiltinCompile::kOnDemand);
    REQUIRE(lazy.errors.empty());
    REQUIRE(lazy.rules.PendingFiles() > 90);
    CHECK(lazy.rules.PendingFilesParsed() == 0);
    CHECK(Ids(lazy.rules.Candidates(key)) == Ids(eager.rules.Candidates(key)));
    // The files holding the key's rules and the files those need, nothing more.
    std::set<std::string> needed;
    for (const BuiltinRuleFileIndex& entry : *BuiltinRuleIndex()) {
      if (entry.eager || !Strings(entry.keys).count(key)) continue;
      needed.insert(entry.path);
      needed.insert(entry.needs.begin(), entry.needs.end());
    }
    CHECK(lazy.rules.PendingFilesParsed() == needed.size());
    for (const Rule* r : lazy.rules.Candidates(key)) {
      CHECK_FALSE(r->deferred);
      for (const Alternative& a : r->alternatives) CHECK(a.compile_error.empty());
    }
  }
}

TEST_CASE("on demand, one rule set asked for every key from several threads agrees with a full load",
          "[rule_index]") {
  RuleLoadResult eager = LoadRules(true, {});
  RuleLoadResult lazy = LoadRules(true, {}, BuiltinCompile::kOnDemand);
  REQUIRE(lazy.errors.empty());
  const std::set<std::string> key_set = AllKeys(eager.rules);
  std::map<std::string, std::vector<std::string>> expected;
  for (const std::string& key : key_set) expected[key] = Ids(eager.rules.Candidates(key));
  std::vector<std::thread> threads;
  std::vector<int> mismatches(4, 0);
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      std::vector<std::string> keys(key_set.begin(), key_set.end());
      std::shuffle(keys.begin(), keys.end(), std::mt19937(static_cast<unsigned>(t)));
      for (const std::string& key : keys)
        if (Ids(lazy.rules.Candidates(key)) != expected[key]) ++mismatches[static_cast<size_t>(t)];
    });
  }
  for (auto& th : threads) th.join();
  CHECK(mismatches == std::vector<int>(4, 0));
  CHECK(lazy.rules.PendingFilesParsed() == lazy.rules.PendingFiles());
  CHECK(Ids(lazy.rules.All()) == Ids(eager.rules.All()));
}

TEST_CASE("on demand, user rules rank above the built-in ones and replace those of the same id", "[rule_index]") {
  const std::string text = R"rule(
rule {
  id: "aten-asinh"
  match { aten: "asinh" }
  signature: "aten::asinh(Tensor self) -> Tensor"
  alternative { min_opset: 9 replace: "out = Relu(self)" }
}
rule {
  id: "my-triu"
  match { aten: "triu" }
  signature: "aten::triu(Tensor self, int diagonal=0) -> Tensor"
  alternative { min_opset: 14 replace: "out = Relu(self)" }
})rule";
  for (BuiltinCompile mode : {BuiltinCompile::kAtLoad, BuiltinCompile::kOnDemand}) {
    RuleLoadResult loaded = LoadRuleTexts(true, {{"user.textproto", text}}, mode);
    REQUIRE(loaded.errors.empty());
    const std::vector<const Rule*>& asinh = loaded.rules.Candidates(MatchKeyAten("asinh"));
    REQUIRE(asinh.size() == 1);
    CHECK_FALSE(asinh[0]->builtin);
    const std::vector<std::string> triu = Ids(loaded.rules.Candidates(MatchKeyAten("triu")));
    REQUIRE(triu.size() == 2);
    CHECK(triu[0] == "my-triu");
    CHECK(triu[1] == "aten-triu");
    CHECK_FALSE(loaded.rules.Find("aten-asinh")->builtin);
  }
}

TEST_CASE("on demand, a user rule may call a fragment of a built-in file not parsed yet", "[rule_index]") {
  const std::string text = R"rule(
rule {
  id: "my-poly"
  match { aten: "my_poly" }
  signature: "aten::my_poly(Tensor self) -> Tensor"
  alternative { min_opset: 13 replace: "out = Horner<c = ${[1.0, 2.0, 3.0]}, dt = ${'float32'}>(self)" }
})rule";
  for (bool builtins : {true, false}) {
    INFO(builtins);
    RuleLoadResult loaded = LoadRuleTexts(builtins, {{"user.textproto", text}}, BuiltinCompile::kOnDemand);
    REQUIRE(loaded.errors.empty());
    // Only the fragment's file (and what it needs) was parsed, at load, to bind the call.
    CHECK(loaded.rules.PendingFilesParsed() >= 1);
    CHECK(loaded.rules.PendingFilesParsed() < 5);
    const std::vector<const Rule*>& rules = loaded.rules.Candidates(MatchKeyAten("my_poly"));
    REQUIRE(rules.size() == 1);
    CHECK(rules[0]->alternatives[0].replacement.fragment_calls().count("Horner") == 1);
    CHECK(loaded.rules.Candidates(MatchKeyAten("asinh")).size() == (builtins ? 1u : 0u));
  }
}
