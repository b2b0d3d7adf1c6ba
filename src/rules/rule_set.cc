#include "rules/rule_set.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
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

void RuleSet::Reindex() {
  index_.clear();
  std::set<std::string> domains;
  for (auto it = rules_.rbegin(); it != rules_.rend(); ++it) {
    std::set<std::string> keys;
    for (const NodeMatch& m : (*it)->matches) {
      if (keys.insert(MatchKeyOf(m)).second) index_[MatchKeyOf(m)].push_back(it->get());
    }
    for (const Alternative& a : (*it)->alternatives) {
      for (const auto& d : a.replacement.domains()) domains.insert(d);
    }
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

void LoadOne(const std::string& name, const std::string& text, bool builtin, RuleLoadResult* out,
             std::vector<std::unique_ptr<Rule>>* batch) {
  RuleFileResult file = ParseRuleFile(name, text, builtin);
  out->errors.insert(out->errors.end(), file.errors.begin(), file.errors.end());
  for (auto& r : file.rules) batch->push_back(std::move(r));
}

}  // namespace

RuleLoadResult LoadRules(bool builtins, const std::vector<std::string>& paths) {
  RuleLoadResult out;
  if (builtins) {
    std::vector<std::unique_ptr<Rule>> batch;
    for (const auto& f : BuiltinRuleFiles()) LoadOne(f.path, f.content, true, &out, &batch);
    out.rules.Add(std::move(batch));
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
    std::vector<std::unique_ptr<Rule>> batch;
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
    for (const auto& r : batch) {
      if (!seen.insert(r->id).second)
        out.errors.push_back(fmt::format("{}: error: rule id '{}' is defined twice in {}", r->location.ToString(), r->id, path));
    }
    out.rules.Add(std::move(batch));
  }
  return out;
}

}  // namespace remap
