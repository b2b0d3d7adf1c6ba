// RuleSet: every loaded rule, indexed by the node key it matches so that
// finding candidates for a node is one hash lookup.
#pragma once

#include <atomic>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "rules/builtin_rules.h"
#include "rules/fragment.h"
#include "rules/rule.h"
#include "rules/target.h"

namespace remap {

class RuleSet {
 public:
  RuleSet();
  ~RuleSet();
  RuleSet(RuleSet&&) noexcept;
  RuleSet& operator=(RuleSet&&) noexcept;

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
  // Whether a rule added so far wants a default-domain operator as a
  // producer (`producer { match { op_type: ... } }`): the pipeline then
  // parses every node (model/deferred_nodes.h). Rule files read on demand
  // are not looked at: no built-in rule has one (tests/unit/rule_set_test.cc).
  bool AnyDefaultDomainProducer() const { return default_domain_producer_; }
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

  // Built-in rule files left unparsed (LoadRules' kOnDemand): each is parsed
  // the first time a key its rules match, or a fragment it defines, is asked
  // for, or everything is (All, Find). Their rules rank below every rule
  // added here, in the built-ins' own order, and a rule added with the same
  // id replaces one of them. `with_rules` false (no built-in rules): only
  // their fragments are used. Also parses now the files whose fragments the
  // rules and fragments added so far call.
  void AddPendingBuiltins(std::vector<std::pair<EmbeddedRuleFile, const BuiltinRuleFileIndex*>> files,
                          bool with_rules);
  // Built-in files parsed so far, of those AddPendingBuiltins left pending
  // (0 without pending files): what a run's laziness saved is the rest.
  size_t PendingFilesParsed() const;
  size_t PendingFiles() const;

 private:
  struct Pending;
  // A key's candidates. `complete` false: pending files hold more of them, to
  // be parsed (under compile_mutex_) before the list is handed out.
  struct KeyEntry {
    std::vector<const Rule*> rules;
    std::atomic<bool> complete{true};
  };
  void Reindex();
  // Under compile_mutex_: parses pending file `file` and the files it needs.
  void LoadPendingLocked(size_t file) const;
  void LoadAllPending() const;
  // The loaded pending rules matching `key`, highest rank first, less those rules_ replaces.
  void AppendPendingRules(const std::string& key, std::vector<const Rule*>* out) const;
  // Under compile_mutex_: the entry's list, with the pending files' rules for `key`.
  void CompleteLocked(const std::string& key, KeyEntry* entry) const;
  // Compiles what is deferred of `rule` (a fragment) and of the fragments it calls.
  void Ready(const Rule* rule) const;
  void ReadyFragment(const Fragment* fragment) const;
  // Under compile_mutex_.
  void ReadyCalls(const ReplacementTemplate& tpl, std::set<const Fragment*>* seen) const;
  void ReadyFragmentLocked(const Fragment* fragment, std::set<const Fragment*>* seen) const;

  std::vector<std::unique_ptr<Rule>> rules_;  // in priority order, lowest first
  // Grows when a pending file is parsed (under compile_mutex_).
  mutable std::unordered_map<std::string, std::unique_ptr<Fragment>> fragments_;
  // Entries are made at load, for pending keys too, so that the map itself
  // never changes while rules are handed out.
  mutable std::unordered_map<std::string, KeyEntry> index_;
  std::unique_ptr<Pending> pending_;  // null: every built-in file was parsed at load
  std::vector<std::string> emitted_domains_;
  std::vector<std::unique_ptr<Target>> targets_;
  // Serialises compiling deferred rules and fragments (on the heap: a RuleSet moves).
  bool default_domain_producer_ = false;
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
// are reported), and parses a built-in file only when a node key its rules
// match, or a fragment it defines, is first asked for (see
// AddPendingBuiltins): what a model command wants, which touches a few rules.
enum class BuiltinCompile { kAtLoad, kOnDemand };
RuleLoadResult LoadRules(bool builtins, const std::vector<std::string>& paths,
                         BuiltinCompile compile = BuiltinCompile::kAtLoad);

// The same with in-memory rule files (display name, text) in place of paths,
// all at one priority: for tests and programs that embed their rules.
RuleLoadResult LoadRuleTexts(bool builtins, const std::vector<std::pair<std::string, std::string>>& files,
                             BuiltinCompile compile = BuiltinCompile::kAtLoad);

}  // namespace remap
