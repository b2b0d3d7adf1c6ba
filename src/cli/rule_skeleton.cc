#include "cli/rule_skeleton.h"

#include <cctype>
#include <set>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "cli/value_provenance.h"
#include "model/graph_index.h"
#include "model/opset_import.h"
#include "rules/aten_schemas.h"
#include "rules/signature.h"

namespace remap::cli {

namespace {

// What the rule says, gathered before it is written out.
struct Draft {
  std::string id;
  std::vector<std::string> header;  // comment lines above the rule
  std::string match;                // the inside of `match { ... }`
  std::string match_note;
  std::string signature;
  std::string signature_note;
  std::vector<std::string> notes;   // comment lines after the signature
  int min_opset = 9;
  std::string min_opset_note;
};

// A textproto string literal.
std::string Quote(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    if (c == '\n') { out += "\\n"; continue; }
    out += c;
  }
  return out + "\"";
}

// Text from the model placed in a `#` comment stays on its line.
std::string OneLine(std::string s) {
  for (char& c : s) if (c == '\n' || c == '\r') c = ' ';
  return s;
}

// "user-aten-erfinv", "user-custom-deform-conv2d": lower-case kebab case, and
// "user-" so that it never replaces a built-in rule by accident.
std::string RuleId(const std::string& ns, const std::string& name) {
  std::string id = "user";
  for (const std::string& part : {ns, name}) {
    if (part.empty()) continue;
    id += '-';
    for (char c : part) {
      char l = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      if (std::isalnum(static_cast<unsigned char>(l))) id += l;
      else if (id.back() != '-') id += '-';
    }
    while (id.back() == '-') id.pop_back();
  }
  return id;
}

// The catalog's hint about the operator's standard form, as comment lines.
void AddCatalogHint(const AtenSchema& s, std::vector<std::string>* lines) {
  if (s.mapping == "-" || s.mapping.empty()) {
    lines->push_back("# The ATen catalog found no practical standard ONNX form for it. If that holds, keep");
    lines->push_back("# no_standard_form, with the reason and what users can do instead, and no alternative.");
    return;
  }
  std::string opset = s.min_opset;
  const std::string verified = " \xE2\x9C\x93";  // " ✓": checked in onnxruntime
  bool checked = opset.size() >= verified.size() && opset.compare(opset.size() - verified.size(), verified.size(), verified) == 0;
  if (checked) opset.resize(opset.size() - verified.size());
  lines->push_back(fmt::format("# The ATen catalog's standard form: {} (min opset {}{}).", OneLine(s.mapping), opset,
                               checked ? ", checked in onnxruntime" : ""));
}

int CatalogMinOpset(const AtenSchema& s) {
  int n = std::atoi(s.min_opset.c_str());
  return n >= 1 ? n : 9;
}

// "self (Tensor), dim (int)"
std::string ArgumentList(const Signature& sig) {
  std::vector<std::string> parts;
  for (const Argument& a : sig.args) parts.push_back(fmt::format("{} ({})", a.name, a.type_text));
  return parts.empty() ? "none" : fmt::format("{}", fmt::join(parts, ", "));
}

std::string Render(const Draft& d, const Signature& sig) {
  std::string out;
  for (const auto& line : d.header) out += line + "\n";
  out += "rule {\n";
  out += fmt::format("  id: {}\n", Quote(d.id));
  out += "  doc: \"TODO: what the rule does, in one paragraph (shown by 'onnx-remap rules show')\"\n";
  if (!d.match_note.empty()) out += "  # " + d.match_note + "\n";
  out += fmt::format("  match {{ {} }}\n", d.match);
  if (!d.signature_note.empty()) out += "  # " + d.signature_note + "\n";
  out += fmt::format("  signature: {}\n", Quote(d.signature));
  for (const auto& line : d.notes) out += "  " + line + "\n";
  out += "  # TODO: a placeholder that keeps this file loadable while it has no alternative: a node it\n"
         "  # matches is left unmapped with this text as the reason. Delete it once the alternative is in.\n";
  out += fmt::format("  no_standard_form: {}\n",
                     Quote(fmt::format("TODO: rule '{}' from 'onnx-remap rules new' has no alternative yet", d.id)));
  std::vector<std::string> tensors;
  for (const Argument& a : sig.args)
    if (IsTensorType(a.type)) tensors.push_back(a.name);
  out += "  # TODO: the replacement. Uncomment the alternative, write its nodes in ONNX text syntax\n"
         "  # (docs/rule-format.md#replace-onnx-text-syntax) and set min_opset.\n";
  out += fmt::format("  # Arguments: {}.\n", ArgumentList(sig));
  out += fmt::format("  # Returns (the node's outputs): {}.\n", fmt::join(sig.returns, ", "));
  out += "  # alternative {\n";
  out += fmt::format("  #   min_opset: {}  # {}\n", d.min_opset, d.min_opset_note);
  out += "  #   # when: \"...\"  # optional: a guard over the arguments, e.g. \"dim >= 0\"\n";
  out += fmt::format("  #   replace: {}\n", Quote(fmt::format("{} = TODO({})", fmt::join(sig.returns, ", "), fmt::join(tensors, ", "))));
  out += "  # }\n";
  out += "}\n";
  return out;
}

// The signature the schema table gives `op`, or nothing.
std::optional<std::string> TableSignature(const std::string& op, const AtenSchema** entry) {
  *entry = FindAtenSchema(op);
  if (!*entry) return std::nullopt;
  auto sig = SchemaToSignature((*entry)->schema);
  if (!sig) return std::nullopt;
  return *sig;
}

const std::set<std::string>& ReservedNames() {
  // Words of the expression language and names the signature itself uses.
  static const std::set<std::string> names{"and", "or", "not", "in", "is", "if", "else", "elif", "for", "None",
                                           "True", "False", "math", "lambda", "out"};
  return names;
}

// An argument name for input `k`: what its value's name suggests, else input{k}.
std::string InputArgumentName(const std::string& hint, size_t k, std::set<std::string>* taken) {
  std::string name = hint;
  bool ok = !name.empty() && !ReservedNames().count(name) && !taken->count(name) && name.rfind("out", 0) != 0;
  if (!ok) name = fmt::format("input{}", k);
  while (taken->count(name)) name += "_";
  taken->insert(name);
  return name;
}

bool IsAtenBookkeeping(const NodeForm& form, const std::string& attribute) {
  return form.kind == NodeForm::Kind::kAtenFallback && (attribute == "operator" || attribute == "overload_name");
}

// A signature from the node itself: its inputs in order, typed by how they
// arrive, then its attributes (bound by name).
std::string DerivedSignature(const std::string& qualified, const onnx::NodeProto& node, const NodeForm& form,
                             const GraphIndex& index) {
  std::set<std::string> taken;
  for (const auto& a : node.attribute()) taken.insert(a.name());
  std::vector<std::string> args;
  for (int k = 0; k < node.input_size(); ++k) {
    Provenance p = DescribeInput(node.input(k), index);
    args.push_back(fmt::format("{} {}", p.type, InputArgumentName(p.name_hint, static_cast<size_t>(k), &taken)));
  }
  for (const auto& a : node.attribute())
    if (!IsAtenBookkeeping(form, a.name())) args.push_back(fmt::format("{} {}", AttributeSignatureType(a), a.name()));
  std::string returns = "Tensor";
  if (node.output_size() > 1) returns = fmt::format("({})", fmt::join(std::vector<std::string>(static_cast<size_t>(node.output_size()), "Tensor"), ", "));
  return fmt::format("{}({}) -> {}", qualified, fmt::join(args, ", "), returns);
}

const onnx::AttributeProto* FindAttribute(const onnx::NodeProto& node, const std::string& name) {
  for (const auto& a : node.attribute())
    if (a.name() == name) return &a;
  return nullptr;
}

// The binding as the engine does it (attribute of the same name, else the
// next input, else the default), one comment line per argument and leftover
// input. Returns whether the signature fits: no input left over, no argument
// left with nothing.
bool DescribeBinding(const onnx::NodeProto& node, const NodeForm& form, const Signature& sig, const GraphIndex& index,
                     std::vector<std::string>* lines) {
  bool fits = true;
  size_t width = 6;
  for (const Argument& a : sig.args) width = std::max(width, a.name.size());
  int next = 0;
  std::set<std::string> bound_attributes;
  for (const Argument& a : sig.args) {
    std::string what;
    if (const onnx::AttributeProto* attr = FindAttribute(node, a.name)) {
      what = fmt::format("attribute {}: {}", a.name, DescribeAttribute(*attr));
      bound_attributes.insert(a.name);
    } else if (next < node.input_size()) {
      const std::string& v = node.input(next);
      what = fmt::format("input {} '{}': {}", next, v, OneLine(DescribeInput(v, index).text));
      ++next;
    } else if (a.default_value) {
      what = fmt::format("no input: its default, {}", ToString(*a.default_value));
    } else if (a.optional) {
      what = "no input: None";
    } else {
      what = "no input and no default: the rule refuses the node";
      fits = false;
    }
    lines->push_back(fmt::format("#   {:<{}} <- {}", a.name, width, what));
  }
  for (; next < node.input_size(); ++next) {
    const std::string& v = node.input(next);
    lines->push_back(fmt::format("#   {:<{}} <- input {} '{}': {}; no argument is left for it", "(none)", width, next, v,
                                 OneLine(DescribeInput(v, index).text)));
    fits = false;
  }
  for (const auto& a : node.attribute()) {
    if (bound_attributes.count(a.name()) || IsAtenBookkeeping(form, a.name())) continue;
    lines->push_back(fmt::format("#   {:<{}} <- attribute {}: {}; it names no argument", "(none)", width, a.name(),
                                 DescribeAttribute(a)));
    fits = false;
  }
  for (int k = 0; k < node.output_size(); ++k) {
    std::string ret = static_cast<size_t>(k) < sig.returns.size() ? sig.returns[static_cast<size_t>(k)] : "(none)";
    lines->push_back(fmt::format("#   {:<{}} -> output {} '{}'", ret, width, k, node.output(k)));
  }
  return fits;
}

std::string Opsets(const onnx::ModelProto& model) {
  std::vector<std::string> parts;
  for (const auto& o : model.opset_import())
    parts.push_back(fmt::format("{} {}", IsDefaultDomain(o.domain()) ? "default domain" : o.domain(), o.version()));
  return fmt::format("{}", fmt::join(parts, ", "));
}

std::string FormText(const onnx::NodeProto& node, const NodeForm& form) {
  switch (form.kind) {
    case NodeForm::Kind::kAtenFallback:
      return fmt::format("ATen fallback ({}<operator=\"{}\", overload_name=\"{}\">)", OpName(node), form.aten_operator, form.overload);
    case NodeForm::Kind::kAtenOpType: return fmt::format("ATen fall-through ({})", OpName(node));
    case NodeForm::Kind::kCustom: return fmt::format("custom op ({})", OpName(node));
    case NodeForm::Kind::kStandard: break;
  }
  return OpName(node);
}

Expected<Signature> Parsed(const std::string& text) {
  Signature sig;
  SignatureError e;
  if (!ParseSignature(text, &sig, &e))
    return Status(ErrorCode::kInvalidModel, fmt::format("cannot write a signature for it: '{}' at column {}: {}", text, e.offset + 1, e.message));
  return sig;
}

}  // namespace

