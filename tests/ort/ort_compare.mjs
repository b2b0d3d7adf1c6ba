// Runs a model in onnxruntime-node on a case's test data sets (ONNX
// backend-test layout) and compares every output with its reference. Shared by
// compare.mjs (one model, command line) and tests/e2e/run_batch.mjs (many
// models in one process: loading onnxruntime once per model costs more than
// most checks).
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
export const HINT = 'run: npm ci --ignore-scripts --prefix tests/ort';

export class UsageError extends Error {}

// Throws UsageError when a dependency is missing.
export function loadDeps() {
  let protobuf, ort;
  try {
    protobuf = require('protobufjs');
  } catch (e) {
    throw new UsageError(`cannot load protobufjs (${e.code || e.message}); ${HINT}`);
  }
  try {
    ort = require('onnxruntime-node');
  } catch (e) {
    throw new UsageError(`cannot load onnxruntime-node (${String(e.message).split('\n')[0]}); ${HINT}`);
  }
  return { protobuf, ort };
}

// ---------------------------------------------------------------------------
// onnx.TensorProto, reduced to what backend-test data uses (field numbers as
// in onnx/onnx.proto).
const TENSOR_PROTO = `
syntax = "proto2";
package onnx;
message StringStringEntryProto {
  optional string key = 1;
  optional string value = 2;
}
message TensorProto {
  message Segment {
    optional int64 begin = 1;
    optional int64 end = 2;
  }
  repeated int64 dims = 1;
  optional int32 data_type = 2;
  optional Segment segment = 3;
  repeated float float_data = 4 [packed = true];
  repeated int32 int32_data = 5 [packed = true];
  repeated bytes string_data = 6;
  repeated int64 int64_data = 7 [packed = true];
  optional string name = 8;
  optional bytes raw_data = 9;
  repeated double double_data = 10 [packed = true];
  repeated uint64 uint64_data = 11 [packed = true];
  optional string doc_string = 12;
  repeated StringStringEntryProto external_data = 13;
  optional int32 data_location = 14;
}
`;

// TensorProto.DataType -> element description.
//   ort:   onnxruntime-js tensor type name
//   Arr:   typed array used to hold the elements (float16 keeps its raw bits)
//   field: typed field that carries the values when raw_data is absent
const DTYPES = {
  1: { ort: 'float32', Arr: Float32Array, field: 'float_data' },
  2: { ort: 'uint8', Arr: Uint8Array, field: 'int32_data' },
  3: { ort: 'int8', Arr: Int8Array, field: 'int32_data' },
  4: { ort: 'uint16', Arr: Uint16Array, field: 'int32_data' },
  5: { ort: 'int16', Arr: Int16Array, field: 'int32_data' },
  6: { ort: 'int32', Arr: Int32Array, field: 'int32_data' },
  7: { ort: 'int64', Arr: BigInt64Array, field: 'int64_data' },
  9: { ort: 'bool', Arr: Uint8Array, field: 'int32_data' },
  10: { ort: 'float16', Arr: Uint16Array, field: 'int32_data' },
  11: { ort: 'float64', Arr: Float64Array, field: 'double_data' },
  12: { ort: 'uint32', Arr: Uint32Array, field: 'uint64_data' },
  13: { ort: 'uint64', Arr: BigUint64Array, field: 'uint64_data' },
};

// protobufjs yields 64-bit integers as Long objects (or plain numbers).
function int64ToBigInt(v, unsigned) {
  if (typeof v === 'bigint') return v;
  if (typeof v === 'number') return BigInt(v);
  if (v && typeof v.low === 'number' && typeof v.high === 'number') {
    const lo = BigInt(v.low >>> 0);
    const hi = BigInt(v.high >>> 0);
    const u = (hi << 32n) | lo;
    return unsigned || v.unsigned ? u : BigInt.asIntN(64, u);
  }
  return BigInt(String(v));
}

