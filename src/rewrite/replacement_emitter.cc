#include "rewrite/replacement_emitter.h"

#include <algorithm>
#include <unordered_map>

#include <fmt/format.h>
#include <onnx/defs/schema.h>

#include "core/few_names_map.h"
#include "match/constant_reader.h"
#include "match/tensor_value.h"
#include "model/opset_import.h"
#include "model/schema_lookup.h"
#include "model/type_oracle.h"
#include "rewrite/attribute_from_value.h"
#include "rules/fragment.h"

namespace remap {

namespace {

using AP = onnx::AttributeProto;

constexpr int kMaxFragmentDepth = 16;
// Bounds what one node's rewrite may produce (a rule looping over a huge
// constant must not exhaust memory).
constexpr size_t kMaxEmittedNodes = 100000;

// The attribute type the operator's schema declares, when ONNX 1.12 knows it.
AP::AttributeType DeclaredType(const onnx::NodeProto& n, const std::string& attr, int opset) {
  const auto* schema = FindSchema(n.op_type(), opset, n.domain());
  if (!schema) return AP::UNDEFINED;
  auto it = schema->attributes().find(attr);
  return it == schema->attributes().end() ? AP::UNDEFINED : static_cast<AP::AttributeType>(it->second.type);
}

// An argument of a frame, read in place: the rule's binding's, or a
// fragment call's own (Frame::owned).
struct FrameArg {
  std::string_view name;
  const Value* value = nullptr;
  const std::string* graph_name = nullptr;    // the graph value feeding it; "" for attributes, defaults and None
  const std::string* not_constant = nullptr;  // why a scalar has no value
};

const std::string kNoReason;  // a fragment's arguments are constants or tensors

// What a fragment call computes for an argument of the fragment.
struct OwnedArg {
  Value value;
  std::string graph_name;
};

// A return of a frame.
struct FrameReturn {
  std::string_view name;   // the template name
  std::string graph_name;  // the graph value it writes
  bool assigned = false;
};

// One instantiation of a template: the rule's replacement for a node, or one
// fragment call inside it.
struct Frame {
  const ReplacementTemplate* tpl = nullptr;
  const StringSource* source = nullptr;
  // Signatures have a few arguments and returns: searched in order, no
  // hashing, no copy of the binding's values. Argument names are unique (the
  // signature parser refuses repeats); of a repeated return name, the last
  // entry is the return.
  std::vector<FrameArg> args;
  std::vector<OwnedArg> owned;  // reserved up front: args point into it
  std::vector<FrameReturn> returns;
  std::vector<std::pair<std::string, Value>> vars;  // @for / @let, innermost last
  // Template name -> graph name; [0] the frame's own scope, then one per open subgraph.
  std::vector<FewNamesMap<std::string, std::string>> scopes{1};

  const FrameArg* Arg(std::string_view name) const { return LastNamed(args, name); }
  FrameReturn* Return(std::string_view name) { return LastNamed(returns, name); }

 private:
  // The last entry called `name` (const or not, as `items` is), or nullptr.
  template <typename Items>
  static auto LastNamed(Items& items, std::string_view name) -> decltype(&items.back()) {
    for (auto it = items.rbegin(); it != items.rend(); ++it) {
      if (it->name == name) return &*it;
    }
    return nullptr;
  }
};

class Instantiator {
 public:
  Instantiator(const std::string& base, int target_opset, GraphIndex* index, EmitRecord* record)
      : base_(base), opset_(target_opset), index_(index), record_(record) {}

  bool Run(Frame* frame, std::vector<onnx::NodeProto>* out) {
    if (!EmitItems(frame->tpl->items(), frame, out)) return false;
    for (const FrameReturn& ret : frame->returns) {
      // A repeated name is one return: assigned when its last entry is.
      if (!frame->Return(ret.name)->assigned)
        return Fail(frame, frame->source->field(),
                    fmt::format("the replacement did not assign '{}' for these arguments", ret.name));
    }
    return true;
  }

  const RuleFailure& failure() const { return failure_; }

 private:
  // Fresh names: base_ + suffix, made unique by the index, and recorded.
  std::string FreshNode(const std::string& suffix) { return Fresh(true, suffix); }
  std::string FreshValue(const std::string& suffix) { return Fresh(false, suffix); }
  std::string Fresh(bool node_name, const std::string& suffix) {
    std::string name = node_name ? index_->FreshNodeName(base_ + suffix) : index_->FreshValueName(base_ + suffix);
    if (record_) record_->fresh.push_back(FreshNameRequest{node_name, suffix, name});
    return name;
  }

