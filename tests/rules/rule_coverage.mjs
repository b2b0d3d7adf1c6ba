// Every built-in rule must be exercised by at least one end-to-end fixture:
// a rule without a numeric test is a claim, not a feature. A REFUSED row must
// leave its nodes unmapped; a rule that only says an operator has no standard
// ONNX form (`no_standard_form`) is exercised by a REFUSED row it refuses.
//   node rule_coverage.mjs BIN SOURCE_DIR
import { fixtureCases, runTool, scanReports } from "../../scripts/fixture_reports.mjs";

const [bin, src] = process.argv.slice(2);
if (!bin || !src) {
  console.error("usage: node rule_coverage.mjs BIN SOURCE_DIR");
  process.exit(2);
}
const run = (args) => runTool(bin, args);

const rules = JSON.parse(run(["rules", "list", "--format", "json"])).rules.map((r) => r.id);
const used = new Map();
const use = (rule, name) => {
  if (!used.has(rule)) used.set(rule, []);
  used.get(rule).push(name);
};
const fixtures = fixtureCases(src);
const reports = scanReports(bin, fixtures);
const cases = fixtures.length;
const refusalFailures = [];
for (const c of fixtures) {
  const model = reports.get(c.model);
  if (c.refused) {
    if (!model || !model.remaining.length) refusalFailures.push(`${c.name}: REFUSED, but nothing is left unmapped`);
    for (const g of model ? model.remaining : []) {
      if (g.refusal === "no-standard-form" && /has no standard ONNX equivalent/.test(g.reason)) use(g.refused_by, c.name);
    }
    continue;
  }
  if (!model) throw new Error(`${c.name}: no report for ${c.model}`);
  for (const n of model.rewritten) use(n.rule, c.name);
}
const missing = rules.filter((id) => !used.has(id));
for (const id of rules) console.log(`${used.has(id) ? "PASS" : "FAIL"} ${id}${used.has(id) ? ": " + used.get(id).slice(0, 3).join(", ") : ": no fixture case exercises it"}`);
for (const r of refusalFailures) console.log(`FAIL ${r}`);
console.log(`${rules.length - missing.length} passed, ${missing.length + refusalFailures.length} failed`);
console.log(`(${cases} fixture cases read)`);
process.exit(missing.length || refusalFailures.length ? 1 : 0);
