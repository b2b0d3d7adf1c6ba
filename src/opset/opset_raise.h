// Raising a model's default opset: allowed only when every default-domain node
// already in the model means the same at the new opset (opset/opset_changes).
#pragma once

#include <onnx/onnx_pb.h>

#include "core/status.h"

namespace remap {

// Refuses, naming the nodes that would change meaning, when raising from
// `from` to `to` is unsafe.
Status CheckDefaultOpsetRaise(const onnx::ModelProto& model, int from, int to);

// Sets the default opset of the model and its functions to `to`, and the IR
// version to the lowest one that carries that opset when it is below it.
void RaiseDefaultOpset(onnx::ModelProto* model, int to);

// Lowest IR version released with the given default opset.
int MinIrVersionForOpset(int opset);

}  // namespace remap
