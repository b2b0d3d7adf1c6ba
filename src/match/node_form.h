// Recognises the three shapes PyTorch gives an operator it could not map:
// ATen fallback (op_type "ATen" + attribute operator), fall-through
// (org.pytorch.aten::NAME) and custom namespaces (custom::deform_conv2d).
#pragma once

#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include <onnx/onnx_pb.h>

#include "model/name_hash.h"

#include "rules/target.h"

namespace remap {

extern const char kAtenDomain[];  // "org.pytorch.aten"

struct NodeForm {
  enum class Kind {
    kStandard,      // runs as is: default-domain ONNX, what the target runs, a domain user rules emit
    kAtenFallback,  // ATen<operator=...>
    kAtenOpType,    // org.pytorch.aten::NAME (fall-through, or a symbolic that gave up)
    kCustom,        // any other non-standard domain, or an op ONNX does not define
  };
  Kind kind = Kind::kStandard;
  std::string aten_operator;  // kAtenFallback / kAtenOpType
  std::string overload;       // kAtenFallback: overload_name (unreliable; informative)

  bool unmapped() const { return kind != Kind::kStandard; }
  const char* KindName() const;
  // Index key for RuleSet::Candidates.
  std::string MatchKey(const onnx::NodeProto& node) const;
};

// What besides default-domain ONNX counts as standard in one model.
struct ClassifyContext {
  const Target* target = nullptr;                   // the runtime's domains and ops (null: none besides ONNX)
  std::vector<std::string> emitted_domains;         // RuleSet::DomainsEmittedForEveryTarget()
  std::unordered_set<std::string> local_functions;  // MatchKeyOp(domain, name) of model-local functions
  // Default-domain op types already looked up in the schema registry.
  mutable std::unordered_map<std::string, bool, NameHasher> known_onnx_ops;
};

NodeForm ClassifyNode(const onnx::NodeProto& node, const ClassifyContext& context);

// "org.pytorch.aten::ATen" / "Asinh" / "custom::deform_conv2d"
std::string OpName(const onnx::NodeProto& node);

}  // namespace remap
