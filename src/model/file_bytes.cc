#include "model/file_bytes.h"

#include <algorithm>
#include <atomic>
#include <csignal>
#include <cstdint>
#include <cstring>
#include <utility>
#include <sys/mman.h>
#include <unistd.h>

namespace remap {

namespace {

// The mappings alive now, for the SIGBUS handler, which may only read
// memory and call async-signal-safe functions: fixed slots, no allocation.
// A mapping that finds no free slot still works; its fault is then not named.
struct MappedFile {
  std::atomic<bool> used{false};
  std::atomic<uintptr_t> begin{0};
  std::atomic<uintptr_t> end{0};
  char path[480];
};
constexpr int kRegistrySlots = 64;
MappedFile g_mapped[kRegistrySlots];
std::atomic<int> g_fault_exit_code{0};

int Register(const char* begin, size_t size, const std::string& path) {
  for (int i = 0; i < kRegistrySlots; ++i) {
    bool expected = false;
    if (!g_mapped[i].used.compare_exchange_strong(expected, true, std::memory_order_acquire)) continue;
    MappedFile& m = g_mapped[i];
    const size_t n = std::min(path.size(), sizeof(m.path) - 1);
    std::memcpy(m.path, path.data(), n);
    m.path[n] = '\0';
    m.end.store(reinterpret_cast<uintptr_t>(begin) + size, std::memory_order_relaxed);
    m.begin.store(reinterpret_cast<uintptr_t>(begin), std::memory_order_release);  // the path is complete
    return i;
  }
  return -1;
}

void Unregister(int slot) {
  if (slot < 0) return;
  g_mapped[slot].begin.store(0, std::memory_order_relaxed);
  g_mapped[slot].end.store(0, std::memory_order_relaxed);
  g_mapped[slot].used.store(false, std::memory_order_release);
}

void WriteAll(const char* s, size_t n) {
  while (n > 0) {
    const ssize_t w = ::write(STDERR_FILENO, s, n);
    if (w <= 0) return;
    s += w;
    n -= static_cast<size_t>(w);
  }
}

void OnBusError(int sig, siginfo_t* info, void*) {
  const uintptr_t at = reinterpret_cast<uintptr_t>(info->si_addr);
  for (const MappedFile& m : g_mapped) {
    const uintptr_t begin = m.begin.load(std::memory_order_acquire);
    if (begin == 0 || at < begin || at >= m.end.load(std::memory_order_relaxed)) continue;
    static const char kPrefix[] = "onnx-remap: error: ";
    static const char kSuffix[] = ": the file shrank while it was being read (another process changed it)\n";
    WriteAll(kPrefix, sizeof(kPrefix) - 1);
    WriteAll(m.path, std::strlen(m.path));
    WriteAll(kSuffix, sizeof(kSuffix) - 1);
    ::_exit(g_fault_exit_code.load(std::memory_order_relaxed));
  }
  // Not a mapped model file's: what SIGBUS would have done.
  ::signal(sig, SIG_DFL);
  ::raise(sig);
}

}  // namespace

std::optional<FileBytes> FileBytes::Map(int fd, size_t size, const std::string& path) {
  if (size == 0) return std::nullopt;
  // Populated at once: the load reads every byte, and one call faults the
  // pages in cheaper than a fault per 64 kB.
  void* p = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
  if (p == MAP_FAILED) return std::nullopt;
  FileBytes bytes;
  bytes.mapped_ = static_cast<const char*>(p);
  bytes.mapped_size_ = size;
  bytes.registry_slot_ = Register(bytes.mapped_, size, path);
  return bytes;
}

FileBytes::FileBytes(FileBytes&& other) noexcept
    : mapped_(std::exchange(other.mapped_, nullptr)),
      mapped_size_(std::exchange(other.mapped_size_, 0)),
      registry_slot_(std::exchange(other.registry_slot_, -1)),
      owned_(std::exchange(other.owned_, std::string())) {}

FileBytes& FileBytes::operator=(FileBytes&& other) noexcept {
  if (this == &other) return *this;
  Release();
  mapped_ = std::exchange(other.mapped_, nullptr);
  mapped_size_ = std::exchange(other.mapped_size_, 0);
  registry_slot_ = std::exchange(other.registry_slot_, -1);
  owned_ = std::exchange(other.owned_, std::string());
  return *this;
}

void FileBytes::Release() noexcept {
  if (mapped_) {
    Unregister(registry_slot_);
    ::munmap(const_cast<char*>(mapped_), mapped_size_);
    mapped_ = nullptr;
    mapped_size_ = 0;
    registry_slot_ = -1;
  }
  std::string().swap(owned_);
}

void InstallMappedFileFaultHandler(int exit_code) {
  g_fault_exit_code.store(exit_code, std::memory_order_relaxed);
  struct sigaction action {};
  action.sa_sigaction = OnBusError;
  action.sa_flags = SA_SIGINFO;
  sigemptyset(&action.sa_mask);
  ::sigaction(SIGBUS, &action, nullptr);
}

}  // namespace remap
