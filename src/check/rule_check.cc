#include "check/rule_check.h"

#include <algorithm>
#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <onnx/checker.h>
#include <onnx/defs/schema.h>
#include <onnx/shape_inference/implementation.h>

#include "engine/engine.h"
#include "match/node_form.h"
#include "model/inference_guard.h"
#include "model/opset_import.h"
#include "model/schema_catalog.h"
#include "model/shape_inference.h"
#include "rules/element_types.h"
#include "opset/opset_raise.h"

namespace remap {

namespace {

using TP = onnx::TensorProto;

// The newest opset an alternative without max_opset is checked at.
constexpr int kNewestCheckedOpset = 21;
// Ranks tried, in order, until an alternative's guard accepts the inputs.
constexpr int kRanks[] = {4, 3, 2, 1, 5};

// A constant argument value the exporter could send, for a setting.
struct ArgChoice {
  const Argument* arg = nullptr;
  Value value;
};

Value SampleValue(const Argument& arg) {
  switch (arg.type) {
    case ArgType::kInt:
    case ArgType::kScalarType: return Value::Int(arg.type == ArgType::kScalarType ? 6 : 1);
    case ArgType::kFloat:
    case ArgType::kScalar: return Value::Float(0.5);
    case ArgType::kBool: return Value::Bool(false);
    case ArgType::kIntList: {
      std::vector<Value> items(static_cast<size_t>(arg.list_size > 0 ? arg.list_size : 1), Value::Int(1));
      return Value::List(items);
    }
    case ArgType::kFloatList: {
      std::vector<Value> items(static_cast<size_t>(arg.list_size > 0 ? arg.list_size : 1), Value::Float(0.5));
      return Value::List(items);
    }
    case ArgType::kBoolList: return Value::List({Value::Bool(false)});
    default: return Value::None();
  }
}

// The base setting: defaults, else a sample; optional arguments without a default are None.
std::vector<ArgChoice> BaseChoices(const Signature& sig) {
  std::vector<ArgChoice> out;
  for (const Argument& arg : sig.args) {
    if (IsTensorType(arg.type) || arg.type == ArgType::kOpaque) continue;
    ArgChoice c{&arg, Value::None()};
    if (arg.default_value) c.value = *arg.default_value;
    else if (!arg.optional) c.value = SampleValue(arg);
    out.push_back(c);
  }
  return out;
}

// Variations of one argument at a time: enum-like ints, both bools, None or a value.
std::vector<std::vector<ArgChoice>> Variants(const Signature& sig) {
  std::vector<std::vector<ArgChoice>> out{BaseChoices(sig)};
  const std::vector<ArgChoice> base = out[0];
  for (size_t k = 0; k < base.size(); ++k) {
    const Argument& arg = *base[k].arg;
    std::vector<Value> values;
    if (arg.type == ArgType::kInt) values = {Value::Int(0), Value::Int(1), Value::Int(2), Value::Int(-1)};
    if (arg.type == ArgType::kBool) values = {Value::Bool(false), Value::Bool(true)};
    if (arg.optional) values.push_back(base[k].value.is_none() ? SampleValue(arg) : Value::None());
    for (const Value& v : values) {
      if (v == base[k].value && v.kind == base[k].value.kind) continue;
      if (v.is_none() && !arg.optional) continue;
      std::vector<ArgChoice> variant = base;
      variant[k].value = v;
      out.push_back(std::move(variant));
    }
  }
  return out;
}

std::string Describe(const std::vector<ArgChoice>& choices) {
  std::vector<std::string> parts;
  for (const auto& c : choices) parts.push_back(fmt::format("{}={}", c.arg->name, ToString(c.value)));
  return fmt::format("{}", fmt::join(parts, ", "));
}

// A Constant node holding `v` the way PyTorch's exporter writes scalar arguments.
onnx::NodeProto ConstantFor(const Value& v, const Argument& arg, const std::string& output) {
  onnx::NodeProto n;
  n.set_op_type("Constant");
  n.add_output(output);
  n.set_name(output);
  auto* attr = n.add_attribute();
  attr->set_name("value");
  attr->set_type(onnx::AttributeProto::TENSOR);
  TP* t = attr->mutable_t();
  const std::vector<Value> items = v.kind == Value::Kind::kList ? v.list : std::vector<Value>{v};
  if (v.kind == Value::Kind::kList) t->add_dims(static_cast<int64_t>(items.size()));
  const bool floats = arg.type == ArgType::kFloat || arg.type == ArgType::kFloatList ||
                      (arg.type == ArgType::kScalar && v.kind == Value::Kind::kFloat);
  const bool bools = arg.type == ArgType::kBool || arg.type == ArgType::kBoolList;
  if (floats) {
    // float scalars arrive as float64, float lists as float32 (see the catalog).
    if (arg.type == ArgType::kFloatList) {
      t->set_data_type(TP::FLOAT);
      for (const Value& i : items) t->add_float_data(static_cast<float>(i.as_double()));
    } else {
      t->set_data_type(TP::DOUBLE);
      for (const Value& i : items) t->add_double_data(i.as_double());
    }
  } else if (bools) {
    t->set_data_type(TP::BOOL);
    for (const Value& i : items) t->add_int32_data(i.kind == Value::Kind::kBool ? i.b : i.i != 0);
  } else {
    t->set_data_type(TP::INT64);
    for (const Value& i : items) t->add_int64_data(i.kind == Value::Kind::kBool ? i.b : i.i);
  }
  return n;
}

void SetTensorType(onnx::ValueInfoProto* vi, int dtype, int rank) {
  auto* tt = vi->mutable_type()->mutable_tensor_type();
  tt->set_elem_type(dtype);
  auto* shape = tt->mutable_shape();
  for (int d = 0; d < rank; ++d) shape->add_dim()->set_dim_param(fmt::format("{}_d{}", vi->name(), d));
}

// One node the rule's first match accepts, fed by graph inputs and Constants.
onnx::ModelProto BuildModel(const Rule& rule, const Alternative& alt, int opset, int dtype, int rank,
                            const std::vector<ArgChoice>& choices) {
  onnx::ModelProto model;
  model.set_ir_version(MinIrVersionForOpset(opset));
  model.set_producer_name("onnx-remap rules check");
  auto add_import = [&model](const std::string& domain, int64_t version) {
    for (const auto& op : model.opset_import()) {
      if (op.domain() == domain) return;
    }
    auto* op = model.add_opset_import();
    op->set_domain(domain);
    op->set_version(version);
  };
  add_import("", opset);
  const NodeMatch& m = rule.matches.front();
  onnx::GraphProto* g = model.mutable_graph();
  g->set_name(rule.id);
  onnx::NodeProto node;
  node.set_name("node");
  if (!m.aten.empty()) {
    node.set_domain(kAtenDomain);
    node.set_op_type("ATen");
    auto* op = node.add_attribute();
    op->set_name("operator");
    op->set_type(onnx::AttributeProto::STRING);
    op->set_s(m.aten);
    auto* ov = node.add_attribute();
    ov->set_name("overload_name");
    ov->set_type(onnx::AttributeProto::STRING);
    ov->set_s(m.overload.value_or(""));
    add_import(kAtenDomain, 1);
  } else {
    node.set_domain(m.domain);
    node.set_op_type(m.op_type);
    if (!m.domain.empty()) add_import(m.domain, 1);
  }
  for (const auto& [domain, version] : alt.imports) add_import(domain, version);
  for (const auto& [name, expected] : m.attribute_equals) {
    auto* a = node.add_attribute();
    a->set_name(name);
    if (expected.kind == Value::Kind::kString) {
      a->set_type(onnx::AttributeProto::STRING);
      a->set_s(expected.s);
    } else if (expected.kind == Value::Kind::kFloat) {
      a->set_type(onnx::AttributeProto::FLOAT);
      a->set_f(static_cast<float>(expected.f));
    } else {
      a->set_type(onnx::AttributeProto::INT);
      a->set_i(expected.kind == Value::Kind::kBool ? expected.b : expected.i);
    }
  }
  auto choice_of = [&](const Argument& arg) -> const Value* {
    for (const auto& c : choices) {
      if (c.arg == &arg) return &c.value;
    }
    return nullptr;
  };
  for (const Argument& arg : rule.signature.args) {
    if (arg.type == ArgType::kTensorList) {
      // Two tensors gathered by SequenceConstruct, as exports at opset 11+ do.
      onnx::NodeProto seq;
      seq.set_op_type("SequenceConstruct");
      seq.set_name(arg.name + "_list");
      for (int k = 0; k < 2; ++k) {
        auto* in = g->add_input();
        in->set_name(fmt::format("{}_{}", arg.name, k));
        SetTensorType(in, dtype, rank);
        seq.add_input(in->name());
      }
      seq.add_output(arg.name);
      *g->add_node() = seq;
      node.add_input(arg.name);
    } else if (IsTensorType(arg.type) || arg.type == ArgType::kOpaque) {
      if (arg.optional && arg.type != ArgType::kTensor) {
        node.add_input("");
        continue;
      }
      auto* in = g->add_input();
      in->set_name(arg.name);
      SetTensorType(in, dtype, rank);
      node.add_input(arg.name);
    } else {
      const Value* v = choice_of(arg);
      if (!v || v->is_none()) {
        node.add_input("");
        continue;
      }
      *g->add_node() = ConstantFor(*v, arg, arg.name + "_const");
      node.add_input(arg.name + "_const");
    }
  }
  for (const std::string& ret : rule.signature.returns) {
    node.add_output(ret);
    g->add_output()->set_name(ret);
  }
  *g->add_node() = node;
  return model;
}

// ONNX 1.12's strictest checks of a rewritten model: type-checking shape
// inference that fails on any error, then the checker.
bool Validate(onnx::ModelProto* model, std::string* why) {
  if (!ModelSafeForShapeInference(*model, why)) return false;
  try {
    onnx::ShapeInferenceOptions options{/*check_type=*/true, /*error_mode=*/1, /*enable_data_propagation=*/false};
    onnx::shape_inference::InferShapes(*model, &SchemaCatalog::Instance(), options);
    // Graph outputs of the synthetic model carry no declared type: take the
    // inferred one. The checker wants a shape on every main-graph output, which
    // inference leaves out where the rank depends on run-time values: an empty
    // shape stands in. An output only a custom-domain op produces has no
    // inferable type at all and is left out of the check.
    auto* outputs = model->mutable_graph()->mutable_output();
    std::vector<onnx::ValueInfoProto> kept;
    std::string untyped;
    for (auto& out : *outputs) {
      for (const auto& vi : model->graph().value_info()) {
        if (vi.name() == out.name() && !out.has_type()) *out.mutable_type() = vi.type();
      }
      if (!out.has_type() || out.type().value_case() == onnx::TypeProto::VALUE_NOT_SET) {
        bool custom = false;
        for (const auto& n : model->graph().node()) {
          for (const auto& o : n.output()) custom = custom || (o == out.name() && !IsDefaultDomain(n.domain()));
        }
        if (custom) continue;
        // Give it the first input's element type, so the checker can name the node at fault first.
        if (untyped.empty()) untyped = out.name();
        if (model->graph().input_size() > 0) *out.mutable_type() = model->graph().input(0).type();
        out.mutable_type()->mutable_tensor_type()->clear_shape();
      }
      if (out.type().has_tensor_type() && !out.type().tensor_type().has_shape())
        out.mutable_type()->mutable_tensor_type()->mutable_shape();
      kept.push_back(out);
    }
    outputs->Clear();
    for (auto& vi : kept) *outputs->Add() = std::move(vi);
    onnx::checker::check_model(*model);
    if (!untyped.empty()) {
      *why = fmt::format("ONNX cannot infer the type of output '{}'", untyped);
      return false;
    }
  } catch (const std::exception& e) {
    std::string what = e.what();
    *why = what.substr(0, what.find('\n'));
    return false;
  }
  return true;
}

std::vector<int> OpsetsOf(const Alternative& alt) {
  const int top = alt.max_opset ? alt.max_opset : std::max(alt.min_opset, kNewestCheckedOpset);
  std::set<int> opsets{alt.min_opset, top};
  const int known = KnownDefaultOpset();
  if (alt.min_opset < known && known < top) opsets.insert(known);
  return {opsets.begin(), opsets.end()};
}

class AlternativeChecker {
 public:
  AlternativeChecker(const RuleSet& rules, const Rule& rule, size_t alt_index, RuleCheckReport* report)
      : rule_(rule), alt_(rule.alternatives[alt_index]), report_(report) {
    auto copy = std::make_unique<Rule>(rule);
    copy->alternatives = {alt_};
    std::vector<std::unique_ptr<Rule>> one;
    one.push_back(std::move(copy));
    single_.Add(std::move(one));
    target_ = alt_.targets.empty() ? rules.FindTarget(kDefaultTargetName) : rules.FindTarget(alt_.targets.front().name);
  }

