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

}  // namespace remap
