// An LD_PRELOAD library for tests/cli/no_fsync_test.sh: it counts a process's
// fsync and fdatasync calls ('s') and sync_file_range calls ('r', the
// writeback pacer's), one byte per call appended to the file named by
// FSYNC_COUNTER_LOG, and then makes the real call. What a run synced is what
// its --no-fsync promise is about, and no file the run writes shows it.
#include <dlfcn.h>
#include <fcntl.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>

namespace {

using SyncFn = int (*)(int);

void Count(const char* what) {
  const char* log = std::getenv("FSYNC_COUNTER_LOG");
  if (!log) return;
  const int fd = ::open(log, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) return;
  if (::write(fd, what, 1) != 1) {
    // Nothing to do: the test then sees fewer calls than were made and fails.
  }
  ::close(fd);
}

SyncFn Next(const char* name) {
  void* symbol = ::dlsym(RTLD_NEXT, name);
  SyncFn fn = nullptr;
  std::memcpy(&fn, &symbol, sizeof fn);
  return fn;
}

}  // namespace

extern "C" int fsync(int fd) {
  static const SyncFn real = Next("fsync");
  Count("s");
  return real(fd);
}

extern "C" int fdatasync(int fd) {
  static const SyncFn real = Next("fdatasync");
  Count("s");
  return real(fd);
}

extern "C" int sync_file_range(int fd, off64_t offset, off64_t nbytes, unsigned int flags) {
  using RangeFn = int (*)(int, off64_t, off64_t, unsigned int);
  static const RangeFn real = [] {
    void* symbol = ::dlsym(RTLD_NEXT, "sync_file_range");
    RangeFn fn = nullptr;
    std::memcpy(&fn, &symbol, sizeof fn);
    return fn;
  }();
  Count("r");
  return real(fd, offset, nbytes, flags);
}
