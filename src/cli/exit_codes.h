// Exit codes of the onnx-remap command (documented in docs/cli.md).
#pragma once

#include "core/status.h"

namespace remap::cli {

enum ExitCode {
  kExitOk = 0,             // done; nothing unmapped remains
  kExitUnmappedLeft = 1,   // done; some unmapped nodes remain (listed)
  kExitUsage = 2,          // bad command line
  kExitInputError = 3,     // a model is missing, unreadable or not ONNX
  kExitRuleError = 4,      // a rule file is wrong
  kExitOpsetRefused = 5,   // --opset cannot be honoured
  kExitOutputError = 6,    // the output cannot be written
  kExitInvalidResult = 7,  // the rewritten model fails ONNX validation; nothing written
};

inline ExitCode ExitCodeFor(ErrorCode code) {
  switch (code) {
    case ErrorCode::kOk: return kExitOk;
    case ErrorCode::kInputNotFound:
    case ErrorCode::kInputUnreadable:
    case ErrorCode::kNotOnnx:
    case ErrorCode::kInvalidModel: return kExitInputError;
    case ErrorCode::kRuleSyntax: return kExitRuleError;
    case ErrorCode::kOpsetRefused: return kExitOpsetRefused;
    case ErrorCode::kOutputFailed: return kExitOutputError;
    case ErrorCode::kValidationFailed: return kExitInvalidResult;
    case ErrorCode::kUsage: return kExitUsage;
  }
  return kExitUsage;
}

}  // namespace remap::cli
