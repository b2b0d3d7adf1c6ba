#include "rules/expression_parser.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <limits>

#include <fmt/format.h>

#include "rules/expression_functions.h"
#include "rules/expression_lexer.h"

namespace remap {

namespace {

using Op = ExprNode::Op;
using Node = std::shared_ptr<ExprNode>;
using T = ExprToken::Kind;

const char* const kReserved[] = {"if", "else", "and", "or", "not", "is", "in", "for", "lambda"};

// Magnitude of a decimal literal; false beyond uint64.
bool ParseMagnitude(const std::string& digits, uint64_t* out) {
  uint64_t v = 0;
  for (char c : digits) {
    if (__builtin_mul_overflow(v, uint64_t{10}, &v) || __builtin_add_overflow(v, static_cast<uint64_t>(c - '0'), &v))
      return false;
  }
  *out = v;
  return true;
}

constexpr uint64_t kTwo63 = uint64_t{1} << 63;

class Parser {
 public:
  explicit Parser(std::vector<ExprToken> tokens) : tokens_(std::move(tokens)) {}

  ExprNodePtr ParseAll(ExprError* error) {
    Node root = ParseTernary();
    if (root && Peek().kind != T::kEnd) SetError(Peek().offset, fmt::format("unexpected '{}'", Peek().text));
    if (!error_.message.empty()) {
      *error = error_;
      return nullptr;
    }
    return root;
  }

 private:
  // The first error wins: it is the one nearest the cause.
  Node SetError(size_t offset, std::string message) {
    if (error_.message.empty()) error_ = ExprError{offset, std::move(message)};
    return nullptr;
  }
  bool failed() const { return !error_.message.empty(); }

  const ExprToken& Peek(size_t ahead = 0) const { return tokens_[std::min(pos_ + ahead, tokens_.size() - 1)]; }
  bool IsPunct(const char* p, size_t ahead = 0) const { return Peek(ahead).kind == T::kPunct && Peek(ahead).text == p; }
  bool IsWord(const char* w, size_t ahead = 0) const { return Peek(ahead).kind == T::kIdent && Peek(ahead).text == w; }
  const ExprToken& Next() { return tokens_[pos_ < tokens_.size() - 1 ? pos_++ : pos_]; }
  bool Expect(const char* p) {
    if (IsPunct(p)) {
      Next();
      return true;
    }
    SetError(Peek().offset, Peek().kind == T::kEnd ? "expression is incomplete"
                                                    : fmt::format("expected '{}' but found '{}'", p, Peek().text));
    return false;
  }

  static Node Make(Op op, size_t offset, std::vector<ExprNodePtr> kids = {}) {
    auto n = std::make_shared<ExprNode>();
    n->op = op;
    n->offset = offset;
    n->kids = std::move(kids);
    return n;
  }

  Node ParseTernary() {
    Node value = ParseOr();
    if (!value || !IsWord("if")) return value;
    size_t at = Next().offset;
    Node cond = ParseOr();
    if (!cond) return nullptr;
    if (!IsWord("else")) return SetError(Peek().offset, "expected 'else'");
    Next();
    Node other = ParseTernary();
    if (!other) return nullptr;
    return Make(Op::kIfElse, at, {cond, value, other});
  }

  Node ParseBoolean(const char* word, Op op, Node (Parser::*operand)()) {
    Node lhs = (this->*operand)();
    while (lhs && IsWord(word)) {
      size_t at = Next().offset;
      Node rhs = (this->*operand)();
      if (!rhs) return nullptr;
      lhs = Make(op, at, {lhs, rhs});
    }
    return lhs;
  }
  Node ParseOr() { return ParseBoolean("or", Op::kOr, &Parser::ParseAnd); }
  Node ParseAnd() { return ParseBoolean("and", Op::kAnd, &Parser::ParseNot); }

  Node ParseNot() {
    if (!IsWord("not")) return ParseComparison();
    size_t at = Next().offset;
    Node operand = ParseNot();
    if (!operand) return nullptr;
    return Make(Op::kNot, at, {operand});
  }

