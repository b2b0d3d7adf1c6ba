// Evaluates an expression tree: names through the caller's Lookup (after the
// comprehension variables in scope), operators with Python's semantics.
#include <list>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "core/few_names_map.h"
#include "rules/expression.h"
#include "rules/expression_functions.h"
#include "rules/expression_node.h"
#include "rules/value_ops.h"

namespace remap {

namespace {

using Op = ExprNode::Op;
using K = Value::Kind;

// Node evaluations per Evaluate, plus one per value copied out of a name:
// bounds the time a nested comprehension can take.
constexpr size_t kMaxSteps = 10000000;

// The number of values in `v`, nested lists' items included: what copying it costs.
size_t DeepSize(const Value& v) {
  size_t n = 1;
  for (const Value& item : v.list) n += DeepSize(item);
  return n;
}

ArithOp ToArith(Op op) {
  switch (op) {
    case Op::kAdd: return ArithOp::kAdd;
    case Op::kSub: return ArithOp::kSub;
    case Op::kMul: return ArithOp::kMul;
    case Op::kDiv: return ArithOp::kDiv;
    case Op::kFloorDiv: return ArithOp::kFloorDiv;
    case Op::kMod: return ArithOp::kMod;
    default: return ArithOp::kPow;
  }
}

// Python's slice bound adjustment (PySlice_AdjustIndices) for one bound.
int64_t AdjustBound(int64_t v, int64_t len, int64_t step) {
  if (v < 0) {
    v += len;
    if (v < 0) v = step < 0 ? -1 : 0;
  } else if (v >= len) {
    v = step < 0 ? len - 1 : len;
  }
  return v;
}

class Evaluator {
 public:
  Evaluator(const Expression::Lookup& lookup, ExprError* error) : lookup_(lookup), error_(error) {}

  bool Eval(const ExprNode& n, Value* out) {
    if (++steps_ > kMaxSteps) return Fail(n, fmt::format("expression takes more than {} steps", kMaxSteps));
    switch (n.op) {
      case Op::kLiteral: *out = n.literal; return true;
      case Op::kName: return EvalName(n, out);
      case Op::kList: {
        std::vector<Value> items(n.kids.size());
        for (size_t k = 0; k < n.kids.size(); ++k) {
          if (!Eval(*n.kids[k], &items[k])) return false;
        }
        *out = Value::List(std::move(items));
        return true;
      }
      case Op::kComprehension: {
        std::vector<Value> items;
        if (!EvalClauses(n, 1, &items)) return false;
        *out = Value::List(std::move(items));
        return true;
      }
      case Op::kFor:
      case Op::kIf: return Fail(n, "internal: a clause outside a comprehension");
      case Op::kIndex: return EvalIndex(n, out);
      case Op::kSlice: return EvalSlice(n, out);
      case Op::kCall: return EvalCall(n, out);
      case Op::kNeg:
      case Op::kPos: {
        Value v;
        if (!Eval(*n.kids[0], &v)) return false;
        std::string why;
        if (n.op == Op::kNeg) return Negate(v, out, &why) || Fail(n, why);
        if (!v.is_number()) return Fail(n, fmt::format("bad operand for unary +: {}", KindName(v.kind)));
        *out = v.is_int() ? Value::Int(v.as_int()) : Value::Float(v.f);
        return true;
      }
      case Op::kNot: {
        bool b;
        if (!EvalBool(*n.kids[0], &b)) return false;
        *out = Value::Bool(!b);
        return true;
      }
      case Op::kAnd:
      case Op::kOr: {
        // Python: the value of the operand that decided, and the right side only when needed.
        if (!Eval(*n.kids[0], out)) return false;
        bool b;
        if (!TruthOf(*n.kids[0], *out, &b)) return false;
        if (b == (n.op == Op::kOr)) return true;
        return Eval(*n.kids[1], out);
      }
      case Op::kIfElse: {
        bool b;
        if (!EvalBool(*n.kids[0], &b)) return false;
        return Eval(*n.kids[b ? 1 : 2], out);
      }
      case Op::kCompare: return EvalCompare(n, out);
      default: {
        Value a, b;
        if (!Eval(*n.kids[0], &a) || !Eval(*n.kids[1], &b)) return false;
        std::string why;
        return Arithmetic(ToArith(n.op), a, b, out, &why) || Fail(n, why);
      }
    }
  }

