// Replacements remembered by what they were made from. A model rewrites
// many nodes alike: the same rule, the same constant arguments, inputs of
// the same types (every layer of a transformer, every ATen fallback of one
// kind). The first such node is matched and instantiated in full: guards
// evaluated, template expressions computed, the replacement typed by ONNX's
// inference. The next ones get a copy of that replacement with their own
// names, and the types and outcome records it had, as if made afresh.
//
// A key holds everything the matcher's work after binding reads: the rule;
// each argument's value (for a tensor: which node input it is, its element
// type, rank, static dims and its whole type as the oracle knows it);
// which inputs of the node are the same value, which are empty, and which
// come from constants (ONNX's inference may read their data). Whatever a
// replay cannot redo is never stored: replacements with subgraphs or
// fragment calls, rules with producer patterns, nodes with a tensor that is
// not one of their inputs, and matches where an alternative failed to emit
// or type before the one that applied (those leave fresh names taken).
//
// A node key (NodeKeyOf) finds an entry before any rule is bound: it holds
// the node as a match reads it (operator, attributes, Constant inputs' values,
// other inputs' types), so a node alike in all of it skips binding, keying and
// the rules' checks. It is remembered only for matches whose first candidate
// rule applied; others are found by their bound key as before.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include <onnx/onnx_pb.h>

#include "match/argument_binding.h"
#include "match/emit_record.h"
#include "match/node_form.h"
#include "match/refusal.h"
#include "model/graph_index.h"
#include "model/type_oracle.h"
#include "rules/rule.h"

namespace remap {

class ReplacementMemo {
 public:
  // Where a name of the replacement comes from.
  struct NameRef {
    enum class Kind : uint8_t { kEmpty, kFresh, kInput, kOutput };
    Kind kind = Kind::kEmpty;
    uint32_t index = 0;  // of the fresh request, the node's input or output
  };
  // What a replacement was: enough to make it again for another node.
  struct Entry {
    const Alternative* alternative = nullptr;
    std::vector<FreshNameRequest> fresh;  // suffixes and kinds; the names are the first node's
    std::vector<onnx::NodeProto> nodes;   // as made for the first node
    std::vector<NameRef> names;           // per node: its name, its inputs, its outputs
    TypeOracle::ReplacementTyping typing;
    std::vector<CandidateOutcome> outcomes;
  };

  // `max_entries`: past this many, a model whose nodes are all different
  // stops paying for entries it will not hit again.
  explicit ReplacementMemo(size_t max_entries) : max_entries_(max_entries) {}
  ReplacementMemo(const ReplacementMemo&) = delete;
  ReplacementMemo& operator=(const ReplacementMemo&) = delete;

  struct Key {
    std::string bytes;
    // Bit j: the node's input j is a tensor argument, its type in the key.
    uint64_t typed_inputs = 0;
    // Bit j: the node's input j comes from a constant or an initializer.
    uint64_t constant_inputs = 0;
  };
  // The key of `rule` with `binding` on `node`, or nullopt when this match
  // cannot be replayed.
  static std::optional<Key> KeyOf(const onnx::NodeProto& node, const Rule& rule, const Binding& binding,
                                  const GraphIndex& index, TypeOracle* oracle);

  const Entry* Find(const Key& key) const;

  // Remembers the replacement `nodes` made for `node` (its fresh names in
  // `record`, its typing, and `outcomes`, the rule's candidate records ending
  // with the one that applied). Returns the entry, or null when it cannot be
  // replayed (nothing is stored then).
  const Entry* Store(Key key, const onnx::NodeProto& node, const Alternative& alternative,
                     const std::vector<onnx::NodeProto>& nodes, const EmitRecord& record,
                     TypeOracle::ReplacementTyping typing, std::vector<CandidateOutcome> outcomes);

  // A node's own key, taken before any rule is bound: its form, operator and
  // attributes, which of its inputs and outputs are one value, which outputs
  // are in use, each Constant input's value, and each other input's type
  // (typed here, as binding types a tensor argument). Whatever a match reads
  // of the node is in it, so two nodes of one node key match alike under
  // every rule: the first's entry serves the second without binding, keying
  // or matching it. nullopt for a node with an input a node key does not
  // hold (an initializer's or a list node's output: binding reads more of
  // them), and once node keys have stopped paying (most looked up in vain).
  struct NodeKey {
    std::string bytes;
    uint64_t other_inputs = 0;  // bit j: input j is typed in the key (not a constant, not empty)
  };
  std::optional<NodeKey> NodeKeyOf(const onnx::NodeProto& node, const NodeForm& form, const GraphIndex& index,
                                   TypeOracle* oracle) const;
  struct NodeEntry {
    const Entry* entry = nullptr;
    const Rule* rule = nullptr;
  };
  const NodeEntry* FindNode(const NodeKey& key);
  // Remembers that a node of `key` is replaced by `entry` of `rule`. Only for
  // a match whose first candidate rule applied (no refusal names anything of
  // the node), whose binding holds no value read from elsewhere, and whose
  // key typed every input the node key types (`typed_inputs`: Key's bits).
  void StoreNode(NodeKey key, const Entry* entry, const Rule& rule, uint64_t typed_inputs);

  // The replacement of `entry` for `node`: fresh names taken from `index`
  // in the order the first instantiation took them, types set in `oracle`.
  void Replay(const Entry& entry, const onnx::NodeProto& node, const Rule& rule, GraphIndex* index,
              TypeOracle* oracle, std::vector<onnx::NodeProto>* out) const;

  size_t size() const { return entries_.size(); }
  // Replays found by node keys.
  size_t node_hits() const { return node_hits_; }

 private:
  size_t max_entries_;
  std::unordered_map<std::string, Entry> entries_;  // entries never move: node entries point at them
  std::unordered_map<std::string, NodeEntry> node_entries_;
  size_t node_lookups_ = 0;
  size_t node_hits_ = 0;
};

}  // namespace remap