export function makeDecoder(protobuf) {
  const TensorProto = protobuf.parse(TENSOR_PROTO, { keepCase: true }).root.lookupType('onnx.TensorProto');
  return function decode(file) {
    let msg;
    try {
      msg = TensorProto.decode(fs.readFileSync(file));
    } catch (e) {
      throw new UsageError(`${file}: not a TensorProto (${e.message})`);
    }
    const where = `${file} (tensor '${msg.name || ''}')`;
    const info = DTYPES[msg.data_type];
    if (!info) throw new UsageError(`${where}: unsupported data_type ${msg.data_type}`);
    if (msg.data_location === 1 || (msg.external_data && msg.external_data.length)) {
      throw new UsageError(`${where}: external data is not supported`);
    }
    const dims = (msg.dims || []).map((d) => Number(int64ToBigInt(d, false)));
    const count = dims.reduce((a, b) => a * b, 1);
    const { Arr } = info;
    let data;
    if (msg.raw_data && msg.raw_data.length) {
      const nbytes = count * Arr.BYTES_PER_ELEMENT;
      if (msg.raw_data.length !== nbytes) {
        throw new UsageError(`${where}: raw_data holds ${msg.raw_data.length} bytes, shape needs ${nbytes}`);
      }
      // Copy into a fresh, aligned buffer (raw_data is little-endian, as is the host).
      const buf = new ArrayBuffer(nbytes);
      new Uint8Array(buf).set(msg.raw_data);
      data = new Arr(buf);
    } else {
      const src = msg[info.field] || [];
      if (src.length !== count) {
        throw new UsageError(`${where}: ${info.field} holds ${src.length} values, shape needs ${count}`);
      }
      data = new Arr(count);
      const big = Arr === BigInt64Array || Arr === BigUint64Array;
      for (let i = 0; i < count; i++) {
        const v = src[i];
        if (big) data[i] = int64ToBigInt(v, Arr === BigUint64Array);
        else if (typeof v === 'number') data[i] = v;
        else data[i] = Number(int64ToBigInt(v, true)); // uint32 stored in uint64_data
      }
    }
    return { name: msg.name || '', type: info.ort, dims, data };
  };
}

// ---------------------------------------------------------------------------
// comparison

function halfBitsToNumber(h) {
  const sign = h & 0x8000 ? -1 : 1;
  const exp = (h >>> 10) & 0x1f;
  const frac = h & 0x3ff;
  if (exp === 0) return sign * frac * 2 ** -24; // zero / subnormal
  if (exp === 0x1f) return frac ? NaN : sign * Infinity;
  return sign * (1 + frac / 1024) * 2 ** (exp - 15);
}

// Element i of a tensor as a JS number (bigint kept exact for int64/uint64).
function elementReader(type, data) {
  if (type === 'float16' && data instanceof Uint16Array) return (i) => halfBitsToNumber(data[i]);
  if (type === 'bool') return (i) => (data[i] ? 1 : 0);
  return (i) => data[i];
}

function fmtShape(dims) {
  return `[${dims.join(',')}]`;
}

function fmtErr(x) {
  if (Number.isNaN(x)) return 'n/a';
  if (!Number.isFinite(x)) return 'inf';
  return x === 0 ? '0' : x.toExponential(3);
}

function compareTensors(ref, got, rtol, atol) {
  const res = { ok: false, maxAbs: NaN, detail: '' };
  if (ref.type !== got.type) {
    res.detail = `dtype mismatch: expected ${ref.type}, got ${got.type}`;
    return res;
  }
  const gotDims = Array.from(got.dims, Number);
  if (ref.dims.length !== gotDims.length || ref.dims.some((d, i) => d !== gotDims[i])) {
    res.detail = `shape mismatch: expected ${fmtShape(ref.dims)}, got ${fmtShape(gotDims)}`;
    return res;
  }
  const n = ref.data.length;
  if (got.data.length !== n) {
    res.detail = `element count mismatch: expected ${n}, got ${got.data.length}`;
    return res;
  }
  const r = elementReader(ref.type, ref.data);
  const g = elementReader(got.type, got.data);
  let maxAbs = 0;
  let bad = 0;
  let first = -1;
  for (let i = 0; i < n; i++) {
    const x = r(i);
    const y = g(i);
    let ok;
    let d;
    if (typeof x === 'bigint' || typeof y === 'bigint') {
      const db = BigInt(x) > BigInt(y) ? BigInt(x) - BigInt(y) : BigInt(y) - BigInt(x);
      d = Number(db);
      ok = db === 0n || d <= atol + rtol * Math.abs(Number(x));
    } else if (Number.isNaN(x) || Number.isNaN(y)) {
      ok = Number.isNaN(x) && Number.isNaN(y);
      d = ok ? 0 : Infinity;
    } else if (!Number.isFinite(x) || !Number.isFinite(y)) {
      ok = x === y;
      d = ok ? 0 : Infinity;
    } else {
      d = Math.abs(x - y);
      ok = d <= atol + rtol * Math.abs(x);
    }
    if (d > maxAbs) maxAbs = d;
    if (!ok) {
      bad++;
      if (first < 0) first = i;
    }
  }
  res.maxAbs = maxAbs;
  res.ok = bad === 0;
  if (!res.ok) res.detail = `${bad}/${n} elements out of tolerance, first at flat index ${first}: expected ${r(first)}, got ${g(first)}`;
  return res;
}

