#include "opset/opset_raise.h"

#include "model/opset_import.h"

namespace remap {

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

void SetDefaultOpset(onnx::ModelProto* model, int to) {
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
