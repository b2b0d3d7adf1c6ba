// A type's identity as a short string, for keeping one copy of each distinct
// type (TypeOracle::Intern). Two types have the same key exactly when their
// serialized bytes are the same.
#pragma once

#include <string>

#include <onnx/onnx_pb.h>

namespace remap {

// Appends `type`'s key to `key`. A tensor type (the common case: an element
// type and dimensions) is written field by field, with each field's
// presence; protobuf's serializer, which any other type goes through, costs
// ten times as much and brings its code into the cache at every call.
void AppendTypeKey(const onnx::TypeProto& type, std::string* key);

}  // namespace remap