  // a < b <= c chains as in Python: each operand evaluated once, short-circuit.
  Node ParseComparison() {
    Node first = ParseArith();
    if (!first) return nullptr;
    Node chain = Make(Op::kCompare, first->offset, {first});
    using C = ExprNode::CompareOp;
    static const std::pair<const char*, C> symbols[] = {{"==", C::kEq}, {"!=", C::kNe}, {"<", C::kLt},
                                                        {"<=", C::kLe}, {">", C::kGt},  {">=", C::kGe}};
    while (true) {
      size_t at = Peek().offset;
      C op = C::kEq;
      bool found = false;
      for (const auto& [text, c] : symbols) {
        if (IsPunct(text)) {
          op = c;
          found = true;
        }
      }
      if (found) {
        Next();
      } else if (IsWord("in")) {
        Next();
        op = C::kIn;
      } else if (IsWord("not") && IsWord("in", 1)) {
        Next();
        Next();
        op = C::kNotIn;
      } else if (IsWord("is")) {
        Next();
        op = C::kIs;
        if (IsWord("not")) {
          Next();
          op = C::kIsNot;
        }
        if (!IsWord("None")) return SetError(Peek().offset, "only 'is None' and 'is not None' are supported");
      } else {
        break;
      }
      Node rhs = ParseArith();
      if (!rhs) return nullptr;
      chain->kids.push_back(rhs);
      chain->compare_ops.push_back(op);
      chain->compare_offsets.push_back(at);
    }
    if (chain->kids.size() == 1) return first;
    chain->offset = chain->compare_offsets[0];
    return chain;
  }

  Node ParseArith() {
    Node lhs = ParseTerm();
    while (lhs && (IsPunct("+") || IsPunct("-"))) {
      const ExprToken& t = Next();
      Op op = t.text == "+" ? Op::kAdd : Op::kSub;
      size_t at = t.offset;
      Node rhs = ParseTerm();
      if (!rhs) return nullptr;
      lhs = Make(op, at, {lhs, rhs});
    }
    return lhs;
  }

  Node ParseTerm() {
    Node lhs = ParseFactor();
    while (lhs && (IsPunct("*") || IsPunct("/") || IsPunct("//") || IsPunct("%"))) {
      const ExprToken& t = Next();
      Op op = t.text == "*" ? Op::kMul : t.text == "/" ? Op::kDiv : t.text == "//" ? Op::kFloorDiv : Op::kMod;
      size_t at = t.offset;
      Node rhs = ParseFactor();
      if (!rhs) return nullptr;
      lhs = Make(op, at, {lhs, rhs});
    }
    return lhs;
  }

  // Unary minus binds looser than **: -2**2 == -4.
  Node ParseFactor() {
    if (!IsPunct("-") && !IsPunct("+")) return ParsePower();
    // -9223372036854775808 is INT64_MIN, whose magnitude alone is no int64.
    uint64_t magnitude;
    if (IsPunct("-") && Peek(1).kind == T::kInt && ParseMagnitude(Peek(1).text, &magnitude) && magnitude == kTwo63 &&
        !IsPunct("**", 2) && !IsPunct("[", 2)) {
      Node n = Make(Op::kLiteral, Next().offset);
      Next();
      n->literal = Value::Int(std::numeric_limits<int64_t>::min());
      return n;
    }
    const ExprToken& t = Next();
    Op op = t.text == "-" ? Op::kNeg : Op::kPos;
    size_t at = t.offset;
    Node operand = ParseFactor();
    if (!operand) return nullptr;
    return Make(op, at, {operand});
  }

  Node ParsePower() {
    Node base = ParsePostfix();
    if (!base || !IsPunct("**")) return base;
    size_t at = Next().offset;
    Node exponent = ParseFactor();  // right-associative; 2 ** -1 is allowed
    if (!exponent) return nullptr;
    return Make(Op::kPow, at, {base, exponent});
  }

