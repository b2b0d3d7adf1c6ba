#include "engine/outcome_interner.h"

#include <functional>
#include <utility>

namespace remap {

namespace {

size_t Combine(size_t seed, size_t h) { return seed ^ (h + 0x9e3779b97f4a7c15ull + (seed << 6) + (seed >> 2)); }

size_t HashLocation(size_t seed, const SourceLocation& l) {
  return Combine(Combine(seed, static_cast<size_t>(l.line)), static_cast<size_t>(l.column));
}

}  // namespace

SharedString OutcomeInterner::String(std::string_view s) {
  if (s.empty()) return {};
  auto it = strings_.find(s);
  if (it != strings_.end()) return it->second;
  SharedString kept{std::string(s)};
  strings_.emplace(std::string_view(kept.str()), kept);
  return kept;
}

template <typename T, typename Hash>
SharedList<T> OutcomeInterner::Intern(ListPool<T>* pool, std::vector<T> items, Hash hash) {
  if (items.empty()) return {};
  size_t h = items.size();
  for (const T& item : items) h = Combine(h, hash(item));
  std::vector<SharedList<T>>& same_hash = (*pool)[h];
  for (const SharedList<T>& list : same_hash) {
    if (list == items) return list;
  }
  same_hash.emplace_back(std::move(items));
  return same_hash.back();
}

SharedList<std::string> OutcomeInterner::Names(std::vector<std::string> names) {
  return Intern(&names_, std::move(names), std::hash<std::string>());
}

SharedList<CandidateOutcome> OutcomeInterner::Candidates(std::vector<CandidateOutcome> candidates) {
  return Intern(&candidates_, std::move(candidates), [](const CandidateOutcome& c) {
    size_t h = Combine(std::hash<std::string>()(c.rule), std::hash<std::string>()(c.reason));
    h = Combine(h, static_cast<size_t>(c.refusal) * 31 + static_cast<size_t>(c.needs_opset));
    return HashLocation(HashLocation(h, c.rule_location), c.alternative_location);
  });
}

}  // namespace remap
