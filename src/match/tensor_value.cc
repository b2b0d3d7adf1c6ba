#include "match/tensor_value.h"

namespace remap {

Value TensorValueOf(const GraphIndex& index, const std::string& name) {
  std::vector<int64_t> dims;
  const TensorType type = index.TypeAndDims(name, &dims);
  Value v = Value::Tensor(name, type.elem_type, type.rank);
  v.dims = std::move(dims);
  return v;
}

}  // namespace remap
