#include "rules/expression.h"

#include <cctype>
#include <cmath>
#include <limits>
#include <fmt/format.h>

namespace remap {

struct ExprNode {
  enum class Op {
    kLiteral, kName, kList, kIndex, kNeg, kNot, kAnd, kOr, kIfElse, kCall,
    kAdd, kSub, kMul, kDiv, kFloorDiv, kMod, kEq, kNe, kLt, kLe, kGt, kGe, kIsNone, kIsNotNone, kIn, kNotIn,
  };
  Op op = Op::kLiteral;
  size_t offset = 0;
  Value literal;
  std::string name;  // kName, kCall
  std::vector<std::shared_ptr<ExprNode>> kids;
};

namespace {

using NodePtr = std::shared_ptr<ExprNode>;

struct Token {
  enum class Kind { kEnd, kInt, kFloat, kString, kIdent, kPunct };
  Kind kind = Kind::kEnd;
  std::string text;
  size_t offset = 0;
};

class Parser {
 public:
  Parser(const std::string& text, std::vector<std::pair<std::string, size_t>>* names)
      : text_(text), names_(names) {}

  NodePtr ParseAll(ExprError* error) {
    if (!Lex()) return Fail(error);
    NodePtr root = ParseTernary();
    if (root && Peek().kind != Token::Kind::kEnd) SetError(Peek().offset, fmt::format("unexpected '{}'", Peek().text));
    if (!error_.message.empty()) return Fail(error);
    return root;
  }

 private:
  NodePtr Fail(ExprError* error) {
    *error = error_;
    return nullptr;
  }
  void SetError(size_t offset, std::string message) {
    if (error_.message.empty()) error_ = ExprError{offset, std::move(message)};
  }

  bool Lex() {
    size_t p = 0;
    while (p < text_.size()) {
      char c = text_[p];
      if (std::isspace(static_cast<unsigned char>(c))) { ++p; continue; }
      Token t;
      t.offset = p;
      if (std::isdigit(static_cast<unsigned char>(c)) ||
          (c == '.' && p + 1 < text_.size() && std::isdigit(static_cast<unsigned char>(text_[p + 1])))) {
        size_t q = p;
        bool is_float = false;
        while (q < text_.size() && (std::isdigit(static_cast<unsigned char>(text_[q])) || text_[q] == '.')) {
          if (text_[q] == '.') is_float = true;
          ++q;
        }
        if (q < text_.size() && (text_[q] == 'e' || text_[q] == 'E')) {
          is_float = true;
          ++q;
          if (q < text_.size() && (text_[q] == '+' || text_[q] == '-')) ++q;
          while (q < text_.size() && std::isdigit(static_cast<unsigned char>(text_[q]))) ++q;
        }
        t.kind = is_float ? Token::Kind::kFloat : Token::Kind::kInt;
        t.text = text_.substr(p, q - p);
        p = q;
      } else if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
        size_t q = p;
        while (q < text_.size() && (std::isalnum(static_cast<unsigned char>(text_[q])) || text_[q] == '_')) ++q;
        t.kind = Token::Kind::kIdent;
        t.text = text_.substr(p, q - p);
        p = q;
      } else if (c == '"' || c == '\'') {
        size_t q = p + 1;
        std::string s;
        while (q < text_.size() && text_[q] != c) {
          if (text_[q] == '\\' && q + 1 < text_.size()) ++q;
          s += text_[q++];
        }
        if (q >= text_.size()) {
          SetError(p, "unterminated string");
          return false;
        }
        t.kind = Token::Kind::kString;
        t.text = s;
        p = q + 1;
      } else {
        static const char* two[] = {"==", "!=", "<=", ">=", "//"};
        t.kind = Token::Kind::kPunct;
        t.text = std::string(1, c);
        for (const char* op : two) {
          if (text_.compare(p, 2, op) == 0) t.text = op;
        }
        if (std::string("[](),+-*/%<>").find(c) == std::string::npos && t.text.size() == 1) {
          SetError(p, fmt::format("unexpected character '{}'", c));
          return false;
        }
        if (t.text == "=" || t.text == "!") {
          SetError(p, fmt::format("unexpected character '{}'", c));
          return false;
        }
        p += t.text.size();
      }
      tokens_.push_back(std::move(t));
    }
    Token end;
    end.offset = text_.size();
    end.text = "end of expression";
    tokens_.push_back(end);
    return true;
  }

