#include "convert/opset_converter.h"

#include <algorithm>
#include <map>
#include <memory>
#include <unordered_map>
#include <unordered_set>

#include <fmt/format.h>
#include <onnx/common/version.h>
#include <onnx/defs/data_type_utils.h>
#include <onnx/defs/schema.h>

#include "convert/adapter_context.h"
#include "convert/opset_adapter.h"
#include "model/graph_index.h"
#include "model/opset_import.h"
#include "model/type_oracle.h"
#include "model/schema_lookup.h"
#include "opset/opset_changes.h"
#include "opset/opset_raise.h"
#include "rewrite/node_list_editor.h"

namespace remap {

namespace {

// Newest ONNX 1.12 knows: below it, its schemas tell which attributes a version has.
constexpr int kNewestKnownSchemaOpset = 17;

bool SameAttributeValue(const onnx::AttributeProto& a, const onnx::AttributeProto& b) {
  return a.SerializeAsString() == b.SerializeAsString() ||
         (a.type() == b.type() && a.type() == onnx::AttributeProto::INT && a.i() == b.i()) ||
         (a.type() == b.type() && a.type() == onnx::AttributeProto::FLOAT && a.f() == b.f()) ||
         (a.type() == b.type() && a.type() == onnx::AttributeProto::STRING && a.s() == b.s());
}

// Adapters read a node's inputs and outputs where its schema puts them. A
// node with fewer than its schema requires (a hand-edited or corrupt model)
// is refused here, once for every adapter. Checked against ONNX 1.12's
// schema when the op has not changed between it and `opset`.
Status CheckRequiredArity(const onnx::NodeProto& node, int opset) {
  const int known = std::min(opset, kNewestKnownSchemaOpset);
  if (known < opset && !ChangesBetween(node.op_type(), known, opset).empty()) return Status::Ok();
  const onnx::OpSchema* schema = FindSchema(node.op_type(), known, "");
  if (!schema) return Status::Ok();
  if (node.input_size() >= schema->min_input() && node.output_size() >= schema->min_output()) return Status::Ok();
  return Refuse(fmt::format("{} has {} inputs and {} outputs where opset {} requires at least {} and {}",
                            node.op_type(), node.input_size(), node.output_size(), opset, schema->min_input(),
                            schema->min_output()));
}

// After lowering: an attribute the older version lacks is dropped when it holds
// the newer version's default (it then means what the older version does), and
// refused otherwise. Too many inputs are refused. Checked where ONNX 1.12's
// registry has both schemas.
Status CheckLoweredAttributes(onnx::NodeProto* node, int from, int to) {
  if (to > kNewestKnownSchemaOpset) return Status::Ok();
  const auto* old_schema = FindSchema(node->op_type(), to, "");
  if (!old_schema) return Refuse(fmt::format("{} does not exist at opset {}", node->op_type(), to));
  const auto* new_schema = FindSchema(node->op_type(), std::min(from, kNewestKnownSchemaOpset), "");
  auto* attrs = node->mutable_attribute();
  for (int k = 0; k < attrs->size();) {
    const auto& attr = attrs->Get(k);
    if (old_schema->attributes().count(attr.name())) {
      ++k;
      continue;
    }
    bool is_default = false;
    if (new_schema) {
      auto it = new_schema->attributes().find(attr.name());
      if (it != new_schema->attributes().end() && it->second.default_value.has_name())
        is_default = SameAttributeValue(attr, it->second.default_value);
    }
    if (!is_default)
      return Refuse(fmt::format("attribute '{}' of {} has no equivalent at opset {}", attr.name(), node->op_type(), to));
    attrs->erase(attrs->begin() + k);
  }
  int present = node->input_size();
  while (present > 0 && node->input(present - 1).empty()) --present;
  if (present > old_schema->max_input())
    return Refuse(fmt::format("{} takes at most {} inputs at opset {}", node->op_type(), old_schema->max_input(), to));
  return Status::Ok();
}

// After lowering: an input whose type the older version does not take (Add on
// uint8 before 14, Clip on int8 before 12, ...) is refused. Checked where ONNX
// 1.12's registry has the older schema and the input's type is known.
Status CheckLoweredTypes(const onnx::NodeProto& node, int to, const AdapterContext& ctx) {
  if (to > kNewestKnownSchemaOpset) return Status::Ok();
  const auto* schema = FindSchema(node.op_type(), to, "");
  if (!schema || schema->inputs().empty()) return Status::Ok();
  const auto& params = schema->inputs();
  for (int k = 0; k < node.input_size(); ++k) {
    if (node.input(k).empty()) continue;
    const size_t p = std::min(static_cast<size_t>(k), params.size() - 1);
    if (static_cast<size_t>(k) >= params.size() && params.back().GetOption() != onnx::OpSchema::Variadic) break;
    const int elem_type = ctx.ElemType(node.input(k));
    if (elem_type == 0) continue;
    // ONNX 1.12 has no name for it (a newer type, or none): ToType would throw.
    if (!onnx::TensorProto_DataType_IsValid(elem_type))
      return Refuse(fmt::format("{} input '{}' has element type {}, which ONNX {} does not know, so its "
                                "opset {} form cannot be checked", node.op_type(), node.input(k), elem_type,
                                onnx::LAST_RELEASE_VERSION, to));
    onnx::TypeProto type;
    type.mutable_tensor_type()->set_elem_type(elem_type);
    const auto& allowed = params[p].GetTypes();
    if (!allowed.empty() && !allowed.count(onnx::Utils::DataTypeUtils::ToType(type)))
      return Refuse(fmt::format("{} does not take {} ('{}') at opset {}",
                                node.op_type(), *onnx::Utils::DataTypeUtils::ToType(type), node.input(k), to));
  }
  return Status::Ok();
}

// Negative axes were accepted from opset 11 on. Lowered below it, they are
// counted from the front (which needs the rank) or refused.
Status NormalizeNegativeAxes(onnx::NodeProto* node, const AdapterContext& ctx) {
  for (auto& attr : *node->mutable_attribute()) {
    if (attr.name() != "axis" && attr.name() != "axes") continue;
    const bool negative = attr.i() < 0 || std::any_of(attr.ints().begin(), attr.ints().end(), [](int64_t v) { return v < 0; });
    if (!negative) continue;
    int rank = node->input_size() ? ctx.Rank(node->input(0)) : -1;
    if (rank >= 0 && node->op_type() == "Unsqueeze") rank += attr.ints_size();  // axes of the output
    if (rank < 0)
      return Refuse(fmt::format("its {} is negative, which is accepted only from opset 11, and the input's rank is not known",
                                attr.name()));
    if (attr.type() == onnx::AttributeProto::INT && attr.i() < 0) attr.set_i(attr.i() + rank);
    for (int k = 0; k < attr.ints_size(); ++k)
      if (attr.ints(k) < 0) attr.set_ints(k, attr.ints(k) + rank);
  }
  return Status::Ok();
}

bool HasSubgraph(const onnx::NodeProto& node) {
  for (const auto& a : node.attribute())
    if (a.has_g() || a.graphs_size() > 0) return true;
  return false;
}

void CountUses(const google::protobuf::RepeatedPtrField<onnx::NodeProto>& nodes, std::unordered_map<std::string, int>* uses) {
  for (const auto& n : nodes) {
    for (const auto& in : n.input()) ++(*uses)[in];
    ForEachSubgraph(n, [&](const onnx::GraphProto& g) {
      CountUses(g.node(), uses);
      for (const auto& out : g.output()) ++(*uses)[out.name()];
    });
  }
}

class Converter {
 public:
  Converter(GraphIndex* index, int from, int to, ConversionReport* report)
      : index_(index), from_(from), to_(to), report_(report) {}

