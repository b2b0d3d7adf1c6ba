// Exit codes of onnx-remap (documented in docs/cli.md), in one place: the
// CLI returns them and reports carry them, per model and for a whole run.
#pragma once

#include "core/status.h"
#include "pipeline/pipeline.h"

namespace remap {

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

// The exit code one model's result gives alone.
ExitCode ExitCodeFor(const ModelResult& r);

// The worse of two exit codes (the higher number: failures outrank unmapped
// nodes, which outrank success).
inline int WorseExitCode(int a, int b) { return a > b ? a : b; }

// Stable names of error codes for reports: "input-not-found", ...
const char* ErrorCodeName(ErrorCode code);

}  // namespace remap
