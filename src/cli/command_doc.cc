#include "cli/command_doc.h"

namespace remap::cli {

namespace {

// CLI11 reports a validator only inside the type name ("TEXT:{json,junit}",
// "INT:INT in [1 - 1000]"), which is also what --help prints; a set of
// allowed values is the part in braces.
void ReadTypeName(const std::string& type_name, OptionDoc* o) {
  const size_t colon = type_name.find(':');
  o->value = type_name.substr(0, colon);
  if (colon == std::string::npos) return;
  o->limits = type_name.substr(colon + 1);
  if (o->limits.size() < 2 || o->limits.front() != '{' || o->limits.back() != '}') return;
  const std::string inner = o->limits.substr(1, o->limits.size() - 2);
  size_t start = 0;
  while (start <= inner.size()) {
    size_t comma = inner.find(',', start);
    if (comma == std::string::npos) comma = inner.size();
    o->choices.push_back(inner.substr(start, comma - start));
    start = comma + 1;
  }
}

OptionDoc DescribeOption(const CLI::Option& opt) {
  OptionDoc o;
  o.positional = !opt.nonpositional();
  if (o.positional) {
    o.names.push_back(opt.get_name(true));
  } else {
    for (const auto& s : opt.get_snames()) o.names.push_back("-" + s);
    for (const auto& l : opt.get_lnames()) o.names.push_back("--" + l);
  }
  // A flag expects no value; the --config option has no type name but takes a file.
  const bool takes_value = opt.get_expected_max() > 0;
  if (takes_value) ReadTypeName(opt.get_type_name(), &o);
  if (takes_value && o.value.empty()) o.value = "FILE";
  o.description = opt.get_description();
  o.required = opt.get_required();
  o.repeatable = opt.get_items_expected_max() > 1;  // a vector: repeatable, or several values
  return o;
}

CommandDoc Describe(const CLI::App& app, std::vector<std::string> path) {
  CommandDoc c;
  c.path = std::move(path);
  c.description = app.get_description();
  c.needs_subcommand = app.get_require_subcommand_min() > 0;
  // An empty group is how CLI11 hides an option from --help.
  for (const CLI::Option* opt : app.get_options([](const CLI::Option* o) { return !o->get_group().empty(); })) {
    OptionDoc o = DescribeOption(*opt);
    (o.positional ? c.positionals : c.options).push_back(std::move(o));
  }
  for (const CLI::App* sub : app.get_subcommands([](const CLI::App* s) { return !s->get_group().empty(); })) {
    std::vector<std::string> sub_path = c.path;
    sub_path.push_back(sub->get_name());
    c.subcommands.push_back(Describe(*sub, std::move(sub_path)));
  }
  return c;
}

}  // namespace

CommandDoc DescribeCommand(const CLI::App& app) { return Describe(app, {}); }

std::string CommandName(const CommandDoc& c) {
  std::string name = "onnx-remap";
  for (const auto& p : c.path) name += " " + p;
  return name;
}

}  // namespace remap::cli