  void Plan(google::protobuf::RepeatedPtrField<onnx::NodeProto>* nodes, const std::string& path) {
    for (int i = 0; i < nodes->size(); ++i) {
      onnx::NodeProto* node = nodes->Mutable(i);
      for (auto& attr : *node->mutable_attribute()) {
        const std::string sub = fmt::format("{}/{}.{}", path, node->name(), attr.name());
        if (attr.has_g()) Plan(attr.mutable_g()->mutable_node(), sub);
        for (int k = 0; k < attr.graphs_size(); ++k) Plan(attr.mutable_graphs(k)->mutable_node(), fmt::format("{}[{}]", sub, k));
      }
      if (IsDefaultDomain(node->domain())) PlanNode(nodes, i, path);
    }
  }

  // Applies the planned edits: only when nothing was refused. `uses` then
  // counts the uses of every value in the tree, for RemoveUnused.
  void Commit() {
    for (auto& [nodes, edits] : edits_) {
      NodeListEditor editor(nodes);
      for (auto& [index, replacement] : edits) editor.Replace(index, std::move(replacement));
      editor.Commit();
    }
  }

  // Constants (nodes, or initializers of `graph`) that fed only inputs an
  // adapter turned back into attributes.
  void RemoveUnused(onnx::GraphProto* graph, google::protobuf::RepeatedPtrField<onnx::NodeProto>* root) {
    if (released_.empty()) return;
    std::unordered_map<std::string, int> uses;
    CountUses(*root, &uses);
    if (graph)
      for (const auto& out : graph->output()) ++uses[out.name()];
    auto unused = [&](const std::string& name) { return released_.count(name) && uses[name] == 0; };
    for (auto& entry : edits_) {
      std::unordered_set<const onnx::NodeProto*> dead;
      for (const auto& n : *entry.first)
        if (n.op_type() == "Constant" && IsDefaultDomain(n.domain()) && n.output_size() == 1 && unused(n.output(0))) dead.insert(&n);
      RemoveElements(entry.first, dead);
    }
    if (!graph) return;
    std::unordered_set<std::string> inputs;
    for (const auto& in : graph->input()) inputs.insert(in.name());
    std::unordered_set<const onnx::TensorProto*> dead;
    for (const auto& init : graph->initializer())
      if (!inputs.count(init.name()) && unused(init.name())) dead.insert(&init);
    RemoveElements(graph->mutable_initializer(), dead);
  }

