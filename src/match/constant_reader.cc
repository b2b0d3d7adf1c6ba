#include "match/constant_reader.h"

#include <cstring>
#include <string_view>

#include <fmt/format.h>

#include "model/opset_import.h"
#include "model/tensor_size.h"

namespace remap {

namespace {

using TP = onnx::TensorProto;

float HalfToFloat(uint16_t h) {
  uint32_t sign = (h >> 15) & 1, exp = (h >> 10) & 0x1f, mant = h & 0x3ff;
  uint32_t bits;
  if (exp == 0) {
    if (mant == 0) {
      bits = sign << 31;
    } else {  // subnormal
      exp = 127 - 15 + 1;
      while (!(mant & 0x400)) { mant <<= 1; --exp; }
      bits = (sign << 31) | (exp << 23) | ((mant & 0x3ff) << 13);
    }
  } else if (exp == 31) {
    bits = (sign << 31) | 0x7f800000 | (mant << 13);
  } else {
    bits = (sign << 31) | ((exp + 127 - 15) << 23) | (mant << 13);
  }
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

template <typename T>
T ReadRaw(const std::string& raw, size_t k) {
  T v;
  std::memcpy(&v, raw.data() + k * sizeof(T), sizeof(T));
  return v;
}

size_t ElementSize(int type) {
  switch (type) {
    case TP::FLOAT: case TP::INT32: case TP::UINT32: return 4;
    case TP::DOUBLE: case TP::INT64: case TP::UINT64: return 8;
    case TP::INT16: case TP::UINT16: case TP::FLOAT16: case TP::BFLOAT16: return 2;
    case TP::INT8: case TP::UINT8: case TP::BOOL: return 1;
    default: return 0;
  }
}

Value Element(const TP& t, size_t k, bool raw) {
  const std::string& r = t.raw_data();
  switch (t.data_type()) {
    case TP::FLOAT: return Value::Float(raw ? ReadRaw<float>(r, k) : t.float_data(static_cast<int>(k)));
    case TP::DOUBLE: return Value::Float(raw ? ReadRaw<double>(r, k) : t.double_data(static_cast<int>(k)));
    case TP::FLOAT16: return Value::Float(HalfToFloat(raw ? ReadRaw<uint16_t>(r, k) : static_cast<uint16_t>(t.int32_data(static_cast<int>(k)))));
    case TP::BFLOAT16: {
      uint32_t bits = static_cast<uint32_t>(raw ? ReadRaw<uint16_t>(r, k) : static_cast<uint16_t>(t.int32_data(static_cast<int>(k)))) << 16;
      float f;
      std::memcpy(&f, &bits, 4);
      return Value::Float(f);
    }
    case TP::INT64: return Value::Int(raw ? ReadRaw<int64_t>(r, k) : t.int64_data(static_cast<int>(k)));
    case TP::UINT64: return Value::Int(static_cast<int64_t>(raw ? ReadRaw<uint64_t>(r, k) : t.uint64_data(static_cast<int>(k))));
    case TP::UINT32: return Value::Int(raw ? ReadRaw<uint32_t>(r, k) : static_cast<int64_t>(t.uint64_data(static_cast<int>(k))));
    case TP::INT32: return Value::Int(raw ? ReadRaw<int32_t>(r, k) : t.int32_data(static_cast<int>(k)));
    case TP::INT16: return Value::Int(raw ? ReadRaw<int16_t>(r, k) : t.int32_data(static_cast<int>(k)));
    case TP::UINT16: return Value::Int(raw ? ReadRaw<uint16_t>(r, k) : t.int32_data(static_cast<int>(k)));
    case TP::INT8: return Value::Int(raw ? ReadRaw<int8_t>(r, k) : t.int32_data(static_cast<int>(k)));
    case TP::UINT8: return Value::Int(raw ? ReadRaw<uint8_t>(r, k) : t.int32_data(static_cast<int>(k)));
    case TP::BOOL: return Value::Bool(raw ? ReadRaw<uint8_t>(r, k) != 0 : t.int32_data(static_cast<int>(k)) != 0);
    default: return Value::None();
  }
}

int TypedCount(const TP& t) {
  switch (t.data_type()) {
    case TP::FLOAT: return t.float_data_size();
    case TP::DOUBLE: return t.double_data_size();
    case TP::INT64: return t.int64_data_size();
    case TP::UINT64: case TP::UINT32: return t.uint64_data_size();
    case TP::STRING: return t.string_data_size();
    default: return t.int32_data_size();
  }
}

}  // namespace

// string_view comparisons: with a literal they inline (these run for every
// input of every unmapped node and every node a rewrite releases).
bool IsConstantProducer(const onnx::NodeProto& node) {
  return std::string_view(node.op_type()) == "Constant" &&
         (IsDefaultDomain(node.domain()) || std::string_view(node.domain()) == "prim");
}

bool IsListProducer(const onnx::NodeProto& node) {
  const std::string_view op = node.op_type();
  return (op == "SequenceConstruct" && IsDefaultDomain(node.domain())) ||
         (op == "ListConstruct" && std::string_view(node.domain()) == "prim");
}

bool TensorToValue(const TP& t, Value* out, std::string* why) {
  if (t.data_location() == TP::EXTERNAL) {
    *why = "its tensor is stored as external data";
    return false;
  }
  // The loader checks this too; the reader must not trust dims on its own
  // (they size nothing here: elements are read only when the data holds them all).
  const std::optional<int64_t> count = DeclaredElementCount(t);
  if (!count) {
    *why = "its tensor's dims overflow";
    return false;
  }
  std::vector<Value> items;
  if (t.data_type() == TP::STRING) {
    if (t.string_data_size() != *count) {
      *why = fmt::format("its tensor holds {} strings but its shape says {}", t.string_data_size(), *count);
      return false;
    }
    for (const auto& s : t.string_data()) items.push_back(Value::String(s));
  } else {
    size_t size = ElementSize(t.data_type());
    if (size == 0) {
      *why = fmt::format("its tensor has element type {}, which is not a number", t.data_type());
      return false;
    }
    bool raw = t.has_raw_data();
    size_t available = raw ? t.raw_data().size() / size : static_cast<size_t>(TypedCount(t));
    if (available != static_cast<size_t>(*count)) {
      *why = fmt::format("its tensor holds {} elements but its shape says {}", available, *count);
      return false;
    }
    for (size_t k = 0; k < available; ++k) items.push_back(Element(t, k, raw));
  }
  if (t.dims_size() == 0 && items.size() == 1) *out = items[0];
  else *out = Value::List(std::move(items));
  return true;
}

std::string AttributeReference(const onnx::AttributeProto& attr) {
  if (attr.ref_attr_name().empty()) return "";
  return fmt::format("it is the function attribute @{}, known only per call site", attr.ref_attr_name());
}

bool AttributeToValue(const onnx::AttributeProto& a, Value* out, std::string* why) {
  using AP = onnx::AttributeProto;
  // The referencing attribute's own fields are empty (an INT reads as 0).
  *why = AttributeReference(a);
  if (!why->empty()) return false;
  std::vector<Value> items;
  switch (a.type()) {
    case AP::INT: *out = Value::Int(a.i()); return true;
    case AP::FLOAT: *out = Value::Float(a.f()); return true;
    case AP::STRING: *out = Value::String(a.s()); return true;
    case AP::TENSOR: return TensorToValue(a.t(), out, why);
    case AP::INTS: for (int64_t v : a.ints()) items.push_back(Value::Int(v)); break;
    case AP::FLOATS: for (float v : a.floats()) items.push_back(Value::Float(v)); break;
    case AP::STRINGS: for (const auto& v : a.strings()) items.push_back(Value::String(v)); break;
    default:
      *why = fmt::format("attribute '{}' has a type rules cannot read", a.name());
      return false;
  }
  *out = Value::List(std::move(items));
  return true;
}

bool ConstantNodeValue(const onnx::NodeProto& node, Value* out, std::string* why) {
  for (const auto& a : node.attribute()) {
    if (a.name() == "value" || a.name() == "value_float" || a.name() == "value_floats" || a.name() == "value_int" ||
        a.name() == "value_ints" || a.name() == "value_string" || a.name() == "value_strings")
      return AttributeToValue(a, out, why);  // includes PyTorch's STRING-typed `value` for str arguments
  }
  *why = fmt::format("Constant node '{}' has no value", node.name());
  return false;
}

bool CoerceToArgument(const Value& in, const Argument& arg, Value* out, std::string* why) {
  auto scalar = [&](const Value& v, Value* s) {
    if (v.kind == Value::Kind::kList && v.list.size() == 1) { *s = v.list[0]; return true; }
    if (v.kind == Value::Kind::kList) return false;
    *s = v;
    return true;
  };
  auto fail = [&](const Value& v) {
    *why = fmt::format("argument '{}' ({}) got {}", arg.name, arg.type_text, ToString(v));
    return false;
  };
  if (in.is_none()) {
    if (!arg.optional && arg.type != ArgType::kOpaque) return fail(in);
    *out = in;
    return true;
  }
  Value s;
  switch (arg.type) {
    case ArgType::kInt:
    case ArgType::kScalarType:
      if (!scalar(in, &s) || !(s.kind == Value::Kind::kInt || s.kind == Value::Kind::kBool)) return fail(in);
      *out = Value::Int(s.kind == Value::Kind::kBool ? s.b : s.i);
      return true;
    case ArgType::kFloat:
      if (!scalar(in, &s) || !s.is_number()) return fail(in);
      *out = Value::Float(s.as_double());
      return true;
    case ArgType::kBool:
      if (!scalar(in, &s) || !(s.kind == Value::Kind::kBool || s.kind == Value::Kind::kInt)) return fail(in);
      *out = Value::Bool(s.kind == Value::Kind::kBool ? s.b : s.i != 0);
      return true;
    case ArgType::kScalar:
      if (!scalar(in, &s) || !s.is_number()) return fail(in);
      *out = s;
      return true;
    case ArgType::kStr:
      if (!scalar(in, &s) || s.kind != Value::Kind::kString) return fail(in);
      *out = s;
      return true;
    case ArgType::kIntList:
    case ArgType::kFloatList:
    case ArgType::kBoolList: {
      std::vector<Value> items = in.kind == Value::Kind::kList ? in.list : std::vector<Value>{in};
      const size_t n = static_cast<size_t>(arg.list_size);
      const bool repeat = arg.type == ArgType::kIntList;  // only IntArrayRef broadcasts one value
      if (n > 0 && items.size() == 1 && repeat) items.resize(n, items[0]);
      // `int[2] stride=[]`: PyTorch passes the empty default through (max_pool's
      // stride=None), and the rule decides what it means.
      const bool empty_default = items.empty() && arg.default_value && arg.default_value->kind == Value::Kind::kList &&
                                 arg.default_value->list.empty();
      if (n > 0 && items.size() != n && !empty_default) {
        *why = fmt::format("argument '{}' ({}) has {} elements ({}); {} takes {}{}", arg.name, arg.type_text,
                           items.size(), ToString(in), arg.type_text, n, repeat ? ", or 1 to repeat" : "");
        return false;
      }
      for (Value& item : items) {
        if (!item.is_number()) return fail(in);
        if (arg.type == ArgType::kFloatList) item = Value::Float(item.as_double());
        else if (arg.type == ArgType::kBoolList) item = Value::Bool(item.as_double() != 0);
        else if (item.kind == Value::Kind::kFloat) return fail(in);
        else item = Value::Int(item.kind == Value::Kind::kBool ? item.b : item.i);
      }
      *out = Value::List(std::move(items));
      return true;
    }
    default:
      *out = in;
      return true;
  }
}

}  // namespace remap
