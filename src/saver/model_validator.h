// Shape inference and the ONNX
// checker, run only where ONNX 1.12 knows the model's IR and opsets.
#pragma once

#include <string>
#include <vector>

#include <onnx/onnx_pb.h>

#include "core/status.h"

namespace remap {

// Infers shapes into `model` and checks it. The inferred value_info and output
// types stay in the model only with `keep_inferred_types`; otherwise the model
// comes out with the types it came in with. Appends plain notes on what was
// skipped and why. The checker runs only when no unmapped node remains (it
// would just reject those); its rejection then is an error. External data is
// looked up relative to `model_dir`, the folder the model was read from.
Status InferAndCheck(onnx::ModelProto* model, const std::string& model_dir, bool unmapped_remain,
                     bool keep_inferred_types, std::vector<std::string>* notes);

// A node a rewrite added, where it now is in the model; `function` is the
// model-local function holding it (its opset imports apply), or null.
struct AddedNode {
  const onnx::NodeProto* node = nullptr;
  const onnx::FunctionProto* function = nullptr;
};

// Checks only what a rewrite added, in time proportional to it: each added
// node against its operator's schema at the imported opset (known operator,
// attributes, input and output counts, subgraphs), as ONNX's checker does per
// node, with its domain imported. Their types were already checked as they
// were emitted (TypeOracle::TypeReplacement). Names a subgraph of an added
// node reads from outside are trusted. Skipped, with a note, where ONNX 1.12
// does not know the model's IR or opset.
Status CheckAddedNodes(const onnx::ModelProto& model, const std::vector<AddedNode>& added,
                       std::vector<std::string>* notes);

}  // namespace remap
