// StringSource: offsets inside a string field, written as several literals
// over several lines, back to the rule file's line and column. Decoded once,
// when first asked, then kept: asked again, from copies, from threads.
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <catch2/catch.hpp>

#include "rules/source_map.h"

using remap::SourceLocation;
using remap::StringSource;

namespace {

// Line 3 holds the field: `replace: "ab"` then, on line 4, `  "cd"`; the
// decoded value is "abcd".
const char kFile[] =
    "rule {\n"
    "  id: \"x\"\n"
    "  replace: \"ab\"\n"
    "    \"cd\"\n"
    "}\n";

StringSource Replace() {
  return StringSource("r.textproto", std::make_shared<const std::string>(kFile), /*line0=*/2, /*col0=*/2);
}

}  // namespace

TEST_CASE("a string field's offsets map to the file's lines and columns", "[source_map]") {
  const StringSource source = Replace();
  CHECK(source.field().ToString() == "r.textproto:3:3");
  CHECK(source.Locate(0).ToString() == "r.textproto:3:13");  // 'a'
  CHECK(source.Locate(1).ToString() == "r.textproto:3:14");  // 'b'
  CHECK(source.Locate(2).ToString() == "r.textproto:4:6");   // 'c', in the second literal
  CHECK(source.Locate(3).ToString() == "r.textproto:4:7");   // 'd'
  // Asked again, and through a copy: the same answers.
  const StringSource copy = source;
  for (size_t k = 0; k < 4; ++k) CHECK(copy.Locate(k) == source.Locate(k));
  // A source without the file's text knows only the field.
  CHECK(StringSource().Locate(3).line == 0);
}

TEST_CASE("a string field's locations asked from many threads at once agree", "[source_map]") {
  for (int round = 0; round < 20; ++round) {
    const StringSource source = Replace();
    std::vector<std::vector<std::string>> seen(4);
    std::vector<std::thread> threads;
    for (size_t t = 0; t < seen.size(); ++t) {
      threads.emplace_back([&, t] {
        for (size_t k = 0; k < 5; ++k) seen[t].push_back(source.Locate(k).ToString());
      });
    }
    for (auto& th : threads) th.join();
    for (const auto& s : seen) CHECK(s == seen[0]);
    CHECK(seen[0][2] == "r.textproto:4:6");
  }
}
