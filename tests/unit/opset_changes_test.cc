#include <catch2/catch.hpp>

#include <map>
#include <set>
#include <string>
#include <utility>

#include <onnx/defs/schema.h>

#include "model/opset_import.h"
#include "opset/opset_changes.h"

using remap::IsDefaultDomain;

TEST_CASE("opset_changes: every ONNX 1.12 default-domain schema up to opset 17 has its row", "[opset_changes]") {
  const std::vector<onnx::OpSchema> schemas = onnx::OpSchemaRegistry::get_all_schemas_with_history();
  std::map<std::string, int> first_version;
  for (const onnx::OpSchema& schema : schemas) {
    if (!IsDefaultDomain(schema.domain())) continue;
    auto it = first_version.find(schema.Name());
    if (it == first_version.end() || schema.SinceVersion() < it->second) first_version[schema.Name()] = schema.SinceVersion();
  }
  REQUIRE(first_version.size() > 150);  // the registry really was loaded

  size_t checked = 0;
  for (const onnx::OpSchema& schema : schemas) {
    if (!IsDefaultDomain(schema.domain())) continue;
    const int version = schema.SinceVersion();
    if (version < 1 || version > 17) continue;
    ++checked;
    INFO(schema.Name() << "-" << version);
    const auto rows = remap::ChangesBetween(schema.Name(), version - 1, version);
    CHECK(rows.size() == 1);  // CHECK, not REQUIRE: report every missing row in one run
    if (rows.size() != 1) continue;
    CHECK(rows[0]->since_version == version);
    CHECK(std::string(rows[0]->op_type) == schema.Name());
    // Exactly the registry's oldest version of an operator is its introduction.
    CHECK((rows[0]->kind == remap::ChangeKind::kIntroduced) == (version == first_version[schema.Name()]));
  }
  CHECK(checked > 400);
}

TEST_CASE("opset_changes: rows up to opset 17 all exist in the ONNX 1.12 registry", "[opset_changes]") {
  for (const remap::OpsetChange& change : remap::AllOpsetChanges()) {
    if (change.since_version > 17) continue;
    INFO(change.op_type << "-" << change.since_version);
    const onnx::OpSchema* schema = onnx::OpSchemaRegistry::Schema(change.op_type, change.since_version, "");
    REQUIRE(schema != nullptr);
    CHECK(schema->SinceVersion() == change.since_version);
  }
}

TEST_CASE("opset_changes: table is well formed", "[opset_changes]") {
  std::set<std::pair<std::string, int>> seen;
  std::map<std::string, int> introduced_at;
  int previous_version = 0;
  for (const remap::OpsetChange& change : remap::AllOpsetChanges()) {
    INFO(change.op_type << "-" << change.since_version);
    REQUIRE(change.op_type != nullptr);
    REQUIRE(change.note != nullptr);
    CHECK(std::string(change.note).size() > 5);
    CHECK(change.since_version >= 1);
    CHECK(change.since_version <= remap::NewestTabledOpset());
    CHECK(change.since_version >= previous_version);  // grouped by opset, oldest first
    previous_version = change.since_version;
    CHECK(seen.insert({change.op_type, change.since_version}).second);  // no duplicate rows
    if (change.kind == remap::ChangeKind::kIntroduced) {
      CHECK(introduced_at.count(change.op_type) == 0);
      introduced_at[change.op_type] = change.since_version;
    } else {
      CHECK(introduced_at.count(change.op_type) == 1);  // a bump needs an earlier introduction
    }
  }
  // Every opset 1..24 added or changed something.
  for (int version = 1; version <= 24; ++version) {
    INFO("opset " << version);
    bool any = false;
    for (const remap::OpsetChange& change : remap::AllOpsetChanges()) any = any || change.since_version == version;
    CHECK(any);
  }
}

TEST_CASE("opset_changes: ChangesBetween range and order", "[opset_changes]") {
  CHECK(remap::NewestTabledOpset() == 24);
  CHECK(remap::ChangesBetween("NoSuchOp", 1, 24).empty());
  CHECK(remap::ChangesBetween("ReduceSum", 13, 13).empty());
  CHECK(remap::ChangesBetween("ReduceSum", 18, 13).empty());

  const auto reduce_sum = remap::ChangesBetween("ReduceSum", 0, 24);
  REQUIRE(reduce_sum.size() == 3);  // 1, 11, 13
  CHECK(reduce_sum[0]->since_version == 1);
  CHECK(reduce_sum[1]->since_version == 11);
  CHECK(reduce_sum[2]->since_version == 13);
  // from is exclusive, to is inclusive.
  CHECK(remap::ChangesBetween("ReduceSum", 11, 13).size() == 1);
  CHECK(remap::ChangesBetween("ReduceSum", 10, 12).size() == 1);
  CHECK(remap::ChangesBetween("ReduceSum", 13, 24).empty());
}

TEST_CASE("opset_changes: spot checks", "[opset_changes]") {
  SECTION("ReduceSum 12 -> 13 moves axes to an input") {
    const auto rows = remap::ChangesBetween("ReduceSum", 12, 13);
    REQUIRE(rows.size() == 1);
    CHECK(rows[0]->since_version == 13);
    CHECK(rows[0]->kind == remap::ChangeKind::kSemantic);
  }
  SECTION("Relu 14 only adds types") {
    const auto rows = remap::ChangesBetween("Relu", 13, 14);
    REQUIRE(rows.size() == 1);
    CHECK(rows[0]->kind == remap::ChangeKind::kTypesOnly);
  }
  SECTION("GridSample 20 renames its modes") {
    const auto rows = remap::ChangesBetween("GridSample", 16, 20);
    bool semantic_at_20 = false;
    for (const remap::OpsetChange* row : rows) {
      semantic_at_20 = semantic_at_20 || (row->since_version == 20 && row->kind == remap::ChangeKind::kSemantic);
    }
    CHECK(semantic_at_20);
  }
  SECTION("DeformConv appears at 19") {
    const auto rows = remap::ChangesBetween("DeformConv", 18, 19);
    REQUIRE(rows.size() == 1);
    CHECK(rows[0]->since_version == 19);
    CHECK(rows[0]->kind == remap::ChangeKind::kIntroduced);
  }
  SECTION("Conv does not change between 13 and 19") {
    CHECK(remap::ChangesBetween("Conv", 13, 19).empty());
  }
  SECTION("Reduce* 18 and Split 18 are semantic; Cast 19 is types-only") {
    for (const char* op : {"ReduceMean", "ReduceMax", "ReduceL2", "ReduceProd", "Split"}) {
      INFO(op);
      const auto rows = remap::ChangesBetween(op, 17, 18);
      REQUIRE(rows.size() == 1);
      CHECK(rows[0]->kind == remap::ChangeKind::kSemantic);
    }
    const auto cast = remap::ChangesBetween("Cast", 18, 19);
    REQUIRE(cast.size() == 1);
    CHECK(cast[0]->kind == remap::ChangeKind::kTypesOnly);
  }
}
