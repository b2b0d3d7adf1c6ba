// The rule file `onnx-remap rules new` writes: a rule for one operator that
// loads as it is, with what to fill in marked TODO. It has the match for the
// node's form, the signature (from the schema table, else derived from the
// node), the node's inputs, attributes and the model's opsets as comments, a
// `no_standard_form` placeholder that keeps the file valid (and the node
// unmapped, saying TODO) until the alternative is written, and that
// alternative, commented out, to fill in.
#pragma once

#include <string>

#include <onnx/onnx_pb.h>

#include "cli/node_lookup.h"
#include "core/status.h"

namespace remap::cli {

// From the schema table alone: `spec` is "aten::foo" or "foo". Fails (kUsage)
// when the table does not have the operator.
Expected<std::string> RuleForOperator(const std::string& spec);

// For `found`, a node of `model` (read from `model_path`, named in the comments).
Expected<std::string> RuleForNode(const std::string& model_path, const onnx::ModelProto& model, const FoundNode& found);

}  // namespace remap::cli
