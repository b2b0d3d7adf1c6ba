#include "model/opset_import.h"

namespace remap {

int DefaultOpset(const google::protobuf::RepeatedPtrField<onnx::OperatorSetIdProto>& imports) {
  for (const auto& op : imports) {
    if (IsDefaultDomain(op.domain())) return static_cast<int>(op.version());
  }
  return 0;
}

}  // namespace remap
