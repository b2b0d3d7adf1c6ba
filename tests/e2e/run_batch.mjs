#!/usr/bin/env node
// End-to-end check of many fixture cases in one onnxruntime process:
//
//   node run_batch.mjs BIN WORK_ROOT LIST
//
// LIST is a tab-separated file, one case per line:
//   CASE_DIR  RTOL  ATOL  TARGET_OPSET|-  TARGET|-
// For each case, the same steps as run_case.sh (which checks one case, for
// debugging), writing only under WORK_ROOT/<case>/:
//   (a) BIN rewrite CASE_DIR/model.onnx -o out.onnx [--opset N] [--target T]  -> exit 0
//   (b) the case directory (model.onnx, data) is unchanged
//   (c) out.onnx in onnxruntime on every test_data_set_*: all outputs within RTOL/ATOL
//   (d) BIN scan out.onnx --json [--target T]                                 -> nothing unmapped
//   (e) BIN rewrite out.onnx -o out2.onnx ...                                 -> byte-identical
// Prints "E2E PASS [case]" or "E2E FAIL [case] (step) why" with context per
// case, then a summary. Exit 0 when every case passed, 1 otherwise, 2 on usage
// errors. One Node process per case costs more than most checks (loading
// onnxruntime alone takes about a second), hence the batch.
import { spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { UsageError, loadDataSets, loadDeps, makeDecoder, runAndCompare } from '../ort/ort_compare.mjs';

const USAGE = 'usage: node run_batch.mjs BIN WORK_ROOT LIST';

function usage(msg) {
  process.stderr.write(`run_batch.mjs: ${msg}\n${USAGE}\n`);
  process.exit(2);
}

function readList(file) {
  let text;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (e) {
    usage(`cannot read ${file}: ${e.code || e.message}`);
  }
  return text
    .split('\n')
    .filter((l) => l.trim())
    .map((line, i) => {
      const f = line.split('\t');
      if (f.length !== 5) usage(`${file}:${i + 1}: expected 5 tab-separated fields, got ${f.length}`);
      const [dir, rtol, atol, opset, target] = f;
      return {
        dir,
        name: path.basename(dir),
        rtol: Number(rtol),
        atol: Number(atol),
        opset: opset === '-' ? null : opset,
        target: target === '-' ? null : target,
      };
    });
}

// sha256 of every file under DIR, sorted by path: catches edits and stray files.
function digest(dir) {
  const entries = [];
  const walk = (d) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else entries.push(`${path.relative(dir, p)} ${crypto.createHash('sha256').update(fs.readFileSync(p)).digest('hex')}`);
    }
  };
  walk(dir);
  return entries.sort().join('\n');
}

function run(bin, args) {
  const r = spawnSync(bin, args, { encoding: 'utf8', maxBuffer: 64 << 20 });
  return { code: r.status === null ? `signal ${r.signal}` : r.status, out: `${r.stdout || ''}${r.stderr || ''}` };
}

const indent = (text) =>
  text
    .trimEnd()
    .split('\n')
    .filter((l) => l)
    .map((l) => `    | ${l}`)
    .join('\n');

class StepFailure extends Error {}

