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
  // with the one that applied). Does nothing when it cannot be replayed.
  void Store(Key key, const onnx::NodeProto& node, const Alternative& alternative,
             const std::vector<onnx::NodeProto>& nodes, const EmitRecord& record,
             TypeOracle::ReplacementTyping typing, std::vector<CandidateOutcome> outcomes);

  // The replacement of `entry` for `node`: fresh names taken from `index`
  // in the order the first instantiation took them, types set in `oracle`.
  void Replay(const Entry& entry, const onnx::NodeProto& node, const Rule& rule, GraphIndex* index,
              TypeOracle* oracle, std::vector<onnx::NodeProto>* out) const;

  size_t size() const { return entries_.size(); }

 private:
  size_t max_entries_;
  std::unordered_map<std::string, Entry> entries_;
};

}  // namespace remap
