// Memory for the large structures the index probes at random: the slots of
// its flat tables, their items and the arena of their names. A million-name
// table is over a hundred megabytes; in 4 KiB pages nearly every probe also
// misses the TLB, and in a virtual machine a TLB miss walks two page tables.
// Blocks of at least kHugePagesFrom bytes are mapped on their own and advised
// to use transparent huge pages (2 MiB), so a table's slots fit the TLB.
// Where the kernel has THP off, the advice changes nothing and the pages stay
// 4 KiB; smaller blocks come from operator new as before.
#pragma once

#include <cstddef>
#include <memory_resource>

namespace remap {

inline constexpr size_t kHugePagesFrom = size_t{4} << 20;

// `bytes` of memory: in a mapping of its own (zeroed), advised to use huge
// pages when `bytes` >= kHugePagesFrom, else from operator new (not zeroed).
// Throws std::bad_alloc when none can be had.
void* AllocateLarge(size_t bytes);
void FreeLarge(void* p, size_t bytes) noexcept;

// For std::vector: the same, per array.
template <typename T>
class HugePageAllocator {
 public:
  using value_type = T;

  HugePageAllocator() = default;
  template <typename U>
  HugePageAllocator(const HugePageAllocator<U>&) noexcept {}

  T* allocate(size_t n) { return static_cast<T*>(AllocateLarge(n * sizeof(T))); }
  void deallocate(T* p, size_t n) noexcept { FreeLarge(p, n * sizeof(T)); }

  template <typename U>
  bool operator==(const HugePageAllocator<U>&) const noexcept { return true; }
  template <typename U>
  bool operator!=(const HugePageAllocator<U>&) const noexcept { return false; }
};

// For std::pmr buffers (the name arena): its large blocks the same way.
class HugePageResource : public std::pmr::memory_resource {
 public:
  // The one instance; it holds no state.
  static HugePageResource* Get();

 private:
  void* do_allocate(size_t bytes, size_t alignment) override;
  void do_deallocate(void* p, size_t bytes, size_t alignment) override;
  bool do_is_equal(const std::pmr::memory_resource& other) const noexcept override { return this == &other; }
};

}  // namespace remap
