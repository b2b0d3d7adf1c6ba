#include "rules/signature.h"

#include <cctype>
#include <cstdlib>
#include <fmt/format.h>

namespace remap {

namespace {

class SignatureParser {
 public:
  SignatureParser(const std::string& text, SignatureError* error) : s_(text), error_(error) {}

  bool Parse(Signature* sig) {
    Skip();
    std::string qualified;
    size_t at = p_;
    if (!Ident(&qualified, true)) return Fail(at, "expected the operator name, e.g. aten::logit(...)");
    size_t colons = qualified.rfind("::");
    if (colons != std::string::npos) {
      sig->ns = qualified.substr(0, colons);
      qualified = qualified.substr(colons + 2);
    }
    size_t dot = qualified.find('.');
    sig->name = qualified.substr(0, dot);
    if (dot != std::string::npos) sig->overload = qualified.substr(dot + 1);
    if (!Eat('(')) return Fail(p_, "expected '(' after the operator name");
    bool first = true;
    while (!Eat(')')) {
      if (!first && !Eat(',')) return Fail(p_, "expected ',' or ')'");
      first = false;
      Skip();
      if (Eat('*')) continue;  // keyword-only marker: position does not change for the exporter
      Argument arg;
      if (!ParseArgument(&arg)) return false;
      if (sig->Find(arg.name)) return Fail(arg.offset, fmt::format("argument '{}' is declared twice", arg.name));
      sig->args.push_back(std::move(arg));
    }
    Skip();
    if (p_ < s_.size()) {
      if (s_.compare(p_, 2, "->") != 0) return Fail(p_, "expected '->' and the return types");
      p_ += 2;
      if (!ParseReturns(sig)) return false;
    }
    if (sig->returns.empty()) sig->returns.push_back("out");
    Skip();
    if (p_ != s_.size()) return Fail(p_, "unexpected text after the signature");
    return true;
  }

 private:
  bool Fail(size_t at, std::string message) {
    *error_ = SignatureError{at, std::move(message)};
    return false;
  }
  void Skip() {
    while (p_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[p_]))) ++p_;
  }
  bool Eat(char c) {
    Skip();
    if (p_ < s_.size() && s_[p_] == c) { ++p_; return true; }
    return false;
  }
  bool Ident(std::string* out, bool qualified = false) {
    Skip();
    size_t start = p_;
    while (p_ < s_.size()) {
      char c = s_[p_];
      if (std::isalnum(static_cast<unsigned char>(c)) || c == '_' || (qualified && (c == '.' || c == ':'))) ++p_;
      else break;
    }
    *out = s_.substr(start, p_ - start);
    return !out->empty() && !std::isdigit(static_cast<unsigned char>((*out)[0]));
  }

  bool ParseType(Argument* arg) {
    size_t at = p_;
    std::string base;
    if (!Ident(&base)) return Fail(at, "expected an argument type");
    Skip();
    if (p_ < s_.size() && s_[p_] == '(') {  // alias annotation: Tensor(a!)
      while (p_ < s_.size() && s_[p_] != ')') ++p_;
      if (p_ == s_.size()) return Fail(at, "unterminated '(' in type");
      ++p_;
    }
    bool list = false;
    Skip();
    // "Tensor?[]": a list whose elements may be None (aten::index's indices).
    if (s_.compare(p_, 3, "?[]") == 0) {
      if (base != "Tensor") return Fail(at, fmt::format("'{}?[]': only Tensor lists may have None elements", base));
      arg->optional_elements = true;
      ++p_;
    }
    if (p_ < s_.size() && s_[p_] == '[') {
      list = true;
      arg->list_size = std::atoi(s_.c_str() + p_ + 1);
      while (p_ < s_.size() && s_[p_] != ']') ++p_;
      if (p_ == s_.size()) return Fail(at, "unterminated '[' in type");
      ++p_;
    }
    Skip();
    if (p_ < s_.size() && s_[p_] == '?') { arg->optional = true; ++p_; }
    arg->type_text = s_.substr(at, p_ - at);
    while (!arg->type_text.empty() && std::isspace(static_cast<unsigned char>(arg->type_text.back()))) arg->type_text.pop_back();
    if (base == "Tensor") arg->type = list ? ArgType::kTensorList : ArgType::kTensor;
    else if (base == "int" || base == "SymInt") arg->type = list ? ArgType::kIntList : ArgType::kInt;
    else if (base == "float") arg->type = list ? ArgType::kFloatList : ArgType::kFloat;
    else if (base == "bool") arg->type = list ? ArgType::kBoolList : ArgType::kBool;
    else if (base == "str" && !list) arg->type = ArgType::kStr;
    else if (base == "Scalar" && !list) arg->type = ArgType::kScalar;
    else if (base == "ScalarType" && !list) arg->type = ArgType::kScalarType;
    else if (base == "Layout" || base == "Device" || base == "Generator" || base == "MemoryFormat" ||
             base == "Dimname" || base == "Storage" || base == "Stream" || base == "Any")
      arg->type = ArgType::kOpaque;
    else return Fail(at, fmt::format("unknown argument type '{}'", base));
    return true;
  }

