#include "match/node_form.h"

#include <algorithm>

#include <onnx/defs/schema.h>

#include "model/opset_import.h"
#include "model/schema_catalog.h"
#include "rules/rule_set.h"
#include "opset/opset_changes.h"

namespace remap {

const char kAtenDomain[] = "org.pytorch.aten";

namespace {

const std::string* StringAttr(const onnx::NodeProto& node, const char* name) {
  for (const auto& a : node.attribute()) {
    if (a.name() == name && a.type() == onnx::AttributeProto::STRING) return &a.s();
  }
  return nullptr;
}

// Default-domain ops known to ONNX 1.12 or introduced later (our table).
bool IsKnownOnnxOp(const std::string& op_type) {
  if (SchemaCatalog::Defines(op_type, "")) return true;
  return !ChangesBetween(op_type, 0, NewestTabledOpset()).empty();
}

}  // namespace

const char* NodeForm::KindName() const {
  switch (kind) {
    case Kind::kStandard: return "standard";
    case Kind::kAtenFallback: return "aten-fallback";
    case Kind::kAtenOpType: return "aten-fallthrough";
    case Kind::kCustom: return "custom";
  }
  return "?";
}

std::string NodeForm::MatchKey(const onnx::NodeProto& node) const {
  if (kind == Kind::kAtenFallback || kind == Kind::kAtenOpType) return MatchKeyAten(aten_operator);
  return MatchKeyOp(node.domain(), node.op_type());
}

NodeForm ClassifyNode(const onnx::NodeProto& node, const ClassifyContext& context) {
  NodeForm form;
  const std::string& d = node.domain();
  // string_view comparisons with literals inline; this runs once per node of the model.
  const std::string_view aten_domain(kAtenDomain, sizeof(kAtenDomain) - 1);
  if (std::string_view(node.op_type()) == "ATen" &&
      (d == aten_domain || IsDefaultDomain(d) || std::string_view(d) == "com.microsoft")) {
    const std::string* op = StringAttr(node, "operator");
    if (op) {
      form.kind = NodeForm::Kind::kAtenFallback;
      form.aten_operator = *op;
      if (const std::string* ov = StringAttr(node, "overload_name")) form.overload = *ov;
      return form;
    }
  }
  if (d == aten_domain) {
    form.kind = NodeForm::Kind::kAtenOpType;
    form.aten_operator = node.op_type();
    return form;
  }
  // Most models define no functions: no key to build for each node then.
  if (!context.local_functions.empty() && context.local_functions.count(MatchKeyOp(d, node.op_type()))) return form;
  if (IsDefaultDomain(d)) {
    auto it = context.known_onnx_ops.find(node.op_type());
    if (it == context.known_onnx_ops.end()) it = context.known_onnx_ops.emplace(node.op_type(), IsKnownOnnxOp(node.op_type())).first;
    // An op ONNX does not define runs only where the target lists it (a TensorRT plugin).
    if (!it->second && !(context.target && context.target->Runs(d, node.op_type()))) form.kind = NodeForm::Kind::kCustom;
    return form;
  }
  if ((context.target && context.target->Runs(d, node.op_type())) ||
      std::find(context.emitted_domains.begin(), context.emitted_domains.end(), d) != context.emitted_domains.end())
    return form;
  form.kind = NodeForm::Kind::kCustom;
  return form;
}

std::string OpName(const onnx::NodeProto& node) {
  if (IsDefaultDomain(node.domain())) return node.op_type();
  return node.domain() + "::" + node.op_type();
}

}  // namespace remap