  bool Fail(const Frame* frame, const SourceLocation& at, std::string message) {
    (void)frame;
    if (failure_.message.empty()) failure_ = RuleFailure{std::move(message), at};
    return false;
  }
  bool FailAt(const Frame* frame, size_t offset, std::string message) {
    return Fail(frame, frame->source->Locate(offset), std::move(message));
  }

  bool Evaluate(Frame* frame, size_t k, Value* out) {
    auto lookup = [frame](const std::string& n, std::string* why) -> const Value* {
      for (auto it = frame->vars.rbegin(); it != frame->vars.rend(); ++it) {
        if (it->first == n) return &it->second;
      }
      const FrameArg* a = frame->Arg(n);
      if (!a) {
        *why = fmt::format("'{}' is not bound", n);
        return nullptr;
      }
      if (!a->not_constant->empty()) {
        *why = fmt::format("argument '{}' is not a constant: {}", n, *a->not_constant);
        return nullptr;
      }
      return a->value;
    };
    ExprError e;
    if (!frame->tpl->expressions()[k].Evaluate(lookup, out, &e))
      return FailAt(frame, frame->tpl->expression_offset(k) + e.offset, e.message);
    return true;
  }

  bool EmitItems(const std::vector<TemplateItem>& items, Frame* frame, std::vector<onnx::NodeProto>* out) {
    const size_t vars_size = frame->vars.size();
    for (const TemplateItem& item : items) {
      switch (item.kind) {
        case TemplateItem::Kind::kNodes:
          for (const onnx::NodeProto& t : item.nodes) {
            if (!EmitNode(t, frame, out)) return false;
          }
          break;
        case TemplateItem::Kind::kLet: {
          Value v;
          if (!Evaluate(frame, item.expr, &v)) return false;
          frame->vars.emplace_back(item.var, std::move(v));
          break;
        }
        case TemplateItem::Kind::kFor: {
          Value seq;
          if (!Evaluate(frame, item.expr, &seq)) return false;
          if (seq.kind != Value::Kind::kList)
            return FailAt(frame, frame->tpl->expression_offset(item.expr),
                          fmt::format("@for needs a list, got {}", ToString(seq)));
          // Refuse before emitting when the body's own nodes alone pass the cap: a
          // constant N of 458756 (found by model_fuzzer) took seconds to reach it.
          size_t per_iteration = 0;
          for (const TemplateItem& b : item.body)
            if (b.kind == TemplateItem::Kind::kNodes) per_iteration += b.nodes.size();
          if (per_iteration > 0 && seq.list.size() > (kMaxEmittedNodes - std::min(emitted_, kMaxEmittedNodes)) / per_iteration)
            return Fail(frame, frame->source->field(), fmt::format("the replacement emits more than {} nodes", kMaxEmittedNodes));
          for (const Value& element : seq.list) {
            frame->vars.emplace_back(item.var, element);
            bool ok = EmitItems(item.body, frame, out);
            frame->vars.pop_back();
            if (!ok) return false;
          }
          break;
        }
        case TemplateItem::Kind::kIf:
          for (const auto& branch : item.branches) {
            bool take = true;
            if (branch.has_condition) {
              Value c;
              if (!Evaluate(frame, branch.condition, &c)) return false;
              std::string why;
              take = Truthy(c, &why);
              if (!why.empty()) return FailAt(frame, frame->tpl->expression_offset(branch.condition), why);
            }
            if (take) {
              if (!EmitItems(branch.items, frame, out)) return false;
              break;
            }
          }
          break;
      }
    }
    frame->vars.resize(vars_size);
    return true;
  }

