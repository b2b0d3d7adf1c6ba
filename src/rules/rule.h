// A rule after loading: what it matches, how the node's inputs and attributes
// bind to named arguments, and its alternative replacements.
#pragma once

#include <atomic>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "rules/expression.h"
#include "rules/replacement_template.h"
#include "rules/signature.h"
#include "rules/source_map.h"

namespace remap {

struct NodeMatch {
  std::string aten;     // set: matches ATen fallback / fall-through forms of this operator
  std::string domain;   // else: domain + op_type
  std::string op_type;
  std::optional<std::string> overload;
  std::optional<int> min_inputs, max_inputs;
  std::vector<std::pair<std::string, Value>> attribute_equals;
  SourceLocation location;

  std::string Describe() const;  // "aten::asinh" or "custom::deform_conv2d"
};

// A target name as an alternative lists it, with where, for load-time errors.
struct TargetRef {
  std::string name;
  SourceLocation location;
};

struct Alternative {
  int min_opset = 1;
  int max_opset = 0;  // 0: no upper limit
  Expression when;
  std::string when_text;  // as written
  std::shared_ptr<const StringSource> when_source;
  std::map<std::string, int64_t> imports;
  ReplacementTemplate replacement;
  std::string replace_text;  // as written, for `rules show`
  std::shared_ptr<const StringSource> replace_source;
  std::string doc;
  std::vector<TargetRef> targets;  // empty: for every target
  SourceLocation location;
  // Set when `when` or `replace` failed to compile on demand ("file:line:col:
  // error: ..."): the alternative is refused. Rules compiled at load never
  // get here with an error (loading fails instead).
  std::string compile_error;

  // True when the alternative is for target `name`.
  bool IsFor(const std::string& name) const;
};

// A node that must produce one tensor argument of a rule (see rules.proto).
struct ProducerPattern {
  std::string argument;
  NodeMatch match;
  Signature signature;
  SourceLocation location;
};

struct Rule {
  std::string id;
  std::string doc;
  std::vector<NodeMatch> matches;
  Signature signature;
  std::string signature_text;
  std::vector<Alternative> alternatives;
  std::vector<ProducerPattern> producers;
  // Non-empty: the operator has no standard ONNX form (beyond what the
  // alternatives cover); the text says why and what to do instead.
  std::string no_standard_form;
  // Non-empty for approximations: accuracy and input range.
  std::string approximation;
  // The rule's arguments and its producers' together: what guards and
  // replacements may name. Equal to `signature` without producers.
  Signature scope;
  SourceLocation location;
  bool builtin = false;
  // Loaded with its alternatives' `when` and `replace` uncompiled (ParseRuleFile's
  // `defer`): RuleSet compiles it the first time it hands it out. A run
  // touches a few of hundreds of built-in rules; compiling them all was most
  // of the start-up time.
  bool deferred = false;
  // Compiled, with every fragment it calls: set by RuleSet.
  struct ReadyFlag {
    std::atomic<bool> value{false};
    ReadyFlag() = default;
    ReadyFlag(const ReadyFlag& other) : value(other.value.load()) {}
    ReadyFlag& operator=(const ReadyFlag& other) {
      value = other.value.load();
      return *this;
    }
  };
  mutable ReadyFlag ready;
};

}  // namespace remap
