#include "match/argument_binding.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <string_view>

#include "match/constant_reader.h"
#include "match/tensor_value.h"
#include "model/deferred_nodes.h"
#include "model/opset_import.h"

namespace remap {

const BoundArgument* Binding::Find(const std::string& name) const {
  for (const auto& b : args_) {
    if (b.arg->name == name) return &b;
  }
  return nullptr;
}

const Value* Binding::Lookup(const std::string& name, std::string* why) const {
  const BoundArgument* b = Find(name);
  if (!b) {
    *why = fmt::format("'{}' is not bound", name);
    return nullptr;
  }
  if (!b->not_constant.empty()) {
    *why = fmt::format("argument '{}' is not a constant: {}", name, b->not_constant);
    return nullptr;
  }
  return &b->value;
}

namespace {

// Where a value comes from, for messages: "it is the graph input 'x'".
std::string Origin(const std::string& name, const Producer& p) {
  switch (p.kind) {
    case Producer::Kind::kInitializer: return fmt::format("it is the initializer '{}'", name);
    case Producer::Kind::kNode:
      return p.node ? fmt::format("it is computed by node '{}' ({})", p.node->name(), OpName(*p.node))
                    : fmt::format("'{}' is computed by a rewritten node", name);
    case Producer::Kind::kGraphInput: return fmt::format("it is the graph input '{}'", name);
    case Producer::Kind::kDeferred:
      return fmt::format("it is computed by node '{}' ({})", p.deferred->name, p.deferred->op_type);
    case Producer::Kind::kUnknown: break;
  }
  return fmt::format("'{}' has no producer in scope", name);
}

// Resolves the constant behind input `name` for a scalar argument.
void ResolveConstant(const std::string& name, const GraphIndex& index, BoundArgument* b, std::string* error) {
  Producer p = index.ProducerOf(name);
  Value raw;
  std::string why;
  if (p.kind == Producer::Kind::kInitializer) {
    if (!TensorToValue(*p.initializer, &raw, &why)) {
      b->not_constant = fmt::format("initializer '{}': {}", name, why);
      return;
    }
  } else if (p.kind == Producer::Kind::kNode && p.node && IsConstantProducer(*p.node)) {
    if (!ConstantNodeValue(*p.node, &raw, &why)) {
      b->not_constant = why;
      return;
    }
  } else {
    b->not_constant = Origin(name, p);
    return;
  }
  if (!CoerceToArgument(raw, *b->arg, &b->value, &why)) *error = why;
}

// A Tensor[] arrives as one input, made by a list node whose inputs are the
// elements: binds them, so rules can take len() and index the list.
bool BindTensorList(const std::string& name, const GraphIndex& index, BoundArgument* b, std::string* why) {
  const Argument& arg = *b->arg;
  Producer p = index.ProducerOf(name);
  if (p.kind != Producer::Kind::kNode || !p.node || !IsListProducer(*p.node)) {
    *why = fmt::format("argument '{}' ({}) must come from a SequenceConstruct or prim::ListConstruct node to know its "
                       "elements: {}", arg.name, arg.type_text, Origin(name, p));
    return false;
  }
  std::vector<Value> elements;
  elements.reserve(static_cast<size_t>(p.node->input_size()));
  for (int k = 0; k < p.node->input_size(); ++k) {
    const std::string& element = p.node->input(k);
    if (element.empty()) {
      if (!arg.optional_elements) {
        *why = fmt::format("argument '{}' ({}): element {} is None, but the elements are not optional (Tensor?[])",
                           arg.name, arg.type_text, k);
        return false;
      }
      elements.push_back(Value::None());
      continue;
    }
    elements.push_back(TensorValueOf(index, element));
  }
  b->value = Value::List(std::move(elements));
  return true;
}

}  // namespace

bool BindArguments(const onnx::NodeProto& node, const NodeForm& form, const Signature& signature,
                   const GraphIndex& index, Binding* out, std::string* why) {
  out->args_.clear();
  out->args_.reserve(signature.args.size());
  std::vector<bool> attribute_used(static_cast<size_t>(node.attribute_size()), false);
  if (form.kind == NodeForm::Kind::kAtenFallback) {
    for (int k = 0; k < node.attribute_size(); ++k) {
      const std::string& n = node.attribute(k).name();
      if (n == "operator" || n == "overload_name") attribute_used[static_cast<size_t>(k)] = true;
    }
  }
  // Argument names, for the error message only (the signature outlives it).
  std::vector<std::string_view> missing;
  std::vector<std::string_view> needed;  // arguments expected from inputs, in order
  int next_input = 0;
  for (const Argument& arg : signature.args) {
    BoundArgument b;
    b.arg = &arg;
    int attr_index = -1;
    for (int k = 0; k < node.attribute_size(); ++k) {
      if (!attribute_used[static_cast<size_t>(k)] && node.attribute(k).name() == arg.name) attr_index = k;
    }
    if (attr_index >= 0) {
      attribute_used[static_cast<size_t>(attr_index)] = true;
      const onnx::AttributeProto& attr = node.attribute(attr_index);
      Value raw;
      std::string reason;
      if (IsTensorType(arg.type)) {
        *why = fmt::format("argument '{}' is a tensor but arrives as an attribute", arg.name);
        return false;
      }
      // Inside a function, `k = @kk` has a value only per call site: like a
      // scalar computed at run time, it binds, and refuses only when read.
      b.not_constant = AttributeReference(attr);
      if (b.not_constant.empty() && (!AttributeToValue(attr, &raw, &reason) || !CoerceToArgument(raw, arg, &b.value, &reason))) {
        *why = reason;
        return false;
      }
    } else if (next_input < node.input_size()) {
      needed.push_back(arg.name);
      const std::string& name = node.input(next_input++);
      if (name.empty()) {
        // "" is None, or an omitted input as in ONNX: an argument that cannot
        // be None but has a default reads it as omitted and takes the default.
        if (!arg.optional && arg.type != ArgType::kOpaque) {
          if (!arg.default_value) {
            *why = fmt::format("argument '{}' ({}) is None but not optional and has no default", arg.name, arg.type_text);
            return false;
          }
          b.value = *arg.default_value;
        }
      } else if (arg.type == ArgType::kTensorList) {
        b.input = name;
        if (!BindTensorList(name, index, &b, why)) return false;
      } else {
        b.input = name;
        if (IsTensorType(arg.type) || arg.type == ArgType::kOpaque) {
          b.value = TensorValueOf(index, name);
        } else {
          std::string error;
          ResolveConstant(name, index, &b, &error);
          if (!error.empty()) {
            *why = error;
            return false;
          }
        }
      }
    } else if (arg.default_value) {
      b.value = *arg.default_value;
    } else if (arg.optional) {
      b.value = Value::None();
    } else {
      needed.push_back(arg.name);
      missing.push_back(arg.name);
    }
    out->args_.push_back(std::move(b));
  }
  if (!missing.empty()) {
    // Positional binding cannot tell which arguments a lossy symbolic dropped,
    // so name what the node has and everything the signature needed from it.
    std::vector<std::string> have;
    for (const auto& in : node.input()) have.push_back(in.empty() ? "None" : "'" + in + "'");
    *why = fmt::format("too few arguments: the node has {} input{} ({}) where the signature needs {} ({}); "
                       "taking inputs in order leaves nothing for {} (a symbolic that drops arguments cannot be rewritten faithfully)",
                       node.input_size(), node.input_size() == 1 ? "" : "s", fmt::join(have, ", "), needed.size(),
                       fmt::join(needed, ", "), fmt::join(missing, ", "));
    return false;
  }
  if (next_input < node.input_size()) {
    *why = fmt::format("the node has {} inputs but the signature takes {} of them", node.input_size(), next_input);
    return false;
  }
  for (int k = 0; k < node.attribute_size(); ++k) {
    if (!attribute_used[static_cast<size_t>(k)]) {
      *why = fmt::format("attribute '{}' is not an argument of the signature", node.attribute(k).name());
      return false;
    }
  }
  return true;
}

}  // namespace remap
