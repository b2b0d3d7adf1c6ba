// The default ONNX domain is spelled "" or "ai.onnx"; every layer asks the
// same two questions about it, answered here once.
#pragma once

#include <string>

#include <onnx/onnx_pb.h>

namespace remap {

inline bool IsDefaultDomain(const std::string& domain) { return domain.empty() || domain == "ai.onnx"; }

// The default-domain opset a model or function imports; 0 when none.
int DefaultOpset(const google::protobuf::RepeatedPtrField<onnx::OperatorSetIdProto>& imports);

}  // namespace remap
