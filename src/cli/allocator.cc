#include "cli/allocator.h"

#include <cstdlib>
#include <memory>
#include <string_view>

#include <fmt/format.h>

#ifdef ONNX_REMAP_WITH_MIMALLOC
#include <mimalloc.h>
#endif

namespace remap::cli {

#ifdef ONNX_REMAP_WITH_MIMALLOC
namespace {

// Reads the envp that .preinit_array functions are passed: getenv returns
// null there, because libc has not set environ yet.
bool InEnvironment(char** envp, std::string_view name) {
  for (char** e = envp; e && *e; ++e) {
    std::string_view entry(*e);
    if (entry.size() > name.size() && entry.compare(0, name.size(), name) == 0 && entry[name.size()] == '=')
      return true;
  }
  return false;
}

// Memory in 2 MiB pages (transparent huge pages, where the kernel gives
// them), and each thread's first segment committed at once so that it is in
// them too. A million-node model faults in half a gigabyte: where a page
// fault is dear (about 10 us on some VMs) its 100k faults of 4 KiB pages
// were a third of the run (docs/performance-history.md, "The whole process in huge
// pages"). A user's MIMALLOC_* variable decides instead.
void ConfigureAllocator(int, char**, char** envp) {
  if (!InEnvironment(envp, "MIMALLOC_LARGE_OS_PAGES")) mi_option_set(mi_option_large_os_pages, 1);
  if (!InEnvironment(envp, "MIMALLOC_EAGER_COMMIT_DELAY")) mi_option_set(mi_option_eager_commit_delay, 0);
}

// mimalloc makes its first segment when a library's constructor first
// allocates (libstdc++'s, for its emergency exception pool): set in main,
// the options miss that segment, which stays in 4 KiB pages that mimalloc
// hands back and faults in again. An executable's .preinit_array runs
// before any library's constructor.
[[gnu::used, gnu::section(".preinit_array")]] void (*configure_allocator)(int, char**, char**) = ConfigureAllocator;

}  // namespace
#endif

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
