// Finds the node `onnx-remap rules new MODEL NODE` starts a rule from: the
// node of that name, else the first unmapped node of that operator, searched
// in the main graph (with its If/Loop/Scan bodies) and then the model-local
// functions.
#pragma once

#include <string>

#include <onnx/onnx_pb.h>

#include "core/status.h"
#include "match/node_form.h"

namespace remap::cli {

struct FoundNode {
  const onnx::NodeProto* node = nullptr;
  NodeForm form;
  // The graph tree that holds the node (value names are unique across it):
  // the main graph, or one model-local function.
  const onnx::GraphProto* graph = nullptr;
  const onnx::FunctionProto* function = nullptr;
  std::string where;  // "the main graph", "the body of Loop '/loop'", "function custom::F"
};

// `spec` is a node name, or an operator: "aten::foo" / "foo" (an ATen
// fallback or fall-through node of foo; "foo" also any unmapped op type foo)
// or "domain::OpType". Fails (kUsage) naming what was looked for; a node
// found by name that is standard ONNX is refused too, as no rule applies to it.
Expected<FoundNode> FindNodeForRule(const onnx::ModelProto& model, const std::string& spec);

}  // namespace remap::cli
