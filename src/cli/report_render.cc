#include "cli/report_render.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace remap::cli {

namespace {

std::string Describe(const NodeOutcome& n) {
  std::string what = n.aten_operator.empty() ? n.op : fmt::format("{} {}", n.op, n.aten_operator);
  return fmt::format("{} ({})", n.node.empty() ? "<unnamed>" : n.node, what);
}

}  // namespace

std::string RenderRewriteText(const std::string& input, const RewriteReport& r) {
  std::string out = fmt::format("{}: {} rewritten, {} left", input, r.rewritten.size(), r.remaining.size());
  if (r.opset_after != r.opset_before) out += fmt::format(", opset {} -> {}", r.opset_before, r.opset_after);
  out += "\n";
  for (const auto& n : r.rewritten)
    out += fmt::format("  rewritten {} -> {} [{}]\n", Describe(n), fmt::join(n.emitted, " "), n.rule);
  for (const auto& n : r.remaining) out += fmt::format("  left      {}: {}\n", Describe(n), n.reason);
  for (const auto& note : r.notes) out += fmt::format("  note: {}\n", note);
  return out;
}

void WriteNodeOutcome(JsonWriter& json, const NodeOutcome& n) {
  json.BeginObject();
  json.Key("graph").String(n.graph);
  json.Key("node").String(n.node);
  json.Key("op").String(n.op);
  json.Key("form").String(n.form);
  json.Key("operator");
  n.aten_operator.empty() ? json.Null() : json.String(n.aten_operator);
  json.Key("rule");
  n.rule.empty() ? json.Null() : json.String(n.rule);
  if (!n.rule.empty()) {
    json.Key("rule_location").String(n.rule_location.ToString());
    json.Key("emitted").StringArray(n.emitted);
  } else {
    json.Key("reason").String(n.reason);
    json.Key("refusal").String(RefusalName(n.refusal));
    if (!n.refused_by.empty()) json.Key("refused_by").String(n.refused_by);
    json.Key("needs_opset");
    n.needs_opset ? json.Int(n.needs_opset) : json.Null();
  }
  json.EndObject();
}

}  // namespace remap::cli