Expected<std::string> RuleForOperator(const std::string& spec) {
  const AtenSchema* entry = nullptr;
  auto signature = TableSignature(spec, &entry);
  // "aten::foo" or "foo"; "torchvision::nms" for the table's torchvision operators.
  size_t colons = spec.find("::");
  if (signature && colons != std::string::npos && entry->schema.compare(0, colons + 2, spec, 0, colons + 2) != 0)
    signature.reset();
  if (!signature)
    return Status(ErrorCode::kUsage,
                  fmt::format("'{}' is not in the schema table ({} ATen operators); to start from a node instead: "
                              "onnx-remap rules new MODEL NODE", spec, AtenSchemas().size()));
  auto sig = Parsed(*signature);
  if (!sig) return sig.status();
  Draft d;
  d.id = RuleId(sig->ns, entry->op);
  d.header.push_back(fmt::format("# Starting rule for {}::{}, from the schema table (no model), by 'onnx-remap rules new'.", sig->ns, entry->op));
  d.header.push_back("# Next: write the alternative at the end, delete the no_standard_form placeholder, then");
  d.header.push_back("#   onnx-remap rewrite MODEL -o OUT --rules THIS_FILE");
  AddCatalogHint(*entry, &d.header);
  d.match = fmt::format("aten: {}", Quote(entry->op));
  d.match_note = fmt::format("every form PyTorch gives {}::{}: ATen fallback and fall-through", sig->ns, entry->op);
  d.signature = *signature;
  d.signature_note = "from the schema table (the overload PyTorch 1.13's tracer recorded)";
  d.min_opset = CatalogMinOpset(*entry);
  d.min_opset_note = "the lowest default-domain opset the replacement is valid at";
  return Render(d, *sig);
}

