// The fixture cases of the manifests, and what a scan of each says, for the
// scripts that count which rules and operators the fixtures prove
// (tests/rules/rule_coverage.mjs, scripts/rule_table.mjs).
//
// One `scan` process takes many models (the pipeline's batch), so the cases
// are grouped by the options they need (--opset, --target) and each group is
// scanned in a few processes instead of one process per case. A scan rewrites
// in memory exactly as `rewrite --dry-run` does.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const MANIFESTS = ['tests/fixtures/corpus/MANIFEST.tsv', 'tests/fixtures/torch/MANIFEST.tsv'];

// [{name, model, expected, refused, args}] for every registered case (model present,
// not UNSUPPORTED), in manifest order. `args`: the scan options the case needs: its
// runtime target, and for a non-REFUSED case its target opset when above the export's.
export function fixtureCases(src) {
  const cases = [];
  for (const manifest of MANIFESTS) {
    const path = join(src, manifest);
    if (!existsSync(path)) continue;
    const [header, ...rows] = readFileSync(path, 'utf8').split('\n').filter((l) => l.trim());
    const col = Object.fromEntries(header.split('\t').map((name, i) => [name, i]));
    for (const row of rows) {
      const f = row.split('\t');
      const model = join(src, manifest, '..', f[col.case], 'model.onnx');
      const expected = f[col.expected_onnx_ops];
      if (!existsSync(model) || expected === 'UNSUPPORTED') continue;
      const refused = expected === 'REFUSED';
      const args = [];
      const target = parseInt(f[col.min_target_opset], 10);
      if (!refused && target > parseInt(f[col.opset], 10)) args.push('--opset', String(target));
      // Rules for one runtime only (optional column; rows may leave it off).
      const runtime = col.target === undefined ? undefined : f[col.target];
      if (runtime && runtime !== '-') args.push('--target', runtime);
      cases.push({ name: f[col.case], model, expected, refused, args });
    }
  }
  return cases;
}

// Runs BIN with ARGS; a report is printed whatever the exit code says about the models.
export function runTool(bin, args) {
  try {
    return execFileSync(bin, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 256 << 20 });
  } catch (e) {
    if (e.stdout) return e.stdout;
    throw e;
  }
}

// Map: model path -> its ModelReport (docs/report-format.md) from `scan --json`.
export function scanReports(bin, cases, chunk = 150) {
  const groups = new Map();
  for (const c of cases) {
    const key = c.args.join(' ');
    if (!groups.has(key)) groups.set(key, { args: c.args, models: [] });
    groups.get(key).models.push(c.model);
  }
  const reports = new Map();
  for (const { args, models } of groups.values()) {
    for (let i = 0; i < models.length; i += chunk) {
      const report = JSON.parse(runTool(bin, ['scan', '--json', ...args, ...models.slice(i, i + chunk)]));
      for (const m of report.models) reports.set(m.path, m);
    }
  }
  return reports;
}
