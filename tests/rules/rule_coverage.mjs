// Every built-in rule must be exercised by at least one end-to-end fixture:
// a rule without a numeric test is a claim, not a feature. A REFUSED row must
// leave its nodes unmapped; a rule that only says an operator has no standard
// ONNX form (`no_standard_form`) is exercised by a REFUSED row it refuses.
//   node rule_coverage.mjs BIN SOURCE_DIR
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";

const [bin, src] = process.argv.slice(2);
if (!bin || !src) {
  console.error("usage: node rule_coverage.mjs BIN SOURCE_DIR");
  process.exit(2);
}

function run(args) {
  try {
    return execFileSync(bin, args, { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
  } catch (e) {
    if (e.status === 1) return e.stdout;  // some nodes left: still a report
    throw e;
  }
}

const rules = JSON.parse(run(["rules", "list", "--format", "json"])).rules.map((r) => r.id);
const used = new Map();
const use = (rule, name) => {
  if (!used.has(rule)) used.set(rule, []);
  used.get(rule).push(name);
};
let cases = 0;
const refusalFailures = [];
for (const manifest of ["tests/fixtures/corpus/MANIFEST.tsv", "tests/fixtures/torch/MANIFEST.tsv"]) {
  const path = join(src, manifest);
  if (!existsSync(path)) continue;
  const [header, ...rows] = readFileSync(path, "utf8").split("\n").filter((l) => l.trim());
  const col = Object.fromEntries(header.split("\t").map((name, i) => [name, i]));
  for (const row of rows) {
    const f = row.split("\t");
    const dir = join(src, manifest, "..", f[col.case]);
    if (!existsSync(join(dir, "model.onnx"))) continue;
    if (f[col.expected_onnx_ops] === "UNSUPPORTED") continue;
    const runtime = col.target === undefined ? undefined : f[col.target];
    if (f[col.expected_onnx_ops] === "REFUSED") {
      const args = ["scan", join(dir, "model.onnx"), "--json"];
      if (runtime && runtime !== "-") args.push("--target", runtime);
      const model = JSON.parse(run(args)).models[0];
      if (!model || !model.remaining.length) refusalFailures.push(`${f[col.case]}: REFUSED, but nothing is left unmapped`);
      for (const g of (model ? model.remaining : [])) {
        if (g.refusal === "no-standard-form" && /has no standard ONNX equivalent/.test(g.reason)) use(g.refused_by, f[col.case]);
      }
      cases++;
      continue;
    }
    const args = ["rewrite", join(dir, "model.onnx"), "--dry-run", "--json"];
    const target = parseInt(f[col.min_target_opset], 10), opset = parseInt(f[col.opset], 10);
    if (target > opset) args.push("--opset", String(target));
    // Rules for one runtime only (optional column; rows may leave it off).
    if (runtime && runtime !== "-") args.push("--target", runtime);
    const report = JSON.parse(run(args));
    for (const n of report.models[0].rewritten) use(n.rule, f[col.case]);
    cases++;
  }
}
const missing = rules.filter((id) => !used.has(id));
for (const id of rules) console.log(`${used.has(id) ? "PASS" : "FAIL"} ${id}${used.has(id) ? ": " + used.get(id).slice(0, 3).join(", ") : ": no fixture case exercises it"}`);
for (const r of refusalFailures) console.log(`FAIL ${r}`);
console.log(`${rules.length - missing.length} passed, ${missing.length + refusalFailures.length} failed`);
console.log(`(${cases} fixture cases read)`);
process.exit(missing.length || refusalFailures.length ? 1 : 0);
