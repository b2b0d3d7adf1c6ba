#include "model/schema_catalog.h"

#include <algorithm>
#include <cstring>
#include <mutex>
#include <optional>

#include "model/schema_lookup.h"
#include "model/schema_table.h"

namespace remap {

struct SchemaCatalog::Slot {
  std::once_flag once;
  std::optional<onnx::OpSchema> schema;
};

SchemaCatalog::SchemaCatalog() : slots_(new Slot[kSchemaTableSize]) {}

const SchemaCatalog& SchemaCatalog::Instance() {
  // Never destroyed: the process's end need not tear schemas down, and a
  // static object's destructor may still look one up.
  static const SchemaCatalog* catalog = new SchemaCatalog();
  return *catalog;
}

const onnx::OpSchema* SchemaCatalog::GetSchema(const std::string& key, int max_version,
                                               const std::string& domain) const {
  return FindSchema(key, max_version, domain);
}

namespace {

// The table's first row of (domain, op_type), or the row where it would be.
const SchemaTableEntry* FirstRow(const std::string& op_type, const std::string& domain) {
  auto before = [](const SchemaTableEntry& e, const std::pair<const char*, const char*>& key) {
    const int d = std::strcmp(e.domain, key.first);
    return d < 0 || (d == 0 && std::strcmp(e.name, key.second) < 0);
  };
  return std::lower_bound(kSchemaTable, kSchemaTable + kSchemaTableSize, std::make_pair(domain.c_str(), op_type.c_str()),
                          before);
}

}  // namespace

bool SchemaCatalog::Defines(const std::string& op_type, const std::string& domain) {
  const SchemaTableEntry* row = FirstRow(op_type, domain);
  return row != kSchemaTable + kSchemaTableSize && row->domain == domain && row->name == op_type;
}

const onnx::OpSchema* SchemaCatalog::Lookup(const std::string& op_type, int max_version,
                                            const std::string& domain) const {
  const SchemaTableEntry* end = kSchemaTable + kSchemaTableSize;
  const SchemaTableEntry* first = FirstRow(op_type, domain);
  // The newest version at or below max_version, as OpSchemaRegistry::Schema.
  const SchemaTableEntry* chosen = nullptr;
  for (const SchemaTableEntry* e = first; e != end && e->domain == domain && e->name == op_type; ++e) {
    if (e->since_version > max_version) break;
    chosen = e;
  }
  if (!chosen) return nullptr;
  Slot& slot = slots_[chosen - kSchemaTable];
  std::call_once(slot.once, [&] {
    // ONNX's own schemas finalize; should one not, it is unknown, not fatal.
    try {
      onnx::OpSchema schema = chosen->build();
      schema.Finalize();
      slot.schema.emplace(std::move(schema));
    } catch (const std::exception&) {
    }
  });
  return slot.schema ? &*slot.schema : nullptr;
}

}  // namespace remap