function numbered(dir, prefix) {
  const re = new RegExp(`^${prefix}_(\\d+)\\.pb$`);
  const found = [];
  for (const f of fs.readdirSync(dir)) {
    const m = re.exec(f);
    if (m) found.push([Number(m[1]), path.join(dir, f)]);
  }
  found.sort((a, b) => a[0] - b[0]);
  found.forEach(([k], i) => {
    if (k !== i) throw new UsageError(`${dir}: ${prefix}_<i>.pb files are not numbered 0..${found.length - 1}`);
  });
  return found.map(([, f]) => f);
}

export function dataSets(caseDir) {
  let st;
  try {
    st = fs.statSync(caseDir);
  } catch {
    throw new UsageError(`case dir not found: ${caseDir}`);
  }
  if (!st.isDirectory()) throw new UsageError(`not a directory: ${caseDir}`);
  const sets = fs
    .readdirSync(caseDir)
    .filter((d) => /^test_data_set_\d+$/.test(d) && fs.statSync(path.join(caseDir, d)).isDirectory())
    .sort((a, b) => Number(a.slice(14)) - Number(b.slice(14)));
  if (sets.length === 0) throw new UsageError(`no test_data_set_* directories in ${caseDir}`);
  return sets;
}

// name -> position fallback, shared by inputs and outputs
function bindNames(tensors, modelNames, what, setName) {
  const names = [];
  const used = new Set();
  tensors.forEach((t, i) => {
    let name;
    if (t.name && modelNames.includes(t.name)) name = t.name;
    else if (i < modelNames.length) name = modelNames[i];
    else throw new Error(`${setName}: ${what}_${i}.pb ('${t.name}') has no matching model ${what} (model has ${modelNames.length})`);
    if (used.has(name)) throw new Error(`${setName}: model ${what} '${name}' is bound twice`);
    used.add(name);
    names.push(name);
  });
  return names;
}

export function firstLine(e) {
  return String((e && e.message) || e).split('\n')[0];
}


// Decodes every data set of CASE_DIR: [{set, inputs, outputs}]. Throws UsageError.
export function loadDataSets(caseDir, decode) {
  const loaded = [];
  for (const s of dataSets(caseDir)) {
    const dir = path.join(caseDir, s);
    const inputs = numbered(dir, 'input').map(decode);
    const outputs = numbered(dir, 'output').map(decode);
    if (outputs.length === 0) throw new UsageError(`${dir}: no output_<i>.pb`);
    loaded.push({ set: s, inputs, outputs });
  }
  return loaded;
}

// Runs MODEL_PATH on the decoded data sets. Returns {lines, passed, failed}:
// one line per compared output (or per load/run failure).
export async function runAndCompare(ort, modelPath, loaded, rtol, atol) {
  const lines = [];
  if (!fs.existsSync(modelPath)) {
    lines.push(`FAIL load ${modelPath}: file not found`);
    return { lines, passed: 0, failed: 1 };
  }
  let session;
  try {
    session = await ort.InferenceSession.create(modelPath, {
      executionProviders: ['cpu'],
      intraOpNumThreads: 1,
      interOpNumThreads: 1,
      logSeverityLevel: 3,
    });
  } catch (e) {
    lines.push(`FAIL load ${modelPath}: ${firstLine(e)}`);
    return { lines, passed: 0, failed: 1 };
  }
  let passed = 0;
  let failed = 0;
  for (const { set, inputs, outputs } of loaded) {
    let outNames;
    let result;
    try {
      const inNames = bindNames(inputs, session.inputNames, 'input', set);
      outNames = bindNames(outputs, session.outputNames, 'output', set);
      const feeds = {};
      inputs.forEach((t, i) => {
        feeds[inNames[i]] = new ort.Tensor(t.type, t.data, t.dims);
      });
      result = await session.run(feeds, outNames);
    } catch (e) {
      lines.push(`FAIL ${set} run: ${firstLine(e)}`);
      failed += outputs.length;
      continue;
    }
    outputs.forEach((ref, i) => {
      const name = outNames[i];
      const got = result[name];
      const c = got ? compareTensors(ref, got, rtol, atol) : { ok: false, maxAbs: NaN, detail: 'output not produced' };
      if (c.ok) passed++;
      else failed++;
      let line = `${c.ok ? 'PASS' : 'FAIL'} ${set} output_${i} ${name} shape=${fmtShape(ref.dims)} dtype=${ref.type} max_abs_err=${fmtErr(c.maxAbs)}`;
      if (!c.ok) line += ` (${c.detail})`;
      lines.push(line);
    });
  }
  try {
    await session.release();
  } catch {
    /* ignore */
  }
  return { lines, passed, failed };
}
