#include <pthread.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <fstream>
#include <future>
#include <memory>
#include <thread>

#include <catch2/catch.hpp>

#include "core/background_task.h"

namespace remap {
namespace {

TEST_CASE("a background task runs its work on another thread, and releases what it captured once joined",
          "[background-task]") {
  BackgroundTask task;
  CHECK_FALSE(task.Running());
  auto held = std::make_shared<int>(7);
  std::promise<void> go;
  std::thread::id ran_on;
  task.Run([held, &ran_on, gate = go.get_future().share()] {
    gate.wait();
    ran_on = std::this_thread::get_id();
  });
  // The work waits for the gate: it cannot have been done on this thread.
  CHECK(task.Running());
  CHECK(held.use_count() == 2);
  go.set_value();
  task.Join();
  CHECK_FALSE(task.Running());
  CHECK(ran_on != std::thread::id());
  CHECK(ran_on != std::this_thread::get_id());
  CHECK(held.use_count() == 1);
}

TEST_CASE("a background task is joined when it goes, and joins its earlier work before the next",
          "[background-task]") {
  std::atomic<int> done{0};
  std::promise<void> go;
  {
    BackgroundTask task;
    REQUIRE(task.TryRun([&done, gate = go.get_future().share()] {
      gate.wait();
      ++done;
    }));
    go.set_value();
    // The first work must be over before the second starts: 1, then 11; the
    // other order would give 2.
    task.Run([&done] { done = done * 10 + 1; });
  }
  CHECK(done == 11);
}

#if defined(__SANITIZE_ADDRESS__)  // GCC
#define UNDER_ASAN 1
#elif defined(__has_feature)  // Clang
#if __has_feature(address_sanitizer)
#define UNDER_ASAN 1
#endif
#endif

#if !defined(UNDER_ASAN)
// How much address space this process has mapped, in bytes.
rlim_t MappedBytes() {
  std::ifstream statm("/proc/self/statm");
  unsigned long pages = 0;
  statm >> pages;
  return static_cast<rlim_t>(pages) * static_cast<rlim_t>(::sysconf(_SC_PAGESIZE));
}
#endif

TEST_CASE("with no thread to be had, Run does the work here and TryRun leaves it undone", "[background-task]") {
#if defined(UNDER_ASAN)
  // AddressSanitizer dies when its own mappings fail, and a thread's start
  // maps some: the limit below cannot be set under it.
  SUCCEED("not run under AddressSanitizer");
#else
  const pid_t child = ::fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    // Room for a little more heap, not for a new thread's stack: std::thread
    // throws, as when the system is out of threads. The stacks of threads
    // that ended are kept for reuse; a larger default size makes them unfit.
    pthread_attr_t attr;
    if (::pthread_attr_init(&attr) != 0 || ::pthread_attr_setstacksize(&attr, 64 << 20) != 0 ||
        ::pthread_setattr_default_np(&attr) != 0) {
      ::_exit(89);
    }
    const rlim_t room = MappedBytes() + 1024 * 1024;
    const rlimit limit{room, room};
    if (::setrlimit(RLIMIT_AS, &limit) != 0) ::_exit(90);
    BackgroundTask task;
    std::thread::id ran_on;
    task.Run([&ran_on] { ran_on = std::this_thread::get_id(); });
    if (ran_on != std::this_thread::get_id()) ::_exit(91);
    if (task.Running()) ::_exit(92);
    auto held = std::make_shared<int>(7);
    bool ran = false;
    if (task.TryRun([held, &ran] { ran = true; })) ::_exit(93);
    if (ran || task.Running()) ::_exit(94);
    if (held.use_count() != 1) ::_exit(95);  // the work it did not do is dropped
    ::_exit(0);
  }
  int status = 0;
  REQUIRE(::waitpid(child, &status, 0) == child);
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);
#endif
}

}  // namespace
}  // namespace remap
