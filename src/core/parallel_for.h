// Runs fn(0) .. fn(count - 1) on up to `threads` threads, each taking the next
// index as it is free. fn must be safe to call concurrently for different
// indices. One thread (or one item) runs on the caller's thread.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <system_error>
#include <thread>
#include <vector>

namespace remap {

// The default thread count: one per core.
inline int CoreCount() { return static_cast<int>(std::max(1u, std::thread::hardware_concurrency())); }

// How many threads `work` units are worth, when a thread pays for itself
// from `per_thread` units on: one per core at most, and at least one. A
// thread costs more than its start: its first allocation takes a fresh
// block of the allocator's (a 2 MiB huge page for the kernel to clear), so
// small work runs faster on the caller's thread alone.
inline int ThreadsFor(size_t work, size_t per_thread) {
  return static_cast<int>(std::clamp<size_t>(work / std::max<size_t>(1, per_thread), 1, CoreCount()));
}

template <typename Fn>
void ParallelFor(size_t count, int threads, Fn&& fn) {
  const size_t n = std::min<size_t>(static_cast<size_t>(std::max(1, threads)), std::max<size_t>(1, count));
  std::atomic<size_t> next{0};
  auto work = [&]() {
    for (size_t i = next++; i < count; i = next++) fn(i);
  };
  if (n <= 1) {
    work();
    return;
  }
  std::vector<std::thread> pool;
  pool.reserve(n - 1);
  for (size_t t = 1; t < n; ++t) {
    // No thread to spare: the threads started so far, and this one, take every index.
    try {
      pool.emplace_back(work);
    } catch (const std::system_error&) {
      break;
    }
  }
  work();
  for (auto& t : pool) t.join();
}

}  // namespace remap