  const Token& Peek() const { return tokens_[pos_]; }
  bool IsPunct(const char* p) const { return Peek().kind == Token::Kind::kPunct && Peek().text == p; }
  bool IsWord(const char* w) const { return Peek().kind == Token::Kind::kIdent && Peek().text == w; }
  Token Next() { return tokens_[pos_ < tokens_.size() - 1 ? pos_++ : pos_]; }
  bool Expect(const char* p) {
    if (IsPunct(p)) { Next(); return true; }
    SetError(Peek().offset, fmt::format("expected '{}' but found '{}'", p, Peek().text));
    return false;
  }

  NodePtr Make(ExprNode::Op op, size_t offset, std::vector<NodePtr> kids = {}) {
    auto n = std::make_shared<ExprNode>();
    n->op = op;
    n->offset = offset;
    n->kids = std::move(kids);
    return n;
  }

  NodePtr ParseTernary() {
    NodePtr value = ParseOr();
    if (!value) return nullptr;
    if (IsWord("if")) {
      size_t at = Next().offset;
      NodePtr cond = ParseOr();
      if (!cond) return nullptr;
      if (!IsWord("else")) {
        SetError(Peek().offset, "expected 'else'");
        return nullptr;
      }
      Next();
      NodePtr other = ParseTernary();
      if (!other) return nullptr;
      return Make(ExprNode::Op::kIfElse, at, {cond, value, other});
    }
    return value;
  }
  NodePtr ParseOr() {
    NodePtr lhs = ParseAnd();
    while (lhs && IsWord("or")) {
      size_t at = Next().offset;
      NodePtr rhs = ParseAnd();
      if (!rhs) return nullptr;
      lhs = Make(ExprNode::Op::kOr, at, {lhs, rhs});
    }
    return lhs;
  }
  NodePtr ParseAnd() {
    NodePtr lhs = ParseNot();
    while (lhs && IsWord("and")) {
      size_t at = Next().offset;
      NodePtr rhs = ParseNot();
      if (!rhs) return nullptr;
      lhs = Make(ExprNode::Op::kAnd, at, {lhs, rhs});
    }
    return lhs;
  }
  NodePtr ParseNot() {
    if (IsWord("not")) {
      size_t at = Next().offset;
      NodePtr operand = ParseNot();
      if (!operand) return nullptr;
      return Make(ExprNode::Op::kNot, at, {operand});
    }
    return ParseComparison();
  }
  NodePtr ParseComparison() {
    NodePtr lhs = ParseAdditive();
    if (!lhs) return nullptr;
    if (IsWord("is")) {
      size_t at = Next().offset;
      bool negate = false;
      if (IsWord("not")) { Next(); negate = true; }
      if (!IsWord("None")) {
        SetError(Peek().offset, "only 'is None' and 'is not None' are supported");
        return nullptr;
      }
      Next();
      return Make(negate ? ExprNode::Op::kIsNotNone : ExprNode::Op::kIsNone, at, {lhs});
    }
    if (IsWord("in") || (IsWord("not") && pos_ + 1 < tokens_.size() && tokens_[pos_ + 1].text == "in")) {
      bool negate = IsWord("not");
      size_t at = Next().offset;
      if (negate) Next();
      NodePtr rhs = ParseAdditive();
      if (!rhs) return nullptr;
      return Make(negate ? ExprNode::Op::kNotIn : ExprNode::Op::kIn, at, {lhs, rhs});
    }
    static const std::pair<const char*, ExprNode::Op> ops[] = {
        {"==", ExprNode::Op::kEq}, {"!=", ExprNode::Op::kNe}, {"<", ExprNode::Op::kLt},
        {"<=", ExprNode::Op::kLe}, {">", ExprNode::Op::kGt}, {">=", ExprNode::Op::kGe}};
    for (const auto& [text, op] : ops) {
      if (IsPunct(text)) {
        size_t at = Next().offset;
        NodePtr rhs = ParseAdditive();
        if (!rhs) return nullptr;
        return Make(op, at, {lhs, rhs});
      }
    }
    return lhs;
  }
  NodePtr ParseAdditive() {
    NodePtr lhs = ParseTerm();
    while (lhs && (IsPunct("+") || IsPunct("-"))) {
      Token t = Next();
      NodePtr rhs = ParseTerm();
      if (!rhs) return nullptr;
      lhs = Make(t.text == "+" ? ExprNode::Op::kAdd : ExprNode::Op::kSub, t.offset, {lhs, rhs});
    }
    return lhs;
  }
  NodePtr ParseTerm() {
    NodePtr lhs = ParseUnary();
    while (lhs && (IsPunct("*") || IsPunct("/") || IsPunct("//") || IsPunct("%"))) {
      Token t = Next();
      NodePtr rhs = ParseUnary();
      if (!rhs) return nullptr;
      ExprNode::Op op = t.text == "*" ? ExprNode::Op::kMul
                        : t.text == "/" ? ExprNode::Op::kDiv
                        : t.text == "//" ? ExprNode::Op::kFloorDiv : ExprNode::Op::kMod;
      lhs = Make(op, t.offset, {lhs, rhs});
    }
    return lhs;
  }
  NodePtr ParseUnary() {
    if (IsPunct("-")) {
      size_t at = Next().offset;
      NodePtr operand = ParseUnary();
      if (!operand) return nullptr;
      return Make(ExprNode::Op::kNeg, at, {operand});
    }
    return ParsePostfix();
  }
  NodePtr ParsePostfix() {
    NodePtr base = ParsePrimary();
    while (base && IsPunct("[")) {
      size_t at = Next().offset;
      NodePtr index = ParseTernary();
      if (!index || !Expect("]")) return nullptr;
      base = Make(ExprNode::Op::kIndex, at, {base, index});
    }
    return base;
  }
  NodePtr ParsePrimary() {
    const Token t = Peek();
    switch (t.kind) {
      case Token::Kind::kInt:
      case Token::Kind::kFloat: {
        Next();
        NodePtr n = Make(ExprNode::Op::kLiteral, t.offset);
        try {
          n->literal = t.kind == Token::Kind::kInt ? Value::Int(std::stoll(t.text)) : Value::Float(std::stod(t.text));
        } catch (const std::exception&) {
          SetError(t.offset, fmt::format("number '{}' is out of range", t.text));
          return nullptr;
        }
        return n;
      }
      case Token::Kind::kString: {
        Next();
        NodePtr n = Make(ExprNode::Op::kLiteral, t.offset);
        n->literal = Value::String(t.text);
        return n;
      }
      case Token::Kind::kIdent: {
        Next();
        NodePtr n = Make(ExprNode::Op::kLiteral, t.offset);
        if (t.text == "None") return n;
        if (t.text == "True" || t.text == "true") { n->literal = Value::Bool(true); return n; }
        if (t.text == "False" || t.text == "false") { n->literal = Value::Bool(false); return n; }
        static const char* reserved[] = {"if", "else", "and", "or", "not", "is", "in"};
        for (const char* r : reserved) {
          if (t.text == r) {
            SetError(t.offset, fmt::format("unexpected '{}'", t.text));
            return nullptr;
          }
        }
        if (IsPunct("(")) {
          Next();
          n->op = ExprNode::Op::kCall;
          n->name = t.text;
          static const char* functions[] = {"len", "int", "float", "bool", "str", "rank", "dtype"};
          bool known = false;
          for (const char* f : functions) known = known || t.text == f;
          if (!known) {
            SetError(t.offset, fmt::format("unknown function '{}' (known: len, int, float, bool, str, rank, dtype)", t.text));
            return nullptr;
          }
          NodePtr arg = ParseTernary();
          if (!arg || !Expect(")")) return nullptr;
          n->kids.push_back(arg);
          return n;
        }
        n->op = ExprNode::Op::kName;
        n->name = t.text;
        names_->emplace_back(t.text, t.offset);
        return n;
      }
      case Token::Kind::kPunct:
        if (t.text == "(") {
          Next();
          NodePtr inner = ParseTernary();
          if (!inner || !Expect(")")) return nullptr;
          return inner;
        }
        if (t.text == "[") {
          NodePtr list = Make(ExprNode::Op::kList, Next().offset);
          if (IsPunct("]")) { Next(); return list; }
          while (true) {
            NodePtr item = ParseTernary();
            if (!item) return nullptr;
            list->kids.push_back(item);
            if (IsPunct(",")) { Next(); if (IsPunct("]")) { Next(); return list; } continue; }
            if (!Expect("]")) return nullptr;
            return list;
          }
        }
        break;
      case Token::Kind::kEnd:
        break;
    }
    SetError(t.offset, t.kind == Token::Kind::kEnd ? "expression is incomplete" : fmt::format("unexpected '{}'", t.text));
    return nullptr;
  }

