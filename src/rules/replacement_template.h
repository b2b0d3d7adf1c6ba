// The replacement of an alternative: ONNX text syntax parsed once by ONNX's own
// parser, with ${expr} attribute values compiled to expressions and every
// value name classified as an argument, a return or a local.
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include <onnx/onnx_pb.h>

#include "rules/expression.h"
#include "rules/signature.h"

namespace remap {

struct TemplateError {
  size_t offset = 0;  // in the replacement text
  std::string message;
};

class ReplacementTemplate {
 public:
  // Parses `text` against the rule's signature (argument and return names).
  static bool Compile(const std::string& text, const Signature& signature, ReplacementTemplate* out,
                      TemplateError* error);

  const std::vector<onnx::NodeProto>& nodes() const { return nodes_; }
  // ${...} expressions; attribute ref "_eN" in nodes() refers to expressions()[N].
  const std::vector<Expression>& expressions() const { return expressions_; }
  size_t expression_offset(size_t k) const { return expression_offsets_[k]; }
  const std::set<std::string>& domains() const { return domains_; }
  const std::set<std::string>& locals() const { return locals_; }
  // Op types the replacement emits, e.g. "Asinh" or "com.microsoft.Foo", in order.
  std::vector<std::string> EmittedOps() const;

 private:
  std::vector<onnx::NodeProto> nodes_;
  std::vector<Expression> expressions_;
  std::vector<size_t> expression_offsets_;
  std::set<std::string> domains_;
  std::set<std::string> locals_;
};

// The attribute reference name that stands for expressions()[k].
std::string ExpressionRefName(size_t k);
bool ParseExpressionRefName(const std::string& ref, size_t* k);

}  // namespace remap
