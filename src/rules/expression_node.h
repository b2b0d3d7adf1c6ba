// The syntax tree of a rule expression (internal to src/rules/expression*.cc).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "rules/value.h"

namespace remap {

struct ExprFunction;

struct ExprNode {
  enum class Op {
    kLiteral,
    kName,
    kList,
    kComprehension,  // kids[0] the element, then kFor / kIf clauses in order
    kFor,            // clause: `for names in kids[0]`
    kIf,             // clause: `if kids[0]`
    kIndex,          // kids: base, index
    kSlice,          // kids: base, start, stop, step (nullptr when omitted)
    kCall,           // name: the function; kids: the arguments
    kNeg, kPos, kNot, kAnd, kOr,
    kIfElse,         // kids: cond, then, else
    kAdd, kSub, kMul, kDiv, kFloorDiv, kMod, kPow,
    kCompare,        // kids: operands; compare_ops[k] joins kids[k] and kids[k + 1]
  };
  enum class CompareOp { kEq, kNe, kLt, kLe, kGt, kGe, kIn, kNotIn, kIs, kIsNot };

  Op op = Op::kLiteral;
  size_t offset = 0;  // where the node's own token is: the operator, the name, the '['
  Value literal;
  std::string name;                // kName, kCall
  const ExprFunction* function = nullptr;  // kCall: what the parser found for `name`
  std::vector<std::string> names;  // kFor: the loop variables (several unpack each item)
  std::vector<CompareOp> compare_ops;
  std::vector<size_t> compare_offsets;
  std::vector<std::shared_ptr<const ExprNode>> kids;
};

using ExprNodePtr = std::shared_ptr<const ExprNode>;

}  // namespace remap
