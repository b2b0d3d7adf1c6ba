// Types of values the model does not record. ONNX's per-operator inference
// runs on demand, walking back through producers only as far as a question
// needs, and on each replacement as it is emitted, so a rule can read
// rank()/dtype() of values computed by earlier rewrites (asinh feeding triu)
// without a shape-inference pass over the whole model.
#pragma once

#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include <google/protobuf/arena.h>
#include <onnx/defs/schema.h>
#include <onnx/onnx_pb.h>

#include "model/graph_index.h"

namespace remap {

// Whether ONNX 1.12's inference of `node` (at `schema`, its version) gives
// output 0 the type and shape of input 0, once the input types are allowed:
// the operators the oracle types without an inference context.
bool InfersFromFirstInput(const onnx::NodeProto& node, const onnx::OpSchema& schema);
// Whether that inference throws, typing nothing, when input 0 has no type:
// the oracle then leaves the node untyped without calling ONNX.
// tests/unit/type_oracle_shortcut_test.cc checks both against ONNX.
bool UntypedWithoutFirstInput(const onnx::NodeProto& node, const onnx::OpSchema& schema);

// Default-domain operators whose one output has, at every opset, the type
// and shape of their one input: the oracle types them without ONNX.
bool SameTypeAsInput(std::string_view op);
// A default-domain node of such an operator, with one named input and one
// named output: its output has its input's type.
bool IsSameTypeUnary(const onnx::NodeProto& node);

// Default-domain elementwise operators of two inputs whose output, when both
// inputs have one and the same tensor type of static shape (no broadcast
// needed), has that type: the oracle types them without ONNX. (A residual
// Add, or Add(x, x), costs ONNX an inference context.)
bool SameTypeAsEqualInputs(std::string_view op);

class TypeOracle {
 public:
  // `opsets`: the tree's opset imports (domain -> version; "" for the default domain).
  TypeOracle(GraphIndex* index, std::unordered_map<std::string, int> opsets);

  TensorType TypeOf(const std::string& value);
  // TypeOf and the index's StaticDims in one lookup (GraphIndex::TypeAndDims).
  TensorType TypeAndDims(const std::string& value, std::vector<int64_t>* dims);
  const onnx::TypeProto* TypeProtoOf(const std::string& value);
  // The type of `value` as far as it is known now: inferred, recorded or
  // from an initializer's header. Walks and infers nothing.
  const onnx::TypeProto* KnownTypeProto(std::string_view value) { return Known(index_->Find(value)); }
  // Whether `type` is one the oracle keeps, one per distinct type: two such
  // are the same type exactly when they are the same object.
  bool Interned(const onnx::TypeProto* type) const { return type && type->GetArena() == &types_arena_; }
  // The kept copy of `type`, one per distinct type (model/type_key.h tells
  // them apart): a model has far fewer types than values.
  const onnx::TypeProto* Intern(const onnx::TypeProto& type);

  // Types the nodes of a replacement in order. False, with `why`, when ONNX's
  // inference finds a type error in a node whose input types are all known
  // (e.g. a float32 Constant added to a float64 input).
  bool TypeReplacement(const std::vector<onnx::NodeProto>& nodes, std::string* why);
  // Types nodes[from..] being emitted, without judging them: what a fragment
  // called in the middle of a replacement needs to know of the values before
  // it. The caller passes where the last call stopped, so a replacement of
  // many fragment calls types each node once.
  void TypeEmittedSoFar(const std::vector<onnx::NodeProto>& nodes, size_t from);
  // What typing a replacement left in the index: each named output's slot,
  // in order, and how many nodes it typed. A replacement made alike for
  // another node (match/replacement_memo.h) is given the same.
  struct ReplacementTyping {
    std::vector<const onnx::TypeProto*> outputs;
    size_t nodes_typed = 0;
  };
  // `typed_before`: nodes_typed() before the replacement was typed.
  ReplacementTyping TypingOf(const std::vector<onnx::NodeProto>& nodes, size_t typed_before);
  void ApplyTyping(const std::vector<onnx::NodeProto>& nodes, const ReplacementTyping& typing);
  // How many times a node was typed: types are computed only where a rule
  // asks, so this stays far below the model's node count on most models.
  size_t nodes_typed() const { return nodes_typed_; }

