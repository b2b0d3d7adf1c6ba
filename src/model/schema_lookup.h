// ONNX operator schemas by (op_type, opset, domain), remembered per thread.
// OpSchemaRegistry::Schema walks three nested maps keyed by strings and
// hashes the op name several times per call; typing and emitting ask it for
// the same few operators once per node (a million-node rewrite asks it
// hundreds of thousands of times). The registry never changes once filled,
// so an answer, nullptr included, stays right for the process's life.
#pragma once

#include <string>

#include <onnx/defs/schema.h>

namespace remap {

// What onnx::OpSchemaRegistry::Schema(op_type, max_version, domain) returns.
const onnx::OpSchema* FindSchema(const std::string& op_type, int max_version, const std::string& domain);

}  // namespace remap
