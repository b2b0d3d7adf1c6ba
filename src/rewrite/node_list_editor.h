// Staged edits of one node list, committed in a single O(n) pass that keeps
// order: every replacement takes its root's place (so topological order holds)
// and removed nodes disappear, without erasing protobuf elements one by one.
#pragma once

#include <unordered_set>
#include <utility>
#include <vector>

#include <google/protobuf/repeated_field.h>
#include <onnx/onnx_pb.h>

namespace remap {

class NodeListEditor {
 public:
  explicit NodeListEditor(google::protobuf::RepeatedPtrField<onnx::NodeProto>* nodes) : nodes_(nodes) {}

  // Replaces node `index` by `nodes` (a later call for the same index wins).
  // The replaced node is emptied at once, not at Commit: until then it stays
  // in the list as an empty placeholder. A rewrite of a million-node graph
  // would otherwise hold every replaced node and its replacement together.
  void Replace(int index, std::vector<onnx::NodeProto> nodes);
  bool empty() const { return replacements_.empty(); }
  // `added`, when given, receives the replacement nodes where they now are.
  void Commit(std::vector<const onnx::NodeProto*>* added = nullptr);

 private:
  google::protobuf::RepeatedPtrField<onnx::NodeProto>* nodes_;
  // Only the edited nodes: a list with few edits costs nothing per node.
  std::vector<std::pair<int, std::vector<onnx::NodeProto>>> replacements_;
};

// Drops the elements for which `remove(element)` is true, keeping the others' order.
template <typename T, typename Predicate>
void RemoveElementsIf(google::protobuf::RepeatedPtrField<T>* field, Predicate remove) {
  int write = 0;
  for (int read = 0; read < field->size(); ++read) {
    if (remove(field->Get(read))) continue;
    if (write != read) field->SwapElements(write, read);
    ++write;
  }
  field->DeleteSubrange(write, field->size() - write);
}

// Drops the elements whose address is in `remove`, keeping the others' order.
template <typename T>
void RemoveElements(google::protobuf::RepeatedPtrField<T>* field, const std::unordered_set<const T*>& remove) {
  if (remove.empty()) return;
  RemoveElementsIf(field, [&remove](const T& element) { return remove.count(&element) > 0; });
}

// Empties `node` and frees what it held (a node that dies in a rewrite).
inline void FreeNodeContent(onnx::NodeProto* node) { onnx::NodeProto().Swap(node); }

}  // namespace remap
