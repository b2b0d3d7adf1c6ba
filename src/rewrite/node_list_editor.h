// Staged edits of one node list, committed in a single O(n) pass that keeps
// order: every replacement takes its root's place (so topological order holds)
// and removed nodes disappear, without erasing protobuf elements one by one.
#pragma once

#include <unordered_set>
#include <vector>

#include <google/protobuf/repeated_field.h>
#include <onnx/onnx_pb.h>

namespace remap {

class NodeListEditor {
 public:
  explicit NodeListEditor(google::protobuf::RepeatedPtrField<onnx::NodeProto>* nodes)
      : nodes_(nodes), replacements_(static_cast<size_t>(nodes->size())), replaced_(static_cast<size_t>(nodes->size()), false) {}

  void Replace(int index, std::vector<onnx::NodeProto> nodes);
  bool empty() const { return edits_ == 0; }
  // `added`, when given, receives the replacement nodes where they now are.
  void Commit(std::vector<const onnx::NodeProto*>* added = nullptr);

 private:
  google::protobuf::RepeatedPtrField<onnx::NodeProto>* nodes_;
  std::vector<std::vector<onnx::NodeProto>> replacements_;
  std::vector<bool> replaced_;
  int edits_ = 0;
};

// Drops the elements whose address is in `remove`, keeping the others' order.
template <typename T>
void RemoveElements(google::protobuf::RepeatedPtrField<T>* field, const std::unordered_set<const T*>& remove) {
  int write = 0;
  for (int read = 0; read < field->size(); ++read) {
    if (remove.count(&field->Get(read))) continue;
    if (write != read) field->SwapElements(write, read);
    ++write;
  }
  field->DeleteSubrange(write, field->size() - write);
}

}  // namespace remap
