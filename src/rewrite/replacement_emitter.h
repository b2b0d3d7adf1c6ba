// Instantiates an alternative's replacement for one matched node: renames
// arguments to the node's inputs, returns to the node's outputs, locals to
// fresh unique names, and turns ${expr} references into typed attributes.
#pragma once

#include <string>
#include <vector>

#include <onnx/onnx_pb.h>

#include "match/argument_binding.h"
#include "match/emit_record.h"
#include "match/guard.h"
#include "model/graph_index.h"
#include "rules/rule.h"

namespace remap {

// `record` (may be null) receives the fresh names asked for, in order.
bool EmitReplacement(const onnx::NodeProto& node, const Rule& rule, const Alternative& alt, const Binding& binding,
                     int target_opset, GraphIndex* index, std::vector<onnx::NodeProto>* out, RuleFailure* failure,
                     EmitRecord* record = nullptr);

}  // namespace remap