  Node ParsePostfix() {
    Node base = ParsePrimary();
    while (base && IsPunct("[")) {
      size_t at = Next().offset;
      Node start, stop, step;
      if (!IsPunct(":") && !(start = ParseTernary())) return nullptr;
      if (!IsPunct(":")) {
        if (!Expect("]")) return nullptr;
        base = Make(Op::kIndex, at, {base, start});
        continue;
      }
      Next();
      if (!IsPunct(":") && !IsPunct("]") && !(stop = ParseTernary())) return nullptr;
      if (IsPunct(":")) {
        Next();
        if (!IsPunct("]") && !(step = ParseTernary())) return nullptr;
      }
      if (!Expect("]")) return nullptr;
      base = Make(Op::kSlice, at, {base, start, stop, step});
    }
    return base;
  }

  // `for a[, b] in iterable` and `if cond` clauses after a comprehension's element.
  Node ParseComprehension(Node element, size_t at) {
    Node comp = Make(Op::kComprehension, at, {element});
    while (IsWord("for") || IsWord("if")) {
      const bool is_for = IsWord("for");
      size_t clause_at = Next().offset;
      Node clause = Make(is_for ? Op::kFor : Op::kIf, clause_at);
      if (is_for) {
        do {
          if (!clause->names.empty()) Next();  // the ','
          const ExprToken& v = Peek();
          bool reserved = std::find(std::begin(kReserved), std::end(kReserved), v.text) != std::end(kReserved);
          if (v.kind != T::kIdent || reserved || v.text.find('.') != std::string::npos || v.text == "None" ||
              v.text == "True" || v.text == "False")
            return SetError(v.offset, fmt::format("expected a variable name after 'for', found '{}'", v.text));
          clause->names.push_back(Next().text);
        } while (IsPunct(","));
        if (!IsWord("in")) return SetError(Peek().offset, "expected 'in'");
        Next();
      }
      Node operand = ParseOr();
      if (!operand) return nullptr;
      clause->kids.push_back(operand);
      comp->kids.push_back(clause);
    }
    return comp;
  }

  Node ParseCall(const ExprToken& name) {
    const ExprFunction* f = FindExprFunction(name.text);
    if (!f) return SetError(name.offset, fmt::format("unknown function '{}'", name.text));
    Node call = Make(Op::kCall, name.offset);
    call->name = name.text;
    call->function = f;
    Next();  // '('
    while (!IsPunct(")")) {
      Node arg = ParseTernary();
      if (!arg) return nullptr;
      if (call->kids.empty() && IsWord("for")) {  // sum(x for x in xs)
        arg = ParseComprehension(arg, arg->offset);
        if (!arg) return nullptr;
        call->kids.push_back(arg);
        break;
      }
      call->kids.push_back(arg);
      if (!IsPunct(",")) break;
      Next();
    }
    if (!Expect(")")) return nullptr;
    int n = static_cast<int>(call->kids.size());
    if (n < f->min_args || (f->max_args >= 0 && n > f->max_args)) {
      std::string takes = f->min_args == f->max_args ? std::to_string(f->min_args)
                          : f->max_args < 0         ? fmt::format("{} or more", f->min_args)
                                                    : fmt::format("{} to {}", f->min_args, f->max_args);
      return SetError(name.offset, fmt::format("{}() takes {} argument{}, got {}", name.text, takes,
                                               takes == "1" ? "" : "s", n));
    }
    return call;
  }

  Node ParseNumber(const ExprToken& t) {
    Node n = Make(Op::kLiteral, t.offset);
    if (t.kind == T::kInt) {
      uint64_t magnitude;
      if (!ParseMagnitude(t.text, &magnitude) || magnitude >= kTwo63)
        return SetError(t.offset, fmt::format("integer {} does not fit in int64", t.text));
      n->literal = Value::Int(static_cast<int64_t>(magnitude));
      return n;
    }
    errno = 0;
    double d = std::strtod(t.text.c_str(), nullptr);
    if (std::isinf(d)) return SetError(t.offset, fmt::format("number {} is out of range", t.text));
    n->literal = Value::Float(d);  // underflow gives 0 or a subnormal, as in Python
    return n;
  }

