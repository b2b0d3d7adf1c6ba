#include "model/huge_pages.h"

// Not in the header: <sys/mman.h> defines MAP_TYPE, a name ONNX's parser.h
// uses as an enumerator.
#include <sys/mman.h>

#include <new>

namespace remap {

void* AllocateLarge(size_t bytes) {
  if (bytes < kHugePagesFrom) return ::operator new(bytes);
  void* p = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) throw std::bad_alloc();
#ifdef MADV_HUGEPAGE
  ::madvise(p, bytes, MADV_HUGEPAGE);  // advice only: refused, the pages stay 4 KiB
#endif
  return p;
}

void FreeLarge(void* p, size_t bytes) noexcept {
  if (bytes < kHugePagesFrom) {
    ::operator delete(p);
  } else {
    ::munmap(p, bytes);
  }
}

HugePageResource* HugePageResource::Get() {
  static HugePageResource resource;
  return &resource;
}

void* HugePageResource::do_allocate(size_t bytes, size_t alignment) {
  // Mappings are page-aligned; smaller blocks keep the alignment asked for.
  if (bytes >= kHugePagesFrom) return AllocateLarge(bytes);
  return ::operator new(bytes, std::align_val_t(alignment));
}

void HugePageResource::do_deallocate(void* p, size_t bytes, size_t alignment) {
  if (bytes >= kHugePagesFrom) {
    FreeLarge(p, bytes);
  } else {
    ::operator delete(p, std::align_val_t(alignment));
  }
}

}  // namespace remap
