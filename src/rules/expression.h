// Rule expressions: a small Python-like language over bound arguments, used in
// guards (`when: "eps is None"`) and attribute values (`${[pad_h, pad_w]}`).
// docs/rule-format.md ("Expressions") is the user reference; in short:
//
//   literals    1  -2  0.5  "s" 's'  None True False  [a, b]  [e for v in xs if c]
//   names       bound arguments of the rule's signature (through Lookup)
//   operators   x[i] x[a:b:c]  **  -x  * / // %  + -  == != < <= > >= (chained)
//               in  not in  is None  is not None  not  and  or  a if cond else b
//   functions   Python built-ins (len, min, range, round, ...), math (bare or
//               math.NAME), math.pi/e/tau/inf/nan, rank(t), dtype(t), tensor(v, dtype)
//
// Ints are int64 throughout (overflow is an error, never a wrap or a rounding
// through double); errors are values with the byte offset of the sub-expression.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/status.h"
#include "rules/element_types.h"
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
  // Every free name the expression reads, with its offset, in source order
  // (for load-time checks). Comprehension variables are bound by the
  // expression itself and are not listed; math.pi and the like are not names.
  const std::vector<std::pair<std::string, size_t>>& names() const { return names_; }

  // Resolves a free name to its value, or fails with a message (e.g. "not a
  // constant"): nullptr and `why` (empty: "'name' is not bound"). Evaluate
  // calls it once for each free name it reads, and only for those (the right
  // side of `and`/`or` and untaken `if` branches are not read). The value is
  // the caller's, read in place: it must live until Evaluate returns, so that
  // a table of a million items is not copied to be read.
  using Lookup = std::function<const Value*(const std::string& name, std::string* why)>;
  bool Evaluate(const Lookup& lookup, Value* out, ExprError* error) const;

 private:
  std::string text_;
  std::shared_ptr<const ExprNode> root_;
  std::vector<std::pair<std::string, size_t>> names_;
};

// Python truthiness; tensors have none (they only compare with None).
bool Truthy(const Value& v, std::string* why);

}  // namespace remap
