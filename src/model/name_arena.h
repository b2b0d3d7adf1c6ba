// Storage for the per-value maps built over a whole graph (the index and the
// load-time structure check). A million-node model has
// millions of value names; as std::string keys of std::unordered_maps each one
// costs a malloc to build and a free to tear down, which made those maps cost
// more than parsing the model. Here names are copied once into a bump buffer,
// map keys are string_views into it, and the maps' own nodes come from the
// same buffer: building costs no malloc per value and teardown frees a few
// large blocks.
#pragma once

#include <cstring>
#include <memory_resource>
#include <string_view>
#include <unordered_map>

namespace remap {

template <typename V>
using NameMap = std::pmr::unordered_map<std::string_view, V>;

class NameArena {
 public:
  NameArena() = default;
  NameArena(const NameArena&) = delete;
  NameArena& operator=(const NameArena&) = delete;

  std::pmr::memory_resource* resource() { return &buffer_; }

  // A copy of `s` that lives as long as the arena.
  std::string_view Keep(std::string_view s) {
    if (s.empty()) return {};
    char* p = static_cast<char*>(buffer_.allocate(s.size(), 1));
    std::memcpy(p, s.data(), s.size());
    return {p, s.size()};
  }

  // The entry of `name`, inserted (with its name kept) when it is new.
  template <typename V>
  V& Slot(NameMap<V>* map, std::string_view name) {
    auto it = map->find(name);
    if (it == map->end()) it = map->emplace(Keep(name), V{}).first;
    return it->second;
  }

 private:
  std::pmr::monotonic_buffer_resource buffer_{1 << 16};
};

}  // namespace remap
