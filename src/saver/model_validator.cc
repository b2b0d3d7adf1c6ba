#include "saver/model_validator.h"

#include <fmt/format.h>
#include <onnx/checker.h>
#include <onnx/defs/schema.h>
#include <onnx/shape_inference/implementation.h>

#include "saver/opset_raise.h"

namespace remap {

int KnownIrVersion() { return onnx::Version::IR_VERSION; }

int KnownDefaultOpset() {
  const auto& map = onnx::OpSchemaRegistry::DomainToVersionRange::Instance().Map();
  auto it = map.find("");
  return it == map.end() ? 0 : it->second.second;
}

namespace {

std::string FirstLine(const std::string& s) {
  size_t nl = s.find('\n');
  return nl == std::string::npos ? s : s.substr(0, nl);
}

}  // namespace

Status InferAndCheck(onnx::ModelProto* model, bool unmapped_remain, std::vector<std::string>* notes) {
  const int opset = DefaultOpset(model->opset_import());
  const int ir = static_cast<int>(model->ir_version());
  if (ir > KnownIrVersion() || opset > KnownDefaultOpset()) {
    notes->push_back(fmt::format("shape inference and the ONNX checker were skipped: the model is IR {} / opset {}, "
                                 "newer than the linked ONNX library knows (IR {} / opset {})",
                                 ir, opset, KnownIrVersion(), KnownDefaultOpset()));
    return Status::Ok();
  }
  try {
    onnx::ShapeInferenceOptions options{/*check_type=*/false, /*error_mode=*/0, /*enable_data_propagation=*/false};
    onnx::shape_inference::InferShapes(*model, onnx::OpSchemaRegistry::Instance(), options);
  } catch (const std::exception& e) {
    notes->push_back(fmt::format("shape inference stopped: {}", FirstLine(e.what())));
  }
  if (unmapped_remain) {
    // The checker would only report the nodes we already list (and print about them).
    notes->push_back("the ONNX checker was skipped: unmapped nodes remain");
    return Status::Ok();
  }
  try {
    onnx::checker::check_model(*model);
  } catch (const std::exception& e) {
    return Status(ErrorCode::kValidationFailed, fmt::format("the rewritten model fails the ONNX checker: {}", FirstLine(e.what())));
  }
  return Status::Ok();
}

}  // namespace remap
