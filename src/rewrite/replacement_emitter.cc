#include "rewrite/replacement_emitter.h"

#include <unordered_map>

#include <fmt/format.h>
#include <onnx/defs/schema.h>

#include "rewrite/attribute_from_value.h"

namespace remap {

namespace {

using AP = onnx::AttributeProto;

// The attribute type the operator's schema declares, when ONNX 1.12 knows it.
AP::AttributeType DeclaredType(const onnx::NodeProto& n, const std::string& attr, int opset) {
  const auto* schema = onnx::OpSchemaRegistry::Schema(n.op_type(), opset, n.domain());
  if (!schema) return AP::UNDEFINED;
  auto it = schema->attributes().find(attr);
  return it == schema->attributes().end() ? AP::UNDEFINED : static_cast<AP::AttributeType>(it->second.type);
}

}  // namespace

bool EvaluateGuard(const Alternative& alt, const Binding& binding, bool* result, EmitFailure* failure) {
  if (alt.when.empty()) {
    *result = true;
    return true;
  }
  Value v;
  ExprError e;
  auto lookup = [&](const std::string& n, Value* o, std::string* w) { return binding.Lookup(n, o, w); };
  std::string why;
  if (!alt.when.Evaluate(lookup, &v, &e) || (*result = Truthy(v, &why), !why.empty())) {
    *failure = EmitFailure{why.empty() ? e.message : why, alt.when_source->Locate(e.offset)};
    return false;
  }
  return true;
}

bool EmitReplacement(const onnx::NodeProto& node, const Rule& rule, const Alternative& alt, const Binding& binding,
                     int target_opset, GraphIndex* index, std::vector<onnx::NodeProto>* out, EmitFailure* failure) {
  const ReplacementTemplate& tpl = alt.replacement;
  const std::string base = node.name().empty() ? rule.id : node.name();
  // Evaluate every ${expr} once.
  std::vector<Value> values(tpl.expressions().size());
  auto lookup = [&](const std::string& n, Value* o, std::string* w) { return binding.Lookup(n, o, w); };
  for (size_t k = 0; k < values.size(); ++k) {
    ExprError e;
    if (!tpl.expressions()[k].Evaluate(lookup, &values[k], &e)) {
      *failure = EmitFailure{e.message, alt.replace_source->Locate(tpl.expression_offset(k) + e.offset)};
      return false;
    }
  }
  // Name mapping.
  std::unordered_map<std::string, std::string> rename;
  for (const BoundArgument& b : binding.args()) rename[b.arg->name] = b.input;
  const auto& returns = rule.signature.returns;
  for (size_t k = 0; k < returns.size(); ++k) {
    int out_index = static_cast<int>(k);
    bool has_output = out_index < node.output_size() && !node.output(out_index).empty();
    rename[returns[k]] = has_output ? node.output(out_index) : index->FreshValueName(base + "/" + returns[k]);
  }
  for (const std::string& local : tpl.locals()) rename[local] = index->FreshValueName(base + "/" + local);

  std::vector<onnx::NodeProto> emitted;
  emitted.reserve(tpl.nodes().size());
  for (const onnx::NodeProto& t : tpl.nodes()) {
    onnx::NodeProto n = t;
    n.set_name(index->FreshNodeName(base + "/" + t.op_type()));
    for (int k = 0; k < n.input_size(); ++k) {
      const std::string& in = n.input(k);
      if (in.empty()) continue;
      const BoundArgument* b = binding.Find(in);
      if (b && b->input.empty() && !b->value.is_none()) {
        *failure = EmitFailure{fmt::format("argument '{}' came from an attribute or default, so it has no graph value "
                                           "to use as an input; use ${{{}}} as an attribute (e.g. of a Constant)", in, in),
                               alt.replace_source->field()};
        return false;
      }
      n.set_input(k, rename.at(in));
    }
    for (int k = 0; k < n.output_size(); ++k) {
      if (!n.output(k).empty()) n.set_output(k, rename.at(n.output(k)));
    }
    // Resolve ${expr} attributes; an expression giving None drops the attribute.
    auto* attrs = n.mutable_attribute();
    for (int k = attrs->size() - 1; k >= 0; --k) {
      AP* attr = attrs->Mutable(k);
      size_t expr_index;
      if (attr->ref_attr_name().empty() || !ParseExpressionRefName(attr->ref_attr_name(), &expr_index)) continue;
      const Value& v = values[expr_index];
      if (v.is_none()) {
        attrs->DeleteSubrange(k, 1);  // a handful of attributes per node: not a hot path
        continue;
      }
      std::string name = attr->name();
      attr->Clear();
      attr->set_name(name);
      std::string why;
      if (!ToAttribute(v, DeclaredType(n, name, target_opset), attr, &why)) {
        *failure = EmitFailure{why, alt.replace_source->Locate(tpl.expression_offset(expr_index))};
        return false;
      }
    }
    emitted.push_back(std::move(n));
  }
  *out = std::move(emitted);
  return true;
}

}  // namespace remap
