#!/usr/bin/env node
// ONNX's own backend tests (Debian's libonnx-testdata: a model, inputs and
// expected outputs per case) through `onnx-remap convert` to every higher
// opset, run in onnxruntime and compared with the expected outputs.
//
//   node backend_convert.mjs BIN DATA_DIR WORK_DIR [--sample K] [--targets 8-21]
//        [--expected FILE] [--table FILE]
//
// * A case counts only when onnxruntime runs the original and matches its
//   expected outputs (some backend tests use operators or types onnxruntime
//   lacks); those that do not are listed once as "baseline".
// * Per target opset N, every counted case whose opset is below N is converted
//   (one `convert` process per target, over a folder of copies) and run.
// * Outcomes: pass; refused (the converter names the node and why); fail
//   (converted, then onnxruntime fails to load/run it or the outputs differ).
// * --expected FILE (TSV: case, target opsets "N" or "N-M", outcome, reason)
//   lists every accepted refusal and known failure. The run fails on an
//   outcome other than pass that the file does not list, and on a listed one
//   that now passes (the list cannot go stale).
// * Lowering (unless --no-down): every counted case is also converted to each
//   opset from 7 below its own. Refusals are expected there and counted by
//   reason; a model that converts must run and match.
// * --sample K checks every K-th case (the sanitizer build uses it).
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { loadDataSets, loadDeps, makeDecoder, runAndCompare } from '../ort/ort_compare.mjs';

const RTOL = 1e-3, ATOL = 1e-5;  // ONNX's backend runner uses rtol 1e-3
const NEWEST = 21;

function usage(msg) {
  process.stderr.write(`backend_convert.mjs: ${msg}\nusage: node backend_convert.mjs BIN DATA_DIR WORK_DIR [--sample K] [--targets A-B] [--expected FILE] [--table FILE]\n`);
  process.exit(2);
}

function parseArgs(argv) {
  const pos = [];
  const opt = { sample: 1, targets: null, expected: null, table: null, down: true };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--sample') opt.sample = Number(argv[++i]);
    else if (a === '--targets') opt.targets = argv[++i];
    else if (a === '--expected') opt.expected = argv[++i];
    else if (a === '--table') opt.table = argv[++i];
    else if (a === '--no-down') opt.down = false;
    else if (a.startsWith('--')) usage(`unknown option ${a}`);
    else pos.push(a);
  }
  if (pos.length !== 3) usage('needs BIN DATA_DIR WORK_DIR');
  if (!(opt.sample >= 1)) usage('--sample needs a positive integer');
  let lo = 8, hi = NEWEST;
  if (opt.targets) {
    const m = /^(\d+)(?:-(\d+))?$/.exec(opt.targets);
    if (!m) usage(`--targets ${opt.targets}: expected N or A-B`);
    lo = Number(m[1]);
    hi = Number(m[2] ?? m[1]);
  }
  return { bin: pos[0], data: pos[1], work: pos[2], ...opt, lo, hi };
}

function findCases(root) {
  const out = [];
  const walk = (dir) => {
    const names = fs.readdirSync(dir).sort();
    if (names.includes('model.onnx') && names.includes('test_data_set_0')) {
      out.push(path.relative(root, dir));
      return;
    }
    for (const n of names) {
      const p = path.join(dir, n);
      if (fs.statSync(p).isDirectory()) walk(p);
    }
  };
  walk(root);
  return out;
}

// The tool's JSON report, whatever its exit code says about the models.
function tool(bin, args) {
  try {
    return JSON.parse(execFileSync(bin, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 512 << 20 }));
  } catch (e) {
    if (e.stdout) return JSON.parse(e.stdout);
    throw e;
  }
}

function readExpected(file) {
  const rows = [];
  if (!file) return rows;
  for (const line of fs.readFileSync(file, 'utf8').split('\n')) {
    if (!line.trim() || line.startsWith('#')) continue;
    const [name, range, outcome, reason] = line.split('\t');
    const m = /^(\d+)(?:-(\d+))?$/.exec(range || '');
    if (!m || !['refused', 'fail'].includes(outcome) || !reason) throw new Error(`${file}: bad row: ${line}`);
    rows.push({ name, lo: Number(m[1]), hi: Number(m[2] ?? m[1]), outcome, reason, used: false });
  }
  return rows;
}

