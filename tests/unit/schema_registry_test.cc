// ONNX's schema registry filled on a thread of its own while rules load.
// ctest runs each case in a process of its own, so the registry starts empty.
#include <catch2/catch.hpp>

#include "model/schema_lookup.h"
#include "model/schema_registry.h"
#include "rules/rule_set.h"

using namespace remap;

TEST_CASE("schema registry: rules load while it fills elsewhere, and its schemas are there after") {
  CHECK_FALSE(SchemaRegistryFill::Started());
  size_t rules_loaded = 0;
  {
    SchemaRegistryFill fill;
    CHECK(SchemaRegistryFill::Started());
    // Every built-in file, compiled at load: fragment names are checked
    // against the registry, which waits for the fill under way.
    RuleLoadResult loaded = LoadRules(true, {}, BuiltinCompile::kAtLoad);
    CHECK(loaded.errors.empty());
    rules_loaded = loaded.rules.All().size();
    CHECK(rules_loaded > 100);
  }
  const onnx::OpSchema* relu = FindSchema("Relu", 14, "");
  REQUIRE(relu != nullptr);
  CHECK(relu->SinceVersion() == 14);
  // The same rules as a load that fills the registry itself (now a no-op).
  RuleLoadResult again = LoadRules(true, {}, BuiltinCompile::kAtLoad);
  CHECK(again.errors.empty());
  CHECK(again.rules.All().size() == rules_loaded);
}
