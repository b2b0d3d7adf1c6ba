#include "rewrite/replacement_emitter.h"

#include <cmath>
#include <limits>
#include <unordered_map>

#include <fmt/format.h>
#include <onnx/defs/schema.h>

namespace remap {

namespace {

using AP = onnx::AttributeProto;

// float32 for an attribute; a finite double beyond its range is an error, not UB.
bool ToFloat(double d, const std::string& attr, float* out, std::string* why) {
  if (std::isfinite(d) && std::fabs(d) > std::numeric_limits<float>::max()) {
    *why = fmt::format("attribute '{}': {} does not fit in a float32", attr, d);
    return false;
  }
  *out = static_cast<float>(d);
  return true;
}

// The attribute type the operator's schema declares, when ONNX 1.12 knows it.
AP::AttributeType DeclaredType(const onnx::NodeProto& n, const std::string& attr, int opset) {
  const auto* schema = onnx::OpSchemaRegistry::Schema(n.op_type(), opset, n.domain());
  if (!schema) return AP::UNDEFINED;
  auto it = schema->attributes().find(attr);
  return it == schema->attributes().end() ? AP::UNDEFINED : static_cast<AP::AttributeType>(it->second.type);
}

// A number or list for a TENSOR attribute (Constant's `value`): a 0-d or 1-D
// tensor, float32 for floats, int64 for ints, bool for bools.
bool ToTensorAttribute(const Value& v, AP* attr, std::string* why) {
  onnx::TensorProto* t = attr->mutable_t();
  const std::vector<Value> items = v.kind == Value::Kind::kList ? v.list : std::vector<Value>{v};
  bool any_float = false, all_bool = !items.empty();
  for (const Value& item : items) {
    if (!item.is_number()) {
      *why = fmt::format("attribute '{}' takes a tensor; {} is not numeric", attr->name(), ToString(v));
      return false;
    }
    any_float = any_float || item.kind == Value::Kind::kFloat;
    all_bool = all_bool && item.kind == Value::Kind::kBool;
  }
  if (v.kind == Value::Kind::kList) t->add_dims(static_cast<int64_t>(items.size()));
  if (any_float) {
    t->set_data_type(onnx::TensorProto::FLOAT);
    for (const Value& item : items) {
      float f;
      if (!ToFloat(item.as_double(), attr->name(), &f, why)) return false;
      t->add_float_data(f);
    }
  } else if (all_bool) {
    t->set_data_type(onnx::TensorProto::BOOL);
    for (const Value& item : items) t->add_int32_data(item.b ? 1 : 0);
  } else {
    t->set_data_type(onnx::TensorProto::INT64);
    for (const Value& item : items) t->add_int64_data(item.kind == Value::Kind::kBool ? item.b : item.i);
  }
  attr->set_type(AP::TENSOR);
  return true;
}

bool ToAttribute(const Value& v, AP::AttributeType declared, AP* attr, std::string* why) {
  if (declared == AP::TENSOR) return ToTensorAttribute(v, attr, why);
  auto number_list = [&](bool as_float) {
    for (const Value& item : v.list) {
      if (!item.is_number()) return false;
      float f;
      if (as_float && !ToFloat(item.as_double(), attr->name(), &f, why)) return false;
      if (as_float) attr->add_floats(f);
      else attr->add_ints(item.kind == Value::Kind::kBool ? item.b : item.i);
    }
    attr->set_type(as_float ? AP::FLOATS : AP::INTS);
    return true;
  };
  switch (v.kind) {
    case Value::Kind::kBool:
    case Value::Kind::kInt:
    case Value::Kind::kFloat:
      if (declared == AP::FLOAT || (declared == AP::UNDEFINED && v.kind == Value::Kind::kFloat)) {
        float f;
        if (!ToFloat(v.as_double(), attr->name(), &f, why)) return false;
        attr->set_type(AP::FLOAT);
        attr->set_f(f);
      } else if (declared == AP::INTS || declared == AP::FLOATS) {
        return ToAttribute(Value::List({v}), declared, attr, why);
      } else {
        if (v.kind == Value::Kind::kFloat) {
          *why = fmt::format("attribute '{}' takes an int, got {}", attr->name(), ToString(v));
          return false;
        }
        attr->set_type(AP::INT);
        attr->set_i(v.kind == Value::Kind::kBool ? v.b : v.i);
      }
      return true;
    case Value::Kind::kString:
      attr->set_type(AP::STRING);
      attr->set_s(v.s);
      return true;
    case Value::Kind::kList: {
      bool strings = !v.list.empty() && v.list[0].kind == Value::Kind::kString;
      if (strings) {
        for (const Value& item : v.list) {
          if (item.kind != Value::Kind::kString) {
            *why = fmt::format("attribute '{}': mixed list {}", attr->name(), ToString(v));
            return false;
          }
          attr->add_strings(item.s);
        }
        attr->set_type(AP::STRINGS);
        return true;
      }
      bool any_float = false;
      for (const Value& item : v.list) any_float = any_float || item.kind == Value::Kind::kFloat;
      bool as_float = declared == AP::FLOATS || declared == AP::FLOAT || (declared == AP::UNDEFINED && any_float);
      if (!as_float && any_float) {
        *why = fmt::format("attribute '{}' takes ints, got {}", attr->name(), ToString(v));
        return false;
      }
      if (!number_list(as_float)) {
        if (why->empty()) *why = fmt::format("attribute '{}': {} is not a list of numbers", attr->name(), ToString(v));
        return false;
      }
      return true;
    }
    default:
      *why = fmt::format("attribute '{}' cannot hold {}", attr->name(), ToString(v));
      return false;
  }
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