Expected<std::string> RuleForNode(const std::string& model_path, const onnx::ModelProto& model, const FoundNode& found) {
  const onnx::NodeProto& node = *found.node;
  const NodeForm& form = found.form;
  GraphIndex index = found.function ? GraphIndex::ForFunction(*found.function) : GraphIndex::ForGraph(*found.graph);
  bool aten = form.kind == NodeForm::Kind::kAtenFallback || form.kind == NodeForm::Kind::kAtenOpType;
  Draft d;
  const AtenSchema* entry = nullptr;
  std::optional<std::string> table;
  if (aten) {
    d.id = RuleId("aten", form.aten_operator);
    d.match = fmt::format("aten: {}", Quote(form.aten_operator));
    if (!form.overload.empty()) {
      d.match += fmt::format(" overload: {}", Quote(form.overload));
      d.match_note = "overload: the node's overload_name; drop it to match every overload (exporters often leave it empty or wrong)";
    } else {
      d.match_note = fmt::format("every form PyTorch gives aten::{}: ATen fallback and fall-through", form.aten_operator);
    }
    table = TableSignature(form.aten_operator, &entry);
  } else {
    d.id = RuleId(node.domain(), node.op_type());
    d.match = fmt::format("domain: {} op_type: {}", Quote(node.domain()), Quote(node.op_type()));
    entry = FindAtenSchema(node.op_type());  // a custom symbolic of a known operator: shown for reference only
  }
  if (table) {
    d.signature = *table;
    d.signature_note = "from the schema table (the overload PyTorch 1.13's tracer recorded)";
  } else {
    std::string qualified = aten ? "aten::" + form.aten_operator + (form.overload.empty() ? "" : "." + form.overload)
                                 : node.domain().empty() ? node.op_type() : node.domain() + "::" + node.op_type();
    d.signature = DerivedSignature(qualified, node, form, index);
    d.signature_note = "derived from the node (not in the schema table): check names, types and defaults";
  }
  auto sig = Parsed(d.signature);
  if (!sig) return sig.status();

  const int opset = DefaultOpset(model.opset_import());
  std::string op_text = aten && form.kind == NodeForm::Kind::kAtenFallback ? OpName(node) + " " + form.aten_operator : OpName(node);
  d.header.push_back(fmt::format("# Starting rule for node '{}' ({}) in {} of {},", OneLine(node.name()), op_text, found.where,
                                 OneLine(model_path)));
  d.header.push_back("# by 'onnx-remap rules new'. Next: write the alternative at the end, delete the no_standard_form");
  d.header.push_back(fmt::format("# placeholder, then: onnx-remap rewrite {} -o OUT --rules THIS_FILE", OneLine(model_path)));
  d.header.push_back(fmt::format("# Model: opsets {}; IR {}{}.", Opsets(model), model.ir_version(),
                                 model.producer_name().empty() ? "" : fmt::format("; producer {} {}", OneLine(model.producer_name()), OneLine(model.producer_version()))));
  d.header.push_back(fmt::format("# Node: {}, {} input{}, {} output{}.", FormText(node, form), node.input_size(),
                                 node.input_size() == 1 ? "" : "s", node.output_size(), node.output_size() == 1 ? "" : "s"));
  if (entry && !table) d.header.push_back(fmt::format("# The schema table's {}, for reference: {}", entry->op, entry->schema));
  if (entry && table) AddCatalogHint(*entry, &d.header);
  d.header.push_back("# How the node binds to the signature (attribute of the same name, else the next input, else the default):");
  bool fits = DescribeBinding(node, form, *sig, index, &d.header);
  if (!fits) {
    d.notes.push_back("# TODO: the signature does not fit this node's inputs and attributes (see the binding above):");
    d.notes.push_back("# the rule would refuse it. Adjust the signature to what the exporter wrote.");
  }
  if (table && !form.overload.empty() && sig->overload != form.overload)
    d.notes.push_back(fmt::format("# The node's overload is '{}', the schema table's '{}': check the signature.", form.overload, sig->overload));
  d.min_opset = opset > 0 ? opset : 9;
  d.min_opset_note = fmt::format("the lowest default-domain opset the replacement is valid at (the model has {})", opset);
  return Render(d, *sig);
}

}  // namespace remap::cli