  void Run(const RuleCheckOptions& options) {
    ++report_->alternatives;
    const auto variants = Variants(rule_.signature);
    for (int opset : OpsetsOf(alt_)) {
      for (int dtype : options.dtypes) {
        for (size_t v = 0; v < variants.size(); ++v) CheckSetting(opset, dtype, variants[v], v == 0);
      }
    }
    if (applied_ == 0)
      Add(RuleCheckFinding::Severity::kWarning, "every setting",
          fmt::format("the alternative never applied; last reason: {}", last_reason_));
  }

 private:
  void Add(RuleCheckFinding::Severity severity, std::string setting, std::string message) {
    // One finding per message and alternative: the same fault shows in many settings.
    if (!seen_.insert(message).second) return;
    report_->findings.push_back(RuleCheckFinding{severity, rule_.id, alt_.location, std::move(setting), std::move(message)});
  }

  // `base`: the arguments' defaults or plain samples. A variation (an enum value
  // PyTorch may never send, like reduction=-1) that fails to instantiate is
  // refused at rewrite time with the reason: a warning, not an error.
  void CheckSetting(int opset, int dtype, const std::vector<ArgChoice>& choices, bool base) {
    std::string type_problem, type_setting;
    for (int rank : kRanks) {
      const std::string setting = fmt::format("opset {}, {} rank {}{}{}", opset, ElementTypeName(dtype), rank,
                                              choices.empty() ? "" : ", ", Describe(choices));
      onnx::ModelProto model = BuildModel(rule_, alt_, opset, dtype, rank, choices);
      ++report_->models;
      RewriteOptions options;
      options.target = target_;
      auto rewritten = RewriteModel(&model, single_, options);
      if (!rewritten.ok()) {
        Add(RuleCheckFinding::Severity::kError, setting, rewritten.status().message());
        return;
      }
      if (!rewritten->remaining.empty()) {
        const NodeOutcome& left = rewritten->remaining.front();
        last_reason_ = left.reason;
        switch (left.refusal) {
          case Refusal::kGuard:
          case Refusal::kGuardError:
            continue;  // not claimed for these inputs: try another rank
          case Refusal::kType:
            // Shape errors depend on the rank tried; a dtype error shows at every rank.
            if (type_problem.empty()) {
              type_problem = left.reason;
              type_setting = setting;
            }
            continue;
          case Refusal::kEmit:
            Add(base ? RuleCheckFinding::Severity::kError : RuleCheckFinding::Severity::kWarning, setting, left.reason);
            return;
          default:
            return;  // binding of the synthetic node: not the alternative's fault
        }
      }
      ++report_->rewritten;
      ++applied_;
      if (opset > KnownDefaultOpset()) {
        ++report_->beyond_onnx;
        return;
      }
      std::string why;
      if (Validate(&model, &why)) {
        ++report_->validated;
      } else {
        Add(RuleCheckFinding::Severity::kError, setting, fmt::format("the rewritten model fails ONNX validation: {}", why));
      }
      return;
    }
    if (!type_problem.empty())
      Add(RuleCheckFinding::Severity::kWarning, type_setting,
          fmt::format("the guard accepts {} inputs of every rank tried, but the replacement is not type-correct "
                      "for any (refused at rewrite time): {}", ElementTypeName(dtype), type_problem));
  }

