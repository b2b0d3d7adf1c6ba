// Value: what a rule argument is bound to (a constant scalar or list, None,
// or a tensor flowing in the graph), and what rule expressions compute.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/tensor_type_source.h"

namespace remap {

struct Value {
  enum class Kind { kNone, kBool, kInt, kFloat, kString, kList, kTensor };

  Kind kind = Kind::kNone;
  bool b = false;
  int64_t i = 0;
  double f = 0.0;
  std::string s;            // kString; kTensor: the graph value name
  std::vector<Value> list;  // kList
  // kTensor: what is known of the type (0 / -1: unknown); ElemType() and Rank()
  // ask `type_source` for what is not, on first use.
  int elem_type = 0;
  int rank = -1;
  const TensorTypeSource* type_source = nullptr;
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

  // A tensor whose type is looked up in `source` when first asked for.
  static Value LazyTensor(std::string name, const TensorTypeSource* source) {
    Value x = Tensor(std::move(name));
    x.type_source = source;
    return x;
  }
  int ElemType() const {
    Resolve();
    return elem_type;
  }
  int Rank() const {
    Resolve();
    return rank;
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

 private:
  void Resolve() const {
    if (kind != Kind::kTensor || !type_source || (elem_type != 0 && rank >= 0)) return;
    int e = 0, r = -1;
    type_source->LookUpType(s, &e, &r);
    auto* self = const_cast<Value*>(this);  // a cache: the type is a fact about the graph value
    if (self->elem_type == 0) self->elem_type = e;
    if (self->rank < 0) self->rank = r;
    self->type_source = nullptr;
  }
};

const char* KindName(Value::Kind kind);

// Python-like rendering, used in messages and reports: None, True, 3, 0.5, "s", [1, 2].
std::string ToString(const Value& v);

}  // namespace remap
