#include "rules/replacement_template.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <onnx/defs/parser.h>

#include "model/opset_import.h"

namespace remap {

namespace {

// Offset correspondence between a rewritten chunk (with @_eN refs and __xN__
// placeholders) and the text the author wrote.
struct OffsetMap {
  std::vector<std::pair<size_t, size_t>> anchors;  // (rewritten, original), ascending
  size_t ToOriginal(size_t rewritten) const {
    size_t best_r = 0, best_o = 0;
    for (const auto& [r, o] : anchors) {
      if (r > rewritten) break;
      best_r = r;
      best_o = o;
    }
    return best_o + (rewritten - best_r);
  }
};

bool IsIdentChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// Finds the '}' closing the ${ at `open` (the '$'), skipping quoted strings.
size_t FindClose(const std::string& s, size_t open, size_t end) {
  int depth = 0;
  for (size_t p = open + 2; p < end; ++p) {
    char c = s[p];
    if (c == '"' || c == '\'') {
      for (++p; p < end && s[p] != c; ++p) {
        if (s[p] == '\\') ++p;
      }
      continue;
    }
    if (c == '{' || c == '[' || c == '(') ++depth;
    if (c == ']' || c == ')') --depth;
    if (c == '}') {
      if (depth == 0) return p;
      --depth;
    }
  }
  return std::string::npos;
}

// "(line: L column: C)" in an ONNX parser message -> offset into `text`.
bool ParsePosition(const std::string& message, const std::string& text, size_t* offset) {
  size_t l = message.find("(line: ");
  size_t c = message.find(" column: ");
  if (l == std::string::npos || c == std::string::npos) return false;
  int line = std::atoi(message.c_str() + l + 7);
  int col = std::atoi(message.c_str() + c + 9);
  size_t p = 0;
  for (int k = 1; k < line && p < text.size(); ++p) {
    if (text[p] == '\n') ++k;
  }
  *offset = std::min(text.size(), p + static_cast<size_t>(col > 0 ? col - 1 : 0));
  return true;
}

std::string LastLine(const std::string& message) {
  size_t nl = message.find_last_of('\n');
  std::string last = nl == std::string::npos ? message : message.substr(nl + 1);
  while (!last.empty() && std::isspace(static_cast<unsigned char>(last.back()))) last.pop_back();
  return last;
}

// Offset of the first whole-word occurrence of `name` in [begin, end), for messages about it.
size_t FindWord(const std::string& text, const std::string& name, size_t begin = 0) {
  for (size_t p = text.find(name, begin); p != std::string::npos; p = text.find(name, p + 1)) {
    bool left = p == 0 || !IsIdentChar(text[p - 1]);
    size_t e = p + name.size();
    bool right = e >= text.size() || !IsIdentChar(text[e]);
    if (left && right) return p;
  }
  return begin;
}

std::string Trim(const std::string& s) {
  size_t b = s.find_first_not_of(" \t\r");
  if (b == std::string::npos) return "";
  size_t e = s.find_last_not_of(" \t\r");
  return s.substr(b, e - b + 1);
}

bool IsIdentifier(const std::string& s) {
  if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0]))) return false;
  for (char c : s) {
    if (!IsIdentChar(c)) return false;
  }
  return true;
}

constexpr std::string_view kPlaceholderPrefix = "__x";

std::string PlaceholderName(size_t k) { return fmt::format("{}{}__", kPlaceholderPrefix, k); }

}  // namespace

std::string ExpressionRefName(size_t k) { return fmt::format("_e{}", k); }

bool ParseExpressionRefName(const std::string& ref, size_t* k) {
  if (ref.size() < 3 || ref.compare(0, 2, "_e") != 0) return false;
  const char* first = ref.data() + 2;
  const char* last = ref.data() + ref.size();
  // Digits only; too many for a size_t is no reference either.
  auto [end, ec] = std::from_chars(first, last, *k);
  return ec == std::errc() && end == last;
}

