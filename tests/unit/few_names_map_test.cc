// FewNamesMap: the names an expression reads or a template defines, searched
// in order while few and hashed past kFew; every name stays found across the
// switch.
#include <string>
#include <string_view>
#include <vector>

#include <catch2/catch.hpp>

#include "core/few_names_map.h"

using remap::FewNamesMap;

TEST_CASE("FewNamesMap finds every name it holds, before and after it hashes them", "[few_names_map]") {
  FewNamesMap<std::string, std::string> map;
  CHECK(map.Find("a") == nullptr);
  const size_t count = FewNamesMap<std::string, std::string>::kFew * 4 + 3;
  for (size_t k = 0; k < count; ++k) {
    map.Insert("name" + std::to_string(k), "value" + std::to_string(k));
    // Every name so far, with its own value; one not inserted is absent.
    for (size_t j = 0; j <= k; ++j) {
      const std::string* v = map.Find("name" + std::to_string(j));
      REQUIRE(v != nullptr);
      CHECK(*v == "value" + std::to_string(j));
    }
    CHECK(map.Find("name" + std::to_string(k + 1)) == nullptr);
  }
}

TEST_CASE("FewNamesMap keyed by views reads the caller's strings", "[few_names_map]") {
  const std::vector<std::string> names{"self", "dim", "keepdim", "x1", "x2", "x3", "x4", "x5", "x6", "x7"};
  FewNamesMap<std::string_view, int> map;
  for (size_t k = 0; k < names.size(); ++k) map.Insert(names[k], static_cast<int>(k));
  for (size_t k = 0; k < names.size(); ++k) {
    // Looked up through a different string with the same text.
    const std::string copy = names[k];
    const int* v = map.Find(copy);
    REQUIRE(v != nullptr);
    CHECK(*v == static_cast<int>(k));
  }
  CHECK(map.Find("other") == nullptr);
}
