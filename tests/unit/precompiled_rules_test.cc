// A built-in rule file is read from the form the build parsed it into
// (ParsePrecompiledRuleFile) rather than from its text. Everything a rule,
// fragment or target holds must be what parsing the text gives, the places
// its diagnostics name included.
#include <string>
#include <vector>

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include "rules/builtin_rules.h"
#include "rules/rule_parser.h"

using namespace remap;

namespace {

// The place of a string field, and of three characters in it: errors inside a
// `when` or `replace` text point at the character.
std::string Places(const std::shared_ptr<const StringSource>& source, size_t length) {
  if (!source) return "-";
  return fmt::format("{} [{} {} {}]", source->field().ToString(), source->Locate(0).ToString(),
                     source->Locate(length / 2).ToString(), source->Locate(length).ToString());
}

std::string Describe(const NodeMatch& m) {
  std::string out = fmt::format("match {} at {} overload={} min={} max={}", m.Describe(), m.location.ToString(),
                                m.overload.value_or("-"), m.min_inputs.value_or(-1), m.max_inputs.value_or(-1));
  for (const auto& [name, value] : m.attribute_equals) out += " attr " + name;
  return out + "\n";
}

std::string Describe(const RuleFileResult& r) {
  std::string out;
  for (const std::string& e : r.errors) out += "error " + e + "\n";
  for (const auto& t : r.targets) {
    out += fmt::format("target {} at {} builtin={} doc={}\n", t->name, t->location.ToString(), t->builtin, t->doc);
    for (const std::string& d : t->domains) out += "  domain " + d + "\n";
    for (const auto& [domain, op] : t->ops) out += "  op " + domain + "::" + op + "\n";
  }
  for (const auto& f : r.fragments) {
    out += fmt::format("fragment {} at {} builtin={} deferred={} doc={} signature={} replace={} at {} error={}\n",
                       f->name, f->location.ToString(), f->builtin, f->deferred, f->doc, f->signature_text,
                       f->replace_text, Places(f->replace_source, f->replace_text.size()), f->compile_error);
  }
  for (const auto& rule : r.rules) {
    out += fmt::format("rule {} at {} builtin={} deferred={} doc={} signature={} no_standard_form={} approximation={}\n",
                       rule->id, rule->location.ToString(), rule->builtin, rule->deferred, rule->doc,
                       rule->signature_text, rule->no_standard_form, rule->approximation);
    for (const NodeMatch& m : rule->matches) out += Describe(m);
    for (const ProducerPattern& p : rule->producers)
      out += fmt::format("producer {} at {} ", p.argument, p.location.ToString()) + Describe(p.match);
    for (const Alternative& a : rule->alternatives) {
      out += fmt::format("alternative at {} opsets {}-{} doc={} when={} at {} replace={} at {} error={}\n",
                         a.location.ToString(), a.min_opset, a.max_opset, a.doc, a.when_text,
                         Places(a.when_source, a.when_text.size()), a.replace_text,
                         Places(a.replace_source, a.replace_text.size()), a.compile_error);
      for (const auto& [domain, version] : a.imports) out += fmt::format("  import {} {}\n", domain, version);
      for (const TargetRef& t : a.targets) out += fmt::format("  for {} at {}\n", t.name, t.location.ToString());
    }
  }
  return out;
}

}  // namespace

TEST_CASE("every built-in file read from its precompiled form is the same as parsed from its text",
          "[precompiled_rules]") {
  REQUIRE(BuiltinRuleIndex() != nullptr);
  REQUIRE(BuiltinRuleIndex()->size() == BuiltinRuleFiles().size());
  size_t rules = 0, targets = 0, fragments = 0, alternatives = 0;
  for (size_t k = 0; k < BuiltinRuleFiles().size(); ++k) {
    const EmbeddedRuleFile& file = BuiltinRuleFiles()[k];
    const BuiltinRuleFileIndex* entry = nullptr;
    for (const BuiltinRuleFileIndex& e : *BuiltinRuleIndex())
      if (std::string(e.path) == file.path) entry = &e;
    INFO(file.path);
    REQUIRE(entry);
    REQUIRE_FALSE(entry->precompiled.empty());
    for (bool defer : {false, true}) {
      RuleFileResult from_text = ParseRuleFile(file.path, file.content, /*builtin=*/true, defer);
      RuleFileResult precompiled = ParsePrecompiledRuleFile(file.path, file.content, entry->precompiled, defer);
      CHECK(from_text.errors.empty());
      CHECK(Describe(precompiled) == Describe(from_text));
      if (defer) continue;
      rules += from_text.rules.size();
      targets += from_text.targets.size();
      fragments += from_text.fragments.size();
      for (const auto& r : from_text.rules) alternatives += r->alternatives.size();
    }
  }
  // Every kind of block was compared.
  CHECK(rules > 200);
  CHECK(targets == 3);
  CHECK(fragments > 20);
  CHECK(alternatives > rules);
}

TEST_CASE("a precompiled form that does not read is parsed from the text instead", "[precompiled_rules]") {
  const EmbeddedRuleFile& file = BuiltinRuleFiles().front();
  RuleFileResult from_text = ParseRuleFile(file.path, file.content, /*builtin=*/true);
  RuleFileResult broken = ParsePrecompiledRuleFile(file.path, file.content, "\xff\xff\xff", /*defer=*/false);
  CHECK(broken.errors.empty());
  CHECK(broken.rules.size() + broken.fragments.size() + broken.targets.size() > 0);
  CHECK(Describe(broken) == Describe(from_text));
}

TEST_CASE("places recorded from a text are the parser's, nested blocks and repeated fields included",
          "[precompiled_rules]") {
  const std::string text =
      "rule {\n"
      "  id: \"x-one\"\n"
      "  match { aten: \"one\" }\n"
      "  match {\n"
      "    aten: \"one\"\n"
      "    attribute { name: \"k\" equals: \"1\" }\n"
      "  }\n"
      "  signature: \"aten::one(Tensor self) -> Tensor\"\n"
      "  alternative { min_opset: 9 replace: \"out = Relu(self)\" }\n"
      "  alternative {\n"
      "    min_opset: 14\n"
      "    when: \"1 == 1\"\n"
      "    replace: \"out = Neg(self)\"\n"
      "  }\n"
      "}\n";
  rulefile::PrecompiledRuleFile parsed;
  std::vector<std::string> errors;
  REQUIRE(ParseRuleText("t.textproto", text, &parsed, &errors));
  RuleFileResult r = ParsePrecompiledRuleFile("t.textproto", text, parsed.SerializeAsString(), /*defer=*/false);
  REQUIRE(r.errors.empty());
  REQUIRE(r.rules.size() == 1);
  const Rule& rule = *r.rules[0];
  CHECK(rule.location.ToString() == "t.textproto:1:1");
  REQUIRE(rule.matches.size() == 2);
  CHECK(rule.matches[1].location.ToString() == "t.textproto:4:3");
  REQUIRE(rule.alternatives.size() == 2);
  CHECK(rule.alternatives[1].location.ToString() == "t.textproto:10:3");
  CHECK(rule.alternatives[1].when_source->field().ToString() == "t.textproto:12:5");
  CHECK(rule.alternatives[1].replace_source->Locate(6).ToString() == "t.textproto:13:21");
  CHECK(Describe(r) == Describe(ParseRuleFile("t.textproto", text, /*builtin=*/true)));
}
