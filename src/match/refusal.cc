#include "match/refusal.h"

namespace remap {

const char* RefusalName(Refusal r) {
  switch (r) {
    case Refusal::kNone: return "none";
    case Refusal::kNoRule: return "no-rule";
    case Refusal::kMatch: return "match";
    case Refusal::kBinding: return "binding";
    case Refusal::kGuard: return "guard";
    case Refusal::kGuardError: return "guard-error";
    case Refusal::kOpset: return "opset";
    case Refusal::kTarget: return "target";
    case Refusal::kEmit: return "emit";
    case Refusal::kType: return "type";
    case Refusal::kNoStandardForm: return "no-standard-form";
  }
  return "unknown";
}

}  // namespace remap