 private:
  bool Fail(const ExprNode& n, std::string message) { return Fail(n.offset, std::move(message)); }
  bool Fail(size_t offset, std::string message) {
    *error_ = ExprError{offset, std::move(message)};
    return false;
  }

  bool TruthOf(const ExprNode& n, const Value& v, bool* out) {
    std::string why;
    *out = Truthy(v, &why);
    return why.empty() || Fail(n, why);
  }
  bool EvalBool(const ExprNode& n, bool* out) {
    Value v;
    return Eval(n, &v) && TruthOf(n, v, out);
  }

  bool EvalName(const ExprNode& n, Value* out) {
    const Value* v = nullptr;
    if (!NameRef(n, &v)) return false;
    // A copy costs its size: `[len(big) for i in range(n)]` is n * size(big) work.
    steps_ += DeepSize(*v) - 1;
    if (steps_ > kMaxSteps) return Fail(n, fmt::format("expression takes more than {} steps", kMaxSteps));
    *out = *v;
    return true;
  }

  // The value a name stands for, where it is kept: a comprehension variable,
  // or the caller's value, looked up once per evaluation.
  bool NameRef(const ExprNode& n, const Value** out) {
    for (auto it = locals_.rbegin(); it != locals_.rend(); ++it) {
      if (it->first == n.name) {
        *out = &it->second;
        return true;
      }
    }
    if (const Value* const* cached = looked_up_.Find(n.name)) {
      *out = *cached;
      return true;
    }
    std::string why;
    const Value* v = lookup_(n.name, &why);
    if (!v) return Fail(n, why.empty() ? fmt::format("'{}' is not bound", n.name) : why);
    looked_up_.Insert(n.name, v);
    *out = v;
    return true;
  }

  // `n`'s value without a copy where it is already kept (a name, an item of
  // one): `[lin[h][w] for h in ... for w in ...]` must not copy `lin` per item.
  // Otherwise `n` is evaluated into `scratch`.
  bool Ref(const ExprNode& n, Value* scratch, const Value** out) {
    if (n.op == Op::kLiteral) {
      if (++steps_ > kMaxSteps) return Fail(n, fmt::format("expression takes more than {} steps", kMaxSteps));
      *out = &n.literal;
      return true;
    }
    if (n.op == Op::kName) {
      if (++steps_ > kMaxSteps) return Fail(n, fmt::format("expression takes more than {} steps", kMaxSteps));
      return NameRef(n, out);
    }
    if (n.op == Op::kIndex) {
      if (++steps_ > kMaxSteps) return Fail(n, fmt::format("expression takes more than {} steps", kMaxSteps));
      return IndexRef(n, scratch, out);
    }
    if (!Eval(n, scratch)) return false;
    *out = scratch;
    return true;
  }

  // Runs clauses[k...] of a comprehension, appending its elements to `items`.
  bool EvalClauses(const ExprNode& comp, size_t k, std::vector<Value>* items) {
    if (k == comp.kids.size()) {
      if (items->size() >= kMaxExprListSize)
        return Fail(comp, fmt::format("the list would have more than {} items", kMaxExprListSize));
      items->emplace_back();
      return Eval(*comp.kids[0], &items->back());
    }
    const ExprNode& clause = *comp.kids[k];
    if (clause.op == Op::kIf) {
      bool b;
      if (!EvalBool(*clause.kids[0], &b)) return false;
      return !b || EvalClauses(comp, k + 1, items);
    }
    Value scratch;
    const Value* iterable = nullptr;
    if (!Ref(*clause.kids[0], &scratch, &iterable)) return false;
    if (iterable->kind == K::kString) {
      std::vector<Value> chars;
      for (char c : iterable->s) chars.push_back(Value::String(std::string(1, c)));
      scratch = Value::List(std::move(chars));
      iterable = &scratch;
    }
    if (iterable->kind != K::kList) return Fail(*clause.kids[0], fmt::format("cannot iterate over {}", KindName(iterable->kind)));
    const size_t depth = locals_.size();
    for (const Value& item : iterable->list) {
      if (clause.names.size() == 1) {
        locals_.emplace_back(clause.names[0], item);
      } else {
        if (item.kind != K::kList || item.list.size() != clause.names.size())
          return Fail(clause, fmt::format("cannot unpack {} into {} names", ToString(item), clause.names.size()));
        for (size_t v = 0; v < clause.names.size(); ++v) locals_.emplace_back(clause.names[v], item.list[v]);
      }
      bool ok = EvalClauses(comp, k + 1, items);
      while (locals_.size() > depth) locals_.pop_back();
      if (!ok) return false;
    }
    return true;
  }

