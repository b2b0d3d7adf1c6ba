// Parses a serialized model with its main graph's nodes on several threads.
// A million-node model is nearly all NodeProto records, and protobuf parses
// a message on one thread. The records of the graph's `node` field are one
// run of bytes in what protobuf and ONNX's writers emit (fields in number
// order, `node` first); that run is cut at record boundaries into pieces,
// each piece parses as a GraphProto of those nodes only, and the rest of the
// model (the bytes without the run, the graph's length fixed) parses on its
// own. The nodes are then moved, in order, into the rest's graph: the same
// message one sequential parse gives.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include <google/protobuf/message_lite.h>
#include <onnx/onnx_pb.h>

namespace remap {

// Parses one serialized message from [data, data + size) the way the loader
// does: no total size limit below protobuf's own, `recursion_limit` levels
// of nesting, every byte consumed.
bool ParseMessageBytes(const char* data, size_t size, int recursion_limit, google::protobuf::MessageLite* message);

struct NodeSplitOptions {
  // Below this many bytes of node records a second thread costs more than it saves.
  size_t min_node_bytes = size_t{8} << 20;
  // At least this much of a piece, so that a thread has work worth starting it for.
  size_t min_piece_bytes = size_t{2} << 20;
  int threads = 0;  // 0: one per core
};

// True with *model filled when the split applied and every part parsed
// (with `recursion_limit` as protobuf's nesting limit, the pieces' depth
// counted as inside the model). False, *model untouched, when it does not
// apply (small, one core, a second graph field, node records not in one run,
// malformed bytes): the caller parses the bytes whole, which then gives the
// usual result or error.
bool ParseSplittingNodes(std::string_view bytes, int recursion_limit, const NodeSplitOptions& options,
                         onnx::ModelProto* model);

}  // namespace remap
