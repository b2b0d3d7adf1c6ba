#include "report/exit_codes.h"

namespace remap {

ExitCode ExitCodeFor(const ModelResult& r) {
  switch (r.outcome) {
    case ModelOutcome::kClean:
    case ModelOutcome::kSkipped: return kExitOk;
    case ModelOutcome::kUnmappedLeft: return kExitUnmappedLeft;
    case ModelOutcome::kFailed: return ExitCodeFor(r.status.code());
  }
  return kExitUsage;
}

const char* ErrorCodeName(ErrorCode code) {
  switch (code) {
    case ErrorCode::kOk: return "ok";
    case ErrorCode::kInputNotFound: return "input-not-found";
    case ErrorCode::kInputUnreadable: return "input-unreadable";
    case ErrorCode::kNotOnnx: return "not-onnx";
    case ErrorCode::kInvalidModel: return "invalid-model";
    case ErrorCode::kRuleSyntax: return "rule-error";
    case ErrorCode::kOpsetRefused: return "opset-refused";
    case ErrorCode::kOutputFailed: return "output-failed";
    case ErrorCode::kValidationFailed: return "validation-failed";
    case ErrorCode::kUsage: return "usage";
  }
  return "unknown";
}

}  // namespace remap
