// A fragment: a named, parameterised piece of replacement written once and
// called from the replacements of several rules as if it were an operator:
//   fragment { name: "ErfPoly" signature: "ErfPoly(Tensor x, int terms=6) -> Tensor" replace: "..." }
//   ... y = ErfPoly<terms = ${n}>(t) ...
// Calls are expanded inline when a rule is applied (see docs/design.md).
#pragma once

#include <memory>
#include <string>

#include "rules/replacement_template.h"
#include "rules/signature.h"
#include "rules/source_map.h"

namespace remap {

struct Fragment {
  std::string name;
  std::string doc;
  Signature signature;
  std::string signature_text;
  ReplacementTemplate replacement;
  std::string replace_text;
  std::shared_ptr<const StringSource> replace_source;
  SourceLocation location;
  bool builtin = false;
  bool deferred = false;       // `replace` not compiled yet (see Rule::deferred)
  std::string compile_error;   // set when compiling it on demand failed
};

}  // namespace remap