 private:
  // A value's type as far as it is known now, without walking: what the
  // oracle inferred, the model records, or an initializer's header says.
  const onnx::TypeProto* Known(GraphIndex::Entry* e);
  const onnx::TypeProto* Known(const std::string& value) { return Known(index_->Find(value)); }
  // `e`: the entry of `value` (nullptr when the index has none).
  const onnx::TypeProto* TypeProtoOf(std::string_view value, GraphIndex::Entry* e);
  // The entry that holds `node`'s walk state: that of its key output (its
  // first named one), which is `entry` itself when `output` is that name.
  GraphIndex::Entry* StateOf(const onnx::NodeProto& node, std::string_view output, GraphIndex::Entry* entry);
  // The type of a value whose entry links to its same-type input's
  // (Entry::same_type_as): the links are followed to the first entry that is
  // typed or not linked, that one is typed as any value is, and its type is
  // passed back to each entry on the way, as InferSameAsInput would.
  const onnx::TypeProto* TypeOfLinked(GraphIndex::Entry* start);
  // Types the producer `start` (a parsed node or one left as bytes) and the
  // untyped producers it waits for; `state` is StateOf(node), or for a node
  // left as bytes the entry of its output.
  void Resolve(const Producer& start, GraphIndex::Entry* state);
  // A frame of Resolve's walk: a parsed node or a node left as bytes
  // (deferred), whose one output's entry is its state.
  struct ResolveFrame {
    const onnx::NodeProto* node;
    const DeferredNode* deferred;
    GraphIndex::Entry* state;  // the entry of its key output: its walk state, then its type
    GraphIndex::Entry* input;  // the entry of its input, for a node of one input
    bool expanded;
  };
  // A node left as bytes has its input's type, as InferSameAsInput gives.
  void InferDeferred(GraphIndex::Entry* input, GraphIndex::Entry* output);
  // Index entries of a node's one input and its key output, when the caller
  // has found them already (nullptr: looked up when needed).
  struct Entries {
    GraphIndex::Entry* input = nullptr;
    GraphIndex::Entry* output = nullptr;
  };
  bool Infer(const onnx::NodeProto& node, bool strict, std::string* why) { return Infer(node, strict, why, Entries()); }
  bool Infer(const onnx::NodeProto& node, bool strict, std::string* why, const Entries& known);
  bool InferSameAsInput(const onnx::NodeProto& node, const Entries& known);
  bool InferSameAsEqualInputs(const onnx::NodeProto& node);
  bool InferFromBodies(const onnx::NodeProto& node);
  bool InferConstant(const onnx::NodeProto& node);
  // Keeps an emitted Constant's value for the inference of the nodes after it.
  void NoteEmittedValue(const onnx::NodeProto& node);
  bool InferFromFirstInput(const onnx::NodeProto& node, const onnx::OpSchema& schema);
  bool InputTypesAllowed(const onnx::NodeProto& node, const onnx::OpSchema& schema);
  // ONNX's interned type name of a tensor of `elem_type`.
  onnx::DataType TensorDataType(int elem_type);
  // Keeps `type` as the type of `value`; returns the kept copy.
  const onnx::TypeProto* Note(const std::string& value, const onnx::TypeProto& type);
  static bool IsMark(const onnx::TypeProto* t);

  // The inferred type of each value is kept in its index entry
  // (GraphIndex::Entry::inferred): one map, one lookup per value. For the
  // first output of a node being walked, or walked without a type, the slot
  // holds one of two marks (walking, walked untyped).
  GraphIndex* index_;
  std::unordered_map<std::string, int> opsets_;
  // Inferred types live on `types_arena_`, one copy per distinct type
  // (`interned_`, keyed by AppendTypeKey); values share them.
  google::protobuf::Arena types_arena_;
  std::unordered_map<std::string, const onnx::TypeProto*> interned_;
  std::string intern_key_;  // scratch
  onnx::TypeProto constant_type_;  // scratch of InferConstant
  // Scratch for Infer, kept to reuse its buckets.
  std::unordered_map<std::string, onnx::TypeProto*> input_types_;
  std::unordered_map<std::string, const onnx::TensorProto*> input_data_;
  // The same types by input position (nullptr: omitted), for InputTypesAllowed.
  std::vector<const onnx::TypeProto*> ordered_input_types_;
  // ONNX's interned type names ("tensor(float)") by element type.
  std::unordered_map<int, const std::string*> tensor_data_types_;
  // InputTypesAllowed's scratch: each type parameter's bound type.
  std::vector<std::pair<const std::string*, onnx::DataType>> bound_params_;
  // Values of the Constants of the replacement being typed (not in the index yet).
  std::unordered_map<std::string, const onnx::TensorProto*> emitted_data_;
  // Resolve's stack, kept between walks (Resolve does not recurse: Infer
  // reads only types already known).
  std::vector<ResolveFrame> resolve_stack_;
  size_t nodes_typed_ = 0;
};

}  // namespace remap
