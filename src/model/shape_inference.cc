#include "model/shape_inference.h"

#include <fmt/format.h>
#include <onnx/defs/schema.h>
#include <onnx/shape_inference/implementation.h>

#include "model/opset_import.h"
#include "model/schema_catalog.h"

namespace remap {

int KnownIrVersion() { return onnx::Version::IR_VERSION; }

int KnownDefaultOpset() {
  const auto& map = onnx::OpSchemaRegistry::DomainToVersionRange::Instance().Map();
  auto it = map.find("");
  return it == map.end() ? 0 : it->second.second;
}

bool WithinKnownRange(const onnx::ModelProto& model) {
  return model.ir_version() <= KnownIrVersion() && DefaultOpset(model.opset_import()) <= KnownDefaultOpset();
}

bool InferShapesInPlace(onnx::ModelProto* model, std::string* note) {
  if (!WithinKnownRange(*model)) {
    *note = fmt::format("shape inference and the ONNX checker were skipped: the model is IR {} / opset {}, "
                        "newer than the linked ONNX library knows (IR {} / opset {})",
                        model->ir_version(), DefaultOpset(model->opset_import()), KnownIrVersion(), KnownDefaultOpset());
    return false;
  }
  try {
    onnx::ShapeInferenceOptions options{/*check_type=*/false, /*error_mode=*/0, /*enable_data_propagation=*/false};
    onnx::shape_inference::InferShapes(*model, &SchemaCatalog::Instance(), options);
  } catch (const std::exception& e) {
    std::string what = e.what();
    *note = fmt::format("shape inference stopped: {}", what.substr(0, what.find('\n')));
    return false;
  }
  return true;
}

}  // namespace remap