  // The template name a (possibly interpolated) name stands for, or, for a
  // whole ${...} giving tensors or None, the graph names themselves.
  bool ResolveName(const std::string& name, Frame* frame, std::string* text, std::vector<std::string>* direct,
                   bool* is_direct) {
    *is_direct = false;
    // Most names are plain: SplitName's parts (and their allocations) only for placeholders.
    if (!MayHavePlaceholder(name)) {
      *text = name;
      return true;
    }
    std::vector<NamePart> parts = SplitName(name);
    if (parts.size() == 1 && !parts[0].is_expression) {
      *text = name;
      return true;
    }
    text->clear();
    for (const NamePart& part : parts) {
      if (!part.is_expression) {
        *text += part.text;
        continue;
      }
      Value v;
      if (!Evaluate(frame, part.expr, &v)) return false;
      const size_t at = frame->tpl->expression_offset(part.expr);
      if (parts.size() == 1 && (v.kind == Value::Kind::kTensor || v.kind == Value::Kind::kNone ||
                                (v.kind == Value::Kind::kList && !v.list.empty() && v.list[0].kind == Value::Kind::kTensor))) {
        *is_direct = true;
        const std::vector<Value> items = v.kind == Value::Kind::kList ? v.list : std::vector<Value>{v};
        for (const Value& item : items) {
          if (item.kind == Value::Kind::kTensor) direct->push_back(item.s);
          else if (item.kind == Value::Kind::kNone) direct->push_back("");
          else return FailAt(frame, at, fmt::format("a tensor list holds {}", ToString(item)));
        }
        return true;
      }
      if (v.kind == Value::Kind::kInt) *text += std::to_string(v.i);
      else if (v.kind == Value::Kind::kString) *text += v.s;
      else return FailAt(frame, at, fmt::format("a name is built from ints and strings, not {}", ToString(v)));
    }
    return true;
  }

  // Graph names for one input of a template node (several for a spread list).
  bool ResolveInput(const std::string& name, Frame* frame, std::vector<std::string>* out) {
    if (name.empty()) {
      out->push_back("");
      return true;
    }
    std::string text;
    bool direct = false;
    if (!ResolveName(name, frame, &text, out, &direct)) return false;
    if (direct) return true;
    for (auto s = frame->scopes.rbegin(); s != frame->scopes.rend(); ++s) {
      if (const std::string* graph_name = s->Find(text)) {
        out->push_back(*graph_name);
        return true;
      }
    }
    const FrameReturn* r = frame->Return(text);
    if (r && r->assigned) {
      out->push_back(r->graph_name);
      return true;
    }
    if (const FrameArg* a = frame->Arg(text)) {
      if (a->graph_name->empty() && !a->value->is_none())
        return Fail(frame, frame->source->field(),
                    fmt::format("argument '{}' came from an attribute or default, so it has no graph value to use as "
                                "an input; use ${{{}}} as an attribute (e.g. of a Constant)", text, text));
      out->push_back(*a->graph_name);
      return true;
    }
    return Fail(frame, frame->source->field(), fmt::format("'{}' is used before it is assigned", text));
  }

  // A graph name for an output of a template node, defining the template name.
  bool DefineOutput(const std::string& name, Frame* frame, std::string* graph_name) {
    std::string text;
    std::vector<std::string> direct;
    bool is_direct = false;
    if (!ResolveName(name, frame, &text, &direct, &is_direct)) return false;
    if (is_direct) return Fail(frame, frame->source->field(), "an output name cannot be a tensor argument");
    for (const auto& s : frame->scopes) {
      if (s.Find(text)) return Fail(frame, frame->source->field(), fmt::format("'{}' is assigned twice", text));
    }
    if (frame->Arg(text))
      return Fail(frame, frame->source->field(), fmt::format("output '{}' has the name of an argument", text));
    FrameReturn* r = frame->Return(text);
    if (r && frame->scopes.size() == 1) {
      if (r->assigned) return Fail(frame, frame->source->field(), fmt::format("'{}' is assigned twice", text));
      r->assigned = true;
      *graph_name = r->graph_name;
      return true;
    }
    *graph_name = FreshValue("/" + text);
    frame->scopes.back().Insert(std::move(text), *graph_name);
    return true;
  }

