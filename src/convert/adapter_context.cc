#include "convert/adapter_context.h"

#include <cstring>

#include "match/constant_reader.h"
#include "rules/value.h"

namespace remap {

namespace {

bool ValueToNumbers(const Value& v, std::vector<double>* doubles, std::vector<int64_t>* ints) {
  std::vector<const Value*> items;
  if (v.kind == Value::Kind::kList) {
    for (const Value& item : v.list) items.push_back(&item);
  } else {
    items.push_back(&v);
  }
  for (const Value* item : items) {
    if (!item->is_number()) return false;
    if (ints) {
      if (!item->is_int()) return false;
      ints->push_back(item->as_int());
    }
    if (doubles) doubles->push_back(item->as_double());
  }
  return true;
}

}  // namespace

std::string AdapterContext::Constant(onnx::TensorProto value, const std::string& hint) {
  onnx::NodeProto& node = Before("Constant", hint);
  const std::string out = FreshValue(hint);
  node.add_output(out);
  auto* attr = node.add_attribute();
  attr->set_name("value");
  attr->set_type(onnx::AttributeProto::TENSOR);
  *attr->mutable_t() = value;
  made_[out] = std::move(value);
  return out;
}

std::string AdapterContext::Int64s(const std::vector<int64_t>& values, const std::string& hint) {
  onnx::TensorProto t;
  t.set_data_type(onnx::TensorProto::INT64);
  t.add_dims(static_cast<int64_t>(values.size()));
  for (int64_t v : values) t.add_int64_data(v);
  return Constant(std::move(t), hint);
}

std::string AdapterContext::Int64Scalar(int64_t value, const std::string& hint) {
  onnx::TensorProto t;
  t.set_data_type(onnx::TensorProto::INT64);
  t.add_int64_data(value);
  return Constant(std::move(t), hint);
}

std::string AdapterContext::Scalar(double value, int elem_type, const std::string& hint) {
  onnx::TensorProto t;
  t.set_data_type(elem_type);
  switch (elem_type) {
    case onnx::TensorProto::FLOAT: t.add_float_data(static_cast<float>(value)); break;
    case onnx::TensorProto::DOUBLE: t.add_double_data(value); break;
    case onnx::TensorProto::INT64: t.add_int64_data(static_cast<int64_t>(value)); break;
    case onnx::TensorProto::UINT32:
    case onnx::TensorProto::UINT64: t.add_uint64_data(static_cast<uint64_t>(value)); break;
    case onnx::TensorProto::FLOAT16: {
      // Through float32 to IEEE half, round to nearest even; values here are small
      // constants (pads, clip bounds) that half represents or saturates.
      float f = static_cast<float>(value);
      uint32_t x;
      std::memcpy(&x, &f, 4);
      uint32_t sign = (x >> 16) & 0x8000u, mant = x & 0x7fffffu;
      int exp = static_cast<int>((x >> 23) & 0xff) - 127 + 15;
      uint32_t h;
      if (((x >> 23) & 0xff) == 0xff) h = sign | 0x7c00u | (mant ? 0x200u : 0u);
      else if (exp >= 31) h = sign | 0x7c00u;
      else if (exp <= 0) h = sign;  // flush tiny values to zero
      else {
        h = sign | (static_cast<uint32_t>(exp) << 10) | (mant >> 13);
        uint32_t rest = mant & 0x1fffu;
        if (rest > 0x1000u || (rest == 0x1000u && (h & 1u))) ++h;
      }
      t.add_int32_data(static_cast<int32_t>(h));
      break;
    }
    default: t.add_int32_data(static_cast<int32_t>(value)); break;  // int8/16/32, uint8/16, bool
  }
  return Constant(std::move(t), hint);
}

onnx::NodeProto& AdapterContext::Before(const std::string& op_type, const std::string& hint) {
  before_.emplace_back();
  before_.back().set_op_type(op_type);
  before_.back().set_name(FreshNode(hint));
  return before_.back();
}

onnx::NodeProto& AdapterContext::After(const std::string& op_type, const std::string& hint) {
  after_.emplace_back();
  after_.back().set_op_type(op_type);
  after_.back().set_name(FreshNode(hint));
  return after_.back();
}

bool AdapterContext::ConstantValue(const std::string& name, Value* out) const {
  std::string why;
  auto made = made_.find(name);
  if (made != made_.end()) return TensorToValue(made->second, out, &why);
  Producer p = index_->ProducerOf(name);
  if (p.kind == Producer::Kind::kInitializer && p.initializer) return TensorToValue(*p.initializer, out, &why);
  if (p.kind == Producer::Kind::kNode && p.node && IsConstantProducer(*p.node)) return ConstantNodeValue(*p.node, out, &why);
  return false;
}

bool AdapterContext::ConstantInts(const std::string& name, std::vector<int64_t>* out) const {
  Value v;
  out->clear();
  return ConstantValue(name, &v) && ValueToNumbers(v, nullptr, out);
}

bool AdapterContext::ConstantFloats(const std::string& name, std::vector<double>* out) const {
  Value v;
  out->clear();
  return ConstantValue(name, &v) && ValueToNumbers(v, out, nullptr);
}

int AdapterContext::ElemType(const std::string& name) const {
  auto made = made_.find(name);
  if (made != made_.end()) return made->second.data_type();
  return index_->TypeOf(name).elem_type;
}

int AdapterContext::Rank(const std::string& name) const {
  auto made = made_.find(name);
  if (made != made_.end()) return made->second.dims_size();
  return index_->TypeOf(name).rank;
}

std::vector<int64_t> AdapterContext::StaticDims(const std::string& name) const {
  auto made = made_.find(name);
  if (made != made_.end()) return {made->second.dims().begin(), made->second.dims().end()};
  bool known = false;
  return index_->StaticDims(name, &known);
}

const onnx::AttributeProto* FindAttribute(const onnx::NodeProto& node, const std::string& name) {
  for (const auto& a : node.attribute())
    if (a.name() == name) return &a;
  return nullptr;
}

bool DropAttribute(onnx::NodeProto* node, const std::string& name) {
  auto* attrs = node->mutable_attribute();
  for (int k = 0; k < attrs->size(); ++k) {
    if (attrs->Get(k).name() == name) {
      attrs->erase(attrs->begin() + k);  // a node has a handful of attributes
      return true;
    }
  }
  return false;
}

namespace {
onnx::AttributeProto* Replace(onnx::NodeProto* node, const std::string& name, onnx::AttributeProto::AttributeType type) {
  DropAttribute(node, name);
  auto* a = node->add_attribute();
  a->set_name(name);
  a->set_type(type);
  return a;
}
}  // namespace

void SetInt(onnx::NodeProto* node, const std::string& name, int64_t value) {
  Replace(node, name, onnx::AttributeProto::INT)->set_i(value);
}
void SetInts(onnx::NodeProto* node, const std::string& name, const std::vector<int64_t>& values) {
  auto* a = Replace(node, name, onnx::AttributeProto::INTS);
  for (int64_t v : values) a->add_ints(v);
}
void SetFloat(onnx::NodeProto* node, const std::string& name, float value) {
  Replace(node, name, onnx::AttributeProto::FLOAT)->set_f(value);
}
void SetString(onnx::NodeProto* node, const std::string& name, const std::string& value) {
  Replace(node, name, onnx::AttributeProto::STRING)->set_s(value);
}

void SetInput(onnx::NodeProto* node, int index, const std::string& value) {
  while (node->input_size() <= index) node->add_input("");
  node->set_input(index, value);
}

void TrimInputs(onnx::NodeProto* node) {
  while (node->input_size() > 0 && node->input(node->input_size() - 1).empty()) node->mutable_input()->RemoveLast();
}

}  // namespace remap