  const std::string& text_;
  std::vector<std::pair<std::string, size_t>>* names_;
  std::vector<Token> tokens_;
  size_t pos_ = 0;
  ExprError error_;
};

class Evaluator {
 public:
  Evaluator(const Expression::Lookup& lookup, ExprError* error) : lookup_(lookup), error_(error) {}

  bool Eval(const ExprNode& n, Value* out) {
    using Op = ExprNode::Op;
    switch (n.op) {
      case Op::kLiteral: *out = n.literal; return true;
      case Op::kName: {
        std::string why;
        if (!lookup_(n.name, out, &why)) return Fail(n, why);
        return true;
      }
      case Op::kList: {
        std::vector<Value> items(n.kids.size());
        for (size_t k = 0; k < n.kids.size(); ++k) {
          if (!Eval(*n.kids[k], &items[k])) return false;
        }
        *out = Value::List(std::move(items));
        return true;
      }
      case Op::kIsNone:
      case Op::kIsNotNone: {
        Value v;
        if (!Eval(*n.kids[0], &v)) return false;
        *out = Value::Bool(v.is_none() == (n.op == Op::kIsNone));
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
        bool b;
        if (!EvalBool(*n.kids[0], &b)) return false;
        if (b == (n.op == Op::kOr)) { *out = Value::Bool(b); return true; }
        if (!EvalBool(*n.kids[1], &b)) return false;
        *out = Value::Bool(b);
        return true;
      }
      case Op::kIfElse: {
        bool b;
        if (!EvalBool(*n.kids[0], &b)) return false;
        return Eval(*n.kids[b ? 1 : 2], out);
      }
      case Op::kIndex: return EvalIndex(n, out);
      case Op::kCall: return EvalCall(n, out);
      case Op::kNeg: {
        Value v;
        if (!Eval(*n.kids[0], &v)) return false;
        if (v.kind == Value::Kind::kInt) { *out = Value::Int(-v.i); return true; }
        if (v.kind == Value::Kind::kFloat) { *out = Value::Float(-v.f); return true; }
        return Fail(n, fmt::format("cannot negate {}", ToString(v)));
      }
      default: return EvalBinary(n, out);
    }
  }

