// GraphIndex: built once per graph tree (a main graph with its If/Loop/Scan
// subgraphs, or one model-local function). Value names are unique across such
// a tree (ONNX SSA), so one map serves every nesting level: name -> producer,
// number of uses, recorded and inferred type; node names are tracked apart
// for fresh node names.
#pragma once

#include <cstdint>
#include <memory>
#include <string_view>
#include <string>
#include <vector>
#include <unordered_map>
#include <unordered_set>

#include <onnx/onnx_pb.h>

#include "core/background_task.h"
#include "model/hash_set.h"
#include "model/last_defined.h"
#include "model/name_arena.h"
#include "model/name_table.h"

namespace remap {

// What the model says about a value's type: from graph inputs, outputs,
// value_info or an initializer's header. Unknown parts are 0 / -1.
struct TensorType {
  int elem_type = 0;  // onnx::TensorProto::DataType; 0 unknown
  int rank = -1;      // -1 unknown
};

struct DeferredNode;
class DeferredNodes;

struct Producer {
  // kDeferred: a main-graph node left as bytes (model/deferred_nodes.h), a
  // plain operator that is no constant, no list and no rule's candidate.
  enum class Kind : uint8_t { kUnknown, kGraphInput, kInitializer, kNode, kDeferred };
  Kind kind = Kind::kUnknown;
  const onnx::NodeProto* node = nullptr;
  const onnx::TensorProto* initializer = nullptr;
  const DeferredNode* deferred = nullptr;
};

class TypeOracle;

class GraphIndex {
 public:
  GraphIndex();  // empty; ForGraph / ForFunction index one
  static GraphIndex ForGraph(const onnx::GraphProto& graph);
  static GraphIndex ForFunction(const onnx::FunctionProto& function);


  Producer ProducerOf(std::string_view value) const;
  // Uses by node inputs (at any depth) and graph outputs.
  int Uses(std::string_view value) const;
  // The index's own copy of the name `value` (it lives as long as the index),
  // empty when the tree does not name it.
  std::string_view KeyOf(std::string_view value) const;
  void AddUse(const std::string& value) { ++Slot(value).uses; }
  void RemoveUse(const std::string& value) { --Slot(value).uses; }
  // The value's type: through the TypeOracle when one is attached (it infers
  // types the model does not record), else what the model records.
  TensorType TypeOf(const std::string& value) const;
  // The size of each dim of `value` (-1 where it is not a number), through the
  // type oracle when one is attached. Empty, with *known false, when the rank is unknown.
  std::vector<int64_t> StaticDims(const std::string& value, bool* known) const;
  // TypeOf and StaticDims in one lookup, as a tensor argument's Value holds
  // them: `dims` gets the dims when the rank is above 0 and StaticDims knows
  // as many dims as the rank says, and stays empty otherwise.
  TensorType TypeAndDims(const std::string& value, std::vector<int64_t>* dims) const;
  // What the model records: graph input/output/value_info types, initializer headers.
  TensorType RecordedTypeOf(const std::string& value) const;
  const onnx::TypeProto* RecordedTypeProto(const std::string& value) const;
  void AttachTypeOracle(TypeOracle* oracle) { oracle_ = oracle; }
  TypeOracle* type_oracle() const { return oracle_; }
  // False only when the load-time structure check (MainGraphIndexBuilder)
  // saw every tensor of the model and none is stored as external data: the
  // checks and copies of data files then have nothing to look for.
  bool may_hold_external_data() const { return may_hold_external_data_; }

  // The value's producer was rewritten: it is no longer a known node.
  void ForgetProducer(const std::string& value) { Slot(value).set_producer(Producer{}); }

  // A value (node) name not used anywhere in the tree, derived from `base`.
  std::string FreshValueName(const std::string& base);
  std::string FreshNodeName(const std::string& base);

