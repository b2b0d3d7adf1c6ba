// Rule expressions: a small Python-like language over bound arguments, used in
// guards (`when: "eps is None"`) and attribute values (`${[pad_h, pad_w]}`).
//
//   literals  1  -2  0.5  "s" 's'  None True False  [a, b]
//   names     bound arguments of the rule's signature
//   operators x[i]  -x  * / // %  + -  == != < <= > >=  in  not in  is None  is not None
//             not  and  or  a if cond else b
//   functions len(x) int(x) float(x) bool(x) str(x); float('inf'), float('nan');
//             rank(t), dtype(t) of tensor arguments, when the model records them
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/status.h"
#include "rules/value.h"

namespace remap {

// A failure inside an expression, at a byte offset of its source text.
struct ExprError {
  size_t offset = 0;
  std::string message;
};

struct ExprNode;

class Expression {
 public:
  // Parses `text`; on failure fills `error` and returns an empty expression.
  static Expression Parse(const std::string& text, ExprError* error);

  bool empty() const { return root_ == nullptr; }
  const std::string& text() const { return text_; }
  // Every name the expression reads, with its offset (for load-time checks).
  const std::vector<std::pair<std::string, size_t>>& names() const { return names_; }

  // Resolves a name to its value, or fails with a message (e.g. "not a constant").
  using Lookup = std::function<bool(const std::string& name, Value* out, std::string* why)>;
  bool Evaluate(const Lookup& lookup, Value* out, ExprError* error) const;

 private:
  std::string text_;
  std::shared_ptr<const ExprNode> root_;
  std::vector<std::pair<std::string, size_t>> names_;
};

// "float32", "int64", ... for an onnx::TensorProto::DataType.
const char* ElementTypeName(int elem_type);

// Python truthiness; tensors have none (they only compare with None).
bool Truthy(const Value& v, std::string* why);

}  // namespace remap
