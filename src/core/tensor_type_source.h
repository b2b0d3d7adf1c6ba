// Where a rule's tensor argument gets its type when the rule first asks for it
// (rank(), dtype()). Binding leaves types unresolved: typing a value may mean
// inferring every producer before it, a chain of a million nodes, and most
// rules never ask.
#pragma once

#include <string>

namespace remap {

class TensorTypeSource {
 public:
  virtual ~TensorTypeSource() = default;
  // elem_type: onnx::TensorProto::DataType, 0 unknown; rank: -1 unknown.
  virtual void LookUpType(const std::string& value, int* elem_type, int* rank) const = 0;
};

}  // namespace remap