std::vector<NamePart> SplitName(const std::string& name) {
  std::vector<NamePart> parts;
  size_t p = 0;
  while (p < name.size()) {
    size_t at = name.find(kPlaceholderPrefix, p);
    size_t digits_end = at;
    if (at != std::string::npos) {
      digits_end = at + 3;
      while (digits_end < name.size() && std::isdigit(static_cast<unsigned char>(name[digits_end]))) ++digits_end;
    }
    if (at == std::string::npos || digits_end == at + 3 || name.compare(digits_end, 2, "__") != 0) {
      if (at != std::string::npos) {
        // "__x" not followed by digits and "__": literal text, keep scanning after it.
        if (parts.empty() || parts.back().is_expression) parts.push_back(NamePart{});
        parts.back().text += name.substr(p, at + 3 - p);
        p = at + 3;
        continue;
      }
      if (parts.empty() || parts.back().is_expression) parts.push_back(NamePart{});
      parts.back().text += name.substr(p);
      break;
    }
    if (at > p) {
      if (parts.empty() || parts.back().is_expression) parts.push_back(NamePart{});
      parts.back().text += name.substr(p, at - p);
    }
    NamePart e;
    e.is_expression = true;
    e.expr = static_cast<size_t>(std::stoul(name.substr(at + 3, digits_end - at - 3)));
    parts.push_back(e);
    p = digits_end + 2;
  }
  if (parts.empty()) parts.push_back(NamePart{});
  return parts;
}

bool MayHavePlaceholder(const std::string& name) { return name.find(kPlaceholderPrefix) != std::string::npos; }

bool HasPlaceholder(const std::string& name) {
  if (!MayHavePlaceholder(name)) return false;
  for (const NamePart& p : SplitName(name)) {
    if (p.is_expression) return true;
  }
  return false;
}

// Builds a ReplacementTemplate from text: directive lines into items, node
// runs through ONNX's parser, then a static check of names.
class TemplateCompiler {
 public:
  TemplateCompiler(const std::string& text, const Signature& signature, ReplacementTemplate* out, TemplateError* error)
      : text_(text), signature_(signature), out_(out), error_(error) {}

  bool Run() {
    size_t begin = 0, end = text_.size();
    size_t first = text_.find_first_not_of(" \t\r\n");
    size_t last = text_.find_last_not_of(" \t\r\n");
    if (first != std::string::npos && text_[first] == '{' && text_[last] == '}') {
      begin = first + 1;
      end = last;
    }
    SplitLines(begin, end);
    size_t line = 0;
    std::vector<std::string> scope;
    std::string terminator;
    if (!ParseBlock(&line, &scope, &out_->items_, {}, &terminator)) return false;
    if (line < lines_.size()) return Fail(lines_[line].begin, fmt::format("'{}' without a matching directive", terminator));
    bool any_node = false;
    out_->ForEachNode([&](const onnx::NodeProto&) { any_node = true; });
    if (!any_node) return Fail(0, "the replacement has no nodes");
    return CheckNames();
  }

 private:
  struct Line {
    size_t begin, end;  // [begin, end) in text_, without the newline
  };

  bool Fail(size_t offset, std::string message) {
    if (error_->message.empty()) *error_ = TemplateError{std::min(offset, text_.size()), std::move(message)};
    return false;
  }

  void SplitLines(size_t begin, size_t end) {
    size_t p = begin;
    while (p < end) {
      size_t nl = text_.find('\n', p);
      if (nl == std::string::npos || nl > end) nl = end;
      lines_.push_back(Line{p, nl});
      p = nl + 1;
    }
  }

  // The directive keyword of a line ("for", "if", ...), or "" for a line of nodes.
  std::string DirectiveOf(const Line& l, size_t* rest) const {
    size_t p = text_.find_first_not_of(" \t\r", l.begin);
    if (p == std::string::npos || p >= l.end || text_[p] != '@') return "";
    size_t q = p + 1;
    while (q < l.end && std::isalpha(static_cast<unsigned char>(text_[q]))) ++q;
    std::string word = text_.substr(p + 1, q - p - 1);
    static const std::set<std::string> known = {"for", "if", "elif", "else", "end", "let"};
    if (!known.count(word)) return "";
    *rest = q;
    return word;
  }

