#include "opset/opset_changes.h"

#include <algorithm>
#include <unordered_map>

namespace remap {

namespace {

using Index = std::unordered_map<std::string, std::vector<const OpsetChange*>>;

// Built once: op_type -> its rows sorted by since_version.
const Index& ByOpType() {
  static const Index index = [] {
    Index built;
    for (const OpsetChange& change : AllOpsetChanges()) built[change.op_type].push_back(&change);
    for (auto& entry : built) {
      std::stable_sort(entry.second.begin(), entry.second.end(),
                       [](const OpsetChange* a, const OpsetChange* b) {
                         return a->since_version < b->since_version;
                       });
    }
    return built;
  }();
  return index;
}

}  // namespace

const std::vector<OpsetChange>& AllOpsetChanges() {
  static const std::vector<OpsetChange> table = {
#include "opset_changes_table.inc"
  };
  return table;
}

std::vector<const OpsetChange*> ChangesBetween(const std::string& op_type, int from, int to) {
  std::vector<const OpsetChange*> result;
  if (from >= to) return result;
  const Index& index = ByOpType();
  auto it = index.find(op_type);
  if (it == index.end()) return result;
  const std::vector<const OpsetChange*>& rows = it->second;
  auto first = std::upper_bound(rows.begin(), rows.end(), from,
                                [](int version, const OpsetChange* c) { return version < c->since_version; });
  auto last = std::upper_bound(first, rows.end(), to,
                               [](int version, const OpsetChange* c) { return version < c->since_version; });
  result.assign(first, last);
  return result;
}

int NewestTabledOpset() {
  static const int newest = [] {
    int max_version = 0;
    for (const OpsetChange& change : AllOpsetChanges()) max_version = std::max(max_version, change.since_version);
    return max_version;
  }();
  return newest;
}

}  // namespace remap
