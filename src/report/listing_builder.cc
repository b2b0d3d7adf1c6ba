#include "report/listing_builder.h"

namespace remap {

listing::RuleListing RuleListingOf(const std::vector<const Rule*>& rules) {
  listing::RuleListing out;
  for (const Rule* r : rules) {
    listing::RuleEntry* e = out.add_rules();
    e->set_id(r->id);
    e->set_builtin(r->builtin);
    e->set_location(r->location.ToString());
    for (const auto& m : r->matches) e->add_matches(m.Describe());
    for (const auto& p : r->producers) e->add_producers(p.match.Describe());
    e->set_signature(r->signature_text);
    e->set_doc(r->doc);
    e->set_no_standard_form(r->no_standard_form);
    e->set_approximation(r->approximation);
    for (const Alternative& a : r->alternatives) {
      listing::AlternativeEntry* ae = e->add_alternatives();
      ae->set_min_opset(a.min_opset);
      ae->set_max_opset(a.max_opset);
      ae->set_when(a.when.empty() ? "" : a.when.text());
      for (const std::string& op : a.replacement.EmittedOps()) ae->add_emits(op);
      for (const TargetRef& t : a.targets) ae->add_targets(t.name);
      ae->set_location(a.location.ToString());
    }
  }
  return out;
}

listing::TargetListing TargetListingOf(const std::vector<const Target*>& targets) {
  listing::TargetListing out;
  for (const Target* t : targets) {
    listing::TargetEntry* e = out.add_targets();
    e->set_name(t->name);
    e->set_builtin(t->builtin);
    e->set_location(t->location.ToString());
    e->set_doc(t->doc);
    for (const std::string& d : t->domains) e->add_domains(d);
    for (const auto& [domain, op] : t->ops) e->add_ops(domain + "::" + op);
  }
  return out;
}

listing::RuleCheckSummary RuleCheckSummaryOf(const RuleCheckReport& report) {
  listing::RuleCheckSummary out;
  out.set_tool("onnx-remap");
  out.set_command("rules check");
  out.set_alternatives(report.alternatives);
  out.set_models(report.models);
  out.set_rewritten(report.rewritten);
  out.set_validated(report.validated);
  out.set_beyond_onnx_1_12(report.beyond_onnx);
  for (const RuleCheckFinding& f : report.findings) {
    listing::Finding* e = out.add_findings();
    e->set_severity(f.severity == RuleCheckFinding::Severity::kError ? "error" : "warning");
    e->set_rule(f.rule_id);
    e->set_location(f.location.ToString());
    e->set_setting(f.setting);
    e->set_message(f.message);
  }
  out.set_errors(static_cast<int32_t>(report.errors()));
  return out;
}

}  // namespace remap