  // Parses lines into `items` until a line whose directive is in `stop` (left
  // unconsumed, its keyword in *terminator) or the end.
  bool ParseBlock(size_t* line, std::vector<std::string>* scope, std::vector<TemplateItem>* items,
                  const std::set<std::string>& stop, std::string* terminator) {
    const size_t scope_size = scope->size();
    size_t chunk_begin = std::string::npos, chunk_end = 0;
    int brace_depth = 0;
    auto flush = [&]() {
      if (chunk_begin == std::string::npos) return true;
      bool ok = ParseChunk(chunk_begin, chunk_end, *scope, items);
      chunk_begin = std::string::npos;
      return ok;
    };
    while (*line < lines_.size()) {
      const Line& l = lines_[*line];
      size_t rest = 0;
      std::string word = DirectiveOf(l, &rest);
      if (word.empty()) {
        if (chunk_begin == std::string::npos) chunk_begin = l.begin;
        chunk_end = l.end;
        brace_depth += BraceDelta(l.begin, l.end);
        ++*line;
        continue;
      }
      if (brace_depth > 0)
        return Fail(l.begin, fmt::format("@{} inside a subgraph body: directives work only between nodes of the replacement", word));
      if (!flush()) return false;
      if (stop.count(word)) {
        *terminator = word;
        scope->resize(scope_size);
        return true;
      }
      const size_t at = text_.find('@', l.begin);
      std::string body = text_.substr(rest, l.end - rest);
      size_t body_offset = rest;
      // An optional ':' ends @for/@if/@elif/@else lines, as in Python.
      std::string trimmed = Trim(body);
      if (!trimmed.empty() && trimmed.back() == ':' && word != "let") body = body.substr(0, body.find_last_of(':'));
      ++*line;
      if (word == "let") {
        size_t eq = body.find('=');
        std::string name = Trim(body.substr(0, eq == std::string::npos ? 0 : eq));
        if (eq == std::string::npos || !IsIdentifier(name))
          return Fail(at, "write '@let NAME = EXPRESSION'");
        TemplateItem item;
        item.kind = TemplateItem::Kind::kLet;
        item.offset = at;
        item.var = name;
        if (!AddExpression(body.substr(eq + 1), body_offset + eq + 1, *scope, &item.expr)) return false;
        scope->push_back(name);
        items->push_back(std::move(item));
      } else if (word == "for") {
        std::string t = Trim(body);
        size_t in = body.find(" in ");
        std::string var = Trim(body.substr(0, in == std::string::npos ? 0 : in));
        if (in == std::string::npos || !IsIdentifier(var)) return Fail(at, "write '@for NAME in EXPRESSION:'");
        TemplateItem item;
        item.kind = TemplateItem::Kind::kFor;
        item.offset = at;
        item.var = var;
        if (!AddExpression(body.substr(in + 4), body_offset + in + 4, *scope, &item.expr)) return false;
        scope->push_back(var);
        std::string end_word;
        if (!ParseBlock(line, scope, &item.body, {"end"}, &end_word)) return false;
        scope->pop_back();
        if (end_word != "end") return Fail(at, "@for has no @end");
        ++*line;
        items->push_back(std::move(item));
      } else if (word == "if") {
        TemplateItem item;
        item.kind = TemplateItem::Kind::kIf;
        item.offset = at;
        TemplateItem::Branch branch;
        if (!AddExpression(body, body_offset, *scope, &branch.condition)) return false;
        for (;;) {
          std::string next;
          if (!ParseBlock(line, scope, &branch.items, {"elif", "else", "end"}, &next)) return false;
          item.branches.push_back(std::move(branch));
          branch = TemplateItem::Branch{};
          if (next.empty()) return Fail(at, "@if has no @end");
          const Line& nl = lines_[*line];
          size_t nrest = 0;
          DirectiveOf(nl, &nrest);
          ++*line;
          if (next == "end") break;
          if (!item.branches.back().has_condition) return Fail(nl.begin, fmt::format("@{} after @else", next));
          if (next == "else") {
            branch.has_condition = false;
            if (!Trim(text_.substr(nrest, nl.end - nrest)).empty() && Trim(text_.substr(nrest, nl.end - nrest)) != ":")
              return Fail(nrest, "@else takes no condition (write @elif)");
          } else {
            std::string cond = text_.substr(nrest, nl.end - nrest);
            std::string ct = Trim(cond);
            if (!ct.empty() && ct.back() == ':') cond = cond.substr(0, cond.find_last_of(':'));
            if (!AddExpression(cond, nrest, *scope, &branch.condition)) return false;
          }
        }
        items->push_back(std::move(item));
      } else {
        return Fail(at, fmt::format("@{} without a matching @{}", word, word == "end" ? "for or @if" : "if"));
      }
    }
    if (!flush()) return false;
    scope->resize(scope_size);
    return true;
  }

