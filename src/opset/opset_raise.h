// Setting a model's default opset once its nodes are at that opset (the
// converter, convert/opset_converter, carries them across; the engine imports
// the default domain into a model that had none).
#pragma once

#include <onnx/onnx_pb.h>


namespace remap {

// Sets the default opset of the model and of its functions that import the
// default domain to `to` (importing it where the model has none), and the IR
// version to the lowest one that carries that opset when it is below it.
void SetDefaultOpset(onnx::ModelProto* model, int to);

// Lowest IR version released with the given default opset.
int MinIrVersionForOpset(int opset);

}  // namespace remap
