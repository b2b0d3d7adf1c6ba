// A set of 64-bit hashes in one flat array, probed linearly: the index keeps
// node names as hashes (a million-node model has a million of them), and a
// node-based std::unordered_set cost a cache miss per step of each insert.
#pragma once

#include <cstddef>
#include <cstdint>

#include "model/flat_slots.h"

namespace remap {

class HashSet {
 public:
  size_t size() const { return size_; }

  // Room for `n` hashes without growing.
  void Reserve(size_t n) { slots_.Reserve(n, [](uint64_t h) { return h; }); }

  // Adds `hash`; false when it was there already.
  bool Insert(uint64_t hash) {
    Reserve(size_ + 1);
    const uint64_t h = Stored(hash);
    const size_t i = slots_.Probe(h, [h](uint64_t word) { return word == h; });
    if (slots_[i] != 0) return false;
    slots_[i] = h;
    ++size_;
    return true;
  }

  void Prefetch(uint64_t hash) const { slots_.Prefetch(Stored(hash)); }

  bool Contains(uint64_t hash) const {
    if (size_ == 0) return false;
    const uint64_t h = Stored(hash);
    return slots_[slots_.Probe(h, [h](uint64_t word) { return word == h; })] != 0;
  }

 private:
  // 0 marks an empty slot, so a hash of 0 is stored as 1: the two then count
  // as one, which for names kept by hash only means one more name passed over.
  static uint64_t Stored(uint64_t hash) { return hash == 0 ? 1 : hash; }

  FlatSlots slots_;
  size_t size_ = 0;
};

}  // namespace remap
