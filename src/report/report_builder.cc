#include "report/report_builder.h"

#include <algorithm>
#include <map>

#include <fmt/format.h>
#include <google/protobuf/util/json_util.h>

#include "report/exit_codes.h"
#include "report/proto_json.h"

namespace remap {

namespace {

void FillNode(const NodeOutcome& n, bool rewritten, report::NodeReport* out) {
  out->set_graph(n.graph);
  out->set_node(n.node);
  out->set_op(n.op);
  out->set_form(n.form);
  out->set_operator_(n.aten_operator);
  out->set_severity(rewritten ? "info" : "error");
  out->set_rule(n.rule);
  if (rewritten) out->set_rule_location(n.rule_location.ToString());
  for (const auto& e : n.emitted) out->add_emitted(e);
  out->set_reason(n.reason);
  out->set_refusal(rewritten ? "" : RefusalName(n.refusal));
  out->set_refused_by(n.refused_by);
  out->set_needs_opset(n.needs_opset);
  for (const CandidateOutcome& c : n.candidates) {
    report::Candidate* rc = out->add_candidates();
    rc->set_rule(c.rule);
    rc->set_rule_location(c.rule_location.ToString());
    rc->set_alternative_location(c.alternative_location.line ? c.alternative_location.ToString() : "");
    rc->set_outcome(c.refusal == Refusal::kNone ? "applied" : RefusalName(c.refusal));
    rc->set_reason(c.reason);
    rc->set_needs_opset(c.needs_opset);
  }
}

// Per-rule counts, in rule-id order.
void CountRules(const std::vector<const NodeOutcome*>& nodes,
                google::protobuf::RepeatedPtrField<report::RuleCount>* out) {
  std::map<std::string, std::pair<int, std::vector<std::string>>> counts;
  for (const NodeOutcome* n : nodes) {
    auto& [count, emits] = counts[n->rule];
    ++count;
    for (const auto& e : n->emitted) {
      if (std::find(emits.begin(), emits.end(), e) == emits.end()) emits.push_back(e);
    }
  }
  for (auto& [rule, ce] : counts) {
    report::RuleCount* rc = out->Add();
    rc->set_rule(rule);
    rc->set_count(ce.first);
    for (auto& e : ce.second) rc->add_emits(e);
  }
}

void FillError(const Status& s, const std::string& stage, report::Error* e) {
  e->set_code(ErrorCodeName(s.code()));
  e->set_stage(stage);
  e->set_message(s.message());
}

}  // namespace

report::ModelReport ModelReportOf(const ModelResult& r) {
  report::ModelReport m;
  m.set_path(r.input);
  m.set_output(r.output);
  m.set_outcome(OutcomeName(r.outcome));
  if (r.outcome == ModelOutcome::kFailed) FillError(r.status, StageName(r.failed_at), m.mutable_error());
  m.set_written(r.written);
  if (r.has_report) {
    m.set_opset_before(r.report.opset_before);
    m.set_opset_after(r.report.opset_after);
    m.set_ir_version_before(r.report.ir_before);
    m.set_ir_version_after(r.report.ir_after);
    std::vector<const NodeOutcome*> applied;
    for (const auto& n : r.report.rewritten) {
      FillNode(n, true, m.add_rewritten());
      applied.push_back(&n);
    }
    for (const auto& n : r.report.remaining) FillNode(n, false, m.add_remaining());
    CountRules(applied, m.mutable_rules());
    for (const auto& note : r.report.notes) m.add_notes(note);
  }
  m.set_exit_code(ExitCodeFor(r));
  m.set_seconds(r.seconds);
  return m;
}

report::Report BuildReport(const ReportHeader& header, const std::vector<ModelResult>& models,
                           const std::vector<Status>& errors, int exit_code, double seconds) {
  report::Report out;
  out.set_schema(kReportSchema);
  out.set_tool("onnx-remap");
  out.set_version(header.version);
  out.set_command(header.command);
  out.set_target(header.target);
  out.set_target_opset(header.target_opset.value_or(0));
  report::Summary* s = out.mutable_summary();
  std::vector<const NodeOutcome*> applied;
  for (const ModelResult& r : models) {
    *out.add_models() = ModelReportOf(r);
    s->set_models(s->models() + 1);
    switch (r.outcome) {
      case ModelOutcome::kClean: s->set_clean(s->clean() + 1); break;
      case ModelOutcome::kUnmappedLeft: s->set_unmapped_left(s->unmapped_left() + 1); break;
      case ModelOutcome::kFailed: s->set_failed(s->failed() + 1); break;
      case ModelOutcome::kSkipped: s->set_skipped(s->skipped() + 1); break;
    }
    if (!r.has_report) continue;
    s->set_nodes_rewritten(s->nodes_rewritten() + static_cast<int>(r.report.rewritten.size()));
    s->set_nodes_left(s->nodes_left() + static_cast<int>(r.report.remaining.size()));
    for (const auto& n : r.report.rewritten) applied.push_back(&n);
  }
  CountRules(applied, s->mutable_rules());
  s->set_seconds(seconds);
  for (const Status& e : errors) FillError(e, "", out.add_errors());
  out.set_exit_code(exit_code);
  return out;
}

std::string ReportToJson(const report::Report& r, bool pretty) { return MessageToJson(r, pretty); }

Expected<report::Report> ReportFromJson(const std::string& json) {
  report::Report r;
  google::protobuf::util::JsonParseOptions options;
  options.ignore_unknown_fields = false;
  auto status = google::protobuf::util::JsonStringToMessage(json, &r, options);
  if (!status.ok()) return Status(ErrorCode::kInvalidModel, fmt::format("not a valid report: {}", status.ToString()));
  if (r.schema() != kReportSchema)
    return Status(ErrorCode::kInvalidModel, fmt::format("not a valid report: schema is '{}', not '{}'", r.schema(), kReportSchema));
  return r;
}

}  // namespace remap
