// ONNX field numbers and protobuf wire types that the wire-level scans
// (wire_format_scan, node_split_parse, deferred_nodes) read, from onnx.proto.
#pragma once

#include <cstdint>

namespace remap::wire {

constexpr uint32_t kLengthDelimited = 2;  // wire type of strings and messages

constexpr uint32_t kModelGraph = 7;  // ModelProto.graph

constexpr uint32_t kGraphNode = 1;         // GraphProto.node
constexpr uint32_t kGraphInitializer = 5;  // GraphProto.initializer

constexpr uint32_t kNodeInput = 1;  // NodeProto fields
constexpr uint32_t kNodeOutput = 2;
constexpr uint32_t kNodeName = 3;
constexpr uint32_t kNodeOpType = 4;
constexpr uint32_t kNodeDocString = 6;
constexpr uint32_t kNodeDomain = 7;

constexpr uint32_t kTensorRawData = 9;  // TensorProto fields
constexpr uint32_t kTensorExternalData = 13;
constexpr uint32_t kTensorDataLocation = 14;

}  // namespace remap::wire
