#include "rules/aten_schemas.h"

#include <algorithm>
#include <cctype>
#include <sstream>

#include <fmt/format.h>

#include "rules/signature.h"

namespace remap {

namespace {

std::vector<AtenSchema> ParseTable(const char* text) {
  std::vector<AtenSchema> out;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::vector<std::string> cells;
    size_t start = 0;
    while (true) {
      size_t tab = line.find('\t', start);
      cells.push_back(line.substr(start, tab == std::string::npos ? std::string::npos : tab - start));
      if (tab == std::string::npos) break;
      start = tab + 1;
    }
    cells.resize(4);
    out.push_back(AtenSchema{cells[0], cells[1], cells[2], cells[3]});
  }
  std::sort(out.begin(), out.end(), [](const AtenSchema& a, const AtenSchema& b) { return a.op < b.op; });
  return out;
}

}  // namespace

const std::vector<AtenSchema>& AtenSchemas() {
  static const std::vector<AtenSchema> table = ParseTable(AtenSchemaTableText());
  return table;
}

const AtenSchema* FindAtenSchema(const std::string& op) {
  std::string name = op;
  size_t colons = name.rfind("::");
  if (colons != std::string::npos) name = name.substr(colons + 2);
  name = name.substr(0, name.find('.'));
  const auto& table = AtenSchemas();
  auto it = std::lower_bound(table.begin(), table.end(), name, [](const AtenSchema& s, const std::string& n) { return s.op < n; });
  return it != table.end() && it->op == name ? &*it : nullptr;
}

Expected<std::string> SchemaToSignature(const std::string& schema) {
  std::string out;
  out.reserve(schema.size());
  size_t open = schema.find('(');
  if (open == std::string::npos) return Status(ErrorCode::kRuleSyntax, fmt::format("'{}' has no argument list", schema));
  out.append(schema, 0, open + 1);
  for (size_t p = open + 1; p < schema.size(); ++p) {
    // An annotation follows a type name directly: "Tensor(a!) self", "-> Tensor(a)[]".
    bool after_type = out.size() >= 6 && out.compare(out.size() - 6, 6, "Tensor") == 0;
    if (schema[p] == '(' && after_type) {
      size_t close = schema.find(')', p);
      if (close == std::string::npos) return Status(ErrorCode::kRuleSyntax, fmt::format("unclosed alias annotation in '{}'", schema));
      p = close;
      continue;
    }
    out.push_back(schema[p]);
  }
  Signature sig;
  SignatureError error;
  if (!ParseSignature(out, &sig, &error))
    return Status(ErrorCode::kRuleSyntax, fmt::format("'{}' at column {}: {}", out, error.offset + 1, error.message));
  return out;
}

}  // namespace remap
