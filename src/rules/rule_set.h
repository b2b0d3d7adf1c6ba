// RuleSet: every loaded rule, indexed by the node key it matches so that
// finding candidates for a node is one hash lookup.
#pragma once

#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "rules/fragment.h"
#include "rules/rule.h"
#include "rules/target.h"

namespace remap {

class RuleSet {
 public:
  // Adds rules in priority order: later calls win. A rule whose id equals an
  // earlier rule's id replaces it.
  void Add(std::vector<std::unique_ptr<Rule>> rules);
  // Adds fragments: one whose name equals an earlier fragment's replaces it.
  void AddFragments(std::vector<std::unique_ptr<Fragment>> fragments);
  // Load-time checks across files: fragment calls that nest in a cycle, and
  // domains a called fragment emits that the calling alternative does not import.
  void Check(std::vector<std::string>* errors) const;

  // Candidates for a node key (see MatchKey*), highest priority first. Every
  // rule handed out, here and below, is compiled (Rule::deferred), with the
  // fragments it calls; safe to call from several threads.
  const std::vector<const Rule*>& Candidates(const std::string& key) const;
  const Rule* Find(const std::string& id) const;
  const Fragment* FindFragment(const std::string& name) const;
  // All fragments, sorted by name.
  std::vector<const Fragment*> AllFragments() const;
  // All active rules, sorted by id.
  std::vector<const Rule*> All() const;
  // Non-default domains emitted by alternatives that list no target (user
  // rules for a runtime plugin): runnable under every target.
  const std::vector<std::string>& DomainsEmittedForEveryTarget() const { return emitted_domains_; }

  // Adds a target; false (and nothing added) when its name is already defined.
  bool AddTarget(std::unique_ptr<Target> target);
  const Target* FindTarget(const std::string& name) const;
  // All targets, sorted by name.
  std::vector<const Target*> Targets() const;
  // "onnx, onnxruntime, tensorrt", for messages.
  std::string TargetNames() const;

 private:
  void Reindex();
  // Compiles what is deferred of `rule` (a fragment) and of the fragments it calls.
  void Ready(const Rule* rule) const;
  void ReadyFragment(const Fragment* fragment) const;
  // Under compile_mutex_.
  void ReadyCalls(const ReplacementTemplate& tpl, std::set<const Fragment*>* seen) const;
  void ReadyFragmentLocked(const Fragment* fragment, std::set<const Fragment*>* seen) const;

  std::vector<std::unique_ptr<Rule>> rules_;  // in priority order, lowest first
  std::unordered_map<std::string, std::unique_ptr<Fragment>> fragments_;
  std::unordered_map<std::string, std::vector<const Rule*>> index_;
  std::vector<std::string> emitted_domains_;
  std::vector<std::unique_ptr<Target>> targets_;
  // Serialises compiling deferred rules and fragments (on the heap: a RuleSet moves).
  std::unique_ptr<std::mutex> compile_mutex_ = std::make_unique<std::mutex>();
};

std::string MatchKeyAten(const std::string& aten_operator);
std::string MatchKeyOp(const std::string& domain, const std::string& op_type);
std::string MatchKeyOf(const NodeMatch& m);

struct RuleLoadResult {
  RuleSet rules;
  std::vector<std::string> errors;
};

// Built-in rules (unless `builtins` is false) and the built-in targets
// (always: --target needs them even without built-in rules), then each path in
// order: a file, or a folder searched recursively for *.textproto. The targets
// alternatives list are checked once every file is read (see target_check.h).
// kOnDemand compiles a built-in rule the first time it is handed out instead
// of at load (user rules are always compiled at load, so that their errors
// are reported): what a model command wants, which touches a few rules.
enum class BuiltinCompile { kAtLoad, kOnDemand };
RuleLoadResult LoadRules(bool builtins, const std::vector<std::string>& paths,
                         BuiltinCompile compile = BuiltinCompile::kAtLoad);

// The same with in-memory rule files (display name, text) in place of paths,
// all at one priority: for tests and programs that embed their rules.
RuleLoadResult LoadRuleTexts(bool builtins, const std::vector<std::pair<std::string, std::string>>& files);

}  // namespace remap
