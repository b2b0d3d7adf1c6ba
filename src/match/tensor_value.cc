#include "match/tensor_value.h"

namespace remap {

Value TensorValueOf(const GraphIndex& index, const std::string& name) {
  TensorType type = index.TypeOf(name);
  Value v = Value::Tensor(name, type.elem_type, type.rank);
  if (type.rank > 0) {
    bool known = false;
    std::vector<int64_t> dims = index.StaticDims(name, &known);
    // Only a shape that agrees with the rank: the recorded and inferred types may differ in detail.
    if (known && static_cast<int>(dims.size()) == type.rank) v.dims = std::move(dims);
  }
  return v;
}

}  // namespace remap
