#include "rewrite/node_list_editor.h"

#include <algorithm>
#include <memory>

namespace remap {

void NodeListEditor::Replace(int index, std::vector<onnx::NodeProto> nodes) {
  replacements_.emplace_back(index, std::move(nodes));
  FreeNodeContent(nodes_->Mutable(index));
}

void NodeListEditor::Commit(std::vector<const onnx::NodeProto*>* added) {
  if (replacements_.empty()) return;
  // Each node replaced once, by one node (an ATen asinh by Asinh): the
  // replacements take their placeholders' places, and the list is not rebuilt.
  bool in_place = true;
  for (size_t k = 0; k < replacements_.size() && in_place; ++k)
    in_place = replacements_[k].second.size() == 1 && (k == 0 || replacements_[k - 1].first < replacements_[k].first);
  if (in_place) {
    if (added) added->reserve(added->size() + replacements_.size());
    for (auto& [index, nodes] : replacements_) {
      onnx::NodeProto* placed = nodes_->Mutable(index);
      placed->Swap(&nodes.front());
      if (added) added->push_back(placed);
    }
    replacements_.clear();
    return;
  }
  // Callers edit in order; sorting keeps this right for any that do not
  // (stable: of two replacements of one node, the last stays last).
  std::stable_sort(replacements_.begin(), replacements_.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  const int n = nodes_->size();
  std::vector<onnx::NodeProto*> old(static_cast<size_t>(n));
  nodes_->ExtractSubrange(0, n, old.data());  // takes ownership, leaves the field empty
  // The list's and the caller's room at once: on a large graph, growing them
  // node by node copied their arrays again and again.
  size_t placing = 0;
  for (const auto& [index, nodes] : replacements_) placing += nodes.size();
  nodes_->Reserve(static_cast<int>(static_cast<size_t>(n) + placing));
  if (added) added->reserve(added->size() + placing);
  size_t next = 0;  // the next replacement, by index
  for (int k = 0; k < n; ++k) {
    if (next == replacements_.size() || replacements_[next].first != k) {
      nodes_->AddAllocated(old[static_cast<size_t>(k)]);
      continue;
    }
    delete old[static_cast<size_t>(k)];
    // A node replaced twice takes its last replacement.
    while (next + 1 < replacements_.size() && replacements_[next + 1].first == k) ++next;
    for (onnx::NodeProto& node : replacements_[next].second) {
      onnx::NodeProto* placed = nodes_->Add();
      placed->Swap(&node);
      if (added) added->push_back(placed);
    }
    ++next;
  }
  replacements_.clear();
}

}  // namespace remap
