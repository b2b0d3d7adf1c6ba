#include "rules/rule_set.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <set>
#include <sstream>
#include <tuple>
#include <unordered_set>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "core/parallel_for.h"
#include "model/opset_import.h"
#include "rules/builtin_rules.h"
#include "rules/rule_parser.h"
#include "rules/target_check.h"

namespace remap {

namespace fs = std::filesystem;

std::string NodeMatch::Describe() const {
  if (!aten.empty()) return "aten::" + aten;
  return (domain.empty() ? "" : domain + "::") + op_type;
}

// Built-in files not parsed yet, and the rules of those parsed since load.
struct RuleSet::Pending {
  struct File {
    EmbeddedRuleFile text;
    const BuiltinRuleFileIndex* index;
    std::vector<size_t> needs;  // positions in `files`
    bool loaded = false;
  };
  std::vector<File> files;  // in the built-ins' order, which ranks their rules
  std::unordered_map<std::string, std::vector<size_t>> files_by_key;  // with_rules only
  std::unordered_map<std::string, size_t> file_by_fragment;
  bool with_rules = true;
  struct Loaded {
    std::unique_ptr<Rule> rule;
    size_t file, position;  // its rank: later files, and later in a file, win
  };
  std::vector<Loaded> rules;
  std::unordered_map<std::string, std::vector<size_t>> rules_by_key;  // positions in `rules`
  std::unordered_set<std::string> replaced;  // ids of rules_, which replace built-ins of the same id
};

RuleSet::RuleSet() = default;
RuleSet::~RuleSet() = default;
RuleSet::RuleSet(RuleSet&&) noexcept = default;
RuleSet& RuleSet::operator=(RuleSet&&) noexcept = default;

std::string MatchKeyAten(const std::string& aten_operator) { return "aten\x1f" + aten_operator; }
std::string MatchKeyOp(const std::string& domain, const std::string& op_type) {
  return (IsDefaultDomain(domain) ? std::string() : domain) + "\x1f" + op_type;
}
std::string MatchKeyOf(const NodeMatch& m) { return m.aten.empty() ? MatchKeyOp(m.domain, m.op_type) : MatchKeyAten(m.aten); }

void RuleSet::Add(std::vector<std::unique_ptr<Rule>> rules) {
  for (auto& rule : rules) {
    for (const ProducerPattern& p : rule->producers) {
      if (p.match.aten.empty() && IsDefaultDomain(p.match.domain)) default_domain_producer_ = true;
    }
    rules_.erase(std::remove_if(rules_.begin(), rules_.end(), [&](const auto& r) { return r->id == rule->id; }),
                 rules_.end());
    rules_.push_back(std::move(rule));
  }
  Reindex();
}

void RuleSet::AddFragments(std::vector<std::unique_ptr<Fragment>> fragments) {
  for (auto& f : fragments) {
    std::string name = f->name;
    fragments_[name] = std::move(f);
  }
  Reindex();
}

const Fragment* RuleSet::FindFragment(const std::string& name) const {
  std::lock_guard<std::mutex> lock(*compile_mutex_);
  if (pending_ && !fragments_.count(name)) {
    auto file = pending_->file_by_fragment.find(name);
    if (file != pending_->file_by_fragment.end()) LoadPendingLocked(file->second);
  }
  auto it = fragments_.find(name);
  if (it == fragments_.end()) return nullptr;
  std::set<const Fragment*> seen;
  ReadyFragmentLocked(it->second.get(), &seen);
  return it->second.get();
}

std::vector<const Fragment*> RuleSet::AllFragments() const {
  LoadAllPending();
  std::vector<const Fragment*> all;
  for (const auto& [name, f] : fragments_) {
    ReadyFragment(f.get());
    all.push_back(f.get());
  }
  std::sort(all.begin(), all.end(), [](const Fragment* a, const Fragment* b) { return a->name < b->name; });
  return all;
}

namespace {

// Points every default-domain node of `tpl` whose op_type names a fragment at it.
void BindFragmentCalls(ReplacementTemplate* tpl, const std::unordered_map<std::string, std::unique_ptr<Fragment>>& fragments) {
  std::set<std::string> called;
  tpl->ForEachNode([&](const onnx::NodeProto& n) {
    if (IsDefaultDomain(n.domain()) && fragments.count(n.op_type())) called.insert(n.op_type());
  });
  for (const std::string& name : called) tpl->BindFragment(name, fragments.at(name).get());
}

// Domains a template emits, through the fragments it calls.
void CollectDomains(const ReplacementTemplate& tpl, std::set<std::string>* out, int depth = 0) {
  out->insert(tpl.domains().begin(), tpl.domains().end());
  if (depth > 32) return;  // a cycle; Check() reports it
  for (const auto& [name, f] : tpl.fragment_calls()) CollectDomains(f->replacement, out, depth + 1);
}

}  // namespace

void RuleSet::Check(std::vector<std::string>* errors) const {
  // Cycles: depth-first over fragment -> fragments it calls.
  std::map<const Fragment*, int> state;  // 1 on the stack, 2 done
  std::function<bool(const Fragment*)> visit = [&](const Fragment* f) {
    int& s = state[f];
    if (s == 1) return false;
    if (s == 2) return true;
    s = 1;
    for (const auto& [name, callee] : f->replacement.fragment_calls()) {
      if (!visit(callee)) {
        if (state[f] == 1 && errors->size() < 100)
          errors->push_back(fmt::format("{}: error: fragment {} calls itself through {}", f->location.ToString(), f->name, name));
        s = 2;
        return false;
      }
    }
    s = 2;
    return true;
  };
  for (const auto& [name, f] : fragments_) visit(f.get());
  for (const auto& rule : rules_) {
    for (const Alternative& a : rule->alternatives) {
      std::set<std::string> domains;
      CollectDomains(a.replacement, &domains);
      for (const std::string& d : domains) {
        if (!a.imports.count(d))
          errors->push_back(fmt::format("{}: error: replace emits domain '{}' (through a fragment) but the alternative has no import for it",
                                        a.location.ToString(), d));
      }
    }
  }
}

void RuleSet::Reindex() {
  for (auto& rule : rules_) {
    for (Alternative& a : rule->alternatives) BindFragmentCalls(&a.replacement, fragments_);
  }
  for (auto& [name, f] : fragments_) BindFragmentCalls(&f->replacement, fragments_);
  index_.clear();
  std::set<std::string> domains;
  for (auto it = rules_.rbegin(); it != rules_.rend(); ++it) {
    (*it)->ready.value = false;
    std::set<std::string> keys;
    for (const NodeMatch& m : (*it)->matches) {
      if (keys.insert(MatchKeyOf(m)).second) index_[MatchKeyOf(m)].rules.push_back(it->get());
    }
    for (const Alternative& a : (*it)->alternatives) {
      if (!a.targets.empty()) continue;  // its domains are runnable only where its targets say
      if ((*it)->deferred) {
        // Not compiled yet: what it imports is what it may emit.
        for (const auto& [domain, version] : a.imports) domains.insert(domain);
      } else {
        CollectDomains(a.replacement, &domains);
      }
    }
  }
  emitted_domains_.assign(domains.begin(), domains.end());
  if (!pending_) return;
  // Pending files emit no domain for every target: the index makes such files eager.
  pending_->replaced.clear();
  for (const auto& rule : rules_) pending_->replaced.insert(rule->id);
  for (auto& loaded : pending_->rules) {
    loaded.rule->ready.value = false;
    for (Alternative& a : loaded.rule->alternatives) BindFragmentCalls(&a.replacement, fragments_);
  }
  for (const auto& [key, files] : pending_->files_by_key) {
    KeyEntry& entry = index_[key];
    AppendPendingRules(key, &entry.rules);
    const bool all_loaded =
        std::all_of(files.begin(), files.end(), [this](size_t f) { return pending_->files[f].loaded; });
    entry.complete.store(all_loaded);
  }
}

void RuleSet::AppendPendingRules(const std::string& key, std::vector<const Rule*>* out) const {
  auto it = pending_->rules_by_key.find(key);
  if (it == pending_->rules_by_key.end()) return;
  std::vector<const Pending::Loaded*> ranked;
  for (size_t k : it->second) {
    const Pending::Loaded& loaded = pending_->rules[k];
    if (!pending_->replaced.count(loaded.rule->id)) ranked.push_back(&loaded);
  }
  std::sort(ranked.begin(), ranked.end(), [](const Pending::Loaded* a, const Pending::Loaded* b) {
    return std::tie(a->file, a->position) > std::tie(b->file, b->position);
  });
  for (const Pending::Loaded* loaded : ranked) out->push_back(loaded->rule.get());
}

void RuleSet::AddPendingBuiltins(std::vector<std::pair<EmbeddedRuleFile, const BuiltinRuleFileIndex*>> files,
                                 bool with_rules) {
  pending_ = std::make_unique<Pending>();
  pending_->with_rules = with_rules;
  std::unordered_map<std::string, size_t> by_path;
  for (const auto& [text, index] : files) {
    by_path.emplace(text.path, pending_->files.size());
    pending_->files.push_back({text, index, {}, false});
  }
  for (size_t f = 0; f < pending_->files.size(); ++f) {
    Pending::File& file = pending_->files[f];
    for (const char* path : file.index->needs) {
      // A needed file is pending too: the index makes the needs of eager files eager.
      auto need = by_path.find(path);
      if (need != by_path.end()) file.needs.push_back(need->second);
    }
    if (with_rules)
      for (const char* key : file.index->keys) pending_->files_by_key[key].push_back(f);
    for (const char* name : file.index->fragments) pending_->file_by_fragment.emplace(name, f);
  }
  // The rules and fragments given so far are compiled, their calls known:
  // the pending fragments they call are parsed now, to be bound below.
  std::set<size_t> called;
  auto note_calls = [&](const ReplacementTemplate& tpl) {
    tpl.ForEachNode([&](const onnx::NodeProto& n) {
      if (!IsDefaultDomain(n.domain()) || fragments_.count(n.op_type())) return;
      auto file = pending_->file_by_fragment.find(n.op_type());
      if (file != pending_->file_by_fragment.end()) called.insert(file->second);
    });
  };
  for (const auto& rule : rules_)
    for (const Alternative& a : rule->alternatives) note_calls(a.replacement);
  for (const auto& [name, f] : fragments_) note_calls(f->replacement);
  {
    std::lock_guard<std::mutex> lock(*compile_mutex_);
    for (size_t f : called) LoadPendingLocked(f);
  }
  Reindex();
}

void RuleSet::LoadPendingLocked(size_t f) const {
  Pending::File& file = pending_->files[f];
  if (file.loaded) return;
  file.loaded = true;
  // The same text was parsed, without error, to make the index at build time.
  RuleFileResult parsed =
      ParsePrecompiledRuleFile(file.text.path, file.text.content, file.index->precompiled, /*defer=*/true);
  // A fragment of the same name given earlier (a user's) replaces the built-in one.
  for (auto& fragment : parsed.fragments) {
    std::string name = fragment->name;
    fragments_.emplace(std::move(name), std::move(fragment));
  }
  if (pending_->with_rules) {
    for (size_t k = 0; k < parsed.rules.size(); ++k) {
      std::set<std::string> keys;
      for (const NodeMatch& m : parsed.rules[k]->matches) keys.insert(MatchKeyOf(m));
      for (const std::string& key : keys) pending_->rules_by_key[key].push_back(pending_->rules.size());
      pending_->rules.push_back({std::move(parsed.rules[k]), f, k});
    }
  }
  for (size_t need : file.needs) LoadPendingLocked(need);
}

size_t RuleSet::PendingFiles() const { return pending_ ? pending_->files.size() : 0; }

size_t RuleSet::PendingFilesParsed() const {
  if (!pending_) return 0;
  std::lock_guard<std::mutex> lock(*compile_mutex_);
  return static_cast<size_t>(std::count_if(pending_->files.begin(), pending_->files.end(),
                                           [](const Pending::File& f) { return f.loaded; }));
}

void RuleSet::LoadAllPending() const {
  if (!pending_) return;
  std::lock_guard<std::mutex> lock(*compile_mutex_);
  for (size_t f = 0; f < pending_->files.size(); ++f) LoadPendingLocked(f);
}

void RuleSet::CompleteLocked(const std::string& key, KeyEntry* entry) const {
  if (entry->complete.load(std::memory_order_relaxed)) return;
  for (size_t f : pending_->files_by_key.at(key)) LoadPendingLocked(f);
  std::vector<const Rule*> list;
  for (auto it = rules_.rbegin(); it != rules_.rend(); ++it) {
    const auto& matches = (*it)->matches;
    if (std::any_of(matches.begin(), matches.end(), [&](const NodeMatch& m) { return MatchKeyOf(m) == key; }))
      list.push_back(it->get());
  }
  AppendPendingRules(key, &list);
  entry->rules = std::move(list);
  entry->complete.store(true, std::memory_order_release);
}

void RuleSet::Ready(const Rule* rule) const {
  if (rule->ready.value.load(std::memory_order_acquire)) return;
  std::lock_guard<std::mutex> lock(*compile_mutex_);
  if (rule->ready.value.load(std::memory_order_relaxed)) return;
  // Rules are handed out const; they are this set's own, mutable, objects.
  Rule* r = const_cast<Rule*>(rule);
  if (r->deferred) {
    CompileDeferred(r);
    for (Alternative& a : r->alternatives) BindFragmentCalls(&a.replacement, fragments_);
  }
  std::set<const Fragment*> seen;
  for (const Alternative& a : r->alternatives) ReadyCalls(a.replacement, &seen);
  rule->ready.value.store(true, std::memory_order_release);
}

void RuleSet::ReadyFragment(const Fragment* fragment) const {
  std::lock_guard<std::mutex> lock(*compile_mutex_);
  std::set<const Fragment*> seen;
  ReadyFragmentLocked(fragment, &seen);
}

void RuleSet::ReadyCalls(const ReplacementTemplate& tpl, std::set<const Fragment*>* seen) const {
  for (const auto& [name, f] : tpl.fragment_calls()) ReadyFragmentLocked(f, seen);
}

void RuleSet::ReadyFragmentLocked(const Fragment* fragment, std::set<const Fragment*>* seen) const {
  if (!seen->insert(fragment).second) return;  // done, or a cycle (which Check reports for compiled ones)
  Fragment* f = const_cast<Fragment*>(fragment);
  if (f->deferred) {
    CompileDeferred(f);
    BindFragmentCalls(&f->replacement, fragments_);
  }
  ReadyCalls(f->replacement, seen);
}

bool Alternative::IsFor(const std::string& name) const {
  if (targets.empty()) return true;
  for (const TargetRef& t : targets) {
    if (t.name == name) return true;
  }
  return false;
}

bool RuleSet::AddTarget(std::unique_ptr<Target> target) {
  if (FindTarget(target->name)) return false;
  targets_.push_back(std::move(target));
  return true;
}

const Target* RuleSet::FindTarget(const std::string& name) const {
  for (const auto& t : targets_) {
    if (t->name == name) return t.get();
  }
  return nullptr;
}

std::vector<const Target*> RuleSet::Targets() const {
  std::vector<const Target*> all;
  for (const auto& t : targets_) all.push_back(t.get());
  std::sort(all.begin(), all.end(), [](const Target* a, const Target* b) { return a->name < b->name; });
  return all;
}

std::string RuleSet::TargetNames() const {
  std::vector<std::string> names;
  for (const Target* t : Targets()) names.push_back(t->name);
  return names.empty() ? std::string("none") : fmt::format("{}", fmt::join(names, ", "));
}

const std::vector<const Rule*>& RuleSet::Candidates(const std::string& key) const {
  static const std::vector<const Rule*> none;
  auto it = index_.find(key);
  if (it == index_.end()) return none;
  KeyEntry& entry = it->second;
  if (!entry.complete.load(std::memory_order_acquire)) {
    std::lock_guard<std::mutex> lock(*compile_mutex_);
    CompleteLocked(key, &entry);
  }
  for (const Rule* r : entry.rules) Ready(r);
  return entry.rules;
}

const Rule* RuleSet::Find(const std::string& id) const {
  for (const auto& r : rules_) {
    if (r->id == id) {
      Ready(r.get());
      return r.get();
    }
  }
  LoadAllPending();
  if (pending_) {
    for (const auto& loaded : pending_->rules) {
      if (loaded.rule->id == id) {
        Ready(loaded.rule.get());
        return loaded.rule.get();
      }
    }
  }
  return nullptr;
}

std::vector<const Rule*> RuleSet::All() const {
  LoadAllPending();
  std::vector<const Rule*> all;
  for (const auto& r : rules_) {
    Ready(r.get());
    all.push_back(r.get());
  }
  if (pending_) {
    for (const auto& loaded : pending_->rules) {
      if (pending_->replaced.count(loaded.rule->id)) continue;
      Ready(loaded.rule.get());
      all.push_back(loaded.rule.get());
    }
  }
  std::sort(all.begin(), all.end(), [](const Rule* a, const Rule* b) { return a->id < b->id; });
  return all;
}

namespace {

struct RuleText {
  std::string name, text;
  std::string_view precompiled;  // a built-in file's (BuiltinRuleFileIndex), else empty
};

// Rule files of one priority level: the built-ins, one --rules path, or LoadRuleTexts' files.
struct Batch {
  std::string origin;  // the --rules path, for duplicate-id messages
  bool builtin = false;
  std::vector<RuleText> files;
};

std::vector<RuleText> ReadPath(const std::string& path, std::vector<std::string>* errors) {
  std::error_code ec;
  std::vector<std::string> names;
  if (fs::is_directory(path, ec)) {
    for (const auto& entry : fs::recursive_directory_iterator(path, ec)) {
      if (entry.is_regular_file() && entry.path().extension() == ".textproto") names.push_back(entry.path().string());
    }
    std::sort(names.begin(), names.end());
    if (names.empty()) errors->push_back(fmt::format("{}: error: folder holds no *.textproto rule file", path));
  } else if (fs::exists(path, ec)) {
    names.push_back(path);
  } else {
    errors->push_back(fmt::format("{}: error: no such rule file or folder", path));
  }
  std::vector<RuleText> files;
  for (const std::string& f : names) {
    std::ifstream in(f, std::ios::binary);
    std::stringstream buffer;
    buffer << in.rdbuf();
    if (!in.good() && !in.eof()) {
      errors->push_back(fmt::format("{}: error: cannot read rule file", f));
      continue;
    }
    files.push_back({f, buffer.str(), {}});
  }
  return files;
}

// Parses every batch first: an alternative may list a target defined in any
// file, so targets are all registered before alternatives are checked.
using PendingFiles = std::vector<std::pair<EmbeddedRuleFile, const BuiltinRuleFileIndex*>>;

// `pending`: built-in files left out of the batches, handed to the set unparsed.
RuleLoadResult LoadBatches(bool builtin_rules, const std::vector<Batch>& batches, BuiltinCompile compile,
                           PendingFiles pending = {}) {
  RuleLoadResult out;
  std::vector<std::vector<std::unique_ptr<Rule>>> rule_batches;
  std::vector<std::vector<std::unique_ptr<Fragment>>> fragment_batches;
  std::vector<std::unique_ptr<Target>> targets;
  // Files parse independently, so they parse on every core; what follows
  // takes them in order, so the result does not depend on the thread count.
  std::vector<std::pair<const Batch*, const RuleText*>> files;
  for (const Batch& batch : batches)
    for (const RuleText& f : batch.files) files.emplace_back(&batch, &f);
  std::vector<RuleFileResult> parsed(files.size());
  // A model run parses a few files (tens of KiB): no thread is worth it.
  constexpr size_t kRuleBytesPerThread = size_t{64} << 10;
  size_t text_bytes = 0;
  for (const auto& [batch, f] : files) text_bytes += f->text.size();
  ParallelFor(files.size(), ThreadsFor(text_bytes, kRuleBytesPerThread), [&](size_t task) {
    const auto& [batch, f] = files[task];
    const bool defer = batch->builtin && compile == BuiltinCompile::kOnDemand;
    parsed[task] = f->precompiled.empty() ? ParseRuleFile(f->name, f->text, batch->builtin, defer)
                                          : ParsePrecompiledRuleFile(f->name, f->text, f->precompiled, defer);
  });
  size_t next_file = 0;
  for (const Batch& batch : batches) {
    std::vector<std::unique_ptr<Rule>> rules;
    std::vector<std::unique_ptr<Fragment>> fragments;
    for (size_t k = 0; k < batch.files.size(); ++k) {
      RuleFileResult& file = parsed[next_file++];
      out.errors.insert(out.errors.end(), file.errors.begin(), file.errors.end());
      for (auto& t : file.targets) targets.push_back(std::move(t));
      // Fragments are shared code: rules loaded later may call the built-in ones.
      for (auto& fr : file.fragments) fragments.push_back(std::move(fr));
      if (batch.builtin && !builtin_rules) continue;
      for (auto& r : file.rules) rules.push_back(std::move(r));
    }
    std::map<std::string, const Fragment*> seen_fragments;
    for (const auto& fr : fragments) {
      auto [it, fresh] = seen_fragments.emplace(fr->name, fr.get());
      if (!fresh)
        out.errors.push_back(fmt::format("{}: error: fragment '{}' is defined twice (first at {})", fr->location.ToString(),
                                         fr->name, it->second->location.ToString()));
    }
    fragment_batches.push_back(std::move(fragments));
    if (!batch.builtin) {
      // Ids must be unique among the user's own rules; overriding a built-in is the point.
      std::set<std::string> seen;
      for (const auto& r : rules) {
        if (!seen.insert(r->id).second)
          out.errors.push_back(fmt::format("{}: error: rule id '{}' is defined twice in {}", r->location.ToString(),
                                           r->id, batch.origin));
      }
    }
    rule_batches.push_back(std::move(rules));
  }
  // A target means one list of ops wherever it is named, so names are never
  // redefined. The same definition again is no redefinition: a copy of the
  // built-in rules folder (the installed share/onnx-remap/rules) given with
  // --rules repeats the built-in targets, which load even with --no-builtin-rules.
  for (auto& t : targets) {
    const Target* earlier = out.rules.FindTarget(t->name);
    if (earlier && earlier->domains == t->domains && earlier->ops == t->ops) continue;
    if (earlier) {
      out.errors.push_back(fmt::format("{}: error: target '{}' is already defined at {}", t->location.ToString(),
                                       t->name, earlier->location.ToString()));
      continue;
    }
    out.rules.AddTarget(std::move(t));
  }
  const std::string known = out.rules.TargetNames();
  auto find = [&out](const std::string& name) { return out.rules.FindTarget(name); };
  for (auto& fragments : fragment_batches) out.rules.AddFragments(std::move(fragments));
  for (auto& rules : rule_batches) {
    for (const auto& r : rules) CheckAlternativeTargets(*r, find, known, &out.errors);
    out.rules.Add(std::move(rules));
  }
  if (!pending.empty()) out.rules.AddPendingBuiltins(std::move(pending), builtin_rules);
  out.rules.Check(&out.errors);
  return out;
}

// The built-in files; with `pending`, only those the index says are eager,
// the others going to `pending`.
Batch BuiltinBatch(PendingFiles* pending = nullptr) {
  std::unordered_map<std::string, const BuiltinRuleFileIndex*> index;
  if (BuiltinRuleIndex())
    for (const BuiltinRuleFileIndex& entry : *BuiltinRuleIndex()) index.emplace(entry.path, &entry);
  Batch batch;
  batch.builtin = true;
  for (const auto& f : BuiltinRuleFiles()) {
    auto it = index.find(f.path);
    if (it == index.end())
      batch.files.push_back({f.path, f.content, {}});
    else if (pending && !it->second->eager)
      pending->emplace_back(f, it->second);
    else
      batch.files.push_back({f.path, f.content, it->second->precompiled});
  }
  return batch;
}

}  // namespace

RuleLoadResult LoadRules(bool builtins, const std::vector<std::string>& paths, BuiltinCompile compile) {
  // On demand, built-in files are parsed when first needed, too.
  PendingFiles pending;
  std::vector<Batch> batches{BuiltinBatch(compile == BuiltinCompile::kOnDemand ? &pending : nullptr)};
  std::vector<std::string> read_errors;
  for (const std::string& path : paths) {
    Batch batch;
    batch.origin = path;
    batch.files = ReadPath(path, &read_errors);
    batches.push_back(std::move(batch));
  }
  RuleLoadResult out = LoadBatches(builtins, batches, compile, std::move(pending));
  out.errors.insert(out.errors.begin(), read_errors.begin(), read_errors.end());
  return out;
}

RuleLoadResult LoadRuleTexts(bool builtins, const std::vector<std::pair<std::string, std::string>>& files,
                             BuiltinCompile compile) {
  Batch batch;
  batch.origin = "the given rule texts";
  for (const auto& [name, text] : files) batch.files.push_back({name, text, {}});
  PendingFiles pending;
  Batch builtin = BuiltinBatch(compile == BuiltinCompile::kOnDemand ? &pending : nullptr);
  return LoadBatches(builtins, {std::move(builtin), std::move(batch)}, compile, std::move(pending));
}

}  // namespace remap
