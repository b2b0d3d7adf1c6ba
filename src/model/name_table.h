// A hash table from value names to small records, for the maps built over a
// whole graph (the index and the load-time structure check). A million-node
// model has millions of names; in a node-based std::unordered_map each lookup
// walks bucket -> node -> key, a cache miss at every step, and the profile of
// a million-node rewrite had a quarter of its time in such walks. Here the
// slots are one flat array of 8-byte words (a hash tag and an item number,
// probed linearly), and the items live in fixed chunks that never move, so a
// reference to a value stays valid while others are inserted.
//
// Keys are string_views; the caller keeps the bytes alive (the index copies
// names into its arena, the structure check views the model's own strings).
// Nothing is erased one by one; Clear forgets every item at once.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <new>
#include <string_view>
#include <type_traits>
#include <vector>

#include "model/flat_slots.h"
#include "model/huge_pages.h"
#include "model/name_hash.h"

namespace remap {

template <typename V>
class NameTable {
 public:
  struct Item {
    std::string_view key;
    V value{};
  };

  NameTable() = default;
  NameTable(NameTable&&) noexcept = default;
  NameTable& operator=(NameTable&&) noexcept = default;
  NameTable(const NameTable&) = delete;
  NameTable& operator=(const NameTable&) = delete;

  size_t size() const { return size_; }

  // Room for `n` names without growing the slots.
  void Reserve(size_t n) {
    slots_.Reserve(n, [this](uint64_t word) { return Hash(At(word).key); });
  }

  // Forgets every item; keeps the slots and chunks for the next ones. A
  // table reused for one small scope after another stays small, in cache.
  void Clear() {
    if (size_ == 0) return;
    slots_.Clear();
    size_ = 0;
  }

  // The item named `name`, or nullptr.
  const Item* Find(std::string_view name) const {
    if (size_ == 0) return nullptr;
    const uint64_t h = Hash(name);
    const uint64_t word = slots_[slots_.Probe(h, Matches(h, name))];
    return word == 0 ? nullptr : &At(word);
  }
  Item* Find(std::string_view name) { return const_cast<Item*>(static_cast<const NameTable*>(this)->Find(name)); }

  // The item named `name`; when new, its key is `keep(name)` (a view that
  // outlives the table) and its value V{}.
  template <typename Keep>
  Item& FindOrInsert(std::string_view name, Keep&& keep) {
    Reserve(size_ + 1);
    const uint64_t h = Hash(name);
    const size_t i = slots_.Probe(h, Matches(h, name));
    if (slots_[i] != 0) return At(slots_[i]);
    const size_t n = size_++;
    const Place p = PlaceOf(n);
    if (p.chunk == chunks_.size()) chunks_.push_back(NewChunk(p.chunk));
    Item& item = *new (&chunks_[p.chunk][p.offset]) Item{keep(name), V{}};
    slots_[i] = Slot(h, n);
    return item;
  }

  // The same, for a name that itself outlives the table (a view of the
  // model's own strings): it is the key.
  Item& FindOrInsert(std::string_view lasting_name) {
    return FindOrInsert(lasting_name, [](std::string_view name) { return name; });
  }

  // Loads the slot a lookup of `name` starts at (one of a million-entry
  // table is a cache miss), so that the lookup a little later finds it near.
  void Prefetch(std::string_view name) const { slots_.Prefetch(Hash(name)); }

  // Every item, in insertion order.
  template <typename F>
  void ForEach(F&& f) const {
    for (size_t n = 0; n < size_; ++n) {
      const Place p = PlaceOf(n);
      f(chunks_[p.chunk][p.offset]);
    }
  }

 private:
  // Chunks double in size from 64 items up to 131072, then stay at 131072: a
  // small graph's table stays small, and the large chunks of a large one
  // (megabytes) are mapped in huge pages (huge_pages.h). Items are made as
  // they are inserted, so a chunk's unused tail is never touched.
  static constexpr size_t kFirstChunk = 64;
  static constexpr size_t kDoublings = 11;  // 64 << 11 = 131072
  static constexpr size_t kLastChunk = kFirstChunk << kDoublings;
  static constexpr size_t kInDoubling = kFirstChunk * ((size_t{2} << kDoublings) - 1);  // items in the doubling chunks
  struct Place {
    size_t chunk;
    size_t offset;
  };
  static Place PlaceOf(size_t n) {
    if (n >= kInDoubling) return {kDoublings + 1 + (n - kInDoubling) / kLastChunk, (n - kInDoubling) % kLastChunk};
    const size_t m = n / kFirstChunk + 1;  // chunk k holds m in [2^k, 2^(k+1))
    const size_t k = 63 - static_cast<size_t>(__builtin_clzll(m));
    return {k, n - kFirstChunk * ((size_t{1} << k) - 1)};
  }
  static size_t ChunkSize(size_t chunk) { return chunk > kDoublings ? kLastChunk : kFirstChunk << chunk; }
  // Items are never destroyed one by one: a chunk's memory is freed whole.
  static_assert(std::is_trivially_destructible_v<Item>, "items are freed with their chunk");
  struct FreeChunk {
    size_t bytes;
    void operator()(Item* p) const noexcept { FreeLarge(p, bytes); }
  };
  using Chunk = std::unique_ptr<Item[], FreeChunk>;
  static Chunk NewChunk(size_t chunk) {
    const size_t bytes = ChunkSize(chunk) * sizeof(Item);
    return Chunk(static_cast<Item*>(AllocateLarge(bytes)), FreeChunk{bytes});
  }

  static uint64_t Hash(std::string_view s) { return NameHash(s); }
  // A slot: the hash's high 32 bits over the item number + 1 (0 is empty).
  // The table's position comes from the low bits, so the tag adds information.
  static uint64_t Slot(uint64_t hash, size_t n) { return (hash & 0xffffffff00000000ull) | (uint64_t(n) + 1); }
  static uint64_t Tag(uint64_t word) { return word >> 32; }
  auto Matches(uint64_t hash, std::string_view name) const {
    return [this, hash, name](uint64_t word) { return Tag(word) == Tag(hash) && At(word).key == name; };
  }
  const Item& At(uint64_t slot) const {
    const Place p = PlaceOf((slot & 0xffffffffull) - 1);
    return chunks_[p.chunk][p.offset];
  }
  Item& At(uint64_t slot) { return const_cast<Item&>(static_cast<const NameTable*>(this)->At(slot)); }

  FlatSlots slots_;
  size_t size_ = 0;
  std::vector<Chunk> chunks_;
};

}  // namespace remap