  // base[index], by reference into base where base is kept (Ref).
  bool IndexRef(const ExprNode& n, Value* scratch, const Value** out) {
    Value base_scratch;
    const Value* base = nullptr;
    size_t k = 0;
    if (!Ref(*n.kids[0], &base_scratch, &base) || !ItemIndex(n, *base, &k)) return false;
    if (base->kind == K::kString) {
      *scratch = Value::String(std::string(1, base->s[k]));
      *out = scratch;
    } else if (base == &base_scratch) {
      *scratch = std::move(base_scratch.list[k]);
      *out = scratch;
    } else {
      *out = &base->list[k];
    }
    return true;
  }

  bool EvalIndex(const ExprNode& n, Value* out) {
    Value scratch;
    const Value* item = nullptr;
    if (!IndexRef(n, &scratch, &item)) return false;
    if (item == &scratch) *out = std::move(scratch);
    else *out = *item;
    return true;
  }

  // The position in `base` that the index of `n` (base[index]) names.
  bool ItemIndex(const ExprNode& n, const Value& base, size_t* out) {
    Value index;
    if (!Eval(*n.kids[1], &index)) return false;
    if (base.kind != K::kList && base.kind != K::kString) return Fail(n, fmt::format("cannot index {}", ToString(base)));
    if (!index.is_int()) return Fail(n, fmt::format("index must be an int, got {}", ToString(index)));
    const int64_t size = static_cast<int64_t>(base.kind == K::kList ? base.list.size() : base.s.size());
    int64_t k = index.as_int();
    if (k < 0) k += size;
    if (k < 0 || k >= size) return Fail(n, fmt::format("index {} is out of range for {}", ToString(index), ToString(base)));
    *out = static_cast<size_t>(k);
    return true;
  }

  bool EvalSlice(const ExprNode& n, Value* out) {
    Value scratch, bound[3];
    const Value* ref = nullptr;
    if (!Ref(*n.kids[0], &scratch, &ref)) return false;
    const Value& base = *ref;
    for (int b = 0; b < 3; ++b) {
      if (n.kids[b + 1] && !Eval(*n.kids[b + 1], &bound[b])) return false;
      if (!bound[b].is_none() && !bound[b].is_int())
        return Fail(*n.kids[b + 1], fmt::format("slice bounds must be ints or None, got {}", ToString(bound[b])));
    }
    if (base.kind != K::kList && base.kind != K::kString) return Fail(n, fmt::format("cannot slice {}", ToString(base)));
    const int64_t len = static_cast<int64_t>(base.kind == K::kList ? base.list.size() : base.s.size());
    const int64_t step = bound[2].is_none() ? 1 : bound[2].as_int();
    if (step == 0) return Fail(*n.kids[3], "slice step cannot be zero");
    int64_t start = bound[0].is_none() ? (step < 0 ? len - 1 : 0) : AdjustBound(bound[0].as_int(), len, step);
    int64_t stop = bound[1].is_none() ? (step < 0 ? -1 : len) : AdjustBound(bound[1].as_int(), len, step);
    std::vector<Value> items;
    std::string chars;
    for (int64_t i = start; step > 0 ? i < stop : i > stop;) {
      if (base.kind == K::kList) items.push_back(base.list[static_cast<size_t>(i)]);
      else chars += base.s[static_cast<size_t>(i)];
      if (__builtin_add_overflow(i, step, &i)) break;
    }
    *out = base.kind == K::kList ? Value::List(std::move(items)) : Value::String(std::move(chars));
    return true;
  }