async function checkCase(c, bin, workRoot, ort, decode) {
  const work = path.join(workRoot, c.name);
  fs.rmSync(work, { recursive: true, force: true });
  fs.mkdirSync(work, { recursive: true });
  const out = path.join(work, 'out.onnx');
  const out2 = path.join(work, 'out2.onnx');
  const rewriteArgs = [...(c.opset ? ['--opset', c.opset] : []), ...(c.target ? ['--target', c.target] : [])];
  const log = [];
  const fail = (step, why, context) => {
    throw new StepFailure(`(${step}) ${why}${context ? `\n${indent(context)}` : ''}`);
  };

  const before = digest(c.dir);
  let r = run(bin, ['rewrite', path.join(c.dir, 'model.onnx'), '-o', out, ...rewriteArgs]);
  if (r.code !== 0) fail('a', `rewrite exited ${r.code}, expected 0`, r.out);
  if (!fs.existsSync(out) || fs.statSync(out).size === 0) fail('a', `rewrite exited 0 but wrote no (or an empty) ${out}`, r.out);

  if (digest(c.dir) !== before) fail('b', `rewrite modified the input case dir ${c.dir}`);

  let loaded;
  try {
    loaded = loadDataSets(c.dir, decode);
  } catch (e) {
    fail('c', e.message);
  }
  const cmp = await runAndCompare(ort, out, loaded, c.rtol, c.atol);
  log.push(...cmp.lines);
  if (cmp.failed || !cmp.passed)
    fail('c', `onnxruntime results of the rewritten model do not match the reference (rtol ${c.rtol}, atol ${c.atol})`, cmp.lines.join('\n'));

  r = run(bin, ['scan', out, '--json', ...(c.target ? ['--target', c.target] : [])]);
  if (r.code !== 0) fail('d', `scan of the rewritten model exited ${r.code}, expected 0`, r.out);
  let scan;
  try {
    scan = JSON.parse(r.out);
  } catch (e) {
    fail('d', `scan --json output is not one JSON object: ${e.message}`, r.out);
  }
  const m = scan.models && scan.models.length === 1 ? scan.models[0] : null;
  // Unmapped nodes a rule would still rewrite (rewritten) or not (remaining): both must be none.
  const unmapped = m && Array.isArray(m.rewritten) && Array.isArray(m.remaining) ? [...m.rewritten, ...m.remaining] : null;
  if (!Array.isArray(unmapped)) fail('d', 'scan --json: no models[0].rewritten/remaining arrays', r.out);
  if (unmapped.length) fail('d', 'scan reports unmapped nodes in the rewritten model', unmapped.map((u) => JSON.stringify(u)).join('\n'));

  r = run(bin, ['rewrite', out, '-o', out2, ...rewriteArgs]);
  if (r.code !== 0) fail('e', `second rewrite exited ${r.code}, expected 0`, r.out);
  if (!fs.existsSync(out2) || !fs.readFileSync(out).equals(fs.readFileSync(out2)))
    fail('e', 'rewrite is not idempotent: out2.onnx differs from out.onnx');
  return log;
}

async function main() {
  const [bin, workRoot, listFile, ...extra] = process.argv.slice(2);
  if (!listFile || extra.length) usage('expected BIN WORK_ROOT LIST');
  if (!fs.existsSync(bin)) usage(`onnx-remap binary not found: ${bin} (build it first)`);
  const cases = readList(listFile);
  let ort, decode;
  try {
    const deps = loadDeps();
    ort = deps.ort;
    decode = makeDecoder(deps.protobuf);
  } catch (e) {
    if (e instanceof UsageError) usage(e.message);
    throw e;
  }
  const failed = [];
  for (const c of cases) {
    const t0 = Date.now();
    try {
      const log = await checkCase(c, bin, workRoot, ort, decode);
      console.log(`E2E PASS [${c.name}] (${Date.now() - t0} ms)`);
      if (log.length) console.log(indent(log.join('\n')));
    } catch (e) {
      if (!(e instanceof StepFailure)) throw e;
      failed.push(c.name);
      console.log(`E2E FAIL [${c.name}] ${e.message}`);
      console.log(`    rerun alone: bash tests/e2e/run_case.sh ${bin} ${c.dir} /tmp/e2e-${c.name} ${c.rtol} ${c.atol}` +
                  `${c.opset ? ` ${c.opset}` : ''}${c.target ? ` --target ${c.target}` : ''}`);
    }
  }
  console.log(`${cases.length - failed.length} passed, ${failed.length} failed${failed.length ? `: ${failed.join(' ')}` : ''}`);
  return failed.length ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (e) => {
    process.stderr.write(`run_batch.mjs: internal error: ${(e && e.stack) || e}\n`);
    process.exit(1);
  },
);