  const Rule& rule_;
  const Alternative& alt_;
  RuleCheckReport* report_;
  RuleSet single_;
  const Target* target_ = nullptr;
  int applied_ = 0;
  std::string last_reason_;
  std::set<std::string> seen_;
};

}  // namespace

size_t RuleCheckReport::errors() const {
  return static_cast<size_t>(std::count_if(findings.begin(), findings.end(), [](const RuleCheckFinding& f) {
    return f.severity == RuleCheckFinding::Severity::kError;
  }));
}

RuleCheckReport CheckRules(const RuleSet& rules, const RuleCheckOptions& options) {
  RuleCheckReport report;
  for (const Rule* rule : rules.All()) {
    if (!options.rule_ids.empty() &&
        std::find(options.rule_ids.begin(), options.rule_ids.end(), rule->id) == options.rule_ids.end())
      continue;
    if (rule->matches.empty()) continue;
    // `onnx-remap rules new` writes this placeholder so that an unfinished rule loads; say it is still there.
    if (rule->no_standard_form.rfind("TODO", 0) == 0)
      report.findings.push_back({RuleCheckFinding::Severity::kWarning, rule->id, rule->location, "no_standard_form",
                                 "a TODO placeholder: the rule has no replacement yet (write its alternative, then delete the placeholder)"});
    for (size_t k = 0; k < rule->alternatives.size(); ++k) AlternativeChecker(rules, *rule, k, &report).Run(options);
  }
  return report;
}

}  // namespace remap