 private:
  bool Fail(const ExprNode& n, std::string message) {
    *error_ = ExprError{n.offset, std::move(message)};
    return false;
  }

  bool EvalBool(const ExprNode& n, bool* out) {
    Value v;
    if (!Eval(n, &v)) return false;
    std::string why;
    *out = Truthy(v, &why);
    if (!why.empty()) return Fail(n, why);
    return true;
  }

  bool EvalIndex(const ExprNode& n, Value* out) {
    Value base, index;
    if (!Eval(*n.kids[0], &base) || !Eval(*n.kids[1], &index)) return false;
    if (base.kind != Value::Kind::kList) return Fail(n, fmt::format("cannot index {}", ToString(base)));
    if (index.kind != Value::Kind::kInt && index.kind != Value::Kind::kBool)
      return Fail(n, fmt::format("index must be an int, got {}", ToString(index)));
    int64_t k = index.kind == Value::Kind::kBool ? index.b : index.i;
    int64_t size = static_cast<int64_t>(base.list.size());
    if (k < 0) k += size;
    if (k < 0 || k >= size) return Fail(n, fmt::format("index {} is out of range for {}", ToString(index), ToString(base)));
    *out = base.list[static_cast<size_t>(k)];
    return true;
  }

  bool EvalCall(const ExprNode& n, Value* out) {
    Value v;
    if (!Eval(*n.kids[0], &v)) return false;
    if (n.name == "rank" || n.name == "dtype") {
      if (v.kind != Value::Kind::kTensor) return Fail(n, fmt::format("{}() takes a tensor argument, got {}", n.name, ToString(v)));
      if (n.name == "rank") {
        if (v.rank < 0) return Fail(n, fmt::format("the rank of '{}' is not known (the model has no shape for it)", v.s));
        *out = Value::Int(v.rank);
        return true;
      }
      if (v.elem_type == 0) return Fail(n, fmt::format("the element type of '{}' is not known", v.s));
      *out = Value::String(ElementTypeName(v.elem_type));
      return true;
    }
    if (n.name == "len") {
      if (v.kind == Value::Kind::kList) { *out = Value::Int(static_cast<int64_t>(v.list.size())); return true; }
      if (v.kind == Value::Kind::kString) { *out = Value::Int(static_cast<int64_t>(v.s.size())); return true; }
      return Fail(n, fmt::format("len() of {}", ToString(v)));
    }
    if (n.name == "str") {
      *out = v.kind == Value::Kind::kString ? v : Value::String(ToString(v));
      return true;
    }
    if (n.name == "bool") {
      bool b;
      std::string why;
      b = Truthy(v, &why);
      if (!why.empty()) return Fail(n, why);
      *out = Value::Bool(b);
      return true;
    }
    if (n.name == "float" && v.kind == Value::Kind::kString) {  // float('inf'), float('-inf'), float('nan')
      const std::string& t = v.s;
      if (t == "inf" || t == "+inf") { *out = Value::Float(std::numeric_limits<double>::infinity()); return true; }
      if (t == "-inf") { *out = Value::Float(-std::numeric_limits<double>::infinity()); return true; }
      if (t == "nan") { *out = Value::Float(std::numeric_limits<double>::quiet_NaN()); return true; }
      return Fail(n, fmt::format("float() takes 'inf', '-inf' or 'nan', got {}", ToString(v)));
    }
    if (!v.is_number()) return Fail(n, fmt::format("{}() of {}", n.name, ToString(v)));
    if (n.name == "int") {
      *out = Value::Int(v.kind == Value::Kind::kFloat ? static_cast<int64_t>(v.f) : static_cast<int64_t>(v.as_double()));
      return true;
    }
    *out = Value::Float(v.as_double());
    return true;
  }