  // Net '{' minus '}' of a line of nodes, outside strings and ${...}.
  int BraceDelta(size_t begin, size_t end) const {
    int d = 0;
    for (size_t p = begin; p < end; ++p) {
      char c = text_[p];
      if (c == '"') {
        for (++p; p < end && text_[p] != '"'; ++p) {
          if (text_[p] == '\\') ++p;
        }
      } else if (c == '$' && p + 1 < end && text_[p + 1] == '{') {
        size_t close = FindClose(text_, p, end);
        if (close == std::string::npos) return d;
        p = close;
      } else if (c == '{') {
        ++d;
      } else if (c == '}') {
        --d;
      }
    }
    return d;
  }

  bool AddExpression(const std::string& body, size_t offset, const std::vector<std::string>& scope, size_t* index) {
    ExprError e;
    Expression expr = Expression::Parse(body, &e);
    if (expr.empty()) return Fail(offset + e.offset, e.message);
    for (const auto& [name, at] : expr.names()) {
      bool local = std::find(scope.begin(), scope.end(), name) != scope.end();
      if (!local && !signature_.Find(name))
        return Fail(offset + at, fmt::format("'{}' is not an argument of the signature", name));
    }
    *index = out_->expressions_.size();
    out_->expressions_.push_back(std::move(expr));
    out_->expression_offsets_.push_back(offset);
    return true;
  }

