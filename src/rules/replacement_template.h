// The replacement of an alternative (or the body of a fragment), compiled once
// at load: ONNX text syntax parsed by ONNX's own parser, with
//   * ${expr} as an attribute value          -> attribute reference @_eN
//   * ${expr} in or as a value name          -> placeholder __xN__ inside the name
//   * @for / @if / @elif / @else / @end / @let lines -> a tree of items
// Names are classified as arguments, returns or locals where they are static;
// names built from ${...} are checked when the template is instantiated.
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include <onnx/onnx_pb.h>

#include "rules/expression.h"
#include "rules/signature.h"

namespace remap {

struct Fragment;

struct TemplateError {
  size_t offset = 0;  // in the replacement text
  std::string message;
};

// One step of a template: a run of nodes, or a directive over nested items.
struct TemplateItem {
  enum class Kind { kNodes, kFor, kIf, kLet };
  Kind kind = Kind::kNodes;
  size_t offset = 0;                    // of the item in the replacement text
  std::vector<onnx::NodeProto> nodes;   // kNodes
  std::string var;                      // kFor loop variable, kLet name
  size_t expr = 0;                      // kFor iterable, kLet value: index into expressions()
  std::vector<TemplateItem> body;       // kFor
  struct Branch {
    bool has_condition = true;          // false for @else
    size_t condition = 0;               // index into expressions()
    std::vector<TemplateItem> items;
  };
  std::vector<Branch> branches;         // kIf
};

class ReplacementTemplate {
 public:
  // Parses `text` against the signature (argument and return names).
  static bool Compile(const std::string& text, const Signature& signature, ReplacementTemplate* out,
                      TemplateError* error);

  const std::vector<TemplateItem>& items() const { return items_; }
  std::vector<TemplateItem>* mutable_items() { return &items_; }
  // ${...} expressions; attribute ref "_eN" and name placeholder "__xN__" refer to expressions()[N].
  const std::vector<Expression>& expressions() const { return expressions_; }
  size_t expression_offset(size_t k) const { return expression_offsets_[k]; }
  // Non-default domains of emitted nodes (subgraphs included).
  const std::set<std::string>& domains() const { return domains_; }
  // Static local names (assigned, not returns), for tests and tools.
  const std::set<std::string>& locals() const { return locals_; }
  // Op types the replacement can emit, e.g. "Asinh" or "com.microsoft::Foo", in text order.
  std::vector<std::string> EmittedOps() const;
  // Calls f(node) for every node in the template, at any depth of directives
  // and subgraph attributes.
  template <typename F>
  void ForEachNode(F&& f) const;

  // Fragment calls: nodes in the default domain whose op_type names a
  // fragment. Resolved once every rule file is loaded (RuleSet).
  void BindFragment(const std::string& op_type, const Fragment* fragment) { fragments_[op_type] = fragment; }
  const Fragment* FragmentCall(const onnx::NodeProto& node) const;
  const std::map<std::string, const Fragment*>& fragment_calls() const { return fragments_; }

 private:
  std::vector<TemplateItem> items_;
  std::vector<Expression> expressions_;
  std::vector<size_t> expression_offsets_;
  std::set<std::string> domains_;
  std::set<std::string> locals_;
  std::map<std::string, const Fragment*> fragments_;

  friend class TemplateCompiler;
};

// The attribute reference name that stands for expressions()[k].
std::string ExpressionRefName(size_t k);
bool ParseExpressionRefName(const std::string& ref, size_t* k);

// Pieces of a value name with ${...} placeholders: literal text and expression indices.
struct NamePart {
  bool is_expression = false;
  std::string text;  // literal
  size_t expr = 0;   // is_expression
};
// Splits a name into parts; a name with no placeholder is one literal part.
std::vector<NamePart> SplitName(const std::string& name);
bool HasPlaceholder(const std::string& name);
// False when `name` cannot hold a placeholder (it lacks their "__x" prefix):
// a check without SplitName's allocations, for names resolved per rewrite.
bool MayHavePlaceholder(const std::string& name);

namespace detail {
template <typename F>
void ForEachNodeIn(const onnx::NodeProto& node, F& f) {
  f(node);
  for (const auto& attr : node.attribute()) {
    if (attr.has_g())
      for (const auto& n : attr.g().node()) ForEachNodeIn(n, f);
    for (const auto& g : attr.graphs())
      for (const auto& n : g.node()) ForEachNodeIn(n, f);
  }
}
template <typename F>
void ForEachNodeIn(const std::vector<TemplateItem>& items, F& f) {
  for (const TemplateItem& item : items) {
    for (const auto& n : item.nodes) ForEachNodeIn(n, f);
    ForEachNodeIn(item.body, f);
    for (const auto& b : item.branches) ForEachNodeIn(b.items, f);
  }
}
}  // namespace detail

template <typename F>
void ReplacementTemplate::ForEachNode(F&& f) const {
  detail::ForEachNodeIn(items_, f);
}

}  // namespace remap
