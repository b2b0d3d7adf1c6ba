// The table of adapters: one per default-domain operator change that alters
// what a node means or how it is spelled, each carrying a node across that
// change upward (the form before `since_version` -> the form at it) and,
// where the older form can express it, downward.
#pragma once

#include <string>
#include <vector>

#include <onnx/onnx_pb.h>

#include "convert/adapter_context.h"
#include "core/status.h"

namespace remap {

// Edits `node` in place (and may add nodes through ctx). A Status with
// kOpsetRefused says why this node cannot cross the change.
using AdapterFn = Status (*)(onnx::NodeProto* node, AdapterContext* ctx);

struct OpsetAdapter {
  const char* op_type;
  int since_version;
  AdapterFn up;    // nullptr: nodes cannot be raised across this change
  AdapterFn down;  // nullptr: nodes cannot be lowered across it
  const char* what;  // what crossing it does to a node, for reports
};

// The adapter of a change that needs no edit: the operator's text changed, or
// it gained inputs or attributes whose defaults keep the old meaning.
Status NoEdit(onnx::NodeProto* node, AdapterContext* ctx);
inline AdapterFn IdentityAdapter() { return &NoEdit; }

// The adapter of op_type's change at since_version; nullptr when there is none.
const OpsetAdapter* FindAdapter(const std::string& op_type, int since_version);
const std::vector<OpsetAdapter>& AllAdapters();

// A refusal, for adapters.
inline Status Refuse(std::string why) { return Status(ErrorCode::kOpsetRefused, std::move(why)); }

}  // namespace remap
