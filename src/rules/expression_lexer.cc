#include "rules/expression_lexer.h"

#include <cctype>

#include <fmt/format.h>

namespace remap {

namespace {

bool IsDigit(char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; }
bool IsIdentStart(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool IsIdentChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

size_t SkipDigits(const std::string& s, size_t p) {
  while (p < s.size() && IsDigit(s[p])) ++p;
  return p;
}

}  // namespace

bool LexExpression(const std::string& text, std::vector<ExprToken>* tokens, ExprError* error) {
  auto fail = [&](size_t offset, std::string message) {
    *error = ExprError{offset, std::move(message)};
    return false;
  };
  size_t p = 0;
  while (p < text.size()) {
    const char c = text[p];
    if (std::isspace(static_cast<unsigned char>(c))) { ++p; continue; }
    ExprToken t;
    t.offset = p;
    if (IsDigit(c) || (c == '.' && p + 1 < text.size() && IsDigit(text[p + 1]))) {
      // digits [. digits] [e [+-] digits]: a float if it has a '.' or an exponent.
      size_t q = SkipDigits(text, p);
      bool is_float = false;
      if (q < text.size() && text[q] == '.') {
        is_float = true;
        q = SkipDigits(text, q + 1);
      }
      if (q < text.size() && (text[q] == 'e' || text[q] == 'E')) {
        is_float = true;
        size_t e = q + 1;
        if (e < text.size() && (text[e] == '+' || text[e] == '-')) ++e;
        size_t end = SkipDigits(text, e);
        if (end == e) return fail(p, fmt::format("invalid number '{}'", text.substr(p, end - p)));
        q = end;
      }
      if (q < text.size() && (IsIdentChar(text[q]) || text[q] == '.'))
        return fail(p, fmt::format("invalid number '{}'", text.substr(p, q + 1 - p)));
      t.kind = is_float ? ExprToken::Kind::kFloat : ExprToken::Kind::kInt;
      t.text = text.substr(p, q - p);
      p = q;
    } else if (IsIdentStart(c)) {
      size_t q = p;
      while (q < text.size() && IsIdentChar(text[q])) ++q;
      t.kind = ExprToken::Kind::kIdent;
      t.text = text.substr(p, q - p);
      // math.pi, math.exp: the module prefix is part of the name, never an argument.
      if (t.text == "math" && q < text.size() && text[q] == '.') {
        size_t r = q + 1;
        if (r >= text.size() || !IsIdentStart(text[r])) return fail(q, "expected a name after 'math.'");
        while (r < text.size() && IsIdentChar(text[r])) ++r;
        t.text = text.substr(p, r - p);
        q = r;
      }
      p = q;
    } else if (c == '"' || c == '\'') {
      size_t q = p + 1;
      std::string s;
      while (q < text.size() && text[q] != c) {
        if (text[q] == '\\' && q + 1 < text.size()) {
          char e = text[++q];
          switch (e) {
            case 'n': s += '\n'; break;
            case 't': s += '\t'; break;
            case 'r': s += '\r'; break;
            case '0': s += '\0'; break;
            case '\\': case '\'': case '"': s += e; break;
            default: s += '\\'; s += e; break;  // Python keeps unknown escapes as written
          }
          ++q;
          continue;
        }
        s += text[q++];
      }
      if (q >= text.size()) return fail(p, "unterminated string");
      t.kind = ExprToken::Kind::kString;
      t.text = std::move(s);
      p = q + 1;
    } else {
      static const char* two[] = {"==", "!=", "<=", ">=", "//", "**"};
      t.kind = ExprToken::Kind::kPunct;
      t.text = std::string(1, c);
      for (const char* op : two) {
        if (text.compare(p, 2, op) == 0) t.text = op;
      }
      if (t.text.size() == 1 && std::string("[](),+-*/%<>:").find(c) == std::string::npos)
        return fail(p, fmt::format("unexpected character '{}'", c));
      p += t.text.size();
    }
    tokens->push_back(std::move(t));
  }
  ExprToken end;
  end.offset = text.size();
  end.text = "end of expression";
  tokens->push_back(std::move(end));
  return true;
}

}  // namespace remap
