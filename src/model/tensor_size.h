// What a TensorProto's header declares: its element count and element size,
// computed without overflow, so a hostile header (dims of 2^40) is rejected
// before anything sizes an allocation from it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>

#include <onnx/onnx_pb.h>

namespace remap {

// The product of the dims; nullopt when a dim is negative or the product
// passes INT64_MAX.
std::optional<int64_t> DeclaredElementCount(const onnx::TensorProto& tensor);

// Bytes per element of a fixed-size numeric type; 0 for the others (string,
// complex, packed 4-bit, unknown), whose size we do not check.
size_t ElementBytes(int data_type);

// Elements the tensor holds inline (raw_data or the typed field); nullopt for
// types ElementBytes does not know, and for raw_data that is not a whole
// number of elements.
std::optional<int64_t> HeldElementCount(const onnx::TensorProto& tensor);

}  // namespace remap
