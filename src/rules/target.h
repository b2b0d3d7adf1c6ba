// A runtime target: the domains and single ops a runtime runs besides the
// default ONNX domain. Targets are data (rules/targets/*.textproto, or --rules
// files), so what counts as "standard" is not hard-coded in the engine.
#pragma once

#include <set>
#include <string>
#include <utility>

#include "rules/source_map.h"

namespace remap {

struct Target {
  std::string name;  // "onnxruntime"
  std::string doc;
  std::set<std::string> domains;                          // every op of these; "" never listed (always run)
  std::set<std::pair<std::string, std::string>> ops;      // (domain, op_type); "" = default domain
  SourceLocation location;
  bool builtin = false;

  // True when the runtime runs `op_type` of `domain` by this target's lists.
  // Default-domain ops ONNX itself defines are not listed: callers check them.
  bool Runs(const std::string& domain, const std::string& op_type) const;
};

// The name the default `--target` has.
extern const char kDefaultTargetName[];  // "onnx"

}  // namespace remap
