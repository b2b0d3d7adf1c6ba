#include "opset/opset_raise.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "model/graph_index.h"
#include "model/opset_import.h"
#include "opset/opset_changes.h"

namespace remap {

namespace {

void CollectChanges(const google::protobuf::RepeatedPtrField<onnx::NodeProto>& nodes, int from, int to,
                    std::vector<std::string>* out) {
  for (const auto& node : nodes) {
    if (IsDefaultDomain(node.domain())) {
      for (const OpsetChange* c : ChangesBetween(node.op_type(), from, to)) {
        if (c->kind == ChangeKind::kSemantic) {
          out->push_back(fmt::format("'{}' ({} changes at opset {}: {})", node.name(), node.op_type(), c->since_version, c->note));
          break;
        }
      }
    }
    ForEachSubgraph(node, [&](const onnx::GraphProto& g) { CollectChanges(g.node(), from, to, out); });
  }
}

}  // namespace

int MinIrVersionForOpset(int opset) {
  if (opset >= 23) return 11;
  if (opset >= 21) return 10;
  if (opset >= 19) return 9;
  if (opset >= 15) return 8;
  if (opset >= 12) return 7;
  if (opset >= 11) return 6;
  if (opset >= 10) return 5;
  if (opset >= 9) return 4;
  return 3;
}

Status CheckDefaultOpsetRaise(const onnx::ModelProto& model, int from, int to) {
  if (to > NewestTabledOpset())
    return Status(ErrorCode::kOpsetRefused,
                  fmt::format("opset {} is newer than the newest opset onnx-remap knows the changes of ({})", to, NewestTabledOpset()));
  std::vector<std::string> changed;
  CollectChanges(model.graph().node(), from, to, &changed);
  for (const auto& f : model.functions()) {
    int f_from = DefaultOpset(f.opset_import());
    CollectChanges(f.node(), f_from ? f_from : from, to, &changed);
  }
  if (changed.empty()) return Status::Ok();
  const size_t shown = std::min<size_t>(changed.size(), 5);
  std::string list = fmt::format("{}", fmt::join(changed.begin(), changed.begin() + static_cast<long>(shown), "; "));
  if (changed.size() > shown) list += fmt::format("; and {} more", changed.size() - shown);
  return Status(ErrorCode::kOpsetRefused,
                fmt::format("cannot raise the opset from {} to {}: {} node{} would change meaning: {}", from, to,
                            changed.size(), changed.size() == 1 ? "" : "s", list));
}

void RaiseDefaultOpset(onnx::ModelProto* model, int to) {
  auto raise = [to](google::protobuf::RepeatedPtrField<onnx::OperatorSetIdProto>* imports) {
    for (auto& op : *imports) {
      if (IsDefaultDomain(op.domain())) {
        op.set_version(to);
        return;
      }
    }
    auto* op = imports->Add();
    op->set_domain("");
    op->set_version(to);
  };
  raise(model->mutable_opset_import());
  for (auto& f : *model->mutable_functions()) {
    if (DefaultOpset(f.opset_import()) != 0) raise(f.mutable_opset_import());
  }
  if (model->ir_version() < MinIrVersionForOpset(to)) model->set_ir_version(MinIrVersionForOpset(to));
}

}  // namespace remap