  // Everything known of one value, in one map entry: a question about a value
  // costs one lookup. 40 bytes; a million-node graph has millions of them.
  class Entry {
   public:
    Producer producer() const {
      switch (kind_) {
        case Producer::Kind::kNode: return Producer{kind_, static_cast<const onnx::NodeProto*>(source_), nullptr};
        case Producer::Kind::kInitializer: return Producer{kind_, nullptr, static_cast<const onnx::TensorProto*>(source_)};
        case Producer::Kind::kDeferred:
          return Producer{kind_, nullptr, nullptr, static_cast<const DeferredNode*>(source_)};
        default: return Producer{kind_, nullptr, nullptr};
      }
    }
    void set_producer(const Producer& p) {
      // A new producer may not pass its input's type on.
      if (type_or_link_ & kLinkTag) type_or_link_ = 0;
      kind_ = p.kind;
      source_ = p.kind == Producer::Kind::kNode       ? static_cast<const void*>(p.node)
                : p.kind == Producer::Kind::kDeferred ? static_cast<const void*>(p.deferred)
                                                      : static_cast<const void*>(p.initializer);
    }
    int uses = 0;
    TensorType type;  // what the model records (value_info, initializer header)

   private:
    // Declared here, between the ints and the pointers, so the entry packs.
    Producer::Kind kind_ = Producer::Kind::kUnknown;
    const void* source_ = nullptr;  // the producing node or initializer

   public:
    // The model's ValueInfoProto type, when it has one.
    const onnx::TypeProto* type_proto() const {
      return type_or_link_ & kLinkTag ? nullptr : reinterpret_cast<const onnx::TypeProto*>(type_or_link_);
    }
    void set_type_proto(const onnx::TypeProto* type) { type_or_link_ = reinterpret_cast<uintptr_t>(type); }
    // When the model records no type for the value and its producer is a
    // same-type unary op (IsSameTypeUnary): the entry of that op's input,
    // whose type is the value's. The type oracle follows these links down a
    // chain of such ops without a lookup or an inference per node.
    Entry* same_type_as() const {
      return type_or_link_ & kLinkTag ? reinterpret_cast<Entry*>(type_or_link_ & ~kLinkTag) : nullptr;
    }
    void set_same_type_as(Entry* input) {
      if (!type_proto()) type_or_link_ = reinterpret_cast<uintptr_t>(input) | kLinkTag;
    }
    // The type oracle's slot: the type it inferred, or its walk mark.
    const onnx::TypeProto* inferred = nullptr;

   private:
    // One word for two facts a value never has both of (a recorded type
    // makes the link moot): the TypeProto, or the link with its low bit set.
    static constexpr uintptr_t kLinkTag = 1;
    uintptr_t type_or_link_ = 0;
  };
  static_assert(sizeof(void*) != 8 || sizeof(Entry) == 40, "a value's entry stays small");
  // The entry of `value`: nullptr when the tree does not name it.
  const Entry* Find(std::string_view value) const;

 private:
  // The type oracle keeps its inferred types in the entries (Entry::inferred).
  friend class TypeOracle;
  friend class MainGraphIndexBuilder;
  Entry* Find(std::string_view value);
  // The entry of `value`, made when it is new.
  Entry& Slot(std::string_view value) {
    return t_->values.FindOrInsert(value, [this](std::string_view name) { return t_->arena.Keep(name); }).value;
  }
  // StaticDims' dims of the value of `entry`, whose type is `type` (null
  // when unknown), into `dims` when there are `rank` of them.
  static void DimsOf(const onnx::TypeProto* type, const Entry& entry, int rank, std::vector<int64_t>* dims);
  void NoteType(const onnx::ValueInfoProto& vi);
  // The last output a node of the walk defined, with its entry (entries
  // never move: name_table.h).
  using LastOutput = LastDefined<Entry>;
  void IndexGraph(const onnx::GraphProto& graph, LastOutput* last);
  // IndexGraph without the nodes.
  void IndexGraphValues(const onnx::GraphProto& graph);
  void IndexNode(const onnx::NodeProto& node, LastOutput* last);
  // `base`, or base_N for the first N that `claim(name)` takes (claim: takes
  // the name when it is free, and says whether it did).
  template <typename Claim>
  std::string Fresh(const std::string& base, Claim claim);

