// The default ONNX domain is spelled "" or "ai.onnx"; every layer asks the
// same two questions about it, answered here once.
#pragma once

#include <string>
#include <string_view>

#include <onnx/onnx_pb.h>

namespace remap {

// Through string_view: the comparison with a literal inlines (a std::string
// compared with a char* calls out to strlen and compare, once per node).
inline bool IsDefaultDomain(const std::string& domain) { return domain.empty() || std::string_view(domain) == "ai.onnx"; }

// The default-domain opset a model or function imports; 0 when none.
int DefaultOpset(const google::protobuf::RepeatedPtrField<onnx::OperatorSetIdProto>& imports);

}  // namespace remap
