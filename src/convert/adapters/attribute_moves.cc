#include "convert/adapters/attribute_moves.h"

#include <fmt/format.h>

#include "convert/opset_adapter.h"

namespace remap {

namespace {

const std::string& InputName(const onnx::NodeProto& node, int index) {
  static const std::string none;
  return index < node.input_size() ? node.input(index) : none;
}

}  // namespace

Status IntsAttributeToInput(onnx::NodeProto* node, AdapterContext* ctx, const char* attr, int index, bool scalar) {
  const onnx::AttributeProto* a = FindAttribute(*node, attr);
  if (!a) return Status::Ok();
  std::vector<int64_t> values(a->ints().begin(), a->ints().end());
  if (a->type() == onnx::AttributeProto::INT) values = {a->i()};
  const std::string hint = fmt::format("{}_{}", node->name().empty() ? node->op_type() : node->name(), attr);
  const std::string input = scalar ? ctx->Int64Scalar(values.at(0), hint) : ctx->Int64s(values, hint);
  DropAttribute(node, attr);
  SetInput(node, index, input);
  return Status::Ok();
}

Status InputToIntsAttribute(onnx::NodeProto* node, AdapterContext* ctx, int index, const char* attr, bool scalar) {
  const std::string& input = InputName(*node, index);
  if (input.empty()) return Status::Ok();
  std::vector<int64_t> values;
  if (!ctx->ConstantInts(input, &values))
    return Refuse(fmt::format("its input '{}' ({}) is computed at run time; the older form needs it as an attribute", input, attr));
  if (scalar) {
    if (values.size() != 1) return Refuse(fmt::format("'{}' holds {} values, one is needed", input, values.size()));
    SetInt(node, attr, values[0]);
  } else {
    SetInts(node, attr, values);
  }
  node->set_input(index, "");
  TrimInputs(node);
  return Status::Ok();
}

Status FloatAttributeToInput(onnx::NodeProto* node, AdapterContext* ctx, const char* attr, int index, int like) {
  const onnx::AttributeProto* a = FindAttribute(*node, attr);
  if (!a) return Status::Ok();
  const int type = ctx->ElemType(InputName(*node, like));
  if (type == 0)
    return Refuse(fmt::format("the type of '{}' is not known, and the '{}' input must have it", InputName(*node, like), attr));
  const std::string hint = fmt::format("{}_{}", node->name().empty() ? node->op_type() : node->name(), attr);
  const std::string input = ctx->Scalar(a->f(), type, hint);
  DropAttribute(node, attr);
  SetInput(node, index, input);
  return Status::Ok();
}

Status InputToFloatAttribute(onnx::NodeProto* node, AdapterContext* ctx, int index, const char* attr) {
  const std::string& input = InputName(*node, index);
  if (input.empty()) return Status::Ok();
  std::vector<double> values;
  if (!ctx->ConstantFloats(input, &values) || values.size() != 1)
    return Refuse(fmt::format("its input '{}' ({}) is not a constant scalar; the older form needs it as an attribute", input, attr));
  SetFloat(node, attr, static_cast<float>(values[0]));
  node->set_input(index, "");
  TrimInputs(node);
  return Status::Ok();
}

Status FloatsAttributeToInput(onnx::NodeProto* node, AdapterContext* ctx, const char* attr, int index) {
  const onnx::AttributeProto* a = FindAttribute(*node, attr);
  if (!a) return Status::Ok();
  onnx::TensorProto t;
  t.set_data_type(onnx::TensorProto::FLOAT);
  t.add_dims(a->floats_size());
  for (float f : a->floats()) t.add_float_data(f);
  const std::string input = ctx->Constant(std::move(t), fmt::format("{}_{}", node->name().empty() ? node->op_type() : node->name(), attr));
  DropAttribute(node, attr);
  SetInput(node, index, input);
  return Status::Ok();
}

Status InputToFloatsAttribute(onnx::NodeProto* node, AdapterContext* ctx, int index, const char* attr) {
  const std::string& input = InputName(*node, index);
  if (input.empty()) return Status::Ok();
  std::vector<double> values;
  if (!ctx->ConstantFloats(input, &values))
    return Refuse(fmt::format("its input '{}' ({}) is computed at run time; the older form needs it as an attribute", input, attr));
  DropAttribute(node, attr);
  auto* a = node->add_attribute();
  a->set_name(attr);
  a->set_type(onnx::AttributeProto::FLOATS);
  for (double v : values) a->add_floats(static_cast<float>(v));
  node->set_input(index, "");
  TrimInputs(node);
  return Status::Ok();
}

}  // namespace remap
