// One copy of each value the report records repeat: op names, rule ids,
// emitted op lists and candidate trails are interned for the length of one
// rewrite, so records of nodes rewritten alike share them.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "core/shared_string.h"
#include "match/refusal.h"

namespace remap {

class OutcomeInterner {
 public:
  SharedString String(std::string_view s);
  SharedList<std::string> Names(std::vector<std::string> names);
  SharedList<CandidateOutcome> Candidates(std::vector<CandidateOutcome> candidates);

 private:
  // Lists by the hash of their items; equal hashes are told apart by content.
  template <typename T>
  using ListPool = std::unordered_map<size_t, std::vector<SharedList<T>>>;
  template <typename T, typename Hash>
  static SharedList<T> Intern(ListPool<T>* pool, std::vector<T> items, Hash hash);

  std::unordered_map<std::string_view, SharedString> strings_;  // keys view the shared strings
  ListPool<std::string> names_;
  ListPool<CandidateOutcome> candidates_;
};

}  // namespace remap
