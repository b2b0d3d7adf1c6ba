// Storage for the names the index keeps. A million-node model has millions of
// value names; as std::string keys each one cost a malloc to build and a free
// to tear down, which made the index cost more than parsing the model. Here
// names are copied once into a bump buffer and the index's keys are
// string_views into it: no malloc per name, and teardown frees a few large
// blocks.
#pragma once

#include <cstring>
#include <memory_resource>
#include <string_view>

#include "model/huge_pages.h"

namespace remap {

class NameArena {
 public:
  NameArena() = default;
  NameArena(const NameArena&) = delete;
  NameArena& operator=(const NameArena&) = delete;

  // A copy of `s` that lives as long as the arena.
  std::string_view Keep(std::string_view s) {
    if (s.empty()) return {};
    char* p = static_cast<char*>(buffer_.allocate(s.size(), 1));
    std::memcpy(p, s.data(), s.size());
    return {p, s.size()};
  }

 private:
  // Its blocks double from 64 KiB; those past kHugePagesFrom go in huge pages.
  std::pmr::monotonic_buffer_resource buffer_{1 << 16, HugePageResource::Get()};
};

}  // namespace remap