  bool EvalCall(const ExprNode& n, Value* out) {
    const ExprFunction* f = n.function;  // found by the parser, which checked it exists
    std::vector<Value> args(n.kids.size());
    for (size_t k = 0; k < n.kids.size(); ++k) {
      if (!Eval(*n.kids[k], &args[k])) return false;
    }
    std::string why;
    return f->call(f->name, args, out, &why) || Fail(n, why);
  }

  bool CompareOnce(ExprNode::CompareOp op, const Value& a, const Value& b, size_t at, bool* result) {
    using C = ExprNode::CompareOp;
    switch (op) {
      case C::kIs:
      case C::kIsNot: *result = a.is_none() == (op == C::kIs); return true;
      case C::kIn:
      case C::kNotIn: {
        bool found = false;
        if (b.kind == K::kList) {
          for (const Value& item : b.list) found = found || item == a;
        } else if (b.kind == K::kString) {
          if (a.kind != K::kString) return Fail(at, fmt::format("'in <string>' needs a string on its left, got {}", KindName(a.kind)));
          found = b.s.find(a.s) != std::string::npos;
        } else {
          return Fail(at, fmt::format("'in' needs a list or string on its right, got {}", ToString(b)));
        }
        *result = found == (op == C::kIn);
        return true;
      }
      case C::kEq:
      case C::kNe:
        if (a.kind == K::kTensor || b.kind == K::kTensor)
          return Fail(at, "tensors only compare with None ('is None', 'is not None')");
        *result = (a == b) == (op == C::kEq);
        return true;
      default: {
        int order = 0;
        bool unordered;
        std::string why;
        if (!Compare(a, b, &order, &unordered, &why)) return Fail(at, why);
        *result = !unordered && (op == C::kLt ? order < 0 : op == C::kLe ? order <= 0 : op == C::kGt ? order > 0 : order >= 0);
        return true;
      }
    }
  }

  // Operands by reference (Ref): `x in ['bool', 'uint8', ...]` copies no list.
  bool EvalCompare(const ExprNode& n, Value* out) {
    Value scratch[2];
    const Value* left = nullptr;
    if (!Ref(*n.kids[0], &scratch[0], &left)) return false;
    for (size_t k = 0; k < n.compare_ops.size(); ++k) {
      // Not the scratch `left` may be in.
      Value* right_scratch = left == &scratch[0] ? &scratch[1] : &scratch[0];
      const Value* right = nullptr;
      if (!Ref(*n.kids[k + 1], right_scratch, &right)) return false;
      bool holds;
      if (!CompareOnce(n.compare_ops[k], *left, *right, n.compare_offsets[k], &holds)) return false;
      if (!holds) {
        *out = Value::Bool(false);
        return true;
      }
      left = right;
    }
    *out = Value::Bool(true);
    return true;
  }

  const Expression::Lookup& lookup_;
  ExprError* error_;
  // Comprehension variables, innermost last; a list so that references to
  // them (Ref) survive the pushes of a nested comprehension (and, unlike a
  // deque, an empty one allocates nothing: most expressions have none).
  std::list<std::pair<std::string, Value>> locals_;
  // Names from lookup_, which do not change during one evaluation, keyed by
  // the tree's own strings.
  FewNamesMap<std::string_view, const Value*> looked_up_;
  size_t steps_ = 0;
};

}  // namespace

bool Expression::Evaluate(const Lookup& lookup, Value* out, ExprError* error) const {
  if (!root_) {
    *error = ExprError{0, "empty expression"};
    return false;
  }
  Evaluator evaluator(lookup, error);
  return evaluator.Eval(*root_, out);
}

}  // namespace remap
