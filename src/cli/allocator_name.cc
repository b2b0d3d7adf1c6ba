#include "cli/allocator_name.h"

#include <cstdlib>
#include <memory>

#include <fmt/format.h>

#ifdef ONNX_REMAP_WITH_MIMALLOC
#include <mimalloc.h>
#endif

namespace remap::cli {

std::string AllocatorName() {
#ifdef ONNX_REMAP_WITH_MIMALLOC
  // Linked is not enough: ask mimalloc whether memory from malloc and from
  // operator new is its own (another allocator preloaded, or a link that
  // dropped it, would leave them to someone else).
  void* raw = std::malloc(64);
  auto object = std::make_unique<char[]>(64);
  const bool serves = raw && mi_is_in_heap_region(raw) && mi_is_in_heap_region(object.get());
  std::free(raw);
  if (serves) {
    const int v = mi_version();  // 209 for 2.0.9
    return fmt::format("mimalloc {}.{}.{}", v / 100, v / 10 % 10, v % 10);
  }
  return "not the linked mimalloc (another malloc was preloaded)";
#else
  return "system malloc";
#endif
}

}  // namespace remap::cli