 private:
  void PlanNode(google::protobuf::RepeatedPtrField<onnx::NodeProto>* nodes, int i, const std::string& path) {
    const onnx::NodeProto& original = nodes->Get(i);
    NodeConversion record;
    record.graph = path;
    record.node = original.name();
    record.op = original.op_type();
    record.first_output = original.output_size() ? original.output(0) : "";

    onnx::NodeProto node;
    bool copied = false;
    AdapterContext ctx(index_);
    const onnx::NodeProto* current = &original;
    auto edit = [&]() -> onnx::NodeProto* {
      if (!copied) {
        node = original;
        copied = true;
        current = &node;
      }
      return &node;
    };
    Status s = CheckRequiredArity(original, from_);
    if (s.ok()) s = from_ < to_ ? Raise(current, edit, &ctx, &record) : Lower(current, edit, &ctx, &record);
    if (!s.ok()) {
      record.refusal = s.message();
      report_->refused.push_back(std::move(record));
      return;
    }
    if (!copied) return;
    if (HasSubgraph(node)) {
      record.refusal = "an adapter would copy a node that holds subgraphs (not supported)";
      report_->refused.push_back(std::move(record));
      return;
    }
    std::unordered_set<std::string> still_read(node.input().begin(), node.input().end());
    for (const auto& in : original.input())
      if (!in.empty() && !still_read.count(in)) released_.insert(in);
    std::vector<onnx::NodeProto> replacement = ctx.TakeBefore();
    replacement.push_back(std::move(node));
    for (auto& n : ctx.TakeAfter()) replacement.push_back(std::move(n));
    edits_[nodes].emplace_back(i, std::move(replacement));
    report_->converted.push_back(std::move(record));
  }

