// Attributes that became inputs (and back): the most common operator change.
#pragma once

#include <onnx/onnx_pb.h>

#include "convert/adapter_context.h"
#include "core/status.h"

namespace remap {

// Up: INTS (or INT, as a 1-element list; `scalar`: a 0-D input) attribute
// `attr` becomes input `index`, a Constant int64 tensor. An absent attribute
// leaves the input absent.
Status IntsAttributeToInput(onnx::NodeProto* node, AdapterContext* ctx, const char* attr, int index, bool scalar = false);
// Down: input `index`, which must be a constant, becomes INTS attribute `attr`
// (`scalar`: an INT attribute). An absent input leaves the attribute absent.
Status InputToIntsAttribute(onnx::NodeProto* node, AdapterContext* ctx, int index, const char* attr, bool scalar = false);
// The same for float attributes and inputs of the type of input `like`.
Status FloatAttributeToInput(onnx::NodeProto* node, AdapterContext* ctx, const char* attr, int index, int like);
Status InputToFloatAttribute(onnx::NodeProto* node, AdapterContext* ctx, int index, const char* attr);
Status FloatsAttributeToInput(onnx::NodeProto* node, AdapterContext* ctx, const char* attr, int index);
Status InputToFloatsAttribute(onnx::NodeProto* node, AdapterContext* ctx, int index, const char* attr);

}  // namespace remap