  // Parses text_[begin, end) as a node list into a new kNodes item.
  bool ParseChunk(size_t begin, size_t end, const std::vector<std::string>& scope, std::vector<TemplateItem>* items) {
    std::string rewritten = "{";
    OffsetMap map;
    map.anchors.emplace_back(rewritten.size(), begin);
    size_t p = begin;
    while (p < end) {
      size_t open = text_.find("${", p);
      if (open == std::string::npos || open >= end) {
        rewritten += text_.substr(p, end - p);
        break;
      }
      rewritten += text_.substr(p, open - p);
      size_t close = FindClose(text_, open, end);
      if (close == std::string::npos) return Fail(open, "'${' has no closing '}'");
      size_t k = 0;
      if (!AddExpression(text_.substr(open + 2, close - open - 2), open + 2, scope, &k)) return false;
      // After '=' it is an attribute value; anywhere else it is (part of) a value name.
      size_t prev = rewritten.find_last_not_of(" \t\r\n");
      bool attribute = prev != std::string::npos && rewritten[prev] == '=';
      // `alpha = ${x}2` would read as a reference to another expression.
      if (attribute && close + 1 < end && IsIdentChar(text_[close + 1]))
        return Fail(close + 1, "an attribute value written as '${...}' must end with it");
      map.anchors.emplace_back(rewritten.size(), open);
      rewritten += attribute ? "@" + ExpressionRefName(k) : PlaceholderName(k);
      map.anchors.emplace_back(rewritten.size(), close + 1);
      p = close + 1;
    }
    rewritten += "\n}";

    onnx::NodeList list;
    onnx::OnnxParser parser(rewritten.c_str());
    onnx::Common::Status status;
    try {
      status = parser.Parse(list);
    } catch (const std::exception& e) {
      // ONNX 1.12's parser lets std::stol's out_of_range escape on an integer
      // literal too large for int64 (found by rule_file_fuzzer).
      return Fail(begin, fmt::format("ONNX text: a literal is out of range ({})", e.what()));
    }
    if (!status.IsOK()) {
      size_t at = begin;
      if (ParsePosition(status.ErrorMessage(), rewritten, &at)) at = map.ToOriginal(at);
      return Fail(std::min(at, end), fmt::format("ONNX text: {}", LastLine(status.ErrorMessage())));
    }
    if (!parser.EndOfInput()) return Fail(end, "unexpected text after the node list");
    if (list.empty()) return true;
    TemplateItem item;
    item.kind = TemplateItem::Kind::kNodes;
    item.offset = begin;
    item.nodes.assign(list.begin(), list.end());
    items->push_back(std::move(item));
    return true;
  }

  // Static name check over the whole tree: where every name is static, a name
  // is used only after it is assigned (in some branch), assigned once on any
  // path, and never shadows an argument.
  bool CheckNames() {
    std::set<std::string> defined;
    bool dynamic_outputs = false;
    if (!CheckItems(out_->items_, &defined, &dynamic_outputs)) return false;
    if (!dynamic_outputs) {
      for (const std::string& ret : signature_.returns) {
        if (!defined.count(ret))
          return Fail(0, fmt::format("the replacement never assigns '{}' (the node's output{})", ret,
                                     signature_.returns.size() > 1
                                         ? "s are " + fmt::format("{}", fmt::join(signature_.returns, ", "))
                                         : ""));
      }
    }
    for (const std::string& name : defined) {
      bool is_return = std::find(signature_.returns.begin(), signature_.returns.end(), name) != signature_.returns.end();
      if (!is_return) out_->locals_.insert(name);
    }
    return true;
  }

  bool CheckItems(const std::vector<TemplateItem>& items, std::set<std::string>* defined, bool* dynamic_outputs) {
    for (const TemplateItem& item : items) {
      switch (item.kind) {
        case TemplateItem::Kind::kNodes:
          for (const onnx::NodeProto& node : item.nodes) {
            if (!CheckNode(node, item.offset, defined, {}, dynamic_outputs)) return false;
          }
          break;
        case TemplateItem::Kind::kLet:
          break;
        case TemplateItem::Kind::kFor: {
          std::set<std::string> inner = *defined;
          if (!CheckItems(item.body, &inner, dynamic_outputs)) return false;
          defined->insert(inner.begin(), inner.end());
          break;
        }
        case TemplateItem::Kind::kIf: {
          std::set<std::string> all = *defined;
          for (const auto& branch : item.branches) {
            std::set<std::string> inner = *defined;
            if (!CheckItems(branch.items, &inner, dynamic_outputs)) return false;
            all.insert(inner.begin(), inner.end());
          }
          *defined = std::move(all);
          break;
        }
      }
    }
    return true;
  }

