// The structural rules of ONNX a rewrite relies on, checked once on load in
// O(size of the model): every node reads values defined before it (no cycle,
// nothing dangling), every value is written once per graph, subgraphs nest at
// most kMaxSubgraphDepth deep, and every inline tensor holds as many elements
// as its dims declare. A model that breaks them is refused (kInvalidModel)
// before any later stage trusts it.
#pragma once

#include <string>
#include <string_view>

#include <onnx/onnx_pb.h>

#include "core/status.h"

namespace remap {

// Deeper than any exporter writes; small enough that the recursive walks over
// subgraphs (ours, protobuf's parser, ONNX's inference and checker) stay far
// from the stack's end.
inline constexpr int kMaxSubgraphDepth = 64;

class DeferredNodes;
class GraphIndex;

// The message says what is wrong, without the file name. The walk builds the
// main graph's GraphIndex as it checks (one table of names for both); when
// `main_index` is given and the model passes, the index is kept there.
// With `deferred`, the main graph's placeholder nodes stand for its runs of
// nodes left as bytes (deferred_nodes.h), which are checked and indexed in
// their place. Their faults get a message that does not name the node: the
// loader then loads the model whole, and reports it as this check words it.
Status CheckModelStructure(const onnx::ModelProto& model, GraphIndex* main_index = nullptr,
                           const DeferredNodes* deferred = nullptr);

// How deep subgraphs nest in a serialized ModelProto (0: none), read from the
// wire format without recursion, so it also measures models protobuf refuses
// to parse. Stops early at `stop_at`. Malformed bytes count as far as they read.
int SerializedSubgraphDepth(std::string_view bytes, int stop_at);

}  // namespace remap