  bool EmitNode(const onnx::NodeProto& t, Frame* frame, std::vector<onnx::NodeProto>* out) {
    if (++emitted_ > kMaxEmittedNodes)
      return Fail(frame, frame->source->field(), fmt::format("the replacement emits more than {} nodes", kMaxEmittedNodes));
    if (const Fragment* fragment = frame->tpl->FragmentCall(t)) return ExpandFragment(t, *fragment, frame, out);
    onnx::NodeProto n;
    n.set_op_type(t.op_type());
    if (!t.domain().empty()) n.set_domain(t.domain());
    if (!t.doc_string().empty()) n.set_doc_string(t.doc_string());
    n.set_name(FreshNode("/" + t.op_type()));
    for (const std::string& in : t.input()) {
      std::vector<std::string> names;
      if (!ResolveInput(in, frame, &names)) return false;
      for (auto& name : names) n.add_input(std::move(name));
    }
    for (const AP& a : t.attribute()) {
      size_t k;
      if (!a.ref_attr_name().empty() && ParseExpressionRefName(a.ref_attr_name(), &k)) {
        Value v;
        if (!Evaluate(frame, k, &v)) return false;
        if (v.is_none()) continue;  // an expression giving None drops the attribute
        AP* attr = n.add_attribute();
        attr->set_name(a.name());
        std::string why;
        if (!ToAttribute(v, DeclaredType(n, a.name(), opset_), attr, &why))
          return FailAt(frame, frame->tpl->expression_offset(k), why);
        continue;
      }
      AP* attr = n.add_attribute();
      *attr = a;
      if (a.has_g()) {
        attr->clear_g();
        if (!InstantiateGraph(a.g(), frame, attr->mutable_g())) return false;
      }
      if (a.graphs_size() > 0) {
        attr->clear_graphs();
        for (const auto& g : a.graphs()) {
          if (!InstantiateGraph(g, frame, attr->add_graphs())) return false;
        }
      }
    }
    for (const std::string& o : t.output()) {
      std::string graph_name;
      if (!o.empty() && !DefineOutput(o, frame, &graph_name)) return false;
      n.add_output(graph_name);
    }
    out->push_back(std::move(n));
    return true;
  }

  // A subgraph body: its own names are fresh in a scope of their own; names of
  // the scopes around it are captured as ONNX allows.
  bool InstantiateGraph(const onnx::GraphProto& g, Frame* frame, onnx::GraphProto* out) {
    if (record_) record_->replayable = false;
    frame->scopes.emplace_back();
    out->set_name(g.name());
    bool ok = true;
    for (const auto& vi : g.input()) {
      onnx::ValueInfoProto* nvi = out->add_input();
      *nvi = vi;
      std::string graph_name;
      ok = ok && DefineOutput(vi.name(), frame, &graph_name);
      nvi->set_name(graph_name);
    }
    std::vector<onnx::NodeProto> nodes;
    for (const auto& n : g.node()) ok = ok && EmitNode(n, frame, &nodes);
    for (auto& n : nodes) *out->add_node() = std::move(n);
    typed_.erase(&nodes);  // its address may be reused by the next subgraph's list
    for (const auto& vi : g.output()) {
      onnx::ValueInfoProto* nvi = out->add_output();
      *nvi = vi;
      std::vector<std::string> names;
      ok = ok && ResolveInput(vi.name(), frame, &names);
      if (ok && names.size() != 1) ok = Fail(frame, frame->source->field(), "a subgraph output names one value");
      if (ok) nvi->set_name(names[0]);
    }
    frame->scopes.pop_back();
    return ok;
  }

