// Value: what a rule argument is bound to (a constant scalar or list, None,
// or a tensor flowing in the graph), and what rule expressions compute.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace remap {

struct Value {
  enum class Kind { kNone, kBool, kInt, kFloat, kString, kList, kTensor };

  Kind kind = Kind::kNone;
  bool b = false;
  int64_t i = 0;
  double f = 0.0;
  std::string s;            // kString; kTensor: the graph value name
  std::vector<Value> list;  // kList
  int elem_type = 0;        // kTensor: onnx::TensorProto::DataType, 0 when unknown
  int rank = -1;            // kTensor: -1 when unknown
  std::vector<int64_t> dims;  // kTensor of known rank: each dim's size, -1 where it is not static
  // kBool/kInt/kFloat/kList made by tensor(v, dtype): emit as a tensor of this
  // onnx::TensorProto::DataType. 0: a plain value. Operations on a value drop it.
  int tensor_elem_type = 0;

  static Value None() { return Value(); }
  static Value Bool(bool v) { Value x; x.kind = Kind::kBool; x.b = v; return x; }
  static Value Int(int64_t v) { Value x; x.kind = Kind::kInt; x.i = v; return x; }
  static Value Float(double v) { Value x; x.kind = Kind::kFloat; x.f = v; return x; }
  static Value String(std::string v) { Value x; x.kind = Kind::kString; x.s = std::move(v); return x; }
  static Value List(std::vector<Value> v) { Value x; x.kind = Kind::kList; x.list = std::move(v); return x; }
  static Value Tensor(std::string name, int elem_type = 0, int rank = -1) {
    Value x;
    x.kind = Kind::kTensor;
    x.s = std::move(name);
    x.elem_type = elem_type;
    x.rank = rank;
    return x;
  }

  bool is_none() const { return kind == Kind::kNone; }
  bool is_number() const { return kind == Kind::kInt || kind == Kind::kFloat || kind == Kind::kBool; }
  bool is_int() const { return kind == Kind::kInt || kind == Kind::kBool; }  // bool is an int, as in Python
  int64_t as_int() const { return kind == Kind::kBool ? b : i; }
  double as_double() const { return kind == Kind::kFloat ? f : static_cast<double>(kind == Kind::kBool ? b : i); }

  // Python's ==: numbers by value (int vs float exactly), lists item by item.
  // tensor_elem_type does not take part.

  bool operator==(const Value& other) const;
  bool operator!=(const Value& other) const { return !(*this == other); }
};

const char* KindName(Value::Kind kind);

// Python-like rendering, used in messages and reports: None, True, 3, 0.5, "s", [1, 2].
std::string ToString(const Value& v);

}  // namespace remap
