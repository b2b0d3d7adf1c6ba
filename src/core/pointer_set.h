// A set of object addresses in one flat array, probed linearly. A rewrite of
// a million-node graph marks a hundred thousand nodes dead; in a
// std::unordered_set each costs an allocation, and each lookup a walk from
// bucket to node, a cache miss at each step.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace remap {

template <typename T>
class PointerSet {
 public:
  bool empty() const { return size_ == 0; }
  size_t size() const { return size_; }

  // Adds `p` (never null); false when it was there already.
  bool insert(const T* p) {
    if ((size_ + 1) * 4 > slots_.size() * 3) Grow();
    const size_t i = Probe(p);
    if (slots_[i] == p) return false;
    slots_[i] = p;
    ++size_;
    return true;
  }
  bool contains(const T* p) const { return size_ > 0 && slots_[Probe(p)] == p; }

 private:
  // The slot holding `p`, or the empty one that ends its run (null marks empty).
  size_t Probe(const T* p) const {
    size_t i = Mix(p) & (slots_.size() - 1);
    while (slots_[i] != nullptr && slots_[i] != p) i = (i + 1) & (slots_.size() - 1);
    return i;
  }
  // Addresses share their low bits (alignment) and high bits: mixed, every
  // bit of the position depends on all of them (murmur3's finalizer).
  static uint64_t Mix(const T* p) {
    uint64_t x = reinterpret_cast<uintptr_t>(p);
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    return x;
  }
  void Grow() {
    std::vector<const T*> old(slots_.empty() ? 16 : slots_.size() * 2, nullptr);
    old.swap(slots_);
    for (const T* p : old) {
      if (p) slots_[Probe(p)] = p;
    }
  }

  std::vector<const T*> slots_;
  size_t size_ = 0;
};

}  // namespace remap