  bool ExpandFragment(const onnx::NodeProto& call, const Fragment& fragment, Frame* caller, std::vector<onnx::NodeProto>* out) {
    if (record_) record_->replayable = false;
    if (++depth_ > kMaxFragmentDepth)
      return Fail(caller, caller->source->field(), fmt::format("fragments nest deeper than {} calls", kMaxFragmentDepth));
    if (!fragment.compile_error.empty()) return Fail(caller, caller->source->field(), fragment.compile_error);
    Frame callee;
    callee.tpl = &fragment.replacement;
    callee.source = fragment.replace_source.get();
    std::vector<std::string> inputs;
    for (const std::string& in : call.input()) {
      if (!ResolveInput(in, caller, &inputs)) return false;
    }
    // The fragment may ask rank()/dtype() of values this replacement computed before the call.
    if (TypeOracle* oracle = index_->type_oracle()) {
      size_t& typed = typed_[out];
      oracle->TypeEmittedSoFar(*out, typed);
      typed = out->size();
    }
    std::vector<bool> attr_used(static_cast<size_t>(call.attribute_size()), false);
    size_t next_input = 0;
    callee.owned.reserve(fragment.signature.args.size());  // no move: args point into it
    for (const Argument& arg : fragment.signature.args) {
      OwnedArg& fa = callee.owned.emplace_back();
      if (IsTensorType(arg.type)) {
        if (next_input < inputs.size()) {
          fa.graph_name = inputs[next_input++];
          if (!fa.graph_name.empty()) {
            fa.value = TensorValueOf(*index_, fa.graph_name);
          }
        } else if (!arg.optional) {
          return Fail(caller, caller->source->field(),
                      fmt::format("fragment {} needs input '{}'", fragment.name, arg.name));
        }
      } else {
        int found = -1;
        for (int k = 0; k < call.attribute_size(); ++k) {
          if (call.attribute(k).name() == arg.name) found = k;
        }
        if (found >= 0) {
          attr_used[static_cast<size_t>(found)] = true;
          const AP& a = call.attribute(found);
          Value raw;
          size_t k;
          std::string why;
          if (!a.ref_attr_name().empty() && ParseExpressionRefName(a.ref_attr_name(), &k)) {
            if (!Evaluate(caller, k, &raw)) return false;
          } else if (!AttributeToValue(a, &raw, &why)) {
            return Fail(caller, caller->source->field(), why);
          }
          if (!raw.is_none() && !CoerceToArgument(raw, arg, &fa.value, &why))
            return Fail(caller, caller->source->field(), fmt::format("fragment {}: {}", fragment.name, why));
        } else if (arg.default_value) {
          fa.value = *arg.default_value;
        } else if (!arg.optional) {
          return Fail(caller, caller->source->field(),
                      fmt::format("fragment {} needs attribute '{}'", fragment.name, arg.name));
        }
      }
      callee.args.push_back(FrameArg{arg.name, &fa.value, &fa.graph_name, &kNoReason});
    }
    if (next_input < inputs.size())
      return Fail(caller, caller->source->field(),
                  fmt::format("fragment {} takes {} inputs, the call gives {}", fragment.name, next_input, inputs.size()));
    for (int k = 0; k < call.attribute_size(); ++k) {
      if (!attr_used[static_cast<size_t>(k)])
        return Fail(caller, caller->source->field(),
                    fmt::format("fragment {} has no argument '{}'", fragment.name, call.attribute(k).name()));
    }
    const auto& returns = fragment.signature.returns;
    if (static_cast<size_t>(call.output_size()) > returns.size())
      return Fail(caller, caller->source->field(),
                  fmt::format("fragment {} returns {} values, the call takes {}", fragment.name, returns.size(), call.output_size()));
    for (size_t k = 0; k < returns.size(); ++k) {
      std::string graph_name;
      if (k < static_cast<size_t>(call.output_size()) && !call.output(static_cast<int>(k)).empty()) {
        if (!DefineOutput(call.output(static_cast<int>(k)), caller, &graph_name)) return false;
      } else {
        graph_name = FreshValue("/" + returns[k]);
      }
      callee.returns.push_back(FrameReturn{returns[k], std::move(graph_name)});
    }
    bool ok = Run(&callee, out);
    --depth_;
    return ok;
  }

  const std::string base_;
  const int opset_;
  GraphIndex* index_;
  EmitRecord* record_;
  RuleFailure failure_;
  int depth_ = 0;
  size_t emitted_ = 0;
  // Per list of emitted nodes: how many of them the type oracle has seen.
  std::unordered_map<const std::vector<onnx::NodeProto>*, size_t> typed_;
};

}  // namespace

bool EmitReplacement(const onnx::NodeProto& node, const Rule& rule, const Alternative& alt, const Binding& binding,
                     int target_opset, GraphIndex* index, std::vector<onnx::NodeProto>* out, RuleFailure* failure,
                     EmitRecord* record) {
  const std::string base = node.name().empty() ? rule.id : node.name();
  Frame frame;
  frame.tpl = &alt.replacement;
  frame.source = alt.replace_source.get();
  for (const BoundArgument& b : binding.args()) frame.args.push_back(FrameArg{b.arg->name, &b.value, &b.input, &b.not_constant});
  const auto& returns = rule.signature.returns;
  for (size_t k = 0; k < returns.size(); ++k) {
    int out_index = static_cast<int>(k);
    bool has_output = out_index < node.output_size() && !node.output(out_index).empty();
    std::string graph_name;
    if (has_output) {
      graph_name = node.output(out_index);
    } else {
      graph_name = index->FreshValueName(base + "/" + returns[k]);
      if (record) record->fresh.push_back(FreshNameRequest{false, "/" + returns[k], graph_name});
    }
    frame.returns.push_back(FrameReturn{returns[k], std::move(graph_name)});
  }
  Instantiator instantiator(base, target_opset, index, record);
  std::vector<onnx::NodeProto> emitted;
  if (!instantiator.Run(&frame, &emitted)) {
    *failure = instantiator.failure();
    return false;
  }
  *out = std::move(emitted);
  return true;
}

}  // namespace remap