  bool EvalBinary(const ExprNode& n, Value* out) {
    using Op = ExprNode::Op;
    Value a, b;
    if (!Eval(*n.kids[0], &a) || !Eval(*n.kids[1], &b)) return false;
    if (n.op == Op::kIn || n.op == Op::kNotIn) {
      if (b.kind != Value::Kind::kList) return Fail(n, fmt::format("'in' needs a list on its right, got {}", ToString(b)));
      bool found = false;
      for (const Value& item : b.list) found = found || item == a;
      *out = Value::Bool(found == (n.op == Op::kIn));
      return true;
    }
    if (n.op == Op::kEq || n.op == Op::kNe) {
      if (a.kind == Value::Kind::kTensor || b.kind == Value::Kind::kTensor)
        return Fail(n, "tensors only compare with None ('is None', 'is not None')");
      *out = Value::Bool((a == b) == (n.op == Op::kEq));
      return true;
    }
    if (n.op == Op::kAdd && a.kind == Value::Kind::kList && b.kind == Value::Kind::kList) {
      std::vector<Value> joined = a.list;
      joined.insert(joined.end(), b.list.begin(), b.list.end());
      *out = Value::List(std::move(joined));
      return true;
    }
    if (n.op == Op::kAdd && a.kind == Value::Kind::kString && b.kind == Value::Kind::kString) {
      *out = Value::String(a.s + b.s);
      return true;
    }
    if (!a.is_number() || !b.is_number())
      return Fail(n, fmt::format("operands {} and {} are not numbers", ToString(a), ToString(b)));
    bool floating = a.kind == Value::Kind::kFloat || b.kind == Value::Kind::kFloat;
    double x = a.as_double(), y = b.as_double();
    int64_t ix = static_cast<int64_t>(x), iy = static_cast<int64_t>(y);
    switch (n.op) {
      case Op::kLt: *out = Value::Bool(x < y); return true;
      case Op::kLe: *out = Value::Bool(x <= y); return true;
      case Op::kGt: *out = Value::Bool(x > y); return true;
      case Op::kGe: *out = Value::Bool(x >= y); return true;
      case Op::kAdd: *out = floating ? Value::Float(x + y) : Value::Int(ix + iy); return true;
      case Op::kSub: *out = floating ? Value::Float(x - y) : Value::Int(ix - iy); return true;
      case Op::kMul: *out = floating ? Value::Float(x * y) : Value::Int(ix * iy); return true;
      case Op::kDiv:
        if (y == 0) return Fail(n, "division by zero");
        *out = Value::Float(x / y);
        return true;
      case Op::kFloorDiv:
      case Op::kMod: {
        if (y == 0) return Fail(n, "division by zero");
        if (floating) {
          double q = std::floor(x / y);
          *out = n.op == Op::kFloorDiv ? Value::Float(q) : Value::Float(x - q * y);
        } else {
          int64_t q = ix / iy;
          if ((ix % iy != 0) && ((ix < 0) != (iy < 0))) --q;  // Python floors
          *out = n.op == Op::kFloorDiv ? Value::Int(q) : Value::Int(ix - q * iy);
        }
        return true;
      }
      default: return Fail(n, "unsupported operator");
    }
  }

