#include "rules/rule_parser.h"

#include <cctype>
#include <cstdint>
#include <functional>
#include <memory>
#include <set>

#include <fmt/format.h>
#include <google/protobuf/io/tokenizer.h>
#include <google/protobuf/text_format.h>
#include <onnx/defs/schema.h>

#include "model/opset_import.h"
#include "model/schema_lookup.h"
#include "model/shape_inference.h"
#include "proto/precompiled_rules.pb.h"
#include "proto/rules.pb.h"
#include "rules/field_positions.h"
#include "rules/target_compiler.h"

namespace remap {

namespace {

namespace pb = google::protobuf;

class CollectErrors : public pb::io::ErrorCollector {
 public:
  CollectErrors(const std::string& file, std::vector<std::string>* out) : file_(file), out_(out) {}
  void AddError(int line, pb::io::ColumnNumber column, const std::string& message) override {
    out_->push_back(fmt::format("{}:{}:{}: error: {}", file_, line + 1, column + 1, message));
  }
  void AddWarning(int line, pb::io::ColumnNumber column, const std::string& message) override {
    out_->push_back(fmt::format("{}:{}:{}: error: {}", file_, line + 1, column + 1, message));
  }

 private:
  std::string file_;
  std::vector<std::string>* out_;
};

bool ValidId(const std::string& id) {
  if (id.empty() || !std::islower(static_cast<unsigned char>(id[0]))) return false;
  for (char c : id) {
    if (!(std::islower(static_cast<unsigned char>(c)) || std::isdigit(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.'))
      return false;
  }
  return true;
}

// Reports an error at a place in a rule file.
using ErrorAt = std::function<void(const SourceLocation&, const std::string&)>;

// The parts of an alternative compiled from its texts, `when` and `replace`
// (with the checks that need it compiled): at load, or on demand for a
// deferred rule.
void CompileWhen(const Rule& rule, Alternative* alt, const ErrorAt& error) {
  if (alt->when_text.empty()) return;
  ExprError e;
  alt->when = Expression::Parse(alt->when_text, &e);
  if (alt->when.empty()) error(alt->when_source->Locate(e.offset), "when: " + e.message);
  for (const auto& [name, off] : alt->when.names()) {
    if (!rule.scope.Find(name))
      error(alt->when_source->Locate(off), fmt::format("when: '{}' is not an argument of the signature", name));
  }
}

void CompileReplace(const Rule& rule, Alternative* alt, const ErrorAt& error) {
  TemplateError e;
  if (!ReplacementTemplate::Compile(alt->replace_text, rule.scope, &alt->replacement, &e)) {
    error(alt->replace_source->Locate(e.offset), "replace: " + e.message);
    return;
  }
  // A produced argument is the value the pair computes between its nodes; it
  // disappears with the producer.
  for (const ProducerPattern& pattern : rule.producers) {
    bool used = false;
    alt->replacement.ForEachNode([&](const onnx::NodeProto& n) {
      for (const auto& in : n.input()) used = used || in == pattern.argument;
    });
    if (used)
      error(alt->replace_source->field(),
            fmt::format("replace uses '{}', which the producer computes and the rewrite removes; use the "
                        "producer's arguments", pattern.argument));
  }
  for (const std::string& domain : alt->replacement.domains()) {
    if (!alt->imports.count(domain))
      error(alt->replace_source->field(),
            fmt::format("replace emits domain '{}' but the alternative has no import for it", domain));
  }
}

void CompileFragmentBody(Fragment* fragment, const ErrorAt& error) {
  TemplateError e;
  if (!ReplacementTemplate::Compile(fragment->replace_text, fragment->signature, &fragment->replacement, &e))
    error(fragment->replace_source->Locate(e.offset), "replace: " + e.message);
}

std::string ErrorText(const SourceLocation& at, const std::string& message) {
  return fmt::format("{}: error: {}", at.ToString(), message);
}

// Compiles one Rule message; `tree` holds the positions of its fields.
class RuleCompiler {
 public:
  // `defer`: leave `when` and `replace` texts uncompiled (Rule::deferred).
  RuleCompiler(const std::string& file, const std::string& text, bool defer, std::vector<std::string>* errors)
      : file_(file), text_(std::make_shared<const std::string>(text)), defer_(defer), errors_(errors) {}

  std::unique_ptr<Rule> Compile(const rulefile::Rule& msg, const rulefile::FieldPositions* tree,
                                SourceLocation where) {
    auto rule = std::make_unique<Rule>();
    rule->location = where;
    rule->id = msg.id();
    rule->doc = msg.doc();
    size_t errors_before = errors_->size();

    if (!ValidId(msg.id()))
      Error(LocationOf(tree, rulefile::Rule::kIdFieldNumber, where),
            msg.id().empty() ? "rule has no id" : fmt::format("rule id '{}' must be lower-case kebab-case, e.g. aten-asinh", msg.id()));

    // Signature first: matches and alternatives refer to its names.
    auto sig_source = Source(tree, rulefile::Rule::kSignatureFieldNumber, where);
    if (msg.signature().empty()) {
      Error(where, "rule has no signature (the operator's arguments in PyTorch schema syntax)");
    } else {
      SignatureError e;
      if (!ParseSignature(msg.signature(), &rule->signature, &e)) Error(sig_source->Locate(e.offset), "signature: " + e.message);
      rule->signature_text = msg.signature();
    }

    if (msg.match_size() == 0) Error(where, "rule has no match (which nodes it applies to)");
    for (int k = 0; k < msg.match_size(); ++k) {
      const auto* mtree = NestedPositions(tree, rulefile::Rule::kMatchFieldNumber, k);
      SourceLocation at = LocationOf(tree, rulefile::Rule::kMatchFieldNumber, where, k);
      rule->matches.push_back(CompileMatch(msg.match(k), mtree, at));
    }

    rule->scope = rule->signature;
    for (int k = 0; k < msg.producer_size(); ++k) {
      const auto& p = msg.producer(k);
      const auto* ptree = NestedPositions(tree, rulefile::Rule::kProducerFieldNumber, k);
      SourceLocation at = LocationOf(tree, rulefile::Rule::kProducerFieldNumber, where, k);
      ProducerPattern pattern;
      pattern.location = at;
      pattern.argument = p.argument();
      const Argument* arg = rule->signature.Find(p.argument());
      if (!arg || arg->type != ArgType::kTensor)
        Error(LocationOf(ptree, rulefile::Producer::kArgumentFieldNumber, at),
              fmt::format("producer argument '{}' is not a Tensor argument of the signature", p.argument()));
      if (!p.has_match()) Error(at, "producer has no match");
      else pattern.match = CompileMatch(p.match(), NestedPositions(ptree, rulefile::Producer::kMatchFieldNumber),
                                        LocationOf(ptree, rulefile::Producer::kMatchFieldNumber, at));
      auto psig = Source(ptree, rulefile::Producer::kSignatureFieldNumber, at);
      SignatureError e;
      if (p.signature().empty()) {
        Error(at, "producer has no signature");
      } else if (!ParseSignature(p.signature(), &pattern.signature, &e)) {
        Error(psig->Locate(e.offset), "signature: " + e.message);
      } else {
        for (const Argument& a : pattern.signature.args) {
          if (rule->scope.Find(a.name))
            Error(psig->Locate(a.offset), fmt::format("producer argument '{}' has the name of an argument the rule already binds", a.name));
          rule->scope.args.push_back(a);
        }
      }
      rule->producers.push_back(std::move(pattern));
    }

    rule->no_standard_form = msg.no_standard_form();
    rule->approximation = msg.approximation();
    if (msg.alternative_size() == 0 && rule->no_standard_form.empty())
      Error(where, "rule has no alternative (no replacement) and no no_standard_form (why there is none)");
    for (int k = 0; k < msg.alternative_size(); ++k) {
      const auto& a = msg.alternative(k);
      const auto* atree = NestedPositions(tree, rulefile::Rule::kAlternativeFieldNumber, k);
      SourceLocation at = LocationOf(tree, rulefile::Rule::kAlternativeFieldNumber, where, k);
      Alternative alt;
      alt.location = at;
      alt.doc = a.doc();
      alt.min_opset = a.min_opset();
      alt.max_opset = a.max_opset();
      if (a.min_opset() < 1) Error(LocationOf(atree, rulefile::Alternative::kMinOpsetFieldNumber, at), "min_opset must be set (1 or more)");
      if (a.max_opset() != 0 && a.max_opset() < a.min_opset())
        Error(LocationOf(atree, rulefile::Alternative::kMaxOpsetFieldNumber, at), "max_opset is below min_opset");
      if (!a.when().empty()) {
        alt.when_source = Source(atree, rulefile::Alternative::kWhenFieldNumber, at);
        alt.when_text = a.when();
        if (!defer_) CompileWhen(*rule, &alt, Reporter());
      }
      for (int d = 0; d < a.import_size(); ++d) {
        const auto& imp = a.import(d);
        SourceLocation iat = LocationOf(atree, rulefile::Alternative::kImportFieldNumber, at, d);
        if (IsDefaultDomain(imp.domain()))
          Error(iat, "the default domain's version is min_opset, not an import");
        else if (imp.version() < 1)
          Error(iat, fmt::format("import of '{}' needs a version of 1 or more", imp.domain()));
        else
          alt.imports[imp.domain()] = imp.version();
      }
      for (int t = 0; t < a.target_size(); ++t)
        alt.targets.push_back({a.target(t), LocationOf(atree, rulefile::Alternative::kTargetFieldNumber, at, t)});
      alt.replace_source = Source(atree, rulefile::Alternative::kReplaceFieldNumber, at);
      alt.replace_text = a.replace();
      if (a.replace().empty()) {
        Error(at, "alternative has no replace (the ONNX nodes to emit)");
      } else if (!defer_ && errors_->size() == errors_before) {
        CompileReplace(*rule, &alt, Reporter());
      }
      rule->alternatives.push_back(std::move(alt));
    }
    if (errors_->size() != errors_before) return nullptr;
    rule->deferred = defer_;
    return rule;
  }

  NodeMatch CompileMatch(const rulefile::Match& m, const rulefile::FieldPositions* mtree, SourceLocation at) {
    NodeMatch nm;
    nm.location = at;
    nm.aten = m.aten();
    nm.domain = m.domain();
    nm.op_type = m.op_type();
    if (m.has_overload()) nm.overload = m.overload();
    if (m.has_min_inputs()) nm.min_inputs = m.min_inputs();
    if (m.has_max_inputs()) nm.max_inputs = m.max_inputs();
    if (nm.aten.empty() == nm.op_type.empty())
      Error(at, "a match names either 'aten' (an ATen operator) or 'op_type' (with 'domain'), not both or neither");
    if (!nm.aten.empty() && !nm.domain.empty()) Error(at, "'domain' goes with 'op_type', not with 'aten'");
    for (int a = 0; a < m.attribute_size(); ++a) {
      const auto* atree = NestedPositions(mtree, rulefile::Match::kAttributeFieldNumber, a);
      auto src = Source(atree, rulefile::AttributeEquals::kEqualsFieldNumber, at);
      ExprError e;
      Expression lit = Expression::Parse(m.attribute(a).equals(), &e);
      Value v;
      if (lit.empty()) {
        Error(src->Locate(e.offset), e.message);
      } else if (!lit.names().empty()) {
        Error(src->Locate(lit.names()[0].second), "attribute 'equals' must be a literal");
      } else if (lit.Evaluate([](const std::string&, std::string*) -> const Value* { return nullptr; }, &v, &e)) {
        nm.attribute_equals.emplace_back(m.attribute(a).name(), v);
      }
    }
    return nm;
  }

  std::unique_ptr<Fragment> CompileFragment(const rulefile::Fragment& msg, const rulefile::FieldPositions* tree,
                                            SourceLocation where) {
    auto fragment = std::make_unique<Fragment>();
    fragment->location = where;
    fragment->name = msg.name();
    fragment->doc = msg.doc();
    size_t errors_before = errors_->size();
    SourceLocation name_at = LocationOf(tree, rulefile::Fragment::kNameFieldNumber, where);
    if (!ValidFragmentName(msg.name()))
      Error(name_at, msg.name().empty() ? "fragment has no name"
                                        : fmt::format("fragment name '{}' must be CamelCase letters and digits, e.g. ErfPoly", msg.name()));
    else if (FindSchema(msg.name(), KnownDefaultOpset(), ""))
      Error(name_at, fmt::format("fragment name '{}' is an ONNX operator", msg.name()));
    auto sig_source = Source(tree, rulefile::Fragment::kSignatureFieldNumber, where);
    if (msg.signature().empty()) {
      Error(where, "fragment has no signature");
    } else {
      SignatureError e;
      if (!ParseSignature(msg.signature(), &fragment->signature, &e)) Error(sig_source->Locate(e.offset), "signature: " + e.message);
      fragment->signature_text = msg.signature();
    }
    fragment->replace_source = Source(tree, rulefile::Fragment::kReplaceFieldNumber, where);
    fragment->replace_text = msg.replace();
    if (msg.replace().empty()) {
      Error(where, "fragment has no replace (the ONNX nodes it stands for)");
    } else if (!defer_ && errors_->size() == errors_before) {
      CompileFragmentBody(fragment.get(), Reporter());
    }
    if (errors_->size() != errors_before) return nullptr;
    fragment->deferred = defer_;
    return fragment;
  }

 private:
  static bool ValidFragmentName(const std::string& name) {
    if (name.empty() || !std::isupper(static_cast<unsigned char>(name[0]))) return false;
    for (char c : name) {
      if (!std::isalnum(static_cast<unsigned char>(c))) return false;
    }
    return true;
  }

  void Error(const SourceLocation& at, const std::string& message) { errors_->push_back(ErrorText(at, message)); }
  ErrorAt Reporter() {
    return [this](const SourceLocation& at, const std::string& message) { Error(at, message); };
  }

  std::shared_ptr<const StringSource> Source(const rulefile::FieldPositions* tree, int field,
                                             const SourceLocation& fallback) const {
    const FieldPlace loc = PlaceOf(tree, field);
    if (loc.line >= 0) return std::make_shared<StringSource>(file_, text_, loc.line, loc.column);
    return std::make_shared<StringSource>(file_, text_, fallback.line - 1, fallback.column - 1);
  }

  const std::string& file_;
  std::shared_ptr<const std::string> text_;  // shared by the StringSources of this file
  bool defer_;
  std::vector<std::string>* errors_;
};

// Compiles a parsed file: `positions` are its fields' places in `text`.
RuleFileResult CompileRuleFile(const std::string& display_name, const std::string& text,
                               const rulefile::RuleFile& file, const rulefile::FieldPositions& positions, bool builtin,
                               bool defer) {
  RuleFileResult result;
  if (file.rule_size() == 0 && file.target_size() == 0 && file.fragment_size() == 0) {
    result.errors.push_back(fmt::format("{}:1:1: error: the file holds no rule, fragment or target", display_name));
    return result;
  }
  // A block the text did not place (it always does) is named by its file alone.
  const SourceLocation file_only{display_name, 0, 0};
  auto where = [&](int field, int k) { return LocationOf(&positions, field, file_only, k); };
  for (int k = 0; k < file.target_size(); ++k) {
    auto target = CompileTarget(file.target(k), NestedPositions(&positions, rulefile::RuleFile::kTargetFieldNumber, k),
                                where(rulefile::RuleFile::kTargetFieldNumber, k), &result.errors);
    if (!target) continue;
    target->builtin = builtin;
    result.targets.push_back(std::move(target));
  }
  RuleCompiler compiler(display_name, text, defer, &result.errors);
  for (int k = 0; k < file.fragment_size(); ++k) {
    auto fragment =
        compiler.CompileFragment(file.fragment(k), NestedPositions(&positions, rulefile::RuleFile::kFragmentFieldNumber, k),
                                 where(rulefile::RuleFile::kFragmentFieldNumber, k));
    if (!fragment) continue;
    fragment->builtin = builtin;
    result.fragments.push_back(std::move(fragment));
  }
  std::set<std::string> ids;
  for (int k = 0; k < file.rule_size(); ++k) {
    const SourceLocation at = where(rulefile::RuleFile::kRuleFieldNumber, k);
    auto rule = compiler.Compile(file.rule(k), NestedPositions(&positions, rulefile::RuleFile::kRuleFieldNumber, k), at);
    if (!rule) continue;
    if (!ids.insert(rule->id).second) {
      result.errors.push_back(fmt::format("{}: error: rule id '{}' is used twice in this file", at.ToString(), rule->id));
      continue;
    }
    rule->builtin = builtin;
    result.rules.push_back(std::move(rule));
  }
  return result;
}

}  // namespace

bool ParseRuleText(const std::string& display_name, const std::string& text, rulefile::PrecompiledRuleFile* parsed,
                   std::vector<std::string>* errors) {
  pb::TextFormat::Parser parser;
  CollectErrors collector(display_name, errors);
  pb::TextFormat::ParseInfoTree tree;
  parser.RecordErrorsTo(&collector);
  parser.WriteLocationsTo(&tree);
  const size_t errors_before = errors->size();
  if (!parser.ParseFromString(text, parsed->mutable_file())) {
    if (errors->size() == errors_before) errors->push_back(fmt::format("{}: error: not a rule file", display_name));
    return false;
  }
  RecordPositions(parsed->file(), tree, parsed->mutable_positions());
  return true;
}

RuleFileResult ParseRuleFile(const std::string& display_name, const std::string& text, bool builtin, bool defer) {
  rulefile::PrecompiledRuleFile parsed;
  RuleFileResult failed;
  if (!ParseRuleText(display_name, text, &parsed, &failed.errors)) return failed;
  return CompileRuleFile(display_name, text, parsed.file(), parsed.positions(), builtin, defer);
}

RuleFileResult ParsePrecompiledRuleFile(const std::string& display_name, const std::string& text,
                                        std::string_view precompiled, bool defer) {
  rulefile::PrecompiledRuleFile parsed;
  if (precompiled.size() > static_cast<size_t>(INT32_MAX) ||
      !parsed.ParseFromArray(precompiled.data(), static_cast<int>(precompiled.size()))) {
    // Only a broken build can get here; the text still says what the file holds.
    return ParseRuleFile(display_name, text, /*builtin=*/true, defer);
  }
  return CompileRuleFile(display_name, text, parsed.file(), parsed.positions(), /*builtin=*/true, defer);
}

}  // namespace remap

namespace remap {

void CompileDeferred(Rule* rule) {
  if (!rule->deferred) return;
  for (Alternative& alt : rule->alternatives) {
    auto error = [&alt](const SourceLocation& where, const std::string& message) {
      if (alt.compile_error.empty()) alt.compile_error = ErrorText(where, message);
    };
    CompileWhen(*rule, &alt, error);
    if (!alt.replace_text.empty()) CompileReplace(*rule, &alt, error);
  }
  rule->deferred = false;
}

void CompileDeferred(Fragment* fragment) {
  if (!fragment->deferred) return;
  CompileFragmentBody(fragment, [fragment](const SourceLocation& where, const std::string& message) {
    if (fragment->compile_error.empty()) fragment->compile_error = ErrorText(where, message);
  });
  fragment->deferred = false;
}

}  // namespace remap
