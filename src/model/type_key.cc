#include "model/type_key.h"

#include <cstdint>
#include <cstring>

namespace remap {

namespace {

template <typename T>
void AppendRaw(std::string* key, T v) {
  char bytes[sizeof(T)];
  std::memcpy(bytes, &v, sizeof(T));
  key->append(bytes, sizeof(T));
}

// The tensor type's fields one by one, or false (with `key` partly written)
// when it holds something the field-by-field form does not: a denotation, a
// field this ONNX does not know (kept as unknown bytes), another kind of type.
bool AppendTensorKey(const onnx::TypeProto& type, std::string* key) {
  if (!type.has_tensor_type() || type.has_denotation() || !type.unknown_fields().empty()) return false;
  const onnx::TypeProto::Tensor& tensor = type.tensor_type();
  if (!tensor.unknown_fields().empty()) return false;
  key->push_back('T');
  key->push_back(tensor.has_elem_type() ? 'e' : '-');
  AppendRaw<int32_t>(key, tensor.elem_type());
  if (!tensor.has_shape()) return true;  // no shape (any rank) differs from a scalar's empty one
  const onnx::TensorShapeProto& shape = tensor.shape();
  if (!shape.unknown_fields().empty()) return false;
  key->push_back('S');
  for (const auto& dim : shape.dim()) {
    if (dim.has_denotation() || !dim.unknown_fields().empty()) return false;
    switch (dim.value_case()) {
      case onnx::TensorShapeProto::Dimension::kDimValue:
        key->push_back('v');
        AppendRaw<int64_t>(key, dim.dim_value());
        break;
      case onnx::TensorShapeProto::Dimension::kDimParam:
        key->push_back('p');
        AppendRaw<uint32_t>(key, static_cast<uint32_t>(dim.dim_param().size()));
        key->append(dim.dim_param());
        break;
      default:
        key->push_back('n');
        break;
    }
  }
  return true;
}

}  // namespace

void AppendTypeKey(const onnx::TypeProto& type, std::string* key) {
  const size_t start = key->size();
  if (AppendTensorKey(type, key)) return;
  key->resize(start);
  key->push_back('P');  // never 'T': the two forms cannot meet
  type.AppendToString(key);
}

}  // namespace remap
