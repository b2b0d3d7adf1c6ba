// Softmax, LogSoftmax and Hardmax (13): before, the input was coerced to 2-D
// at `axis` (default 1) and the op ran over everything after it; from 13 the
// op runs along `axis` alone (default -1).
#include <numeric>

#include <fmt/format.h>

#include "convert/adapters/adapters.h"
#include "convert/opset_adapter.h"

namespace remap {

namespace {

std::string Hint(const onnx::NodeProto& node, const char* what) {
  return fmt::format("{}_{}", node.name().empty() ? node.op_type() : node.name(), what);
}

int64_t IntAttribute(const onnx::NodeProto& node, const char* name, int64_t fallback) {
  const onnx::AttributeProto* a = FindAttribute(node, name);
  return a ? a->i() : fallback;
}

}  // namespace

Status SoftmaxAxisUp(onnx::NodeProto* node, AdapterContext* ctx) {
  int64_t axis = IntAttribute(*node, "axis", 1);
  const int rank = ctx->Rank(node->input(0));
  if (rank >= 0 && axis < 0) axis += rank;
  if (rank >= 0 && axis == rank - 1) {  // the 2-D view's rows are the last axis: the same op
    SetInt(node, "axis", -1);
    return Status::Ok();
  }
  // Flatten to the 2-D view the old op worked on, run along its columns, restore the shape.
  const std::string x = node->input(0);
  onnx::NodeProto& flatten = ctx->Before("Flatten", Hint(*node, "flatten"));
  flatten.add_input(x);
  flatten.add_output(ctx->FreshValue(Hint(*node, "2d")));
  SetInt(&flatten, "axis", axis);
  onnx::NodeProto& shape = ctx->Before("Shape", Hint(*node, "shape"));
  shape.add_input(x);
  shape.add_output(ctx->FreshValue(Hint(*node, "shape")));
  const std::string flat = flatten.output(0), dims = shape.output(0);
  const std::string y = node->output(0);
  const std::string y2d = ctx->FreshValue(y + "_2d");
  node->set_input(0, flat);
  node->set_output(0, y2d);
  SetInt(node, "axis", 1);
  onnx::NodeProto& reshape = ctx->After("Reshape", Hint(*node, "restore"));
  reshape.add_input(y2d);
  reshape.add_input(dims);
  reshape.add_output(y);
  return Status::Ok();
}

Status SoftmaxAxisDown(onnx::NodeProto* node, AdapterContext* ctx) {
  int64_t axis = IntAttribute(*node, "axis", -1);
  const int rank = ctx->Rank(node->input(0));
  if (rank < 0) {
    // axis -1 runs over the last axis in both forms (negative axes exist from opset 11).
    if (axis == -1) {
      SetInt(node, "axis", -1);
      return Status::Ok();
    }
    return Refuse("the input's rank is not known, and the older form needs it to run along one axis");
  }
  if (axis < 0) axis += rank;
  if (axis == rank - 1) {
    SetInt(node, "axis", axis);
    return Status::Ok();
  }
  // Move the axis last, run there, move it back.
  std::vector<int64_t> perm(static_cast<size_t>(rank));
  std::iota(perm.begin(), perm.end(), 0);
  perm.erase(perm.begin() + axis);
  perm.push_back(axis);
  std::vector<int64_t> inverse(perm.size());
  for (size_t k = 0; k < perm.size(); ++k) inverse[static_cast<size_t>(perm[k])] = static_cast<int64_t>(k);
  onnx::NodeProto& to_last = ctx->Before("Transpose", Hint(*node, "to_last"));
  to_last.add_input(node->input(0));
  to_last.add_output(ctx->FreshValue(Hint(*node, "moved")));
  SetInts(&to_last, "perm", perm);
  const std::string y = node->output(0);
  const std::string moved_out = ctx->FreshValue(y + "_moved");
  node->set_input(0, to_last.output(0));
  node->set_output(0, moved_out);
  SetInt(node, "axis", rank - 1);
  onnx::NodeProto& back = ctx->After("Transpose", Hint(*node, "back"));
  back.add_input(moved_out);
  back.add_output(y);
  SetInts(&back, "perm", inverse);
  return Status::Ok();
}

}  // namespace remap
