#include "rewrite/attribute_from_value.h"

#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "rules/element_types.h"
#include "rules/numeric.h"

namespace remap {

namespace {

using AP = onnx::AttributeProto;

// float32 for an attribute; a finite double beyond its range is an error, not UB.
bool ToFloat(double d, const std::string& attr, float* out, std::string* why) {
  if (std::isfinite(d) && std::fabs(d) > std::numeric_limits<float>::max()) {
    *why = fmt::format("attribute '{}': {} does not fit in a float32", attr, d);
    return false;
  }
  *out = static_cast<float>(d);
  return true;
}

// Collects the numbers of a (nested, rectangular) list and its dims.
bool Flatten(const Value& v, size_t depth, std::vector<int64_t>* dims, std::vector<const Value*>* items) {
  if (v.kind != Value::Kind::kList) {
    if (!v.is_number() || depth != dims->size()) return false;
    items->push_back(&v);
    return true;
  }
  if (depth == dims->size()) {
    if (!items->empty()) return false;  // a list where an earlier row had a number
    dims->push_back(static_cast<int64_t>(v.list.size()));
  } else if (depth > dims->size() || (*dims)[depth] != static_cast<int64_t>(v.list.size())) {
    return false;
  }
  for (const Value& item : v.list) {
    if (!Flatten(item, depth + 1, dims, items)) return false;
  }
  return true;
}

// Stores one number as `elem_type` where ONNX's TensorProto puts that type:
// float16/bfloat16 as their bits and the small integer types in int32_data,
// uint32/uint64 in uint64_data.
bool AddItem(const Value& item, int elem_type, onnx::TensorProto* t, std::string* why) {
  using TP = onnx::TensorProto;
  if (!CheckFitsElementType(item, elem_type, why)) return false;
  uint16_t bits = 0;
  int64_t i = item.as_int();
  if (item.kind == Value::Kind::kFloat) DoubleToInt64(item.f, &i);  // integral: checked above
  switch (elem_type) {
    case TP::FLOAT: t->add_float_data(static_cast<float>(item.as_double())); break;
    case TP::DOUBLE: t->add_double_data(item.as_double()); break;
    case TP::FLOAT16: DoubleToFloat16Bits(item.as_double(), &bits); t->add_int32_data(bits); break;
    case TP::BFLOAT16: DoubleToBfloat16Bits(item.as_double(), &bits); t->add_int32_data(bits); break;
    case TP::INT64: t->add_int64_data(i); break;
    case TP::UINT32:
    case TP::UINT64: t->add_uint64_data(static_cast<uint64_t>(i)); break;
    default: t->add_int32_data(static_cast<int32_t>(i)); break;  // int8..int32, uint8, uint16, bool
  }
  return true;
}

// A number or (nested) list for a TENSOR attribute (Constant's `value`): a
// tensor of the dtype tensor() gave, else float32 if any item is a float,
// bool if all are bools, int64 otherwise.
bool ToTensorAttribute(const Value& v, AP* attr, std::string* why) {
  std::vector<int64_t> dims;
  std::vector<const Value*> items;
  if (!(v.is_number() || v.kind == Value::Kind::kList) || !Flatten(v, 0, &dims, &items)) {
    *why = fmt::format("attribute '{}' takes a tensor; {} is not a number or a rectangular list of numbers",
                       attr->name(), ToString(v));
    return false;
  }
  int elem_type = v.tensor_elem_type;
  if (elem_type == 0) {
    bool any_float = false, all_bool = !items.empty();
    for (const Value* item : items) {
      any_float = any_float || item->kind == Value::Kind::kFloat;
      all_bool = all_bool && item->kind == Value::Kind::kBool;
    }
    elem_type = any_float ? onnx::TensorProto::FLOAT : all_bool ? onnx::TensorProto::BOOL : onnx::TensorProto::INT64;
  }
  onnx::TensorProto* t = attr->mutable_t();
  t->set_data_type(elem_type);
  for (int64_t d : dims) t->add_dims(d);
  for (const Value* item : items) {
    std::string item_why;
    if (!AddItem(*item, elem_type, t, &item_why)) {
      *why = fmt::format("attribute '{}': {}", attr->name(), item_why);
      return false;
    }
  }
  attr->set_type(AP::TENSOR);
  return true;
}

}  // namespace

bool ToAttribute(const Value& v, AP::AttributeType declared, AP* attr, std::string* why) {
  if (declared == AP::TENSOR) return ToTensorAttribute(v, attr, why);
  if (v.tensor_elem_type != 0) {
    if (declared == AP::UNDEFINED) return ToTensorAttribute(v, attr, why);
    *why = fmt::format("attribute '{}' is not a tensor attribute; {} makes a tensor", attr->name(), ToString(v));
    return false;
  }
  auto number_list = [&](bool as_float) {
    for (const Value& item : v.list) {
      if (!item.is_number()) return false;
      float f;
      if (as_float && !ToFloat(item.as_double(), attr->name(), &f, why)) return false;
      if (as_float) attr->add_floats(f);
      else attr->add_ints(item.kind == Value::Kind::kBool ? item.b : item.i);
    }
    attr->set_type(as_float ? AP::FLOATS : AP::INTS);
    return true;
  };
  switch (v.kind) {
    case Value::Kind::kBool:
    case Value::Kind::kInt:
    case Value::Kind::kFloat:
      if (declared == AP::FLOAT || (declared == AP::UNDEFINED && v.kind == Value::Kind::kFloat)) {
        float f;
        if (!ToFloat(v.as_double(), attr->name(), &f, why)) return false;
        attr->set_type(AP::FLOAT);
        attr->set_f(f);
      } else if (declared == AP::INTS || declared == AP::FLOATS) {
        return ToAttribute(Value::List({v}), declared, attr, why);
      } else {
        if (v.kind == Value::Kind::kFloat) {
          *why = fmt::format("attribute '{}' takes an int, got {}", attr->name(), ToString(v));
          return false;
        }
        attr->set_type(AP::INT);
        attr->set_i(v.kind == Value::Kind::kBool ? v.b : v.i);
      }
      return true;
    case Value::Kind::kString:
      attr->set_type(AP::STRING);
      attr->set_s(v.s);
      return true;
    case Value::Kind::kList: {
      bool strings = !v.list.empty() && v.list[0].kind == Value::Kind::kString;
      if (strings) {
        for (const Value& item : v.list) {
          if (item.kind != Value::Kind::kString) {
            *why = fmt::format("attribute '{}': mixed list {}", attr->name(), ToString(v));
            return false;
          }
          attr->add_strings(item.s);
        }
        attr->set_type(AP::STRINGS);
        return true;
      }
      bool any_float = false;
      for (const Value& item : v.list) any_float = any_float || item.kind == Value::Kind::kFloat;
      bool as_float = declared == AP::FLOATS || declared == AP::FLOAT || (declared == AP::UNDEFINED && any_float);
      if (!as_float && any_float) {
        *why = fmt::format("attribute '{}' takes ints, got {}", attr->name(), ToString(v));
        return false;
      }
      if (!number_list(as_float)) {
        if (why->empty()) *why = fmt::format("attribute '{}': {} is not a list of numbers", attr->name(), ToString(v));
        return false;
      }
      return true;
    }
    default:
      *why = fmt::format("attribute '{}' cannot hold {}", attr->name(), ToString(v));
      return false;
  }
}

}  // namespace remap
