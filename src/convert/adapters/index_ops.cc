// OneHot (11): negative indices now count from the end (before, they gave an
// all-off row). Scatter (11): replaced by ScatterElements, same meaning.
#include <fmt/format.h>

#include "convert/adapters/adapters.h"
#include "convert/opset_adapter.h"

namespace remap {

namespace {

// indices' = Where(indices < 0, replacement(indices, depth), indices), in the indices' type.
Status RemapNegativeIndices(onnx::NodeProto* node, AdapterContext* ctx, bool wrap) {
  const std::string indices = node->input(0), depth = node->input(1);
  const int type = ctx->ElemType(indices);
  if (type == 0) return Refuse(fmt::format("the type of its indices '{}' is not known", indices));
  const std::string base = node->name().empty() ? "OneHot" : node->name();
  const std::string zero = ctx->Scalar(0, type, base + "_zero");
  onnx::NodeProto& less = ctx->Before("Less", base + "_negative");
  less.add_input(indices);
  less.add_input(zero);
  less.add_output(ctx->FreshValue(base + "_negative"));
  onnx::NodeProto& cast = ctx->Before("Cast", base + "_depth");
  cast.add_input(depth);
  cast.add_output(ctx->FreshValue(base + "_depth"));
  SetInt(&cast, "to", type);
  std::string replacement = cast.output(0);  // depth itself is out of range: an all-off row
  const std::string negative = less.output(0), depth_cast = cast.output(0);
  if (wrap) {
    onnx::NodeProto& add = ctx->Before("Add", base + "_wrapped");
    add.add_input(indices);
    add.add_input(depth_cast);
    add.add_output(ctx->FreshValue(base + "_wrapped"));
    replacement = add.output(0);
  }
  onnx::NodeProto& where = ctx->Before("Where", base + "_indices");
  where.add_input(negative);
  where.add_input(replacement);
  where.add_input(indices);
  where.add_output(ctx->FreshValue(base + "_indices"));
  node->set_input(0, where.output(0));
  return Status::Ok();
}

}  // namespace

Status OneHotNegativeUp(onnx::NodeProto* node, AdapterContext* ctx) { return RemapNegativeIndices(node, ctx, /*wrap=*/false); }
Status OneHotNegativeDown(onnx::NodeProto* node, AdapterContext* ctx) { return RemapNegativeIndices(node, ctx, /*wrap=*/true); }

Status ScatterToScatterElements(onnx::NodeProto* node, AdapterContext*) {
  node->set_op_type("ScatterElements");
  return Status::Ok();
}

Status ScatterElementsToScatter(onnx::NodeProto* node, AdapterContext*) {
  if (const onnx::AttributeProto* r = FindAttribute(*node, "reduction"); r && r->s() != "none")
    return Refuse(fmt::format("reduction '{}' does not exist before opset 16", r->s()));
  DropAttribute(node, "reduction");
  node->set_op_type("Scatter");
  return Status::Ok();
}

}  // namespace remap