  // The tables with the arena that keeps their names, on the heap: a
  // GraphIndex can then be moved (and move-assigned) and the keys stay put.
  struct Tables {
    NameArena arena;
    NameTable<Entry> values;
    // Node names by hash only, with no copy of the name: a fresh name must
    // avoid every name in use, and a name whose hash collides with one in use
    // is only passed over, never handed out twice.
    HashSet node_name_hashes;
  };
  std::unique_ptr<Tables> t_;
  bool may_hold_external_data_ = true;
  std::unordered_map<std::string, int> next_suffix_;
  TypeOracle* oracle_ = nullptr;
};

// The index GraphIndex::ForGraph builds, built in steps by the load-time structure
// check (model_structure.cc), so that one walk and one table of names
// serve both. Begin indexes the graph's inputs, initializers, outputs and
// value_info; then, for each node in order: UseInputs, the checks of its
// subgraphs, DefineOutputs; then Finish indexes every subgraph. Until
// Finish, the table holds the main graph's values only, and a value has a
// producer exactly when the graph defined it before the current node.
class MainGraphIndexBuilder {
 public:
  // `deferred`: the graph's nodes left as bytes, if any. On a large graph
  // the node names (kept for fresh names only, never checked) are hashed into
  // their set on another core while this walk builds the table of values:
  // in a million-name set every insert is a cache miss.
  explicit MainGraphIndexBuilder(const onnx::GraphProto& graph, const DeferredNodes* deferred = nullptr,
                                 size_t names_apart_from = kNamesApartFrom);
  ~MainGraphIndexBuilder();
  MainGraphIndexBuilder(const MainGraphIndexBuilder&) = delete;
  MainGraphIndexBuilder& operator=(const MainGraphIndexBuilder&) = delete;
  // From how many nodes the names go to another core: below it a thread
  // costs more than it saves.
  static constexpr size_t kNamesApartFrom = size_t{1} << 16;
  // Counts the node's uses. False, with the name in *undefined, when it
  // reads a value nothing before it defines. (A sparse initializer defines
  // its name here, though the index gives it no producer, as ForGraph.)
  bool UseInputs(const onnx::NodeProto& node, std::string_view* undefined);
  // Makes the node its outputs' producer. False, with the name and what
  // already defines it (kUnknown: a sparse initializer), when the graph
  // already defines one.
  bool DefineOutputs(const onnx::NodeProto& node, std::string_view* twice, Producer* first);
  // The same for a node left as bytes: its one input, then its one output.
  bool UseInput(const DeferredNode& node);
  bool DefineOutput(const DeferredNode& node);
  // Whether the graph defined `value` before the current node.
  bool Defined(std::string_view value) const;
  // What the check found of tensors stored as external data, in the whole
  // model (subgraphs and functions too).
  void SetExternalData(bool any) { index_.may_hold_external_data_ = any; }
  // Loads the slots of `node`'s outputs, a few nodes ahead of their turn.
  void Prefetch(const onnx::NodeProto& node) const;
  void Prefetch(const DeferredNode& node) const;
  GraphIndex Finish() &&;

 private:
  bool Sparse(std::string_view value) const { return !sparse_.empty() && sparse_.count(value); }

  void JoinNames() { names_.Join(); }

  // The entry of `value`, made when it is new.
  GraphIndex::Entry& SlotOf(std::string_view value) {
    GraphIndex::Entry* last = last_.Get(value);
    return last ? *last : index_.Slot(value);
  }

  GraphIndex index_;
  GraphIndex::LastOutput last_;
  BackgroundTask names_;  // hashing the main graph's node names, when they go apart
  std::unordered_set<std::string_view> sparse_;  // sparse initializer names; usually none
  std::vector<const onnx::NodeProto*> with_subgraphs_;
};

// Calls f(graph) for every subgraph attribute of `node` (If branches, Loop/Scan bodies).
template <typename F>
void ForEachSubgraph(onnx::NodeProto& node, F&& f) {
  for (auto& attr : *node.mutable_attribute()) {
    if (attr.has_g()) f(*attr.mutable_g());
    for (auto& g : *attr.mutable_graphs()) f(g);
  }
}
template <typename F>
void ForEachSubgraph(const onnx::NodeProto& node, F&& f) {
  for (const auto& attr : node.attribute()) {
    if (attr.has_g()) f(attr.g());
    for (const auto& g : attr.graphs()) f(g);
  }
}

// How many values `g` itself defines: its inputs, initializers and node
// outputs (not its subgraphs'). What a table of the graph's names reserves.
size_t ValuesDefinedIn(const onnx::GraphProto& g);

// Names a subgraph (and the subgraphs in it) reads from the scopes around it,
// in order of use, repeats included.
void CapturedNames(const onnx::GraphProto& g, std::vector<std::string>* out);

}  // namespace remap
