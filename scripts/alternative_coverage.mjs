// Which rule alternatives the fixtures exercise: every alternative of every
// built-in rule, and whether some fixture case's rewrite applied it (the
// report's applied candidate). Prints the count and the alternatives no
// fixture applies, with their opset range, guard and target.
//   node scripts/alternative_coverage.mjs BIN [SOURCE_DIR]
import { fixtureCases, runTool, scanReports } from './fixture_reports.mjs';

const [bin, src = '.'] = process.argv.slice(2);
const rules = JSON.parse(runTool(bin, ['rules', 'list', '--format', 'json'])).rules.filter((r) => r.builtin);
const reports = scanReports(bin, fixtureCases(src));
const applied = new Set();
for (const m of reports.values()) {
  for (const node of m.rewritten || []) {
    for (const c of node.candidates || []) if (c.outcome === 'applied') applied.add(c.alternative_location);
  }
}
let total = 0;
const missing = [];
for (const r of rules) {
  if (r.no_standard_form) continue;
  for (const a of r.alternatives) {
    ++total;
    if (!applied.has(a.location)) {
      const range = `${a.min_opset}-${a.max_opset || ''}`;
      const target = a.targets.length ? ` targets ${a.targets.join(',')}` : '';
      missing.push(`${a.location} [${r.id}] opset ${range}${target}${a.when ? ` when ${a.when}` : ''}`);
    }
  }
}
console.log(`${total - missing.length} of ${total} alternatives are applied by a fixture`);
for (const m of missing) console.log(`  not applied: ${m}`);
