#include "model/schema_lookup.h"

#include <array>
#include <cstdint>

#include "model/name_hash.h"
#include "model/schema_catalog.h"

namespace remap {

namespace {

// One remembered answer. A direct-mapped table: a model uses a few dozen
// operators, and a collision only costs a catalog lookup.
struct Remembered {
  uint64_t hash = 0;
  int max_version = 0;
  bool filled = false;
  std::string op_type;
  std::string domain;
  const onnx::OpSchema* schema = nullptr;
};
constexpr size_t kSlots = 256;

}  // namespace

const onnx::OpSchema* FindSchema(const std::string& op_type, int max_version, const std::string& domain) {
  // Per thread: batch workers type and emit concurrently, and the entries' strings are rewritten on a miss.
  thread_local std::array<Remembered, kSlots> table;
  const uint64_t h =
      NameHash(op_type) ^ (NameHash(domain) * 0x9e3779b97f4a7c15ull) ^ (static_cast<uint64_t>(max_version) << 17);
  Remembered& r = table[(h ^ (h >> 29)) % kSlots];
  if (r.filled && r.hash == h && r.max_version == max_version && r.op_type == op_type && r.domain == domain)
    return r.schema;
  r.schema = SchemaCatalog::Instance().Lookup(op_type, max_version, domain);
  r.hash = h;
  r.max_version = max_version;
  r.op_type = op_type;
  r.domain = domain;
  r.filled = true;
  return r.schema;
}

}  // namespace remap