  template <typename Edit>
  Status Raise(const onnx::NodeProto*& current, Edit& edit, AdapterContext* ctx, NodeConversion* record) {
    int at = from_;
    for (int guard = 0; guard < 64; ++guard) {
      const std::string op = current->op_type();
      bool changed_op = false;
      for (const OpsetChange* c : ChangesBetween(op, at, to_)) {
        if (c->kind != ChangeKind::kSemantic) continue;
        const OpsetAdapter* a = FindAdapter(op, c->since_version);
        if (!a || !a->up)
          return Refuse(fmt::format("{} changes at opset {} ({}) and onnx-remap has no adapter for that", op, c->since_version, c->note));
        if (a->up != IdentityAdapter()) {
          Status s = a->up(edit(), ctx);
          if (!s.ok()) return Refuse(fmt::format("{} {}: {}", op, c->since_version, s.message()));
          record->steps.push_back(fmt::format("{} {}: {}", op, c->since_version, a->what));
        }
        if (current->op_type() != op) {
          at = c->since_version;
          changed_op = true;
          break;
        }
      }
      if (!changed_op) return Status::Ok();
    }
    return Refuse("too many operator replacements");
  }

  template <typename Edit>
  Status Lower(const onnx::NodeProto*& current, Edit& edit, AdapterContext* ctx, NodeConversion* record) {
    int at = from_;
    for (int guard = 0; guard < 64; ++guard) {
      const std::string op = current->op_type();
      std::vector<const OpsetChange*> changes = ChangesBetween(op, to_, at);
      std::reverse(changes.begin(), changes.end());
      bool changed_op = false;
      bool any_change = !changes.empty();
      for (const OpsetChange* c : changes) {
        const OpsetAdapter* a = FindAdapter(op, c->since_version);
        if (c->kind == ChangeKind::kTypesOnly && !a) continue;
        if (!a || !a->down) {
          if (c->kind == ChangeKind::kIntroduced)
            return Refuse(fmt::format("{} does not exist before opset {}", op, c->since_version));
          return Refuse(fmt::format("{} changed at opset {} ({}) and the older form cannot express this node", op,
                                    c->since_version, c->note));
        }
        if (a->down != IdentityAdapter()) {
          Status s = a->down(edit(), ctx);
          if (!s.ok()) return Refuse(fmt::format("{} {}: {}", op, c->since_version, s.message()));
          record->steps.push_back(fmt::format("{} {} (lowered): {}", op, c->since_version, a->what));
        }
        if (current->op_type() != op) {
          at = c->since_version - 1;
          changed_op = true;
          break;
        }
      }
      if (changed_op) continue;
      if (!any_change) return Status::Ok();
      // Attributes added by types-only changes: dropped when they hold their default.
      onnx::NodeProto probe = *current;
      TrimInputs(&probe);  // absent optional inputs at the end: the older version may take fewer
      Status s = CheckLoweredAttributes(&probe, at, to_);
      if (s.ok()) s = CheckLoweredTypes(probe, to_, *ctx);
      if (s.ok() && to_ < 11 && at >= 11) s = NormalizeNegativeAxes(&probe, *ctx);
      if (!s.ok()) return s;
      if (probe.SerializeAsString() != current->SerializeAsString()) *edit() = std::move(probe);
      return Status::Ok();
    }
    return Refuse("too many operator replacements");
  }

