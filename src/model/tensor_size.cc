#include "model/tensor_size.h"

#include <limits>

namespace remap {

using TP = onnx::TensorProto;

std::optional<int64_t> DeclaredElementCount(const TP& tensor) {
  int64_t count = 1;
  for (int64_t d : tensor.dims()) {
    if (d < 0) return std::nullopt;
    if (d != 0 && count > std::numeric_limits<int64_t>::max() / d) return std::nullopt;
    count *= d;
  }
  return count;
}

size_t ElementBytes(int data_type) {
  switch (data_type) {
    case TP::FLOAT: case TP::INT32: case TP::UINT32: return 4;
    case TP::DOUBLE: case TP::INT64: case TP::UINT64: return 8;
    case TP::INT16: case TP::UINT16: case TP::FLOAT16: case TP::BFLOAT16: return 2;
    case TP::INT8: case TP::UINT8: case TP::BOOL: return 1;
    default: return 0;
  }
}

std::optional<int64_t> HeldElementCount(const TP& tensor) {
  const size_t bytes = ElementBytes(tensor.data_type());
  if (bytes == 0) {
    if (tensor.data_type() == TP::STRING) return tensor.string_data_size();
    return std::nullopt;
  }
  if (tensor.has_raw_data()) {
    if (tensor.raw_data().size() % bytes != 0) return std::nullopt;
    return static_cast<int64_t>(tensor.raw_data().size() / bytes);
  }
  switch (tensor.data_type()) {
    case TP::FLOAT: return tensor.float_data_size();
    case TP::DOUBLE: return tensor.double_data_size();
    case TP::INT64: return tensor.int64_data_size();
    case TP::UINT64: case TP::UINT32: return tensor.uint64_data_size();
    default: return tensor.int32_data_size();
  }
}

}  // namespace remap
