// Dropout: the mask output became bool (10); ratio moved to an input and
// training_mode appeared (12). BatchNormalization: `spatial` was removed (9);
// training_mode replaced the "more outputs means training" rule and the
// saved_mean/saved_var outputs were dropped (14).
#include <fmt/format.h>

#include "convert/adapters/adapters.h"
#include "convert/adapters/attribute_moves.h"
#include "convert/opset_adapter.h"

namespace remap {

namespace {

bool HasOutput(const onnx::NodeProto& node, int index) { return index < node.output_size() && !node.output(index).empty(); }

// Renames output `index` and adds a Cast from the new name to the old one.
void CastOutput(onnx::NodeProto* node, AdapterContext* ctx, int index, int to) {
  const std::string original = node->output(index);
  const std::string fresh = ctx->FreshValue(original + "_converted");
  node->set_output(index, fresh);
  onnx::NodeProto& cast = ctx->After("Cast", (node->name().empty() ? node->op_type() : node->name()) + "_mask_cast");
  cast.add_input(fresh);
  cast.add_output(original);
  SetInt(&cast, "to", to);
}

}  // namespace

Status DropoutMaskUp(onnx::NodeProto* node, AdapterContext* ctx) {
  if (!HasOutput(*node, 1)) return Status::Ok();
  const int type = ctx->ElemType(node->input(0));
  if (type == 0) return Refuse("its mask output was of the data's type, which is not known here");
  CastOutput(node, ctx, 1, type);
  return Status::Ok();
}

Status DropoutMaskDown(onnx::NodeProto* node, AdapterContext* ctx) {
  if (HasOutput(*node, 1)) CastOutput(node, ctx, 1, onnx::TensorProto::BOOL);
  return Status::Ok();
}

Status DropoutRatioUp(onnx::NodeProto* node, AdapterContext* ctx) {
  const onnx::AttributeProto* ratio = FindAttribute(*node, "ratio");
  if (!ratio) return Status::Ok();
  const std::string input = ctx->Scalar(ratio->f(), onnx::TensorProto::FLOAT,
                                        (node->name().empty() ? node->op_type() : node->name()) + "_ratio");
  DropAttribute(node, "ratio");
  SetInput(node, 1, input);
  return Status::Ok();
}

Status DropoutRatioDown(onnx::NodeProto* node, AdapterContext* ctx) {
  // Before 12 the mask of a Dropout in inference mode is not defined (onnxruntime gives all false, not all true).
  if (HasOutput(*node, 1)) return Refuse("its mask output has no defined value in inference mode before opset 12");
  if (node->input_size() > 2 && !node->input(2).empty()) {
    std::vector<int64_t> training;
    if (!ctx->ConstantInts(node->input(2), &training) || training.size() != 1 || training[0] != 0)
      return Refuse("it may run in training mode (training_mode is not a constant false), which the older form cannot express");
    node->set_input(2, "");
  }
  DropAttribute(node, "seed");
  return InputToFloatAttribute(node, ctx, 1, "ratio");
}

Status BatchNormSpatialUp(onnx::NodeProto* node, AdapterContext*) {
  const onnx::AttributeProto* spatial = FindAttribute(*node, "spatial");
  if (spatial && spatial->i() == 0) return Refuse("spatial=0 (statistics per feature and position) has no form from opset 9");
  DropAttribute(node, "spatial");
  return Status::Ok();
}

Status BatchNormTrainingUp(onnx::NodeProto* node, AdapterContext* ctx) {
  const bool training = HasOutput(*node, 1) || HasOutput(*node, 2) || HasOutput(*node, 3) || HasOutput(*node, 4);
  if (!training) {
    node->mutable_output()->DeleteSubrange(1, node->output_size() - 1);
    return Status::Ok();
  }
  (void)ctx;
  if (HasOutput(*node, 3) || HasOutput(*node, 4))
    return Refuse("it outputs saved_mean/saved_var, which BatchNormalization no longer has from opset 14");
  if (node->output_size() > 3) node->mutable_output()->DeleteSubrange(3, node->output_size() - 3);
  SetInt(node, "training_mode", 1);
  return Status::Ok();
}

Status BatchNormTrainingDown(onnx::NodeProto* node, AdapterContext* ctx) {
  const onnx::AttributeProto* mode = FindAttribute(*node, "training_mode");
  const bool training = mode && mode->i() != 0;
  DropAttribute(node, "training_mode");
  if (!training) {
    if (node->output_size() > 1) node->mutable_output()->DeleteSubrange(1, node->output_size() - 1);
    return Status::Ok();
  }
  // Before 14, training mode is spelled by the five outputs: saved_mean and saved_var are added, unused.
  while (node->output_size() < 3) node->add_output("");
  const std::string base = node->name().empty() ? "BatchNormalization" : node->name();
  node->add_output(ctx->FreshValue(base + "_saved_mean"));
  node->add_output(ctx->FreshValue(base + "_saved_var"));
  return Status::Ok();
}

}  // namespace remap