  const Expression::Lookup& lookup_;
  ExprError* error_;
};

}  // namespace

const char* ElementTypeName(int elem_type) {
  static const char* names[] = {"undefined", "float32", "uint8", "int8", "uint16", "int16", "int32", "int64", "string",
                                "bool", "float16", "float64", "uint32", "uint64", "complex64", "complex128", "bfloat16"};
  return elem_type >= 0 && elem_type < static_cast<int>(sizeof(names) / sizeof(names[0])) ? names[elem_type] : "other";
}

bool Truthy(const Value& v, std::string* why) {
  switch (v.kind) {
    case Value::Kind::kNone: return false;
    case Value::Kind::kBool: return v.b;
    case Value::Kind::kInt: return v.i != 0;
    case Value::Kind::kFloat: return v.f != 0.0;
    case Value::Kind::kString: return !v.s.empty();
    case Value::Kind::kList: return !v.list.empty();
    case Value::Kind::kTensor:
      *why = fmt::format("{} has no truth value; test it with 'is None' or 'is not None'", ToString(v));
      return false;
  }
  return false;
}

Expression Expression::Parse(const std::string& text, ExprError* error) {
  Expression e;
  e.text_ = text;
  Parser parser(text, &e.names_);
  e.root_ = parser.ParseAll(error);
  if (!e.root_) e.names_.clear();
  return e;
}

bool Expression::Evaluate(const Lookup& lookup, Value* out, ExprError* error) const {
  Evaluator evaluator(lookup, error);
  return evaluator.Eval(*root_, out);
}

}  // namespace remap