  bool ParseDefault(Argument* arg) {
    Skip();
    size_t at = p_;
    int depth = 0;
    while (p_ < s_.size()) {
      char c = s_[p_];
      if (c == '[' || c == '(') ++depth;
      if ((c == ']' || c == ')') && depth-- == 0) break;
      if (c == ',' && depth == 0) break;
      if (c == '\'' || c == '"') {
        ++p_;
        while (p_ < s_.size() && s_[p_] != c) ++p_;
      }
      ++p_;
    }
    std::string text = s_.substr(at, p_ - at);
    while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.pop_back();
    Value v;
    if (!ParseDefaultText(text, arg->type, arg->list_size, &v))
      return Fail(at, fmt::format("cannot read default value '{}'", text));
    arg->default_value = v;
    return true;
  }

  static bool ParseNumber(const std::string& t, ArgType type, Value* v) {
    try {
      size_t used = 0;
      bool is_float = t.find_first_of(".eE") != std::string::npos || type == ArgType::kFloat || type == ArgType::kFloatList;
      if (is_float) *v = Value::Float(std::stod(t, &used));
      else *v = Value::Int(std::stoll(t, &used));
      return used == t.size();
    } catch (const std::exception&) {
      return false;
    }
  }

  static bool ParseDefaultText(const std::string& t, ArgType type, int list_size, Value* v) {
    if (t.empty()) return false;
    if (t == "None") { *v = Value::None(); return true; }
    if (t == "True" || t == "False") { *v = Value::Bool(t == "True"); return true; }
    if (t.front() == '\'' || t.front() == '"') { *v = Value::String(t.substr(1, t.size() - 2)); return true; }
    // at::Reduction enum names used as defaults in native_functions.yaml
    if (t == "Mean") { *v = Value::Int(1); return true; }
    if (t == "Sum") { *v = Value::Int(2); return true; }
    if (t == "contiguous_format" || t == "long" || t == "strided") { *v = Value::String(t); return true; }
    if (t.front() == '[') {
      std::vector<Value> items;
      std::string inner = t.substr(1, t.size() - 2);
      size_t start = 0;
      while (start < inner.size()) {
        size_t comma = inner.find(',', start);
        std::string item = inner.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
        size_t a = item.find_first_not_of(' '), b = item.find_last_not_of(' ');
        if (a != std::string::npos) {
          Value x;
          if (!ParseDefaultText(item.substr(a, b - a + 1), type, 0, &x)) return false;
          items.push_back(x);
        }
        if (comma == std::string::npos) break;
        start = comma + 1;
      }
      *v = Value::List(std::move(items));
      return true;
    }
    Value n;
    if (!ParseNumber(t, type, &n)) return false;
    // int[2] stride=1 means [1, 1] in PyTorch schemas
    if (type == ArgType::kIntList || type == ArgType::kFloatList) {
      *v = Value::List(std::vector<Value>(static_cast<size_t>(list_size > 0 ? list_size : 1), n));
      return true;
    }
    *v = n;
    return true;
  }

  bool ParseArgument(Argument* arg) {
    Skip();
    if (!ParseType(arg)) return false;
    size_t at = p_;
    Skip();
    at = p_;
    if (!Ident(&arg->name)) return Fail(at, "expected an argument name after its type");
    arg->offset = at;
    if (Eat('=')) return ParseDefault(arg);
    return true;
  }

  bool ParseReturns(Signature* sig) {
    Skip();
    bool tuple = Eat('(');
    if (tuple && Eat(')')) return true;
    size_t index = 0;
    std::vector<std::string> names;
    while (true) {
      Argument ret;
      if (!ParseType(&ret)) return false;
      Skip();
      std::string name;
      size_t save = p_;
      if (!Ident(&name)) { p_ = save; name.clear(); }
      names.push_back(name);
      ++index;
      if (!tuple) break;
      if (Eat(')')) break;
      if (!Eat(',')) return Fail(p_, "expected ',' or ')' in the return list");
    }
    for (size_t k = 0; k < names.size(); ++k) {
      std::string name = names[k];
      if (name.empty()) name = names.size() == 1 ? "out" : fmt::format("out{}", k);
      if (sig->Find(name)) return Fail(p_, fmt::format("return '{}' has the name of an argument", name));
      sig->returns.push_back(name);
    }
    return true;
  }

  const std::string& s_;
  SignatureError* error_;
  size_t p_ = 0;
};

}  // namespace

const Argument* Signature::Find(const std::string& arg_name) const {
  for (const Argument& a : args) {
    if (a.name == arg_name) return &a;
  }
  return nullptr;
}

bool ParseSignature(const std::string& text, Signature* out, SignatureError* error) {
  SignatureParser parser(text, error);
  return parser.Parse(out);
}

bool IsTensorType(ArgType t) { return t == ArgType::kTensor || t == ArgType::kTensorList; }

const char* ArgTypeName(ArgType t) {
  switch (t) {
    case ArgType::kTensor: return "Tensor";
    case ArgType::kTensorList: return "Tensor[]";
    case ArgType::kInt: return "int";
    case ArgType::kFloat: return "float";
    case ArgType::kBool: return "bool";
    case ArgType::kStr: return "str";
    case ArgType::kScalar: return "Scalar";
    case ArgType::kScalarType: return "ScalarType";
    case ArgType::kIntList: return "int[]";
    case ArgType::kFloatList: return "float[]";
    case ArgType::kBoolList: return "bool[]";
    case ArgType::kOpaque: return "opaque";
  }
  return "?";
}

}  // namespace remap