  Node ParsePrimary() {
    const ExprToken t = Peek();
    switch (t.kind) {
      case T::kInt:
      case T::kFloat:
        Next();
        return ParseNumber(t);
      case T::kString: {
        Next();
        Node n = Make(Op::kLiteral, t.offset);
        n->literal = Value::String(t.text);
        return n;
      }
      case T::kIdent: {
        if (IsPunct("(", 1)) {
          Next();
          return ParseCall(t);
        }
        Next();
        Node n = Make(Op::kLiteral, t.offset);
        if (t.text == "None") return n;
        if (t.text == "True" || t.text == "true") { n->literal = Value::Bool(true); return n; }
        if (t.text == "False" || t.text == "false") { n->literal = Value::Bool(false); return n; }
        if (t.text.compare(0, 5, "math.") == 0) {
          if (!FindMathConstant(t.text, &n->literal)) return SetError(t.offset, fmt::format("unknown name '{}'", t.text));
          return n;
        }
        if (std::find(std::begin(kReserved), std::end(kReserved), t.text) != std::end(kReserved))
          return SetError(t.offset, fmt::format("unexpected '{}'", t.text));
        n->op = Op::kName;
        n->name = t.text;
        return n;
      }
      case T::kPunct:
        if (t.text == "(") {
          Next();
          Node inner = ParseTernary();
          if (!inner || !Expect(")")) return nullptr;
          return inner;
        }
        if (t.text == "[") {
          Node list = Make(Op::kList, Next().offset);
          if (IsPunct("]")) {
            Next();
            return list;
          }
          while (true) {
            Node item = ParseTernary();
            if (!item) return nullptr;
            if (list->kids.empty() && IsWord("for")) {
              Node comp = ParseComprehension(item, t.offset);
              if (!comp || !Expect("]")) return nullptr;
              return comp;
            }
            list->kids.push_back(item);
            if (!IsPunct(",")) break;
            Next();
            if (IsPunct("]")) break;
          }
          if (!Expect("]")) return nullptr;
          return FoldLiteralList(list);
        }
        break;
      case T::kEnd:
        break;
    }
    return SetError(t.offset, t.kind == T::kEnd ? "expression is incomplete" : fmt::format("unexpected '{}'", t.text));
  }

  // A list of literals (`['uint8', 'int8', ...]` in a template) becomes one
  // literal: evaluated per match, it would be built item by item each time.
  static Node FoldLiteralList(Node list) {
    std::vector<Value> items;
    items.reserve(list->kids.size());
    for (const ExprNodePtr& kid : list->kids) {
      if (kid->op != Op::kLiteral) return list;
      items.push_back(kid->literal);
    }
    list->op = Op::kLiteral;
    list->literal = Value::List(std::move(items));
    list->kids.clear();
    return list;
  }

  std::vector<ExprToken> tokens_;
  size_t pos_ = 0;
  ExprError error_;
};

void CollectFree(const ExprNode& n, std::vector<std::string>* bound, std::vector<std::pair<std::string, size_t>>* out) {
  if (n.op == Op::kName) {
    if (std::find(bound->begin(), bound->end(), n.name) == bound->end()) out->emplace_back(n.name, n.offset);
    return;
  }
  if (n.op == Op::kComprehension) {
    // Clauses bind left to right; the element sees every variable.
    size_t depth = bound->size();
    for (size_t k = 1; k < n.kids.size(); ++k) {
      CollectFree(*n.kids[k]->kids[0], bound, out);
      if (n.kids[k]->op == Op::kFor) bound->insert(bound->end(), n.kids[k]->names.begin(), n.kids[k]->names.end());
    }
    CollectFree(*n.kids[0], bound, out);
    bound->resize(depth);
    return;
  }
  for (const auto& kid : n.kids) {
    if (kid) CollectFree(*kid, bound, out);
  }
}

}  // namespace

ExprNodePtr ParseExpressionTree(const std::string& text, ExprError* error) {
  std::vector<ExprToken> tokens;
  if (!LexExpression(text, &tokens, error)) return nullptr;
  return Parser(std::move(tokens)).ParseAll(error);
}

std::vector<std::pair<std::string, size_t>> FreeNames(const ExprNode& root) {
  std::vector<std::string> bound;
  std::vector<std::pair<std::string, size_t>> names;
  CollectFree(root, &bound, &names);
  std::stable_sort(names.begin(), names.end(), [](const auto& a, const auto& b) { return a.second < b.second; });
  return names;
}

}  // namespace remap
