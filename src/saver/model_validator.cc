#include "saver/model_validator.h"

#include <fmt/format.h>
#include <onnx/checker.h>

#include "model/shape_inference.h"

namespace remap {

Status InferAndCheck(onnx::ModelProto* model, bool unmapped_remain, std::vector<std::string>* notes) {
  std::string note;
  if (!InferShapesInPlace(model, &note)) {
    notes->push_back(note);
    if (!WithinKnownRange(*model)) return Status::Ok();
  }
  if (unmapped_remain) {
    // The checker would only report the nodes we already list (and print about them).
    notes->push_back("the ONNX checker was skipped: unmapped nodes remain");
    return Status::Ok();
  }
  try {
    onnx::checker::check_model(*model);
  } catch (const std::exception& e) {
    std::string what = e.what();
    return Status(ErrorCode::kValidationFailed,
                  fmt::format("the rewritten model fails the ONNX checker: {}", what.substr(0, what.find('\n'))));
  }
  return Status::Ok();
}

}  // namespace remap
