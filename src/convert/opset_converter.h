// Converts a model's default-domain (ai.onnx) opset up or down, node by node,
// through the adapters of every operator change in between: the main graph,
// every If/Loop/Scan body and every model-local function. Everything the
// conversion does not need to touch stays as it was.
#pragma once

#include <string>
#include <vector>

#include <onnx/onnx_pb.h>

#include "core/status.h"

namespace remap {

struct NodeConversion {
  std::string graph;  // "main_graph", "main_graph/If_0.then_branch", "function pkg::Block"
  std::string node;   // node name ("" when it has none)
  std::string op;     // op_type before conversion
  std::string first_output;  // names a nameless node
  std::vector<std::string> steps;  // converted: "Squeeze 13: axes attribute -> input"
  std::string refusal;             // refused: why
};

struct ConversionReport {
  int from = 0, to = 0;
  std::vector<NodeConversion> converted;  // nodes an adapter changed
  std::vector<NodeConversion> refused;    // nodes that cannot cross (then nothing was changed)
};

// Converts `model` to default opset `to`. With refusals, the model is left
// unchanged and the report lists them; the Status is an error only for a
// target onnx-remap knows nothing of.
Expected<ConversionReport> ConvertOpset(onnx::ModelProto* model, int to);

// One line naming the refused nodes (the first few) and why: for errors.
std::string DescribeRefusals(const ConversionReport& report);

// One line for reports: "default opset raised from 9 to 13; 3 nodes adapted (Squeeze 13 x2, Split 13)".
std::string DescribeConversion(const ConversionReport& report);

// Lowest default opset the converter can produce / highest it knows.
int OldestConvertibleOpset();
int NewestConvertibleOpset();

}  // namespace remap
