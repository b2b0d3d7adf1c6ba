#include "model/type_oracle.h"

#include <algorithm>
#include <initializer_list>
#include <optional>
#include <string_view>

#include <onnx/defs/data_type_utils.h>
#include <onnx/defs/schema.h>
#include <onnx/shape_inference/implementation.h>

#include "model/deferred_nodes.h"
#include "model/inference_guard.h"
#include "model/opset_import.h"
#include "model/schema_lookup.h"
#include "model/type_key.h"

namespace remap {

namespace {

TensorType FromProto(const onnx::TypeProto* t) {
  TensorType out;
  if (!t || !t->has_tensor_type()) return out;
  out.elem_type = t->tensor_type().elem_type();
  if (t->tensor_type().has_shape()) out.rank = t->tensor_type().shape().dim_size();
  return out;
}

std::string FirstLine(const std::string& s) { return s.substr(0, s.find('\n')); }

// The walk state of a node, in the slot of its first output until it has a
// type: addresses only, never read (function statics: built on first use).
const onnx::TypeProto* Walking() {
  static const onnx::TypeProto mark;
  return &mark;
}
const onnx::TypeProto* WalkedUntyped() {
  static const onnx::TypeProto mark;
  return &mark;
}

// The value whose slot holds the node's walk state: producers always have one.
const std::string& KeyOutput(const onnx::NodeProto& node) {
  for (const auto& out : node.output()) {
    if (!out.empty()) return out;
  }
  return node.output(0);
}

}  // namespace

// ONNX infers these with propagateShapeAndTypeFromFirstInput. Typing a long
// chain of them needs no per-node inference context. Asked once per node
// typed: a switch on the first letter compares a few names, not a hash.
bool SameTypeAsInput(std::string_view op) {
  if (op.empty()) return false;
  auto any_of = [op](std::initializer_list<std::string_view> names) {
    for (std::string_view n : names) {
      if (op == n) return true;
    }
    return false;
  };
  switch (op[0]) {
    case 'A': return any_of({"Abs", "Acos", "Acosh", "Asin", "Asinh", "Atan", "Atanh"});
    case 'C': return any_of({"Ceil", "Celu", "Cos", "Cosh"});
    case 'E': return any_of({"Elu", "Erf", "Exp"});
    case 'F': return op == "Floor";
    case 'H': return any_of({"HardSigmoid", "HardSwish"});
    case 'L': return any_of({"LeakyRelu", "Log"});
    case 'N': return any_of({"Neg", "Not"});
    case 'R': return any_of({"Reciprocal", "Relu", "Round"});
    case 'S': return any_of({"Selu", "Sigmoid", "Sign", "Sin", "Sinh", "Softplus", "Softsign", "Sqrt"});
    case 'T': return any_of({"Tan", "Tanh", "ThresholdedRelu"});
    default: return false;
  }
}

bool SameTypeAsEqualInputs(std::string_view op) { return op == "Add" || op == "Sub" || op == "Mul" || op == "Div"; }

bool IsSameTypeUnary(const onnx::NodeProto& node) {
  // The counts first: the index asks this of every node of every body.
  return node.input_size() == 1 && node.output_size() == 1 && IsDefaultDomain(node.domain()) &&
         !node.input(0).empty() && !node.output(0).empty() && SameTypeAsInput(node.op_type());
}

namespace {

// A tensor type whose element type and every dim are known numbers.
bool StaticTensorType(const onnx::TypeProto& type) {
  if (!type.has_tensor_type()) return false;
  const auto& t = type.tensor_type();
  if (t.elem_type() == 0 || !t.has_shape()) return false;
  for (const auto& d : t.shape().dim()) {
    if (!d.has_dim_value()) return false;
  }
  return true;
}

// A declared value of a static tensor type: ONNX's inference of the body
// could add nothing to it.
bool FullyDeclared(const onnx::ValueInfoProto& vi) { return StaticTensorType(vi.type()); }

// What `into` and `other` have in common (the union of the shapes two If
// branches may give): a dim both fix alike stays, any other becomes unknown,
// and ranks that differ leave no shape.
void KeepCommonShape(const onnx::TypeProto_Tensor& other, onnx::TypeProto_Tensor* into) {
  if (!other.has_shape() || !into->has_shape() || other.shape().dim_size() != into->shape().dim_size()) {
    into->clear_shape();
    return;
  }
  for (int k = 0; k < other.shape().dim_size(); ++k) {
    const auto& a = other.shape().dim(k);
    auto* b = into->mutable_shape()->mutable_dim(k);
    const bool same = (a.has_dim_value() && b->has_dim_value() && a.dim_value() == b->dim_value()) ||
                      (a.has_dim_param() && b->has_dim_param() && a.dim_param() == b->dim_param());
    if (!same) b->Clear();
  }
}

// The tensor of a default-domain Constant's `value` attribute, or nullptr.
const onnx::TensorProto* ConstantValue(const onnx::NodeProto& node) {
  if (std::string_view(node.op_type()) != "Constant" || !IsDefaultDomain(node.domain())) return nullptr;
  for (const auto& a : node.attribute()) {
    if (std::string_view(a.name()) == "value" && a.has_t()) return &a.t();
  }
  return nullptr;
}

const onnx::GraphProto* GraphAttribute(const onnx::NodeProto& node, const char* name) {
  for (const auto& a : node.attribute()) {
    if (a.name() == name && a.has_g()) return &a.g();
  }
  return nullptr;
}

}  // namespace

TypeOracle::TypeOracle(GraphIndex* index, std::unordered_map<std::string, int> opsets)
    : index_(index), opsets_(std::move(opsets)) {
  if (opsets_.count("ai.onnx")) opsets_[""] = opsets_["ai.onnx"];
}

TensorType TypeOracle::TypeOf(const std::string& value) {
  GraphIndex::Entry* e = index_->Find(value);
  TensorType recorded = e ? e->type : TensorType{};
  if (recorded.elem_type != 0 && recorded.rank >= 0) return recorded;
  TensorType inferred = FromProto(TypeProtoOf(value, e));
  if (recorded.elem_type == 0) recorded.elem_type = inferred.elem_type;
  if (recorded.rank < 0) recorded.rank = inferred.rank;
  return recorded;
}

TensorType TypeOracle::TypeAndDims(const std::string& value, std::vector<int64_t>* dims) {
  GraphIndex::Entry* e = index_->Find(value);
  TensorType type = e ? e->type : TensorType{};
  const onnx::TypeProto* t = nullptr;
  const bool recorded = type.elem_type != 0 && type.rank >= 0;
  if (!recorded) {
    t = TypeProtoOf(value, e);
    const TensorType inferred = FromProto(t);
    if (type.elem_type == 0) type.elem_type = inferred.elem_type;
    if (type.rank < 0) type.rank = inferred.rank;
  }
  if (type.rank > 0 && e) {
    // A second ask would find what the first walked: ask only when TypeOf did not.
    if (recorded) t = TypeProtoOf(value, e);
    GraphIndex::DimsOf(t, *e, type.rank, dims);
  }
  return type;
}

bool TypeOracle::IsMark(const onnx::TypeProto* t) { return t == Walking() || t == WalkedUntyped(); }

const onnx::TypeProto* TypeOracle::Intern(const onnx::TypeProto& type) {
  intern_key_.clear();
  AppendTypeKey(type, &intern_key_);
  auto it = interned_.find(intern_key_);
  if (it != interned_.end()) return it->second;
  auto* kept = google::protobuf::Arena::CreateMessage<onnx::TypeProto>(&types_arena_);
  *kept = type;
  interned_.emplace(intern_key_, kept);
  return kept;
}

const onnx::TypeProto* TypeOracle::Note(const std::string& value, const onnx::TypeProto& type) {
  const onnx::TypeProto* kept = Intern(type);
  index_->Slot(value).inferred = kept;
  return kept;
}

const onnx::TypeProto* TypeOracle::Known(GraphIndex::Entry* e) {
  if (!e) return nullptr;
  if (e->inferred && !IsMark(e->inferred)) return e->inferred;
  if (const onnx::TypeProto* recorded = e->type_proto()) return recorded;
  Producer p = e->producer();
  if (p.kind == Producer::Kind::kInitializer && p.initializer) {
    onnx::TypeProto t;
    auto* tensor = t.mutable_tensor_type();
    tensor->set_elem_type(p.initializer->data_type());
    auto* shape = tensor->mutable_shape();
    for (int64_t d : p.initializer->dims()) shape->add_dim()->set_dim_value(d);
    e->inferred = Intern(t);
    return e->inferred;
  }
  return nullptr;
}

const onnx::TypeProto* TypeOracle::TypeProtoOf(const std::string& value) {
  return TypeProtoOf(value, index_->Find(value));
}

const onnx::TypeProto* TypeOracle::TypeProtoOf(std::string_view value, GraphIndex::Entry* e) {
  if (const onnx::TypeProto* t = Known(e)) return t;
  if (!e) return nullptr;
  if (e->same_type_as() && !e->inferred) return TypeOfLinked(e);
  Producer p = e->producer();
  if (p.kind == Producer::Kind::kDeferred) {
    if (e->inferred) return nullptr;  // walked, or being walked
    Resolve(p, e);
    return Known(e);
  }
  if (p.kind != Producer::Kind::kNode || !p.node) return nullptr;
  GraphIndex::Entry* state = StateOf(*p.node, value, e);
  if (state->inferred) return nullptr;  // walked, or being walked
  Resolve(p, state);
  return Known(e);  // entries stay where they are while the map grows
}

GraphIndex::Entry* TypeOracle::StateOf(const onnx::NodeProto& node, std::string_view output, GraphIndex::Entry* entry) {
  const std::string& key = KeyOutput(node);
  return key == output ? entry : &index_->Slot(key);
}

const onnx::TypeProto* TypeOracle::TypeOfLinked(GraphIndex::Entry* start) {
  // Each entry passed is marked as being walked: a link back to one (a
  // cycle, which only a broken graph has) ends the chain there.
  GraphIndex::Entry* head = start;
  const onnx::TypeProto* t = nullptr;
  while (true) {
    if ((t = Known(head)) || head->inferred) break;
    GraphIndex::Entry* next = head->same_type_as();
    if (!next) break;
    head->inferred = Walking();
    head = next;
  }
  if (!t && !head->inferred) {
    // The chain's head: typed by its producer, as TypeProtoOf types any value.
    // Its producer has no other named output when it is a same-type op; else
    // the walk state is its key output's entry.
    const Producer p = head->producer();
    if (p.kind == Producer::Kind::kDeferred) {
      Resolve(p, head);
    } else if (p.kind == Producer::Kind::kNode && p.node) {
      GraphIndex::Entry* state = p.node->output_size() == 1 ? head : &index_->Slot(KeyOutput(*p.node));
      if (!state->inferred) Resolve(p, state);
    }
    t = Known(head);
  }
  // As InferSameAsInput, only a tensor type passes on. Another kind of type
  // (a sequence through Identity), or none (Not is bool whatever its input),
  // is left to ONNX's inference, node by node, as without links.
  const bool tensor = t && t->has_tensor_type() && t->tensor_type().elem_type() != 0;
  for (GraphIndex::Entry* e = start; e != head; e = e->same_type_as()) {
    e->inferred = tensor ? t : nullptr;
    if (tensor) ++nodes_typed_;
  }
  if (tensor) return t;
  Resolve(start->producer(), start);
  return Known(start);
}

// Infers `node` after the producers of its untyped inputs: a post-order walk
// with an explicit stack (a chain of a million nodes must not exhaust the call
// stack). A node is inferred only once every producer it waits for is done; a
// producer reached twice (a diamond: Sub reading both Div and ReduceMax(Div))
// is pushed again so that it is finished before the consumer nearer the top.
// Each frame carries the index entries it has found (the node's state, the
// entry of its one input), so a walked node costs one lookup, not six.
void TypeOracle::Resolve(const Producer& start, GraphIndex::Entry* state) {
  // The stack of the last walk, emptied: its capacity is kept (a rule's
  // every input starts a walk, most of a few frames).
  std::vector<ResolveFrame>& stack = resolve_stack_;
  stack.clear();
  stack.push_back({start.node, start.deferred, state, nullptr, false});
  // Pushes the producer of `in` (entry `e`) when it is still to be typed.
  auto push_producer = [&](GraphIndex::Entry* e, std::string_view in) {
    if (!e || Known(e)) return;
    Producer p = e->producer();
    // In progress means an ancestor on the current path: a cycle, which only a broken graph has.
    if (p.kind == Producer::Kind::kDeferred) {
      if (!e->inferred) stack.push_back({nullptr, p.deferred, e, nullptr, false});
      return;
    }
    if (p.kind != Producer::Kind::kNode || !p.node) return;
    GraphIndex::Entry* producer_state = StateOf(*p.node, in, e);
    if (!producer_state->inferred) stack.push_back({p.node, nullptr, producer_state, nullptr, false});
  };
  while (!stack.empty()) {
    ResolveFrame& top = stack.back();
    if (!top.expanded) {
      // Done, or expanded by a second copy pushed later (a diamond) and finished since.
      const onnx::TypeProto*& walk = top.state->inferred;
      if (walk && walk != Walking()) {
        stack.pop_back();
        continue;
      }
      walk = Walking();
      top.expanded = true;
      if (const DeferredNode* d = top.deferred) {
        // Its output has the type of the value its chain starts from (deferred_nodes.h).
        const DeferredNode* head = d->chain_head ? d->chain_head : d;
        GraphIndex::Entry* e =
            head->input_entry ? static_cast<GraphIndex::Entry*>(head->input_entry) : index_->Find(head->input);
        top.input = e;
        push_producer(e, head->input);  // `top` may move from here on
        continue;
      }
      const onnx::NodeProto* n = top.node;
      const bool one_input = n->input_size() == 1;
      for (const auto& in : n->input()) {
        GraphIndex::Entry* e = in.empty() ? nullptr : index_->Find(in);
        if (one_input) stack.back().input = e;
        push_producer(e, in);
      }
      continue;
    }
    const ResolveFrame done = top;
    stack.pop_back();
    if (done.deferred) {
      InferDeferred(done.input, done.state);
    } else {
      std::string ignored;
      Infer(*done.node, /*strict=*/false, &ignored, {done.input, done.state});
    }
    if (done.state->inferred == Walking()) done.state->inferred = WalkedUntyped();
  }
}

void TypeOracle::InferDeferred(GraphIndex::Entry* input, GraphIndex::Entry* output) {
  ++nodes_typed_;
  const onnx::TypeProto* in = input ? Known(input) : nullptr;
  if (in && in->has_tensor_type() && in->tensor_type().elem_type() != 0) output->inferred = in;
}

bool TypeOracle::InferSameAsInput(const onnx::NodeProto& node, const Entries& known) {
  if (!IsSameTypeUnary(node)) return false;
  const onnx::TypeProto* in = Known(known.input ? known.input : index_->Find(node.input(0)));
  if (!in || !in->has_tensor_type() || in->tensor_type().elem_type() == 0) return false;
  (known.output ? *known.output : index_->Slot(node.output(0))).inferred = in;
  return true;
}

namespace {

// One and the same static tensor type: element type and every dim's size.
bool SameStaticTensorType(const onnx::TypeProto& a, const onnx::TypeProto& b) {
  if (!StaticTensorType(a) || !StaticTensorType(b) || a.tensor_type().elem_type() != b.tensor_type().elem_type())
    return false;
  const auto& da = a.tensor_type().shape().dim();
  const auto& db = b.tensor_type().shape().dim();
  if (da.size() != db.size()) return false;
  for (int k = 0; k < da.size(); ++k) {
    if (da[k].dim_value() != db[k].dim_value()) return false;
  }
  return true;
}

}  // namespace

bool TypeOracle::InferSameAsEqualInputs(const onnx::NodeProto& node) {
  if (!IsDefaultDomain(node.domain()) || node.input_size() != 2 || node.output_size() != 1 || node.input(0).empty() ||
      node.input(1).empty() || node.output(0).empty() || !SameTypeAsEqualInputs(node.op_type()))
    return false;
  const onnx::TypeProto* a = Known(node.input(0));
  if (!a) return false;
  const onnx::TypeProto* b = node.input(1) == node.input(0) ? a : Known(node.input(1));
  if (!b || !SameStaticTensorType(*a, *b)) return false;
  index_->Slot(node.output(0)).inferred = a;
  return true;
}

// Operators whose ONNX 1.12 inference, at these schema versions, gives the
// one output exactly the type and shape of input 0 once the input types are
// allowed, and judges nothing else but, for Trilu, a known rank below 2.
// Checked against onnx.shape_inference.infer_shapes(strict_mode=True). The
// same-type unary ops (SameTypeAsInput) are such operators at every version.
struct FirstInputOp {
  std::string_view op_type;
  int since_version;
  int min_rank;
};
constexpr FirstInputOp kFirstInputOps[] = {{"CumSum", 11, 0}, {"CumSum", 14, 0}, {"Trilu", 14, 2}};

// The lowest rank ONNX's inference of `node` accepts when it is such an
// operator (0: any), or -1 when it is not.
int FirstInputMinRank(const onnx::NodeProto& node, const onnx::OpSchema& schema) {
  if (IsSameTypeUnary(node)) return 0;
  for (const FirstInputOp& op : kFirstInputOps) {
    if (op.op_type == node.op_type() && op.since_version == schema.since_version()) return op.min_rank;
  }
  return -1;
}

bool InfersFromFirstInput(const onnx::NodeProto& node, const onnx::OpSchema& schema) {
  return FirstInputMinRank(node, schema) >= 0;
}

bool UntypedWithoutFirstInput(const onnx::NodeProto& node, const onnx::OpSchema& schema) {
  // Not's inference types its output bool whether or not input 0 has a type.
  return InfersFromFirstInput(node, schema) && std::string_view(node.op_type()) != "Not";
}

// Types (and, strict or not, judges) such a node without an inference
// context: rules emit these operators often, and a context costs more than
// the rest of their typing. False, leaving the full inference to type the
// node or word its error, when any input is untyped, a type is not allowed,
// the rank is too low, or an attribute is one the full inference refuses
// (SafeForShapeInference).
bool TypeOracle::InferFromFirstInput(const onnx::NodeProto& node, const onnx::OpSchema& schema) {
  const int min_rank = FirstInputMinRank(node, schema);
  std::string unsafe;  // the full inference refuses such a node, in its words
  if (min_rank < 0 || !IsDefaultDomain(node.domain()) || node.output_size() != 1 || node.output(0).empty() ||
      node.input_size() < std::max(1, schema.min_input()) || node.input_size() > schema.max_input() ||
      node.input(0).empty() || !SafeForShapeInference(node, &unsafe))
    return false;
  ordered_input_types_.assign(static_cast<size_t>(node.input_size()), nullptr);
  for (int k = 0; k < node.input_size(); ++k) {
    if (node.input(k).empty()) continue;
    const onnx::TypeProto* t = Known(node.input(k));
    if (!t) return false;
    ordered_input_types_[static_cast<size_t>(k)] = t;
  }
  if (!InputTypesAllowed(node, schema)) return false;
  const onnx::TypeProto* in = ordered_input_types_[0];
  if (!in->has_tensor_type() || in->tensor_type().elem_type() == 0) return false;
  if (in->tensor_type().has_shape() && in->tensor_type().shape().dim_size() < min_rank) return false;
  index_->Slot(node.output(0)).inferred = in;
  return true;
}

onnx::DataType TypeOracle::TensorDataType(int elem_type) {
  auto found = tensor_data_types_.find(elem_type);
  if (found == tensor_data_types_.end()) {
    // ONNX's name for the type ("tensor(float)"), built once per element type.
    onnx::TypeProto tensor;
    tensor.mutable_tensor_type()->set_elem_type(elem_type);
    found = tensor_data_types_.emplace(elem_type, onnx::Utils::DataTypeUtils::ToType(tensor)).first;
  }
  return found->second;
}

// What ONNX 1.12's CheckInputOutputType judges of a node before its
// inference, for inputs that are tensors of known element types: each input
// up to the schema's count of formal inputs (1.12 checks no further
// variadic ones) allowed by its formal input, and those of one type
// parameter alike. Outputs have no type yet then, so it checks none. ONNX's
// check rebuilds each type's name under a lock; this compares cached ones.
// False when a type fails or is not a tensor: ONNX's own check then runs,
// and words the error.
bool TypeOracle::InputTypesAllowed(const onnx::NodeProto& node, const onnx::OpSchema& schema) {
  const auto& formals = schema.inputs();
  const int checked = std::min(node.input_size(), static_cast<int>(formals.size()));
  bound_params_.clear();
  for (int k = 0; k < checked; ++k) {
    const onnx::TypeProto* t = ordered_input_types_[static_cast<size_t>(k)];
    if (!t) continue;  // an omitted optional input: no type to check
    const auto& formal = formals[static_cast<size_t>(k)];
    // An element type ONNX does not know (a model may declare any number)
    // has no name: ToType would throw, outside the caller's try.
    if (!t->has_tensor_type() || t->tensor_type().elem_type() == 0 ||
        !onnx::TensorProto_DataType_IsValid(t->tensor_type().elem_type()))
      return false;
    const onnx::DataType type = TensorDataType(t->tensor_type().elem_type());
    if (!formal.GetTypes().empty() && !formal.GetTypes().count(type)) return false;
    if (!formal.GetIsHomogeneous()) continue;
    auto bound = std::find_if(bound_params_.begin(), bound_params_.end(),
                              [&](const auto& p) { return *p.first == formal.GetTypeStr(); });
    if (bound == bound_params_.end()) bound_params_.emplace_back(&formal.GetTypeStr(), type);
    else if (bound->second != type) return false;
  }
  return true;
}

// If and Loop outputs from the types their bodies declare for their outputs
// (torch's exporter declares them): no copy of the node, no inference of its
// bodies, and no need for the types of the outer values they read. A Loop's
// carried value has its body output's type (the last iteration's), a scan
// output that type stacked over the iterations. Only bodies that declare
// every dim of every output: ONNX's inference could refine anything less (a
// rank, a static size a rule reads), so Scan, sequences and partly declared
// bodies are left to it.
bool TypeOracle::InferFromBodies(const onnx::NodeProto& node) {
  if (!IsDefaultDomain(node.domain())) return false;
  const int n = node.output_size();
  // Each output's type: the body's declared one as it stands (the usual
  // case: no copy), or a type made from it in `made`.
  std::vector<const onnx::TypeProto*> types(static_cast<size_t>(n), nullptr);
  std::vector<onnx::TypeProto> made;
  made.reserve(static_cast<size_t>(n));  // `types` points into it
  if (node.op_type() == "If") {
    const onnx::GraphProto* then_branch = GraphAttribute(node, "then_branch");
    const onnx::GraphProto* else_branch = GraphAttribute(node, "else_branch");
    if (!then_branch || !else_branch || then_branch->output_size() != n || else_branch->output_size() != n) return false;
    for (int k = 0; k < n; ++k) {
      const auto& a = then_branch->output(k);
      const auto& b = else_branch->output(k);
      if (!FullyDeclared(a) || !FullyDeclared(b) || a.type().tensor_type().elem_type() != b.type().tensor_type().elem_type())
        return false;
      if (SameStaticTensorType(a.type(), b.type())) {
        types[static_cast<size_t>(k)] = &a.type();
        continue;
      }
      made.push_back(a.type());
      KeepCommonShape(b.type().tensor_type(), made.back().mutable_tensor_type());
      types[static_cast<size_t>(k)] = &made.back();
    }
  } else if (node.op_type() == "Loop") {
    const onnx::GraphProto* body = GraphAttribute(node, "body");
    const int carried = node.input_size() - 2;
    if (!body || carried < 0 || body->output_size() != n + 1) return false;
    for (int k = 0; k < n; ++k) {
      const auto& out = body->output(k + 1);  // after the condition
      if (!FullyDeclared(out)) return false;
      if (k < carried || !out.type().tensor_type().has_shape()) {
        types[static_cast<size_t>(k)] = &out.type();
        continue;
      }
      // A scan output stacks the body's value over the iterations.
      made.push_back(out.type());
      onnx::TensorShapeProto stacked;
      stacked.add_dim();  // the number of iterations
      for (const auto& d : out.type().tensor_type().shape().dim()) *stacked.add_dim() = d;
      *made.back().mutable_tensor_type()->mutable_shape() = std::move(stacked);
      types[static_cast<size_t>(k)] = &made.back();
    }
  } else {
    return false;
  }
  for (int k = 0; k < n; ++k) {
    if (!node.output(k).empty()) Note(node.output(k), *types[static_cast<size_t>(k)]);
  }
  return true;
}

// A Constant of one tensor `value`: its type is the tensor's, as ONNX's
// inference of every Constant version gives it, and there is nothing to
// judge (Constant has no inputs). Rules emit one or more per replacement;
// an inference context for each cost more than the rest of its typing.
bool TypeOracle::InferConstant(const onnx::NodeProto& node) {
  const onnx::TensorProto* value = ConstantValue(node);
  if (!value || node.input_size() != 0 || node.output_size() != 1 || node.output(0).empty() ||
      node.attribute_size() != 1 || value->data_type() == onnx::TensorProto::UNDEFINED ||
      !onnx::TensorProto_DataType_IsValid(value->data_type()))
    return false;
  auto* tensor = constant_type_.mutable_tensor_type();
  tensor->set_elem_type(value->data_type());
  auto* shape = tensor->mutable_shape();
  shape->clear_dim();
  for (int64_t d : value->dims()) shape->add_dim()->set_dim_value(d);
  Note(node.output(0), constant_type_);
  return true;
}

bool TypeOracle::Infer(const onnx::NodeProto& node, bool strict, std::string* why, const Entries& known) {
  ++nodes_typed_;
  if (InferConstant(node)) return true;
  // These two shortcuts judge nothing: a strict inference goes on to what does.
  if (!strict && (InferSameAsInput(node, known) || InferSameAsEqualInputs(node) || InferFromBodies(node))) return true;
  auto opset = opsets_.find(IsDefaultDomain(node.domain()) ? "" : node.domain());
  if (opset == opsets_.end()) return true;
  const auto* schema = FindSchema(node.op_type(), opset->second, node.domain());
  if (!schema || !schema->has_type_and_shape_inference_function()) return true;
  if (InferFromFirstInput(node, *schema)) return true;

  // InferenceContextImpl wants mutable TypeProto pointers; it only reads them.
  input_types_.clear();
  input_data_.clear();
  bool all_typed = true;
  auto note_input = [&](const std::string& in) -> const onnx::TypeProto* {
    GraphIndex::Entry* e = index_->Find(in);
    const onnx::TypeProto* t = Known(e);
    if (!t) {
      all_typed = false;
      return nullptr;
    }
    input_types_[in] = const_cast<onnx::TypeProto*>(t);
    auto emitted = emitted_data_.find(in);
    if (emitted != emitted_data_.end()) input_data_[in] = emitted->second;
    Producer p = e->producer();
    if (p.kind == Producer::Kind::kInitializer && p.initializer) input_data_[in] = p.initializer;
    if (p.kind == Producer::Kind::kNode && p.node) {
      if (const onnx::TensorProto* value = ConstantValue(*p.node)) input_data_[in] = value;
    }
    return t;
  };
  ordered_input_types_.assign(static_cast<size_t>(node.input_size()), nullptr);
  for (int k = 0; k < node.input_size(); ++k) {
    if (!node.input(k).empty()) ordered_input_types_[static_cast<size_t>(k)] = note_input(node.input(k));
  }
  std::string unsafe;
  if (!SafeForShapeInference(node, &unsafe)) {
    *why = unsafe;
    return false;
  }
  // ONNX's inference of these operators starts by reading input 0's type and
  // throws when there is none; untyped, the node types nothing and judges
  // nothing (the catch below). Past a value no rule could type, a chain of
  // them would throw once per node: an exception costs more than the rest of
  // a node's typing, and a model with unmapped nodes has many such chains.
  if (node.input_size() > 0 && !node.input(0).empty() && !ordered_input_types_[0] &&
      UntypedWithoutFirstInput(node, *schema))
    return true;
  // ONNX's context takes the node mutable to hand out its graph attributes;
  // only a node with subgraphs needs a copy and a graph context (their
  // inference reads the types of the values they capture).
  bool has_subgraph = false;
  std::vector<std::string> captured;
  ForEachSubgraph(node, [&](const onnx::GraphProto& g) {
    has_subgraph = true;
    CapturedNames(g, &captured);
  });
  std::optional<onnx::NodeProto> copy;
  std::unordered_map<std::string, onnx::TypeProto*> outer;
  std::optional<onnx::shape_inference::GraphInferenceContext> graph_context;
  if (has_subgraph) {
    copy = node;
    for (const auto& name : captured) {
      if (const onnx::TypeProto* t = Known(name)) outer[name] = const_cast<onnx::TypeProto*>(t);
    }
    // ONNX 1.12 keeps a reference to the functions map it is given, and its
    // default is a temporary: a subgraph node with no schema would read it
    // after it is gone. Subgraph nodes of no schema stay untyped.
    static const onnx::shape_inference::ModelLocalFunctionsMap kNoFunctions;
    graph_context.emplace(outer, opsets_, nullptr, kNoFunctions);
  }
  onnx::NodeProto& target = copy ? *copy : const_cast<onnx::NodeProto&>(node);
  onnx::shape_inference::InferenceContextImpl ctx(target, input_types_, input_data_, {}, nullptr,
                                                  graph_context ? &*graph_context : nullptr);
  try {
    if (all_typed && !InputTypesAllowed(node, *schema)) schema->CheckInputOutputType(ctx);
    schema->GetTypeAndShapeInferenceFunction()(ctx);
  } catch (const std::exception& e) {
    if (strict && all_typed) {
      *why = FirstLine(e.what());
      return false;
    }
    return true;
  }
  for (int k = 0; k < node.output_size(); ++k) {
    const onnx::TypeProto* t = ctx.getOutputType(static_cast<size_t>(k));
    if (!node.output(k).empty() && t && t->value_case() != onnx::TypeProto::VALUE_NOT_SET) Note(node.output(k), *t);
  }
  return true;
}

void TypeOracle::NoteEmittedValue(const onnx::NodeProto& node) {
  const onnx::TensorProto* value = ConstantValue(node);
  if (value && node.output_size() == 1) emitted_data_[node.output(0)] = value;
}

void TypeOracle::TypeEmittedSoFar(const std::vector<onnx::NodeProto>& nodes, size_t from) {
  for (size_t k = from; k < nodes.size(); ++k) {
    const onnx::NodeProto& n = nodes[k];
    std::string ignored;
    Infer(n, /*strict=*/false, &ignored);
    NoteEmittedValue(n);
  }
}

bool TypeOracle::TypeReplacement(const std::vector<onnx::NodeProto>& nodes, std::string* why) {
  // ONNX 1.12 knows operators up to its own newest opset only; above it an
  // older schema may not describe the node, so it types but never refuses.
  const bool strict = opsets_.count("") && opsets_.at("") <= onnx::OpSchemaRegistry::DomainToVersionRange::Instance().Map().at("").second;
  bool ok = true;
  for (const auto& n : nodes) {
    std::string node_why;
    if (!Infer(n, strict, &node_why)) {
      *why = node_why;
      ok = false;
      break;
    }
    NoteEmittedValue(n);
  }
  emitted_data_.clear();
  if (!ok) {
    // A refused replacement leaves no types behind: the next alternative writes the same outputs.
    for (const auto& n : nodes) {
      for (const auto& o : n.output()) {
        if (GraphIndex::Entry* e = index_->Find(o)) e->inferred = nullptr;
      }
    }
  }
  return ok;
}

TypeOracle::ReplacementTyping TypeOracle::TypingOf(const std::vector<onnx::NodeProto>& nodes, size_t typed_before) {
  ReplacementTyping typing;
  typing.nodes_typed = nodes_typed_ - typed_before;
  for (const auto& n : nodes) {
    for (const auto& o : n.output()) {
      if (o.empty()) continue;
      const GraphIndex::Entry* e = index_->Find(o);
      typing.outputs.push_back(e ? e->inferred : nullptr);
    }
  }
  return typing;
}

void TypeOracle::ApplyTyping(const std::vector<onnx::NodeProto>& nodes, const ReplacementTyping& typing) {
  nodes_typed_ += typing.nodes_typed;
  size_t k = 0;
  for (const auto& n : nodes) {
    for (const auto& o : n.output()) {
      if (o.empty()) continue;
      if (GraphIndex::Entry* e = index_->Find(o)) e->inferred = typing.outputs[k];
      ++k;
    }
  }
}

}  // namespace remap
