// NameTable and HashSet: the flat hash tables under the index and the
// load-time structure check.
#include <catch2/catch.hpp>

#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "model/hash_set.h"
#include "model/name_table.h"

using remap::HashSet;
using remap::NameTable;

namespace {

// Keys stay in `store`, which outlives the table, as the index's arena does.
struct Keys {
  std::vector<std::unique_ptr<std::string>> store;
  std::string_view operator()(std::string_view s) {
    store.push_back(std::make_unique<std::string>(s));
    return *store.back();
  }
};

}  // namespace

TEST_CASE("a name table finds what it holds and nothing else, through growth", "[name-table]") {
  NameTable<int> table;
  Keys keys;
  std::unordered_map<std::string, int> expected;
  // From empty, without Reserve: the slots grow many times.
  for (int i = 0; i < 20000; ++i) {
    const std::string name = "/layer" + std::to_string(i % 7000) + "/Add_output_" + std::to_string(i);
    table.FindOrInsert(name, keys).value += i;
    expected[name] += i;
  }
  REQUIRE(table.size() == expected.size());
  for (const auto& [name, value] : expected) {
    const auto* item = table.Find(name);
    REQUIRE(item != nullptr);
    CHECK(item->key == name);
    CHECK(item->value == value);
  }
  CHECK(table.Find("/layer1/Add_output_2") == nullptr);
  CHECK(table.Find("") == nullptr);
  size_t seen = 0;
  table.ForEach([&](const auto& item) {
    ++seen;
    CHECK(expected.count(std::string(item.key)) == 1);
  });
  CHECK(seen == expected.size());
}

TEST_CASE("a name table's values stay where they are while others are inserted", "[name-table]") {
  // The type oracle holds a reference to one entry while it adds others.
  NameTable<int> table;
  Keys keys;
  int& first = table.FindOrInsert("first", keys).value;
  first = 7;
  const std::string_view first_key = table.Find("first")->key;
  for (int i = 0; i < 50000; ++i) table.FindOrInsert("v" + std::to_string(i), keys).value = i;
  CHECK(&table.Find("first")->value == &first);
  CHECK(first == 7);
  CHECK(table.Find("first")->key.data() == first_key.data());
  first = 8;
  CHECK(table.Find("first")->value == 8);
}

TEST_CASE("a name table keeps the key only for a new name", "[name-table]") {
  NameTable<int> table;
  int kept = 0;
  auto keep = [&](std::string_view s) {
    ++kept;
    return s;
  };
  static const std::string a = "a", b = "b";
  table.FindOrInsert(a, keep);
  table.FindOrInsert(b, keep);
  table.FindOrInsert(a, keep);
  CHECK(kept == 2);
  CHECK(table.size() == 2);
  // Without a keep function, a lasting name is its own key.
  static const std::string c = "c";
  CHECK(table.FindOrInsert(c).key.data() == c.data());
  CHECK(table.FindOrInsert(std::string_view("c")).key.data() == c.data());
  CHECK(table.size() == 3);
}

TEST_CASE("a hash set answers for every hash, 0 included, through growth", "[hash-set]") {
  HashSet set;
  for (uint64_t i = 0; i < 30000; ++i) CHECK(set.Insert(i * 0x9E3779B97F4A7C15ull));
  CHECK(set.size() == 30000);
  for (uint64_t i = 0; i < 30000; ++i) {
    CHECK(set.Contains(i * 0x9E3779B97F4A7C15ull));
    CHECK_FALSE(set.Insert(i * 0x9E3779B97F4A7C15ull));
  }
  CHECK_FALSE(set.Contains(0x9E3779B97F4A7C15ull * 30001));
  // Hashes that share their low bits land in one run of slots.
  HashSet clustered;
  clustered.Reserve(100);
  for (uint64_t i = 1; i <= 60; ++i) CHECK(clustered.Insert(i << 40));
  for (uint64_t i = 1; i <= 60; ++i) CHECK(clustered.Contains(i << 40));
  CHECK_FALSE(clustered.Contains(61ull << 40));
}
