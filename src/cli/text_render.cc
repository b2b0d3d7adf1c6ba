#include "cli/text_render.h"

#include <array>
#include <map>
#include <string>
#include <set>
#include <tuple>
#include <unordered_map>

#include <fmt/format.h>
#include <fmt/ranges.h>


namespace remap::cli {

namespace {

std::string What(const NodeOutcome& n) {
  return n.aten_operator.empty() ? n.op.str() : fmt::format("{} {}", n.op, n.aten_operator);
}

std::string Describe(const NodeOutcome& n) {
  return fmt::format("{} ({})", n.node.empty() ? "<unnamed>" : n.node, What(n));
}

std::string Plural(size_t n, const char* one, const char* many) { return fmt::format("{} {}", n, n == 1 ? one : many); }

// Node names of a group, the first few then a count.
std::string NodeNames(const std::vector<const NodeOutcome*>& nodes) {
  constexpr size_t kShown = 3;
  std::vector<std::string> names;
  for (size_t k = 0; k < nodes.size() && k < kShown; ++k)
    names.push_back(nodes[k]->node.empty() ? "<unnamed>" : nodes[k]->node);
  std::string out = fmt::format("{}", fmt::join(names, ", "));
  if (nodes.size() > kShown) out += fmt::format(" and {} more", nodes.size() - kShown);
  return out;
}

// The ops a rewrite emitted; a long decomposition as its size and distinct ops.
std::string Emitted(const std::vector<std::string>& ops) {
  constexpr size_t kListed = 8;
  if (ops.size() <= kListed) return fmt::format("{}", fmt::join(ops, " "));
  std::set<std::string> distinct(ops.begin(), ops.end());
  return fmt::format("{} nodes of {}", ops.size(), fmt::join(distinct, ", "));
}

std::string Headline(const ModelResult& r, const TerminalStyle& style) {
  const RewriteReport& rep = r.report;
  std::string left = fmt::format("{} left", rep.remaining.size());
  if (!rep.remaining.empty()) left = style.Paint(left, Color::kYellow);
  std::string out = fmt::format("{}: {} rewritten, {}", r.input, rep.rewritten.size(), left);
  // Opset 0: the model imported no default-domain opset (it uses other domains only).
  if (rep.opset_after != rep.opset_before)
    out += fmt::format(", opset {} -> {}", rep.opset_before ? std::to_string(rep.opset_before) : "none", rep.opset_after);
  return out + "\n";
}

void RenderEveryNode(const RewriteReport& rep, const TerminalStyle& style, std::string* out) {
  for (const auto& n : rep.rewritten)
    *out += fmt::format("  rewritten {} -> {} [{}]\n", Describe(n), fmt::join(n.emitted, " "), n.rule);
  for (const auto& n : rep.remaining)
    *out += fmt::format("  {}      {}: {}\n", style.Paint("left", Color::kYellow), Describe(n), n.reason);
}

// Records a rewrite treated alike share their interned fields (rule, op,
// emitted list...). Grouping them by those addresses costs a pointer hash per
// record; the printed key of each group is then built once, not once per
// record of a 100k-node model. Fields not interned (equal text, other
// storage) land in separate groups here; the callers' maps by text merge them.
using InternedKey = std::array<const void*, 4>;
struct InternedKeyHash {
  size_t operator()(const InternedKey& k) const {
    size_t h = 0;
    for (const void* p : k) h = h * 0x9E3779B97F4A7C15ull + std::hash<const void*>()(p);
    return h;
  }
};
struct InternedGroup {
  const NodeOutcome* first = nullptr;
  size_t count = 0;
};
// Groups in the order of their first record.
template <typename KeyOf>
std::vector<InternedGroup> GroupInterned(std::initializer_list<const std::vector<NodeOutcome>*> lists, KeyOf key_of) {
  std::vector<InternedGroup> groups;
  std::unordered_map<InternedKey, size_t, InternedKeyHash> at;
  for (const auto* list : lists) {
    for (const auto& n : *list) {
      auto [it, added] = at.emplace(key_of(n), groups.size());
      if (added) groups.push_back(InternedGroup{&n, 0});
      ++groups[it->second].count;
    }
  }
  return groups;
}

void RenderGroups(const std::vector<NodeOutcome>& rewritten, const std::vector<NodeOutcome>& remaining,
                  const TerminalStyle& style, std::string* out) {
  std::map<std::tuple<std::string, std::string, std::string>, size_t> applied;
  const auto groups = GroupInterned({&rewritten}, [](const NodeOutcome& n) {
    return InternedKey{n.rule.identity(), n.op.identity(), n.aten_operator.identity(), n.emitted.identity()};
  });
  for (const InternedGroup& g : groups) applied[{g.first->rule, What(*g.first), Emitted(g.first->emitted)}] += g.count;
  for (const auto& [key, count] : applied) {
    const auto& [rule, what, emitted] = key;
    *out += fmt::format("  rewritten {} x {} -> {} [{}]\n", count, what, emitted, rule);
  }
  std::map<std::pair<std::string, std::string>, std::vector<const NodeOutcome*>> left;
  for (const auto& n : remaining) left[{What(n), n.reason}].push_back(&n);
  for (const auto& [key, nodes] : left) {
    *out += fmt::format("  {}      {} x {}: {} (nodes: {})\n", style.Paint("left", Color::kYellow), nodes.size(),
                        key.first, key.second, NodeNames(nodes));
  }
}

}  // namespace

std::string RenderModelText(const ModelResult& r, ModelCommand command, bool verbose, const TerminalStyle& style) {
  if (r.outcome == ModelOutcome::kSkipped) return fmt::format("{}: skipped, {} exists\n", r.input, r.output);
  if (!r.has_report) return "";
  std::string out;
  if (command == ModelCommand::kConvert) {
    // No rules ran: what changed is the opset, told by the conversion's note.
    out = fmt::format("{}: opset {} -> {}\n", r.input, r.report.opset_before, r.report.opset_after);
    for (const auto& note : r.report.notes) out += fmt::format("  note: {}\n", note);
    return out;
  }
  if (command == ModelCommand::kCheck) {
    const RewriteReport& rep = r.report;
    if (r.outcome == ModelOutcome::kClean)
      out = fmt::format("{}: {} ({} to rewrite)\n", r.input, style.Paint("ok", Color::kGreen), rep.rewritten.size());
    else if (r.outcome == ModelOutcome::kUnmappedLeft)
      out = fmt::format("{}: {}, {} would be left\n", r.input, style.Paint("not ok", Color::kRed),
                        Plural(rep.remaining.size(), "node", "nodes"));
    else
      return "";
    if (verbose) RenderEveryNode(rep, style, &out);
    else RenderGroups({}, rep.remaining, style, &out);
  } else {
    out = Headline(r, style);
    if (verbose) RenderEveryNode(r.report, style, &out);
    else RenderGroups(r.report.rewritten, r.report.remaining, style, &out);
  }
  if (command != ModelCommand::kCheck || verbose) {
    for (const auto& note : r.report.notes) out += fmt::format("  note: {}\n", note);
  }
  return out;
}

std::string RenderScanText(const ModelResult& r, const std::string& target, const TerminalStyle& style) {
  if (!r.has_report) return "";
  std::map<std::tuple<std::string, std::string, std::string, std::string>, InternedGroup> groups;
  const auto interned = GroupInterned({&r.report.rewritten, &r.report.remaining}, [](const NodeOutcome& n) {
    return InternedKey{n.form.identity(), n.op.identity(), n.aten_operator.identity(), n.rule.identity()};
  });
  for (const InternedGroup& i : interned) {
    const NodeOutcome& n = *i.first;
    InternedGroup& g = groups[{n.form, n.op, n.aten_operator, n.rule}];
    if (!g.first) g.first = &n;  // interned is in order of first record
    g.count += i.count;
  }
  const size_t total = r.report.rewritten.size() + r.report.remaining.size();
  std::string out = fmt::format("{}: opset {}, target {}, {}, {} covered by rules\n", r.input,
                                r.report.opset_before ? std::to_string(r.report.opset_before) : "none",
                                target, Plural(total, "unmapped node", "unmapped nodes"), r.report.rewritten.size());
  for (const auto& [key, g] : groups) {
    const NodeOutcome& n = *g.first;
    if (!n.rule.empty())
      out += fmt::format("  {:>4} x {:<44} {} -> {} [{}]\n", g.count, What(n), n.form, fmt::join(n.emitted, " "), n.rule);
    else
      out += fmt::format("  {:>4} x {:<44} {}: {}\n", g.count, What(n), style.Paint(n.form, Color::kYellow), n.reason);
  }
  return out;
}

std::string RenderExplain(const ModelResult& r, const std::string& node, const TerminalStyle& style) {
  if (!r.has_report) return "";
  std::string out;
  auto explain = [&](const NodeOutcome& n, bool rewritten) {
    if (n.node != node) return;
    out += fmt::format("{}: node {} in {}: {} ({})\n", r.input, Describe(n), n.graph,
                       rewritten ? style.Paint("rewritten", Color::kGreen) : style.Paint("left", Color::kYellow),
                       rewritten ? fmt::format("by {}", n.rule) : std::string(RefusalName(n.refusal)));
    if (n.candidates.empty()) out += fmt::format("  no candidate rule: {}\n", n.reason);
    for (const CandidateOutcome& c : n.candidates) {
      const std::string where = c.alternative_location.line ? c.alternative_location.ToString() : c.rule_location.ToString();
      if (c.refusal == Refusal::kNone)
        out += fmt::format("  [{}] {}: {}\n", c.rule, where, style.Paint("applied", Color::kGreen));
      else
        out += fmt::format("  [{}] {}: {}\n", c.rule, RefusalName(c.refusal), c.reason);
    }
  };
  for (const auto& n : r.report.rewritten) explain(n, true);
  for (const auto& n : r.report.remaining) explain(n, false);
  return out;
}

std::string RenderBatchSummary(const std::vector<ModelResult>& results, double seconds, const TerminalStyle& style) {
  size_t clean = 0, left = 0, failed = 0, skipped = 0, rewritten_nodes = 0, left_nodes = 0;
  std::map<std::string, size_t> rules;
  for (const ModelResult& r : results) {
    switch (r.outcome) {
      case ModelOutcome::kClean: ++clean; break;
      case ModelOutcome::kUnmappedLeft: ++left; break;
      case ModelOutcome::kFailed: ++failed; break;
      case ModelOutcome::kSkipped: ++skipped; break;
    }
    if (!r.has_report) continue;
    rewritten_nodes += r.report.rewritten.size();
    left_nodes += r.report.remaining.size();
    for (const auto& n : r.report.rewritten) ++rules[n.rule];
  }
  std::string out = fmt::format("{} in {:.1f} s: {} clean, {} with nodes left, {} failed, {} skipped\n",
                                Plural(results.size(), "model", "models"), seconds, style.Paint(std::to_string(clean), Color::kGreen),
                                left ? style.Paint(std::to_string(left), Color::kYellow) : "0",
                                failed ? style.Paint(std::to_string(failed), Color::kRed) : "0", skipped);
  out += fmt::format("nodes: {} rewritten, {} left\n", rewritten_nodes, left_nodes);
  if (!rules.empty()) {
    out += "  count  rule\n";
    for (const auto& [rule, count] : rules) out += fmt::format("  {:>5}  {}\n", count, rule);
  }
  for (const ModelResult& r : results) {
    if (r.outcome == ModelOutcome::kFailed) out += fmt::format("  {}: {}\n", style.Paint("failed", Color::kRed), r.status.message());
  }
  return out;
}

}  // namespace remap::cli