  // `outer` holds names of enclosing subgraph scopes (empty at top level).
  bool CheckNode(const onnx::NodeProto& node, size_t where, std::set<std::string>* defined,
                 const std::set<std::string>& outer, bool* dynamic_outputs) {
    for (const std::string& in : node.input()) {
      if (in.empty() || HasPlaceholder(in) || signature_.Find(in) || defined->count(in) || outer.count(in)) continue;
      // acc0 may have been assigned as acc${k}: checked when the template is instantiated.
      if (*dynamic_outputs) continue;
      return Fail(FindWord(text_, in, where),
                  fmt::format("'{}' is neither an argument of the signature nor an output of an earlier node", in));
    }
    if (!IsDefaultDomain(node.domain())) out_->domains_.insert(node.domain());
    for (const onnx::AttributeProto& attr : node.attribute()) {
      size_t k;
      if (!attr.ref_attr_name().empty() &&
          (!ParseExpressionRefName(attr.ref_attr_name(), &k) || k >= out_->expressions_.size()))
        return Fail(FindWord(text_, attr.ref_attr_name(), where), "write attribute values from arguments as ${name}, not @name");
      std::vector<const onnx::GraphProto*> graphs;
      if (attr.has_g()) graphs.push_back(&attr.g());
      for (const auto& g : attr.graphs()) graphs.push_back(&g);
      for (const onnx::GraphProto* g : graphs) {
        if (!CheckSubgraph(*g, where, *defined, outer)) return false;
      }
    }
    for (const std::string& o : node.output()) {
      if (o.empty()) continue;
      if (HasPlaceholder(o)) {
        *dynamic_outputs = true;
        continue;
      }
      if (signature_.Find(o)) return Fail(FindWord(text_, o, where), fmt::format("output '{}' has the name of an argument", o));
      if (!defined->insert(o).second || outer.count(o))
        return Fail(FindWord(text_, o, where), fmt::format("'{}' is assigned twice", o));
    }
    return true;
  }

  // A subgraph sees every name of the scopes around it; its own names must be new.
  bool CheckSubgraph(const onnx::GraphProto& g, size_t where, const std::set<std::string>& defined,
                     const std::set<std::string>& outer) {
    std::set<std::string> visible = outer;
    visible.insert(defined.begin(), defined.end());
    std::set<std::string> own;
    for (const auto& in : g.input()) {
      if (HasPlaceholder(in.name())) continue;
      if (signature_.Find(in.name()) || visible.count(in.name()) || !own.insert(in.name()).second)
        return Fail(FindWord(text_, in.name(), where),
                    fmt::format("subgraph input '{}' repeats a name of the scope around it", in.name()));
    }
    bool dynamic = false;
    for (const auto& n : g.node()) {
      if (!CheckNode(n, where, &own, visible, &dynamic)) return false;
    }
    for (const auto& o : g.output()) {
      if (HasPlaceholder(o.name()) || own.count(o.name()) || visible.count(o.name()) || signature_.Find(o.name())) continue;
      return Fail(FindWord(text_, o.name(), where), fmt::format("subgraph output '{}' is never assigned", o.name()));
    }
    return true;
  }

  const std::string& text_;
  const Signature& signature_;
  ReplacementTemplate* out_;
  TemplateError* error_;
  std::vector<Line> lines_;
};

bool ReplacementTemplate::Compile(const std::string& text, const Signature& signature, ReplacementTemplate* out,
                                  TemplateError* error) {
  *error = TemplateError{};
  return TemplateCompiler(text, signature, out, error).Run();
}

namespace {
void CollectOps(const std::vector<TemplateItem>& items, std::vector<std::string>* ops) {
  for (const TemplateItem& it : items) {
    for (const auto& n : it.nodes) ops->push_back(n.domain().empty() ? n.op_type() : n.domain() + "::" + n.op_type());
    CollectOps(it.body, ops);
    for (const auto& b : it.branches) CollectOps(b.items, ops);
  }
}
}  // namespace

const Fragment* ReplacementTemplate::FragmentCall(const onnx::NodeProto& node) const {
  if (fragments_.empty() || !IsDefaultDomain(node.domain())) return nullptr;
  auto it = fragments_.find(node.op_type());
  return it == fragments_.end() ? nullptr : it->second;
}

std::vector<std::string> ReplacementTemplate::EmittedOps() const {
  std::vector<std::string> ops;
  CollectOps(items_, &ops);
  return ops;
}

}  // namespace remap
