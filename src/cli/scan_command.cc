// onnx-remap scan IN.onnx...: unmapped nodes grouped by kind and operator.
#include <map>
#include <tuple>

#include <fmt/core.h>
#include <fmt/ranges.h>

#include "cli/commands.h"
#include "cli/exit_codes.h"
#include "cli/json_writer.h"
#include "cli/rule_loading.h"
#include "engine/engine.h"
#include "model/model_loader.h"
#include "model/opset_import.h"

namespace remap::cli {

namespace {

struct Group {
  std::string form, op, aten_operator, rule, reason;
  std::vector<std::string> emitted;
  int needs_opset = 0;
  Refusal refusal = Refusal::kNone;
  std::string refused_by;
  std::vector<const NodeOutcome*> nodes;
};

std::vector<Group> GroupOutcomes(const RewriteReport& r) {
  std::map<std::tuple<std::string, std::string, std::string, std::string>, Group> groups;
  auto add = [&](const NodeOutcome& n) {
    Group& g = groups[{n.form, n.op, n.aten_operator, n.rule}];
    if (g.nodes.empty()) {
      g.form = n.form;
      g.op = n.op;
      g.aten_operator = n.aten_operator;
      g.rule = n.rule;
      g.reason = n.reason;
      g.emitted = n.emitted;
      g.needs_opset = n.needs_opset;
      g.refusal = n.refusal;
      g.refused_by = n.refused_by;
    }
    g.nodes.push_back(&n);
  };
  for (const auto& n : r.rewritten) add(n);
  for (const auto& n : r.remaining) add(n);
  std::vector<Group> out;
  for (auto& [key, g] : groups) out.push_back(std::move(g));
  return out;
}

}  // namespace

int RunScan(const ScanArgs& args) {
  auto rules = LoadRulesOrReport(args.rules);
  if (!rules) return kExitRuleError;
  std::string unknown;
  const Target* target = FindTargetOrExplain(*rules, args.target, &unknown);
  if (!target) {
    fmt::print(stderr, "onnx-remap: error: {}\n", unknown);
    return kExitUsage;
  }
  int exit_code = kExitOk;
  JsonWriter json;
  json.BeginObject().Key("tool").String("onnx-remap").Key("command").String("scan").Key("models").BeginArray();
  std::vector<std::pair<std::string, std::string>> errors;
  for (const std::string& path : args.inputs) {
    auto model = LoadModel(path);
    if (!model) {
      errors.emplace_back(path, model.status().message());
      fmt::print(stderr, "onnx-remap: error: {}\n", model.status().message());
      exit_code = std::max<int>(exit_code, ExitCodeFor(model.status().code()));
      continue;
    }
    const int opset = DefaultOpset(model->opset_import());
    RewriteOptions options;
    options.target_opset = args.opset;
    options.target = target;
    auto report = RewriteModel(&*model, *rules, options);  // on the in-memory copy only
    if (!report) {
      errors.emplace_back(path, report.status().message());
      fmt::print(stderr, "onnx-remap: error: {}: {}\n", path, report.status().message());
      exit_code = std::max<int>(exit_code, ExitCodeFor(report.status().code()));
      continue;
    }
    if (!report->remaining.empty()) exit_code = std::max<int>(exit_code, kExitUnmappedLeft);
    std::vector<Group> groups = GroupOutcomes(*report);
    const size_t total = report->rewritten.size() + report->remaining.size();
    if (args.json) {
      json.BeginObject();
      json.Key("path").String(path);
      json.Key("opset").Int(opset);
      json.Key("target_opset").Int(args.opset.value_or(opset));
      json.Key("target").String(target->name);
      json.Key("unmapped_count").Int(static_cast<long long>(total));
      json.Key("covered_count").Int(static_cast<long long>(report->rewritten.size()));
      json.Key("unmapped").BeginArray();
      for (const Group& g : groups) {
        json.BeginObject();
        json.Key("form").String(g.form);
        json.Key("op").String(g.op);
        json.Key("operator");
        g.aten_operator.empty() ? json.Null() : json.String(g.aten_operator);
        json.Key("count").Int(static_cast<long long>(g.nodes.size()));
        json.Key("rule");
        g.rule.empty() ? json.Null() : json.String(g.rule);
        json.Key("emits").StringArray(g.emitted);
        json.Key("reason");
        g.rule.empty() ? json.String(g.reason) : json.Null();
        json.Key("refusal");
        g.rule.empty() ? json.String(RefusalName(g.refusal)) : json.Null();
        json.Key("refused_by");
        g.refused_by.empty() ? json.Null() : json.String(g.refused_by);
        json.Key("needs_opset");
        g.needs_opset ? json.Int(g.needs_opset) : json.Null();
        json.Key("nodes").BeginArray();
        for (const NodeOutcome* n : g.nodes) json.BeginObject().Key("graph").String(n->graph).Key("node").String(n->node).EndObject();
        json.EndArray();
        json.EndObject();
      }
      json.EndArray();
      json.EndObject();
    } else {
      fmt::print("{}: opset {}, target {}, {} unmapped node{}, {} covered by rules\n", path, opset, target->name, total,
                 total == 1 ? "" : "s", report->rewritten.size());
      for (const Group& g : groups) {
        std::string what = g.aten_operator.empty() ? g.op : fmt::format("{} {}", g.op, g.aten_operator);
        if (!g.rule.empty())
          fmt::print("  {:>4} x {:<44} {} -> {} [{}]\n", g.nodes.size(), what, g.form, fmt::join(g.emitted, " "), g.rule);
        else
          fmt::print("  {:>4} x {:<44} {}: {}\n", g.nodes.size(), what, g.form, g.reason);
      }
    }
  }
  json.EndArray().Key("errors").BeginArray();
  for (const auto& [path, message] : errors) json.BeginObject().Key("path").String(path).Key("message").String(message).EndObject();
  json.EndArray().Key("exit_code").Int(exit_code).EndObject();
  if (args.json) fmt::print("{}\n", json.str());
  return exit_code;
}

}  // namespace remap::cli