  GraphIndex* index_;
  int from_, to_;
  ConversionReport* report_;
  std::map<google::protobuf::RepeatedPtrField<onnx::NodeProto>*, std::vector<std::pair<int, std::vector<onnx::NodeProto>>>> edits_;
  std::unordered_set<std::string> released_;  // inputs converted nodes no longer read
};

std::unordered_map<std::string, int> Opsets(const google::protobuf::RepeatedPtrField<onnx::OperatorSetIdProto>& imports,
                                            int default_opset) {
  std::unordered_map<std::string, int> out;
  for (const auto& op : imports) out[op.domain()] = static_cast<int>(op.version());
  out[""] = default_opset;
  return out;
}

}  // namespace

int OldestConvertibleOpset() { return 7; }
int NewestConvertibleOpset() { return NewestTabledOpset(); }

Expected<ConversionReport> ConvertOpset(onnx::ModelProto* model, int to) {
  if (to < OldestConvertibleOpset() || to > NewestConvertibleOpset())
    return Status(ErrorCode::kOpsetRefused, fmt::format("opset {} is outside the opsets onnx-remap converts between ({} to {})", to,
                                                        OldestConvertibleOpset(), NewestConvertibleOpset()));
  ConversionReport report;
  const int from = DefaultOpset(model->opset_import());
  report.from = from;
  report.to = to;
  std::vector<std::unique_ptr<Converter>> converters;
  std::vector<std::unique_ptr<GraphIndex>> indexes;
  std::vector<std::unique_ptr<TypeOracle>> oracles;
  struct Root {
    onnx::GraphProto* graph;  // the main graph; null for a function
    google::protobuf::RepeatedPtrField<onnx::NodeProto>* nodes;
  };
  std::vector<Root> roots;
  auto plan = [&](GraphIndex index, int own_from, const google::protobuf::RepeatedPtrField<onnx::OperatorSetIdProto>& imports,
                  google::protobuf::RepeatedPtrField<onnx::NodeProto>* nodes, const std::string& path) {
    indexes.push_back(std::make_unique<GraphIndex>(std::move(index)));
    oracles.push_back(std::make_unique<TypeOracle>(indexes.back().get(), Opsets(imports, own_from)));
    indexes.back()->AttachTypeOracle(oracles.back().get());
    converters.push_back(std::make_unique<Converter>(indexes.back().get(), own_from, to, &report));
    converters.back()->Plan(nodes, path);
    roots.push_back(Root{nodes == model->mutable_graph()->mutable_node() ? model->mutable_graph() : nullptr, nodes});
  };
  if (from != 0 && from != to)
    plan(GraphIndex::ForGraph(model->graph()), from, model->opset_import(), model->mutable_graph()->mutable_node(),
         model->graph().name());
  for (auto& f : *model->mutable_functions()) {
    const int f_from = DefaultOpset(f.opset_import());
    if (f_from != 0 && f_from != to)
      plan(GraphIndex::ForFunction(f), f_from, f.opset_import(), f.mutable_node(), fmt::format("function {}::{}", f.domain(), f.name()));
  }
  if (!report.refused.empty()) return report;
  for (auto& c : converters) c->Commit();
  for (size_t k = 0; k < converters.size(); ++k) converters[k]->RemoveUnused(roots[k].graph, roots[k].nodes);
  SetDefaultOpset(model, to);
  return report;
}

std::string DescribeConversion(const ConversionReport& report) {
  std::string line = fmt::format("default opset {} from {} to {}", report.to > report.from ? "raised" : "lowered", report.from, report.to);
  if (report.converted.empty()) return line;
  std::map<std::string, int> counts;  // "Squeeze 13" -> nodes
  for (const NodeConversion& c : report.converted)
    for (const std::string& step : c.steps) ++counts[step.substr(0, step.find(':'))];
  std::string list;
  for (const auto& [what, n] : counts) list += fmt::format("{}{}{}", list.empty() ? "" : ", ", what, n > 1 ? fmt::format(" x{}", n) : "");
  return fmt::format("{}; {} node{} adapted ({})", line, report.converted.size(), report.converted.size() == 1 ? "" : "s", list);
}

std::string DescribeRefusals(const ConversionReport& report) {
  std::string list;
  const size_t shown = std::min<size_t>(report.refused.size(), 5);
  for (size_t k = 0; k < shown; ++k) {
    const NodeConversion& r = report.refused[k];
    const std::string who = r.node.empty() ? fmt::format("the {} producing '{}'", r.op, r.first_output)
                                           : fmt::format("'{}' ({})", r.node, r.op);
    list += fmt::format("{}{}: {}", k ? "; " : "", who, r.refusal);
  }
  if (report.refused.size() > shown) list += fmt::format("; and {} more", report.refused.size() - shown);
  return fmt::format("cannot convert from opset {} to {}: {} node{} cannot: {}", report.from, report.to, report.refused.size(),
                     report.refused.size() == 1 ? "" : "s", list);
}

}  // namespace remap
