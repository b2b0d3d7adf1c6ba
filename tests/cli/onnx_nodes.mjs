// Prints the nodes of an ONNX model's main graph, one per line, for CLI tests
// that check what a rewrite emitted (op, domain, input order, attributes):
//   DOMAIN::OP_TYPE(in0, in1, ...) name=value ...   (attributes sorted by name)
//   node onnx_nodes.mjs MODEL.onnx
// Uses protobufjs from tests/ort/node_modules with a reduced onnx.proto
// (field numbers as in onnx/onnx.proto).
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const require = createRequire(path.join(here, '..', 'ort', 'package.json'));
const protobuf = require('protobufjs');

const PROTO = `
syntax = "proto2";
package onnx;
message AttributeProto {
  optional string name = 1;
  optional float f = 2;
  optional int64 i = 3;
  optional bytes s = 4;
  repeated float floats = 7;
  repeated int64 ints = 8;
  repeated bytes strings = 9;
  optional int32 type = 20;
}
message NodeProto {
  repeated string input = 1;
  repeated string output = 2;
  optional string name = 3;
  optional string op_type = 4;
  repeated AttributeProto attribute = 5;
  optional string domain = 7;
}
message GraphProto { repeated NodeProto node = 1; }
message ModelProto { optional GraphProto graph = 7; }
`;
const root = protobuf.parse(PROTO).root;
const Model = root.lookupType('onnx.ModelProto');
const model = Model.toObject(Model.decode(fs.readFileSync(process.argv[2])), { longs: Number, bytes: String, defaults: false });
const dec = (b) => Buffer.from(b, 'base64').toString('utf8');
for (const n of (model.graph && model.graph.node) || []) {
  const attrs = (n.attribute || []).slice().sort((a, b) => (a.name < b.name ? -1 : 1)).map((a) => {
    let v;
    switch (a.type) {
      case 1: v = String(a.f); break;                       // FLOAT
      case 2: v = String(a.i ?? 0); break;                  // INT
      case 3: v = JSON.stringify(dec(a.s || '')); break;    // STRING
      case 6: v = '[' + (a.floats || []).join(',') + ']'; break;
      case 7: v = '[' + (a.ints || []).join(',') + ']'; break;
      default: v = '<type ' + a.type + '>';
    }
    return ` ${a.name}=${v}`;
  });
  console.log(`${n.domain || ''}::${n.opType}(${(n.input || []).join(', ')})${attrs.join('')}`);
}
