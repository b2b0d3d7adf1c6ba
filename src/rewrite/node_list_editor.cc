#include "rewrite/node_list_editor.h"

#include <memory>

namespace remap {

void NodeListEditor::Replace(int index, std::vector<onnx::NodeProto> nodes) {
  replacements_[static_cast<size_t>(index)] = std::move(nodes);
  replaced_[static_cast<size_t>(index)] = true;
  ++edits_;
}

void NodeListEditor::Commit(std::vector<const onnx::NodeProto*>* added) {
  if (edits_ == 0) return;
  const int n = nodes_->size();
  std::vector<onnx::NodeProto*> old(static_cast<size_t>(n));
  nodes_->ExtractSubrange(0, n, old.data());  // takes ownership, leaves the field empty
  for (int k = 0; k < n; ++k) {
    if (!replaced_[static_cast<size_t>(k)]) {
      nodes_->AddAllocated(old[static_cast<size_t>(k)]);
      continue;
    }
    delete old[static_cast<size_t>(k)];
    for (onnx::NodeProto& node : replacements_[static_cast<size_t>(k)]) {
      onnx::NodeProto* placed = nodes_->Add();
      placed->Swap(&node);
      if (added) added->push_back(placed);
    }
  }
  replacements_.clear();
  replaced_.clear();
  edits_ = 0;
}

}  // namespace remap