async function main() {
  const o = parseArgs(process.argv.slice(2));
  const expected = readExpected(o.expected);
  const { protobuf, ort } = loadDeps();
  const decode = makeDecoder(protobuf);
  fs.rmSync(o.work, { recursive: true, force: true });
  fs.mkdirSync(o.work, { recursive: true });

  const all = findCases(o.data);
  const cases = all.filter((_, i) => i % o.sample === 0);
  // Opsets, from one scan (no rules: it only reads the models).
  const opset = new Map();
  for (let i = 0; i < cases.length; i += 200) {
    const models = cases.slice(i, i + 200).map((c) => path.join(o.data, c, 'model.onnx'));
    const rep = tool(o.bin, ['scan', '--json', '--no-builtin-rules', ...models]);
    for (const m of rep.models) opset.set(path.relative(o.data, path.dirname(m.path)), m.opset_before || 0);
  }

  // Baseline: the original must run and match in onnxruntime.
  const data = new Map();
  const counted = [];
  const baselineFailed = [];
  for (const c of cases) {
    const dir = path.join(o.data, c);
    let loaded;
    try {
      loaded = loadDataSets(dir, decode);
    } catch (e) {
      baselineFailed.push(`${c}: ${e.message}`);
      continue;
    }
    const r = await runAndCompare(ort, path.join(dir, 'model.onnx'), loaded, RTOL, ATOL);
    if (r.failed === 0 && r.passed > 0) {
      counted.push(c);
      data.set(c, loaded);
    } else {
      baselineFailed.push(`${c}: ${r.lines.find((l) => l.startsWith('FAIL')) || 'no output compared'}`);
    }
  }

  const perTarget = [];
  const lowered = [];
  const refusalKinds = new Map();  // lowering: why nodes were refused -> count
  const unexpected = [];
  const lookup = (name, n) => expected.find((e) => e.name === name && e.lo <= n && n <= e.hi);
  // Converts TODO to opset N in one process; calls back (case, outcome, why).
  const convertAll = async (todo, n, tag, each) => {
    const inDir = path.join(o.work, `${tag}${n}`), outDir = path.join(o.work, `${tag}${n}-out`);
    for (const c of todo) {
      fs.mkdirSync(path.join(inDir, c), { recursive: true });
      fs.copyFileSync(path.join(o.data, c, 'model.onnx'), path.join(inDir, c, 'model.onnx'));
    }
    const rep = tool(o.bin, ['convert', inDir, '-o', outDir, '--opset', String(n), '--json', '-q']);
    const byCase = new Map(rep.models.map((m) => [path.relative(inDir, path.dirname(m.path)), m]));
    for (const c of todo) {
      const m = byCase.get(c);
      if (!m || m.outcome === 'failed') {
        const why = m && m.error ? `${m.error.stage}: ${m.error.message}` : 'not in the report';
        each(c, m && m.error && m.error.stage === 'rewrite' ? 'refused' : 'fail', why);
        continue;
      }
      const r = await runAndCompare(ort, path.join(outDir, c, 'model.onnx'), data.get(c), RTOL, ATOL);
      if (r.failed === 0 && r.passed > 0) each(c, 'pass', '');
      else each(c, 'fail', r.lines.find((l) => l.startsWith('FAIL')));
    }
  };

  // Lowering, to every opset from 7 below each case's own: refusals are expected (operators
  // that do not exist yet, forms the older version lacks); a converted model must run and match.
  if (o.down) {
    for (let n = 7; n < 21; n++) {
      const todo = counted.filter((c) => opset.get(c) > n);
      const tally = { target: n, cases: todo.length, pass: 0, refused: 0, fail: 0 };
      lowered.push(tally);
      if (todo.length === 0) continue;
      await convertAll(todo, n, 'down', (c, outcome, why) => {
        tally[outcome]++;
        if (outcome === 'refused') {
          const kind = (/: ([^:]*?(does not exist before opset \d+|is computed at run time|has no equivalent at opset \d+|[^:]*))$/.exec(why) || [, why])[1]
            .replace(/'[^']*'/g, "'…'").replace(/\d+/g, 'N');
          refusalKinds.set(kind, (refusalKinds.get(kind) || 0) + 1);
        } else if (outcome === 'fail') {
          const e = lookup(c, n);
          if (e && e.outcome === 'fail') e.used = true;
          else unexpected.push(`FAIL (lowering) ${c} (opset ${opset.get(c)}) -> ${n}: ${why}`);
        }
      });
    }
  }

  for (let n = o.lo; n <= o.hi; n++) {
    const todo = counted.filter((c) => opset.get(c) >= 1 && opset.get(c) < n);
    const tally = { target: n, cases: todo.length, pass: 0, refused: 0, fail: 0, expected: 0 };
    perTarget.push(tally);
    if (todo.length === 0) continue;
    await convertAll(todo, n, 'up', (c, outcome, why) => {
      const e = lookup(c, n);
      if (outcome === 'pass') {
        tally.pass++;
        if (e) unexpected.push(`STALE ${c} at ${n}: listed as ${e.outcome} (${e.reason}) but passes`);
        return;
      }
      tally[outcome]++;
      if (e && e.outcome === outcome) {
        e.used = true;
        tally.expected++;
      } else {
        unexpected.push(`${outcome.toUpperCase()} ${c} (opset ${opset.get(c)}) -> ${n}: ${why}`);
      }
    });
  }

  const table = ['| target opset | cases converted | pass | refused | fail | listed in expected |', '|---|---|---|---|---|---|'];
  for (const t of perTarget) table.push(`| ${t.target} | ${t.cases} | ${t.pass} | ${t.refused} | ${t.fail} | ${t.expected} |`);
  const total = perTarget.reduce((a, t) => ({ cases: a.cases + t.cases, pass: a.pass + t.pass, refused: a.refused + t.refused, fail: a.fail + t.fail }),
    { cases: 0, pass: 0, refused: 0, fail: 0 });
  table.push(`| all | ${total.cases} | ${total.pass} | ${total.refused} | ${total.fail} | |`);
  console.log(`${all.length} backend cases, ${cases.length} checked (every ${o.sample}), ${counted.length} run in onnxruntime as they are`);
  console.log(`baseline: ${baselineFailed.length} cases onnxruntime does not run or match as they are (not counted)`);
  console.log(table.join('\n'));
  if (o.table) fs.writeFileSync(o.table, table.join('\n') + '\n');
  if (o.down) {
    const down = ['| lowered to opset | cases above it | pass | refused | fail |', '|---|---|---|---|---|'];
    for (const t of lowered) down.push(`| ${t.target} | ${t.cases} | ${t.pass} | ${t.refused} | ${t.fail} |`);
    console.log(down.join('\n'));
    console.log('refusals when lowering, by reason:');
    for (const [k, v] of [...refusalKinds].sort((a, b) => b[1] - a[1])) console.log(`  ${v}\t${k}`);
    if (o.table) fs.appendFileSync(o.table, '\n' + down.join('\n') + '\n');
  }
  for (const u of unexpected) console.log(u);
  if (o.sample === 1 && o.lo === 8 && o.hi === NEWEST)
    for (const e of expected) if (!e.used && counted.includes(e.name)) console.log(`STALE ${e.name} ${e.lo}-${e.hi}: listed as ${e.outcome} but not seen`);
  const stale = o.sample === 1 && o.lo === 8 && o.hi === NEWEST ? expected.filter((e) => !e.used && counted.includes(e.name)).length : 0;
  console.log(`${total.pass} passed, ${unexpected.length + stale} unexpected`);
  process.exit(unexpected.length + stale === 0 ? 0 : 1);
}

main().catch((e) => {
  console.error(e);
  process.exit(2);
});
