#include "rules/rule_set.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <set>
#include <sstream>

#include <fmt/format.h>

#include "model/opset_import.h"
#include "rules/builtin_rules.h"
#include "rules/rule_parser.h"

namespace remap {

namespace fs = std::filesystem;

std::string NodeMatch::Describe() const {
  if (!aten.empty()) return "aten::" + aten;
  return (domain.empty() ? "" : domain + "::") + op_type;
}

std::string MatchKeyAten(const std::string& aten_operator) { return "aten\x1f" + aten_operator; }
std::string MatchKeyOp(const std::string& domain, const std::string& op_type) {
  return (IsDefaultDomain(domain) ? std::string() : domain) + "\x1f" + op_type;
}
std::string MatchKeyOf(const NodeMatch& m) { return m.aten.empty() ? MatchKeyOp(m.domain, m.op_type) : MatchKeyAten(m.aten); }

void RuleSet::Add(std::vector<std::unique_ptr<Rule>> rules) {
  for (auto& rule : rules) {
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
  auto it = fragments_.find(name);
  return it == fragments_.end() ? nullptr : it->second.get();
}

std::vector<const Fragment*> RuleSet::AllFragments() const {
  std::vector<const Fragment*> all;
  for (const auto& [name, f] : fragments_) all.push_back(f.get());
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
    std::set<std::string> keys;
    for (const NodeMatch& m : (*it)->matches) {
      if (keys.insert(MatchKeyOf(m)).second) index_[MatchKeyOf(m)].push_back(it->get());
    }
    for (const Alternative& a : (*it)->alternatives) CollectDomains(a.replacement, &domains);
  }
  emitted_domains_.assign(domains.begin(), domains.end());
}

const std::vector<const Rule*>& RuleSet::Candidates(const std::string& key) const {
  static const std::vector<const Rule*> none;
  auto it = index_.find(key);
  return it == index_.end() ? none : it->second;
}

const Rule* RuleSet::Find(const std::string& id) const {
  for (const auto& r : rules_) {
    if (r->id == id) return r.get();
  }
  return nullptr;
}

std::vector<const Rule*> RuleSet::All() const {
  std::vector<const Rule*> all;
  for (const auto& r : rules_) all.push_back(r.get());
  std::sort(all.begin(), all.end(), [](const Rule* a, const Rule* b) { return a->id < b->id; });
  return all;
}

namespace {

struct Batch {
  std::vector<std::unique_ptr<Rule>> rules;
  std::vector<std::unique_ptr<Fragment>> fragments;
};

void LoadOne(const std::string& name, const std::string& text, bool builtin, RuleLoadResult* out, Batch* batch) {
  RuleFileResult file = ParseRuleFile(name, text, builtin);
  out->errors.insert(out->errors.end(), file.errors.begin(), file.errors.end());
  for (auto& r : file.rules) batch->rules.push_back(std::move(r));
  for (auto& f : file.fragments) batch->fragments.push_back(std::move(f));
}

void AddBatch(Batch* batch, const std::string& where, RuleLoadResult* out) {
  std::map<std::string, const Fragment*> seen;
  for (const auto& f : batch->fragments) {
    auto [it, fresh] = seen.emplace(f->name, f.get());
    if (!fresh)
      out->errors.push_back(fmt::format("{}: error: fragment '{}' is defined twice in {} (first at {})", f->location.ToString(),
                                        f->name, where, it->second->location.ToString()));
  }
  out->rules.AddFragments(std::move(batch->fragments));
  out->rules.Add(std::move(batch->rules));
}

}  // namespace

RuleLoadResult LoadRules(bool builtins, const std::vector<std::string>& paths) {
  RuleLoadResult out;
  if (builtins) {
    Batch batch;
    for (const auto& f : BuiltinRuleFiles()) LoadOne(f.path, f.content, true, &out, &batch);
    AddBatch(&batch, "the built-in rules", &out);
  }
  for (const std::string& path : paths) {
    std::error_code ec;
    std::vector<std::string> files;
    if (fs::is_directory(path, ec)) {
      for (const auto& entry : fs::recursive_directory_iterator(path, ec)) {
        if (entry.is_regular_file() && entry.path().extension() == ".textproto") files.push_back(entry.path().string());
      }
      std::sort(files.begin(), files.end());
      if (files.empty()) out.errors.push_back(fmt::format("{}: error: folder holds no *.textproto rule file", path));
    } else if (fs::exists(path, ec)) {
      files.push_back(path);
    } else {
      out.errors.push_back(fmt::format("{}: error: no such rule file or folder", path));
    }
    Batch batch;
    for (const std::string& f : files) {
      std::ifstream in(f, std::ios::binary);
      std::stringstream buffer;
      buffer << in.rdbuf();
      if (!in.good() && !in.eof()) {
        out.errors.push_back(fmt::format("{}: error: cannot read rule file", f));
        continue;
      }
      LoadOne(f, buffer.str(), false, &out, &batch);
    }
    // Ids must be unique among the user's own rules; overriding a built-in is the point.
    std::set<std::string> seen;
    for (const auto& r : batch.rules) {
      if (!seen.insert(r->id).second)
        out.errors.push_back(fmt::format("{}: error: rule id '{}' is defined twice in {}", r->location.ToString(), r->id, path));
    }
    AddBatch(&batch, path, &out);
  }
  out.rules.Check(&out.errors);
  return out;
}

}  // namespace remap
