#include "rules/target.h"

#include "model/opset_import.h"

namespace remap {

const char kDefaultTargetName[] = "onnx";

bool Target::Runs(const std::string& domain, const std::string& op_type) const {
  const std::string d = IsDefaultDomain(domain) ? std::string() : domain;
  return (!d.empty() && domains.count(d)) || ops.count({d, op_type});
}

}  // namespace remap
