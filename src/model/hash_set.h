// A set of 64-bit hashes in one flat array, probed linearly: the index keeps
// node names as hashes (a million-node model has a million of them), and a
// node-based std::unordered_set cost a cache miss per step of each insert.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace remap {

class HashSet {
 public:
  size_t size() const { return size_; }

  // Room for `n` hashes without growing.
  void Reserve(size_t n) {
    if (SlotsFor(n) > slots_.size()) Rehash(SlotsFor(n));
  }

  // Adds `hash`; false when it was there already.
  bool Insert(uint64_t hash) {
    if (SlotsFor(size_ + 1) > slots_.size()) Rehash(SlotsFor(size_ + 1));
    const uint64_t h = Stored(hash);
    size_t i = h & mask_;
    for (; slots_[i] != 0; i = (i + 1) & mask_) {
      if (slots_[i] == h) return false;
    }
    slots_[i] = h;
    ++size_;
    return true;
  }

  bool Contains(uint64_t hash) const {
    if (size_ == 0) return false;
    const uint64_t h = Stored(hash);
    for (size_t i = h & mask_; slots_[i] != 0; i = (i + 1) & mask_) {
      if (slots_[i] == h) return true;
    }
    return false;
  }

 private:
  // 0 marks an empty slot, so a hash of 0 is stored as 1: the two then count
  // as one, which for names kept by hash only means one more name passed over.
  static uint64_t Stored(uint64_t hash) { return hash == 0 ? 1 : hash; }
  // At most 3/4 full, in powers of two.
  static size_t SlotsFor(size_t n) {
    size_t cap = 16;
    while (cap / 4 * 3 < n) cap *= 2;
    return cap;
  }
  void Rehash(size_t cap) {
    std::vector<uint64_t> old;
    old.swap(slots_);
    slots_.assign(cap, 0);
    mask_ = cap - 1;
    for (uint64_t h : old) {
      if (h == 0) continue;
      size_t i = h & mask_;
      while (slots_[i] != 0) i = (i + 1) & mask_;
      slots_[i] = h;
    }
  }

  std::vector<uint64_t> slots_;
  size_t mask_ = 0;
  size_t size_ = 0;
};

}  // namespace remap
