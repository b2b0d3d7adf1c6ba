#include "match/node_matcher.h"

#include <algorithm>
#include <optional>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "match/constant_reader.h"
#include "model/deferred_nodes.h"

namespace remap {

namespace {

// Why `m` does not apply to the node, or "" when it does.
std::string MatchFailure(const NodeMatch& m, const onnx::NodeProto& node, const NodeForm& form) {
  if (m.overload && form.kind == NodeForm::Kind::kAtenFallback && *m.overload != form.overload)
    return fmt::format("overload_name is '{}', the rule wants '{}'", form.overload, *m.overload);
  if (m.min_inputs && node.input_size() < *m.min_inputs)
    return fmt::format("the node has {} inputs, the rule wants at least {}", node.input_size(), *m.min_inputs);
  if (m.max_inputs && node.input_size() > *m.max_inputs)
    return fmt::format("the node has {} inputs, the rule wants at most {}", node.input_size(), *m.max_inputs);
  for (const auto& [name, expected] : m.attribute_equals) {
    const onnx::AttributeProto* found = nullptr;
    for (const auto& a : node.attribute()) {
      if (a.name() == name) found = &a;
    }
    Value actual;
    std::string why;
    if (!found) return fmt::format("the node has no attribute '{}'", name);
    if (!AttributeToValue(*found, &actual, &why)) return fmt::format("attribute '{}': {}", name, why);
    if (actual != expected)
      return fmt::format("attribute '{}' is {}, the rule wants {}", name, ToString(actual), ToString(expected));
  }
  return "";
}

// Why the rewrite would orphan an output, or "": outputs past the signature's
// returns get no producer in the replacement, so they must have no use.
std::string UnreturnedOutputInUse(const onnx::NodeProto& node, const Signature& signature, const GraphIndex& index) {
  const size_t returns = signature.returns.size();
  for (size_t k = returns; k < static_cast<size_t>(node.output_size()); ++k) {
    const std::string& out = node.output(static_cast<int>(k));
    if (!out.empty() && index.Uses(out) > 0)
      return fmt::format("the node has {} outputs, the signature returns {}; output '{}' is used", node.output_size(),
                         returns, out);
  }
  return "";
}

// Binds the rule's producer patterns: each produced argument must come from
// a node matching the pattern, used by nothing else; its arguments join the
// binding, and the node is to be removed with the rewrite.
bool BindProducers(const Rule& rule, const MatchContext& context, const GraphIndex& index, Binding* binding,
                   std::vector<const onnx::NodeProto*>* absorbed, std::string* why) {
  if (!rule.producers.empty() && context.settle) context.settle();
  for (const ProducerPattern& pattern : rule.producers) {
    const BoundArgument* arg = binding->Find(pattern.argument);
    const std::string input = arg ? arg->input : "";
    Producer p = input.empty() ? Producer{} : index.ProducerOf(input);
    if (p.kind == Producer::Kind::kDeferred) {
      // A plain default-domain operator: no pattern the pipeline defers under names one.
      *why = fmt::format("'{}' is produced by {} (the rule wants {})", pattern.argument, p.deferred->op_type,
                         pattern.match.Describe());
      return false;
    }
    if (p.kind != Producer::Kind::kNode || !p.node) {
      *why = fmt::format("argument '{}' is not produced by a node (the rule wants {})", pattern.argument,
                         pattern.match.Describe());
      return false;
    }
    const onnx::NodeProto& producer = *p.node;
    static const ClassifyContext kDefaultClassify;
    NodeForm pform = ClassifyNode(producer, context.classify ? *context.classify : kDefaultClassify);
    std::string failure = MatchKeyOf(pattern.match) == pform.MatchKey(producer)
                              ? MatchFailure(pattern.match, producer, pform)
                              : fmt::format("'{}' is produced by {} (the rule wants {})", pattern.argument, OpName(producer),
                                            pattern.match.Describe());
    if (!failure.empty()) {
      *why = failure;
      return false;
    }
    for (const auto& out : producer.output()) {
      const int uses = out.empty() ? 0 : index.Uses(out);
      if ((out == input && uses != 1) || (out != input && uses != 0)) {
        *why = fmt::format("the output '{}' of {} '{}' is used elsewhere, so the pair cannot be rewritten as a unit", out,
                           OpName(producer), producer.name());
        return false;
      }
    }
    Binding produced;
    if (!BindArguments(producer, pform, pattern.signature, index, &produced, why)) {
      *why = fmt::format("producer '{}': {}", producer.name(), *why);
      return false;
    }
    binding->Extend(produced);
    absorbed->push_back(&producer);
  }
  return true;
}

std::string Where(const Alternative& alt) { return alt.location.ToString(); }

std::string TargetList(const Alternative& alt) {
  std::vector<std::string> names;
  for (const TargetRef& t : alt.targets) names.push_back(t.name);
  return fmt::format("{}", fmt::join(names, ", "));
}

}  // namespace

MatchResult MatchNode(const onnx::NodeProto& node, const NodeForm& form, const MatchContext& context,
                      GraphIndex* index) {
  MatchResult result;
  const std::string key = form.MatchKey(node);
  const auto& candidates = context.rules->Candidates(key);
  if (candidates.empty()) {
    result.reason = form.aten_operator.empty() ? fmt::format("no rule for {}", OpName(node))
                                               : fmt::format("no rule for aten::{}", form.aten_operator);
    result.refusal = Refusal::kNoRule;
    return result;
  }
  // A node alike in all a match reads to one matched before: that match's
  // replacement again, with this node's names.
  std::optional<ReplacementMemo::NodeKey> node_key;
  if (context.memo) node_key = context.memo->NodeKeyOf(node, form, *index, context.oracle);
  if (node_key) {
    if (const ReplacementMemo::NodeEntry* hit = context.memo->FindNode(*node_key)) {
      context.memo->Replay(*hit->entry, node, *hit->rule, index, context.oracle, &result.replacement);
      result.ok = true;
      result.replayed = true;
      result.node_key_hit = hit;
      result.rule = hit->rule;
      result.alternative = hit->entry->alternative;
      return result;
    }
  }
  // Whether a match of this node may serve others of its node key (StoreNode).
  auto node_storable = [&](const Binding& binding, size_t outcomes_before) {
    if (!node_key || outcomes_before != 0) return false;
    for (const BoundArgument& b : binding.args()) {
      if (!b.not_constant.empty()) return false;
    }
    return true;
  };
  std::vector<std::string> reasons;
  int needs_opset = 0;
  bool only_opset = true;
  const Rule* no_standard_form = nullptr;  // first bound rule that says ONNX cannot express the node
  for (const Rule* rule : candidates) {
    auto record = [&](Refusal kind, const std::string& why, const Alternative* alt, int opset) {
      reasons.push_back(fmt::format("[{}] {}", rule->id, why));
      result.refusal = kind;
      result.candidates.push_back(
          CandidateOutcome{rule->id, rule->location, alt ? alt->location : SourceLocation{}, kind, why, opset});
    };
    auto refuse = [&](Refusal kind, const std::string& why, const Alternative* alt = nullptr) {
      record(kind, why, alt, 0);
      only_opset = false;
    };
    std::string match_failure = "no match";
    for (const NodeMatch& m : rule->matches) {
      if (MatchKeyOf(m) != key) continue;
      match_failure = MatchFailure(m, node, form);
      if (match_failure.empty()) break;
    }
    if (!match_failure.empty()) {
      refuse(Refusal::kMatch, match_failure);
      continue;
    }
    std::string orphan = UnreturnedOutputInUse(node, rule->signature, *index);
    if (!orphan.empty()) {
      refuse(Refusal::kBinding, orphan);
      continue;
    }
    Binding binding;
    std::string why;
    if (!BindArguments(node, form, rule->signature, *index, &binding, &why)) {
      refuse(Refusal::kBinding, why);
      continue;
    }
    std::vector<const onnx::NodeProto*> absorbed;
    if (!BindProducers(*rule, context, *index, &binding, &absorbed, &why)) {
      refuse(Refusal::kMatch, why);
      continue;
    }
    if (!rule->no_standard_form.empty() && !no_standard_form) no_standard_form = rule;
    // A node matched alike before: its replacement again, with this node's names.
    std::optional<ReplacementMemo::Key> memo_key;
    if (context.memo) memo_key = ReplacementMemo::KeyOf(node, *rule, binding, *index, context.oracle);
    if (memo_key) {
      if (const ReplacementMemo::Entry* hit = context.memo->Find(*memo_key)) {
        if (node_storable(binding, result.candidates.size()))
          context.memo->StoreNode(std::move(*node_key), hit, *rule, memo_key->typed_inputs);
        result.candidates.insert(result.candidates.end(), hit->outcomes.begin(), hit->outcomes.end());
        context.memo->Replay(*hit, node, *rule, index, context.oracle, &result.replacement);
        result.ok = true;
        result.replayed = true;
        result.rule = rule;
        result.absorbed = std::move(absorbed);
        result.alternative = hit->alternative;
        return result;
      }
    }
    const size_t outcomes_before = result.candidates.size();
    // A replay takes no fresh names and types nothing before the alternative
    // that applies: refusals after emitting or typing rule it out.
    bool replayable = true;
    // The alternatives that fit: guard holds, opset fits, imports agree.
    std::vector<const Alternative*> fitting;
    for (const Alternative& alt : rule->alternatives) {
      if (context.target && !alt.IsFor(context.target->name)) {
        refuse(Refusal::kTarget, fmt::format("{}: for targets {} only (target is {})", Where(alt), TargetList(alt), context.target->name), &alt);
        continue;
      }
      if (!alt.compile_error.empty()) {
        refuse(Refusal::kEmit, alt.compile_error, &alt);
        continue;
      }
      bool pass = false;
      RuleFailure failure;
      if (!EvaluateGuard(alt, binding, &pass, &failure)) {
        refuse(Refusal::kGuardError, fmt::format("{}: {}", failure.location.ToString(), failure.message), &alt);
        continue;
      }
      if (!pass) {
        refuse(Refusal::kGuard, fmt::format("{}: when '{}' is false", Where(alt), alt.when.text()), &alt);
        continue;
      }
      if (alt.min_opset > context.target_opset) {
        record(Refusal::kOpset,
               context.target_opset == 0
                   ? fmt::format("{}: needs opset {} (the model imports no default-domain opset; --opset {} imports it)",
                                 Where(alt), alt.min_opset, alt.min_opset)
                   : fmt::format("{}: needs opset {} (target is {}; --opset {} allows raising it)", Where(alt), alt.min_opset,
                                 context.target_opset, alt.min_opset),
               &alt, alt.min_opset);
        if (needs_opset == 0 || alt.min_opset < needs_opset) needs_opset = alt.min_opset;
        continue;
      }
      if (alt.max_opset && context.target_opset > alt.max_opset) {
        refuse(Refusal::kOpset, fmt::format("{}: valid up to opset {} only", Where(alt), alt.max_opset), &alt);
        continue;
      }
      std::string conflict;
      for (const auto& [domain, version] : alt.imports) {
        auto it = context.imports->find(domain);
        if (it != context.imports->end() && it->second != version)
          conflict = fmt::format("needs {} version {}, the model imports version {}", domain, version, it->second);
      }
      if (!conflict.empty()) {
        refuse(Refusal::kMatch, fmt::format("{}: {}", Where(alt), conflict), &alt);
        continue;
      }
      fitting.push_back(&alt);
    }
    if (!rule->no_standard_form.empty() && fitting.empty())
      result.candidates.push_back(CandidateOutcome{rule->id, rule->location, {}, Refusal::kNoStandardForm,
                                                   fmt::format("no standard ONNX form: {}", rule->no_standard_form), 0});
    // Highest min_opset first, ties in file order; one that fails to emit (an
    // expression error) or is not type-correct for the node gives way to the next.
    std::stable_sort(fitting.begin(), fitting.end(),
                     [](const Alternative* a, const Alternative* b) { return a->min_opset > b->min_opset; });
    for (const Alternative* alt : fitting) {
      RuleFailure failure;
      std::vector<onnx::NodeProto> nodes;
      EmitRecord emitted;
      if (!context.instantiate(node, *rule, *alt, binding, &nodes, &failure, memo_key ? &emitted : nullptr)) {
        refuse(Refusal::kEmit, fmt::format("{}: {}", failure.location.ToString(), failure.message), alt);
        replayable = false;
        continue;
      }
      std::string type_error;
      const size_t typed_before = context.oracle ? context.oracle->nodes_typed() : 0;
      if (context.oracle && !context.oracle->TypeReplacement(nodes, &type_error)) {
        refuse(Refusal::kType,
               fmt::format("{}: the replacement is not type-correct for this node: {}", Where(*alt), type_error), alt);
        replayable = false;
        continue;
      }
      result.candidates.push_back(CandidateOutcome{rule->id, rule->location, alt->location, Refusal::kNone, "", 0});
      if (memo_key && replayable) {
        // A guard error's message may quote a value of this node; the rest name the rule only.
        for (size_t k = outcomes_before; k < result.candidates.size(); ++k)
          replayable = replayable && result.candidates[k].refusal != Refusal::kGuardError;
        if (replayable) {
          const uint64_t typed_inputs = memo_key->typed_inputs;
          const ReplacementMemo::Entry* entry = context.memo->Store(
              std::move(*memo_key), node, *alt, nodes, emitted, context.oracle->TypingOf(nodes, typed_before),
              std::vector<CandidateOutcome>(result.candidates.begin() + static_cast<long>(outcomes_before),
                                            result.candidates.end()));
          if (node_storable(binding, outcomes_before))
            context.memo->StoreNode(std::move(*node_key), entry, *rule, typed_inputs);
        }
      }
      result.ok = true;
      result.rule = rule;
      result.absorbed = std::move(absorbed);
      result.alternative = alt;
      result.replacement = std::move(nodes);
      return result;
    }
  }
  result.reason = fmt::format("{}", fmt::join(reasons, "; "));
  if (only_opset && needs_opset) {
    result.needs_opset = needs_opset;
    result.refusal = Refusal::kOpset;
  } else if (no_standard_form) {
    // The rule's own statement comes first; what its alternatives (for other
    // targets, other arguments) said follows.
    const std::string op = form.aten_operator.empty() ? OpName(node) : "aten::" + form.aten_operator;
    std::string reason = fmt::format("{} has no standard ONNX equivalent: {}", op, no_standard_form->no_standard_form);
    if (!result.reason.empty()) reason += "; " + result.reason;
    result.reason = std::move(reason);
    result.refusal = Refusal::kNoStandardForm;
    result.refused_by = no_standard_form;
  } else if (only_opset) {
    result.needs_opset = needs_opset;
    result.refusal = Refusal::kOpset;
  }
  return result;
}

}  // namespace remap
