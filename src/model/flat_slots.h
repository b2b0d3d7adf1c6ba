// The slot array under the flat hash tables (NameTable, HashSet): 8-byte
// words, 0 for an empty slot, a power of two of them at most 3/4 full,
// probed linearly from the position the low bits of a hash give.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "model/huge_pages.h"

namespace remap {

class FlatSlots {
 public:
  // Room for `n` words; `hash_of(word)` gives back the hash a stored word was
  // placed by, to place it again when the array grows.
  template <typename HashOf>
  void Reserve(size_t n, HashOf&& hash_of) {
    // Every insert asks for room for one more: answer without the loop below.
    if (n <= slots_.size() / 4 * 3) return;
    size_t cap = 16;
    while (cap / 4 * 3 < n) cap *= 2;
    if (cap <= slots_.size()) return;
    Words old(cap, 0);
    old.swap(slots_);
    mask_ = cap - 1;
    for (uint64_t word : old) {
      if (word != 0) slots_[Probe(hash_of(word), [](uint64_t) { return false; })] = word;
    }
  }

  // The first slot from `hash`'s position whose word `is_match` accepts, or
  // the empty slot that ends the run. The array must not be empty.
  template <typename IsMatch>
  size_t Probe(uint64_t hash, IsMatch&& is_match) const {
    size_t i = hash & mask_;
    while (slots_[i] != 0 && !is_match(slots_[i])) i = (i + 1) & mask_;
    return i;
  }

  // Asks the CPU to load the slot `hash` starts at, ahead of a probe.
  void Prefetch(uint64_t hash) const {
    if (!slots_.empty()) __builtin_prefetch(&slots_[hash & mask_]);
  }

  // Empties every slot and keeps the array.
  void Clear() { std::fill(slots_.begin(), slots_.end(), uint64_t{0}); }

  bool empty() const { return slots_.empty(); }
  uint64_t operator[](size_t i) const { return slots_[i]; }
  uint64_t& operator[](size_t i) { return slots_[i]; }

 private:
  using Words = std::vector<uint64_t, HugePageAllocator<uint64_t>>;
  Words slots_;
  size_t mask_ = 0;
};

}  // namespace remap
