// DFT (20): `axis` moved to an input, and its default changed from 1 to -2.
// GroupNormalization (21): scale and bias are per channel (C) instead of per
// group (G).
#include <fmt/format.h>

#include "convert/adapters/adapters.h"
#include "convert/adapters/attribute_moves.h"
#include "convert/opset_adapter.h"

namespace remap {

Status DftAxisUp(onnx::NodeProto* node, AdapterContext* ctx) {
  const onnx::AttributeProto* a = FindAttribute(*node, "axis");
  const int64_t axis = a ? a->i() : 1;  // spelled out: the default differs from opset 20
  DropAttribute(node, "axis");
  SetInput(node, 2, ctx->Int64Scalar(axis, (node->name().empty() ? node->op_type() : node->name()) + "_axis"));
  return Status::Ok();
}

Status DftAxisDown(onnx::NodeProto* node, AdapterContext* ctx) {
  if (node->input_size() > 2 && !node->input(2).empty()) return InputToIntsAttribute(node, ctx, 2, "axis", /*scalar=*/true);
  SetInt(node, "axis", -2);
  return Status::Ok();
}

namespace {

// Per-group values `g` (G) repeated for each channel of its group: (C).
std::string PerChannel(onnx::NodeProto* node, AdapterContext* ctx, const std::string& g, int64_t groups, const char* what) {
  const std::string base = fmt::format("{}_{}", node->name().empty() ? node->op_type() : node->name(), what);
  onnx::NodeProto& channels = ctx->Before("Shape", base + "_channels");
  channels.add_input(node->input(0));
  channels.add_output(ctx->FreshValue(base + "_channels"));
  SetInt(&channels, "start", 1);
  SetInt(&channels, "end", 2);
  const std::string group_count = ctx->Int64s({groups}, base + "_groups");
  onnx::NodeProto& per_group = ctx->Before("Div", base + "_per_group");
  per_group.add_input(channels.output(0));
  per_group.add_input(group_count);
  per_group.add_output(ctx->FreshValue(base + "_per_group"));
  onnx::NodeProto& grid = ctx->Before("Concat", base + "_grid");
  grid.add_input(group_count);
  grid.add_input(per_group.output(0));
  grid.add_output(ctx->FreshValue(base + "_grid"));
  SetInt(&grid, "axis", 0);
  const std::string column = ctx->Int64s({groups, 1}, base + "_column");
  onnx::NodeProto& as_column = ctx->Before("Reshape", base + "_as_column");
  as_column.add_input(g);
  as_column.add_input(column);
  as_column.add_output(ctx->FreshValue(base + "_as_column"));
  onnx::NodeProto& expand = ctx->Before("Expand", base + "_expand");
  expand.add_input(as_column.output(0));
  expand.add_input(grid.output(0));
  expand.add_output(ctx->FreshValue(base + "_expanded"));
  const std::string flat = ctx->Int64s({-1}, base + "_flat");
  onnx::NodeProto& reshape = ctx->Before("Reshape", base + "_per_channel");
  reshape.add_input(expand.output(0));
  reshape.add_input(flat);
  reshape.add_output(ctx->FreshValue(base + "_per_channel"));
  return reshape.output(0);
}

}  // namespace

Status GroupNormPerChannelUp(onnx::NodeProto* node, AdapterContext* ctx) {
  const onnx::AttributeProto* groups = FindAttribute(*node, "num_groups");
  if (!groups) return Refuse("it has no num_groups");
  const std::string scale = PerChannel(node, ctx, node->input(1), groups->i(), "scale");
  const std::string bias = PerChannel(node, ctx, node->input(2), groups->i(), "bias");
  node->set_input(1, scale);
  node->set_input(2, bias);
  return Status::Ok();
}

Status GroupNormPerChannelDown(onnx::NodeProto* node, AdapterContext* ctx) {
  const onnx::AttributeProto* groups = FindAttribute(*node, "num_groups");
  if (!groups || groups->i() <= 0) return Refuse("it has no num_groups");
  const int64_t g = groups->i();
  for (int k = 1; k <= 2; ++k) {
    std::vector<double> values;
    if (!ctx->ConstantFloats(node->input(k), &values))
      return Refuse("its scale/bias are computed at run time; the older form takes one value per group");
    if (values.empty() || values.size() % static_cast<size_t>(g) != 0) return Refuse("scale/bias size is not a multiple of num_groups");
    const size_t per = values.size() / static_cast<size_t>(g);
    onnx::TensorProto t;
    t.set_data_type(ctx->ElemType(node->input(k)) ? ctx->ElemType(node->input(k)) : onnx::TensorProto::FLOAT);
    if (t.data_type() != onnx::TensorProto::FLOAT && t.data_type() != onnx::TensorProto::DOUBLE)
      return Refuse("scale/bias of a type other than float or double");
    t.add_dims(g);
    for (int64_t gi = 0; gi < g; ++gi) {
      const double first = values[static_cast<size_t>(gi) * per];
      for (size_t c = 0; c < per; ++c)
        if (values[static_cast<size_t>(gi) * per + c] != first)
          return Refuse("its scale/bias differ between channels of one group; the older form takes one value per group");
      if (t.data_type() == onnx::TensorProto::FLOAT) t.add_float_data(static_cast<float>(first));
      else t.add_double_data(first);
    }
    node->set_input(k, ctx->Constant(std::move(t), fmt::format("{}_{}", node->name().empty() ? "GroupNormalization" : node->name(),
                                                                k == 1 ? "scale" : "bias")));
  }
  return Status::Ok();
}

}  // namespace remap
