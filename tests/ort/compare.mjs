#!/usr/bin/env node
// onnx-remap end-to-end numeric check.
//
//   node compare.mjs MODEL CASE_DIR [--rtol R] [--atol A]
//
// Runs MODEL with onnxruntime-node (CPU execution provider) on every
// CASE_DIR/test_data_set_*/ (ONNX backend-test layout: input_<i>.pb and
// output_<i>.pb are serialized onnx.TensorProto) and compares each produced
// output with its reference.
//
// * Inputs are fed by the tensor's name when that is a model input name,
//   otherwise by position (input_<i>.pb -> i-th model input). Outputs are
//   matched the same way.
// * An element passes when |got - ref| <= atol + rtol * |ref|; NaN matches
//   NaN only, an infinity matches the same infinity only. Element type and
//   shape must be equal.
// * Prints one line per compared output, then the plain line
//   "N passed, M failed".
// * Exit code: 0 when every output passed and at least one was compared,
//   1 otherwise (including a model that does not load or run), 2 on usage
//   errors (bad arguments, missing case dir, no data sets, unreadable .pb).
import { UsageError, loadDataSets, loadDeps, makeDecoder, runAndCompare } from './ort_compare.mjs';

const USAGE = 'usage: node compare.mjs MODEL CASE_DIR [--rtol R] [--atol A]';

function die(code, msg) {
  process.stderr.write(`compare.mjs: ${msg}\n`);
  process.exit(code);
}

// ---------------------------------------------------------------------------
// command line / data sets

function parseArgs(argv) {
  const pos = [];
  const opt = { rtol: 1e-3, atol: 1e-5 };
  const num = (flag, v) => {
    if (v === undefined || v === '') throw new UsageError(`${flag} needs a value`);
    const x = Number(v);
    if (!Number.isFinite(x) || x < 0) throw new UsageError(`${flag}: not a non-negative number: '${v}'`);
    return x;
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const m = /^(--rtol|--atol)(?:=(.*))?$/.exec(a);
    if (m) {
      const v = m[2] !== undefined ? m[2] : argv[++i];
      opt[m[1].slice(2)] = num(m[1], v);
    } else if (a === '-h' || a === '--help') {
      opt.help = true;
    } else if (a.startsWith('-') && a !== '-') {
      throw new UsageError(`unknown option '${a}'`);
    } else {
      pos.push(a);
    }
  }
  if (!opt.help && pos.length !== 2) throw new UsageError('expected MODEL and CASE_DIR');
  return { pos, opt };
}

async function main() {
  let pos, opt;
  try {
    ({ pos, opt } = parseArgs(process.argv.slice(2)));
  } catch (e) {
    die(2, `${e.message}\n${USAGE}`);
  }
  if (opt.help) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  const [modelPath, caseDir] = pos;
  let ort, decode, loaded;
  try {
    const deps = loadDeps();
    ort = deps.ort;
    decode = makeDecoder(deps.protobuf);
    loaded = loadDataSets(caseDir, decode);
  } catch (e) {
    if (e instanceof UsageError) die(2, e.message);
    throw e;
  }
  const { lines, passed, failed } = await runAndCompare(ort, modelPath, loaded, opt.rtol, opt.atol);
  for (const line of lines) console.log(line);
  console.log(`${passed} passed, ${failed} failed`);
  return failed === 0 && passed > 0 ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (e) => {
    process.stderr.write(`compare.mjs: internal error: ${(e && e.stack) || e}\n`);
    process.exit(1);
  },
);
