// PointerSet: the flat set of addresses the rewrite marks dead nodes in.
#include <catch2/catch.hpp>

#include <memory>
#include <vector>

#include "core/pointer_set.h"

TEST_CASE("a pointer set holds each address once, through growth", "[pointer-set]") {
  remap::PointerSet<int> set;
  CHECK(set.empty());
  std::vector<std::unique_ptr<int>> held, apart;
  for (int i = 0; i < 5000; ++i) {
    held.push_back(std::make_unique<int>(i));
    apart.push_back(std::make_unique<int>(i));
  }
  for (const auto& p : held) CHECK(set.insert(p.get()));
  CHECK(set.size() == held.size());
  for (const auto& p : held) {
    CHECK(set.contains(p.get()));
    CHECK_FALSE(set.insert(p.get()));  // already there
  }
  for (const auto& p : apart) CHECK_FALSE(set.contains(p.get()));
  CHECK(set.size() == held.size());
  // Neighbours in one array (addresses 4 bytes apart) are as distinct.
  int row[64];
  remap::PointerSet<int> dense;
  for (int& x : row) CHECK(dense.insert(&x));
  for (int& x : row) CHECK(dense.contains(&x));
  CHECK_FALSE(dense.contains(row + 64));
}
