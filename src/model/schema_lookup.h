// ONNX operator schemas by (op_type, opset, domain), remembered per thread.
// A catalog lookup (model/schema_catalog.h) is a binary search comparing
// strings; typing, emitting and ONNX's checker ask for the same few
// operators once per node (a million-node rewrite asks hundreds of
// thousands of times). The catalog never changes, so an answer, nullptr
// included, stays right for the process's life.
#pragma once

#include <string>

#include <onnx/defs/schema.h>

namespace remap {

// What onnx::OpSchemaRegistry::Schema(op_type, max_version, domain) would return.
const onnx::OpSchema* FindSchema(const std::string& op_type, int max_version, const std::string& domain);

}  // namespace remap
