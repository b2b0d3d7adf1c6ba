// NameTable and HashSet: the flat hash tables under the index and the
// load-time structure check.
#include <catch2/catch.hpp>

#include <algorithm>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "model/hash_set.h"
#include "model/huge_pages.h"
#include "model/name_hash.h"
#include "model/name_table.h"

using remap::HashSet;
using remap::NameHash;
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

TEST_CASE("a cleared name table holds nothing and takes names afresh", "[name-table]") {
  // The structure check empties its table of subgraph names after each
  // main-graph node's subgraphs and fills it again for the next.
  NameTable<int> table;
  Keys keys;
  for (int round = 0; round < 3; ++round) {
    const size_t names = round == 1 ? 5000 : 40;  // growth in the middle round, reuse after it
    for (size_t i = 0; i < names; ++i) {
      auto& item = table.FindOrInsert("r" + std::to_string(round) + "/v" + std::to_string(i), keys);
      CHECK(item.value == 0);  // a new item, not one left from before the clear
      item.value = static_cast<int>(i) + 1;
    }
    CHECK(table.size() == names);
    CHECK(table.Find("r" + std::to_string(round) + "/v0")->value == 1);
    const size_t kept_before = keys.store.size();
    table.FindOrInsert("r" + std::to_string(round) + "/v1", keys);
    CHECK(keys.store.size() == kept_before);  // found, not kept again
    table.Clear();
    CHECK(table.size() == 0);
    CHECK(table.Find("r" + std::to_string(round) + "/v0") == nullptr);
    size_t seen = 0;
    table.ForEach([&](const auto&) { ++seen; });
    CHECK(seen == 0);
  }
  table.Clear();  // an empty table clears too
  CHECK(table.FindOrInsert("after", keys).value == 0);
  CHECK(table.size() == 1);
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

TEST_CASE("the name hash reads only a name's bytes, and every byte counts", "[name-hash]") {
  for (size_t n = 0; n <= 70; ++n) {
    CAPTURE(n);
    // Exactly n bytes on the heap: under ASan a read past the name fails here.
    std::unique_ptr<char[]> bytes(new char[n == 0 ? 1 : n]);
    for (size_t i = 0; i < n; ++i) bytes[i] = static_cast<char>('a' + (i * 7) % 26);
    const std::string_view name(bytes.get(), n);
    const uint64_t h = NameHash(name);
    CHECK(NameHash(std::string(name)) == h);  // the bytes, not where they are
    for (size_t i = 0; i < n; ++i) {
      for (int bit : {0, 5, 7}) {
        bytes[i] = static_cast<char>(bytes[i] ^ (1 << bit));
        CHECK(NameHash(name) != h);
        bytes[i] = static_cast<char>(bytes[i] ^ (1 << bit));
      }
    }
  }
  CHECK(NameHash("") != NameHash(std::string_view("\0", 1)));
  CHECK(NameHash("ab") != NameHash("ba"));
}

TEST_CASE("the name hash spreads exporters' names over a table's slots and tags", "[name-hash]") {
  // Value names as torch exports them: numbered, with long shared prefixes.
  std::vector<std::string> names;
  for (int i = 0; i < 70000; ++i) {
    names.push_back("onnx::Relu_" + std::to_string(i));
    names.push_back("/encoder/layer." + std::to_string(i % 48) + "/attention/Add_" + std::to_string(i) + "_output_0");
    names.push_back(std::to_string(i));
  }
  std::unordered_set<uint64_t> hashes, tags;
  constexpr size_t kSlots = 1 << 18;  // the slot array a table of these names would have
  std::vector<int> per_slot(kSlots, 0);
  for (const auto& name : names) {
    const uint64_t h = NameHash(name);
    hashes.insert(h);
    tags.insert(h >> 32);
    ++per_slot[h & (kSlots - 1)];
  }
  CHECK(hashes.size() == names.size());
  CHECK(tags.size() >= names.size() - 10);  // 32-bit tags: a handful may meet
  // 210,000 names over 262,144 slots: about 0.8 per slot; a crowded slot
  // (a run of linear probing) would show as a much larger count.
  CHECK(*std::max_element(per_slot.begin(), per_slot.end()) <= 10);
}

TEST_CASE("a table past the doubling chunks keeps its items in place, in mapped memory", "[name-table]") {
  // 600k items of 56 bytes: the last chunks (131072 items, 7 MB) and the
  // slots (1M words, 8 MB) are past kHugePagesFrom, so they are mappings of
  // their own (huge_pages.h); items are made as inserted, in those too.
  struct Wide {
    int64_t n = -1;
    int64_t pad[4] = {0, 0, 0, 0};
  };
  static_assert(131072 * sizeof(NameTable<Wide>::Item) >= remap::kHugePagesFrom, "the mapped chunk path");
  NameTable<Wide> table;
  Keys keys;
  constexpr int kItems = 600000;
  auto name = [](int i) { return "v" + std::to_string(i); };
  NameTable<Wide>::Item& first = table.FindOrInsert(name(0), keys);
  first.value.n = 0;
  for (int i = 1; i < kItems; ++i) {
    auto& item = table.FindOrInsert(name(i), keys);
    REQUIRE(item.value.n == -1);  // new, and made as V{}
    item.value.n = i;
  }
  CHECK(table.size() == static_cast<size_t>(kItems));
  CHECK(&table.FindOrInsert(name(0), keys) == &first);  // never moved
  for (int i = 0; i < kItems; i += 7) {
    const auto* item = table.Find(name(i));
    REQUIRE(item != nullptr);
    CHECK(item->value.n == i);
  }
  CHECK(table.Find(name(kItems)) == nullptr);
}
