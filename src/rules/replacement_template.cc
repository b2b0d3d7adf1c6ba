#include "rules/replacement_template.h"

#include <cctype>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <onnx/defs/parser.h>

#include "model/opset_import.h"

namespace remap {

namespace {

// Offset correspondence between the rewritten text (with @_eN refs) and the
// text the author wrote.
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

// Finds the '}' closing the ${ at `open` (the '$'), skipping quoted strings.
size_t FindClose(const std::string& s, size_t open) {
  int depth = 0;
  for (size_t p = open + 2; p < s.size(); ++p) {
    char c = s[p];
    if (c == '"' || c == '\'') {
      for (++p; p < s.size() && s[p] != c; ++p) {
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

// Offset of the first whole-word occurrence of `name`, for messages about it.
size_t FindWord(const std::string& text, const std::string& name) {
  for (size_t p = text.find(name); p != std::string::npos; p = text.find(name, p + 1)) {
    bool left = p == 0 || !(std::isalnum(static_cast<unsigned char>(text[p - 1])) || text[p - 1] == '_');
    size_t e = p + name.size();
    bool right = e >= text.size() || !(std::isalnum(static_cast<unsigned char>(text[e])) || text[e] == '_');
    if (left && right) return p;
  }
  return 0;
}

}  // namespace

std::string ExpressionRefName(size_t k) { return fmt::format("_e{}", k); }

bool ParseExpressionRefName(const std::string& ref, size_t* k) {
  if (ref.size() < 3 || ref.compare(0, 2, "_e") != 0) return false;
  for (size_t p = 2; p < ref.size(); ++p) {
    if (!std::isdigit(static_cast<unsigned char>(ref[p]))) return false;
  }
  *k = static_cast<size_t>(std::stoul(ref.substr(2)));
  return true;
}

bool ReplacementTemplate::Compile(const std::string& text, const Signature& signature, ReplacementTemplate* out,
                                  TemplateError* error) {
  auto fail = [&](size_t offset, std::string message) {
    *error = TemplateError{offset, std::move(message)};
    return false;
  };
  // 1. Pull out ${...} attribute expressions.
  std::string rewritten;
  OffsetMap map;
  size_t first = text.find_first_not_of(" \t\r\n");
  bool braced = first != std::string::npos && text[first] == '{';
  if (!braced) rewritten = "{";
  map.anchors.emplace_back(rewritten.size(), 0);
  size_t p = 0;
  while (p < text.size()) {
    size_t open = text.find("${", p);
    if (open == std::string::npos) {
      rewritten += text.substr(p);
      break;
    }
    rewritten += text.substr(p, open - p);
    size_t close = FindClose(text, open);
    if (close == std::string::npos) return fail(open, "'${' has no closing '}'");
    std::string body = text.substr(open + 2, close - open - 2);
    ExprError e;
    Expression expr = Expression::Parse(body, &e);
    if (expr.empty()) return fail(open + 2 + e.offset, e.message);
    for (const auto& [name, at] : expr.names()) {
      if (!signature.Find(name))
        return fail(open + 2 + at, fmt::format("'{}' is not an argument of the signature", name));
    }
    std::string ref = "@" + ExpressionRefName(out->expressions_.size());
    out->expressions_.push_back(std::move(expr));
    out->expression_offsets_.push_back(open + 2);
    map.anchors.emplace_back(rewritten.size(), open);
    rewritten += ref;
    map.anchors.emplace_back(rewritten.size(), close + 1);
    p = close + 1;
  }
  if (!braced) rewritten += "\n}";

  // 2. Parse with ONNX's parser.
  onnx::NodeList list;
  onnx::OnnxParser parser(rewritten.c_str());
  auto status = parser.Parse(list);
  if (!status.IsOK()) {
    size_t at = 0;
    if (ParsePosition(status.ErrorMessage(), rewritten, &at)) at = map.ToOriginal(at);
    return fail(std::min(at, text.size()), fmt::format("ONNX text: {}", LastLine(status.ErrorMessage())));
  }
  if (!parser.EndOfInput()) return fail(text.size(), "unexpected text after the node list '}'");
  if (list.empty()) return fail(0, "the replacement has no nodes");

  // 3. Classify names; check attribute references.
  std::set<std::string> defined;
  for (const onnx::NodeProto& node : list) {
    for (const std::string& in : node.input()) {
      if (in.empty() || signature.Find(in) || defined.count(in)) continue;
      return fail(FindWord(text, in), fmt::format("'{}' is neither an argument of the signature nor an output of an earlier node", in));
    }
    for (const onnx::AttributeProto& attr : node.attribute()) {
      size_t k;
      if (!attr.ref_attr_name().empty() && !ParseExpressionRefName(attr.ref_attr_name(), &k))
        return fail(FindWord(text, attr.ref_attr_name()), "write attribute values from arguments as ${name}, not @name");
      if (attr.type() == onnx::AttributeProto::GRAPH || attr.type() == onnx::AttributeProto::GRAPHS)
        return fail(FindWord(text, attr.name()), "subgraph attributes are not supported in replacements");
    }
    for (const std::string& o : node.output()) {
      if (o.empty()) continue;
      if (signature.Find(o)) return fail(FindWord(text, o), fmt::format("output '{}' has the name of an argument", o));
      if (!defined.insert(o).second) return fail(FindWord(text, o), fmt::format("'{}' is assigned twice", o));
    }
    if (!IsDefaultDomain(node.domain())) out->domains_.insert(node.domain());
  }
  for (const std::string& ret : signature.returns) {
    if (!defined.count(ret))
      return fail(0, fmt::format("the replacement never assigns '{}' (the node's output{})", ret,
                                 signature.returns.size() > 1 ? "s are " + fmt::format("{}", fmt::join(signature.returns, ", ")) : ""));
  }
  for (const std::string& name : defined) {
    bool is_return = false;
    for (const std::string& ret : signature.returns) is_return = is_return || ret == name;
    if (!is_return) out->locals_.insert(name);
  }
  out->nodes_.assign(list.begin(), list.end());
  return true;
}

std::vector<std::string> ReplacementTemplate::EmittedOps() const {
  std::vector<std::string> ops;
  for (const auto& n : nodes_) ops.push_back(n.domain().empty() ? n.op_type() : n.domain() + "::" + n.op_type());
  return ops;
}

}  // namespace remap
