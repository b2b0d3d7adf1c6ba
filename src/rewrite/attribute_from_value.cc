#include "rewrite/attribute_from_value.h"

#include <cmath>
#include <limits>

#include <fmt/format.h>

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

// A number or list for a TENSOR attribute (Constant's `value`): a 0-d or 1-D
// tensor, float32 for floats, int64 for ints, bool for bools.
bool ToTensorAttribute(const Value& v, AP* attr, std::string* why) {
  onnx::TensorProto* t = attr->mutable_t();
  const std::vector<Value> items = v.kind == Value::Kind::kList ? v.list : std::vector<Value>{v};
  bool any_float = false, all_bool = !items.empty();
  for (const Value& item : items) {
    if (!item.is_number()) {
      *why = fmt::format("attribute '{}' takes a tensor; {} is not numeric", attr->name(), ToString(v));
      return false;
    }
    any_float = any_float || item.kind == Value::Kind::kFloat;
    all_bool = all_bool && item.kind == Value::Kind::kBool;
  }
  if (v.kind == Value::Kind::kList) t->add_dims(static_cast<int64_t>(items.size()));
  if (any_float) {
    t->set_data_type(onnx::TensorProto::FLOAT);
    for (const Value& item : items) {
      float f;
      if (!ToFloat(item.as_double(), attr->name(), &f, why)) return false;
      t->add_float_data(f);
    }
  } else if (all_bool) {
    t->set_data_type(onnx::TensorProto::BOOL);
    for (const Value& item : items) t->add_int32_data(item.b ? 1 : 0);
  } else {
    t->set_data_type(onnx::TensorProto::INT64);
    for (const Value& item : items) t->add_int64_data(item.kind == Value::Kind::kBool ? item.b : item.i);
  }
  attr->set_type(AP::TENSOR);
  return true;
}

}  // namespace

bool ToAttribute(const Value& v, AP::AttributeType declared, AP* attr, std::string* why) {
  if (declared == AP::TENSOR) return ToTensorAttribute(v, attr, why);
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
