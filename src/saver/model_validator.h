// Shape inference (so rewritten outputs get their types back) and the ONNX
// checker, run only where ONNX 1.12 knows the model's IR and opsets.
#pragma once

#include <string>
#include <vector>

#include <onnx/onnx_pb.h>

#include "core/status.h"

namespace remap {

// Newest IR version and default opset the linked ONNX library knows.
int KnownIrVersion();
int KnownDefaultOpset();

// Infers shapes into `model` and checks it. Appends plain notes on what was
// skipped and why. Fails only when the checker rejects a model that has no
// unmapped nodes left (with unmapped nodes a rejection is expected: a note).
Status InferAndCheck(onnx::ModelProto* model, bool unmapped_remain, std::vector<std::string>* notes);

}  // namespace remap
