#include <atomic>
#include <vector>

#include <catch2/catch.hpp>

#include "core/parallel_for.h"

using namespace remap;

TEST_CASE("ParallelFor runs every index exactly once, whatever the thread count", "[parallel_for]") {
  for (int threads : {0, 1, 2, 7}) {
    for (size_t count : {size_t{0}, size_t{1}, size_t{3}, size_t{1000}}) {
      std::vector<std::atomic<int>> runs(count);
      ParallelFor(count, threads, [&](size_t i) { runs[i]++; });
      INFO("threads " << threads << ", count " << count);
      for (size_t i = 0; i < count; ++i) CHECK(runs[i].load() == 1);
    }
  }
}
