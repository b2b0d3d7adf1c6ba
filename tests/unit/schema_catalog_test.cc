// The schema catalog: ONNX's schemas built one at a time when asked for,
// the same answers as ONNX's registry, and no run filling that registry.
#include <dlfcn.h>

#include <atomic>
#include <cstring>
#include <filesystem>
#include <set>
#include <tuple>
#include <utility>
#include <vector>

#include <catch2/catch.hpp>
#include <onnx/defs/schema.h>

#include "model/schema_catalog.h"
#include "model/schema_lookup.h"
#include "model/schema_table.h"
#include "pipeline/pipeline.h"
#include "test_models.h"

namespace fs = std::filesystem;
using namespace remap;

namespace {
std::atomic<int> registry_map_calls{0};
}  // namespace

namespace onnx {

// Every lookup in ONNX's registry goes through this function, which fills
// the registry on its first call: this definition stands in for the
// library's (the test executable exports it, and symbol lookup finds it
// first), counts the calls and hands them on.
OpName_Domain_Version_Schema_Map& OpSchemaRegistry::map() {
  ++registry_map_calls;
  using Map = OpName_Domain_Version_Schema_Map& (*)();
  static const Map real = [] {
    void* symbol = dlsym(RTLD_NEXT, "_ZN4onnx16OpSchemaRegistry3mapB5cxx11Ev");
    REQUIRE(symbol != nullptr);
    Map f;
    std::memcpy(&f, &symbol, sizeof f);
    return f;
  }();
  return real();
}

}  // namespace onnx

namespace {

const std::string kFixtures = remap::testing::CorpusFixtures();
using remap::testing::BuiltinRules;

int SinceOrZero(const onnx::OpSchema* s) { return s ? s->SinceVersion() : 0; }

}  // namespace

TEST_CASE("schema catalog: a rewrite with subgraphs, checked in part or in full, never fills ONNX's registry") {
  const fs::path dir = fs::temp_directory_path() / "onnx-remap-unit-schema-catalog";
  fs::remove_all(dir);
  fs::create_directories(dir);
  const RuleSet& rules = BuiltinRules();
  const int before = registry_map_calls;
  for (bool full : {false, true}) {
    for (const char* name : {"subgraph_loop_if_op13", "subgraph_if_asinh_tril_op13"}) {
      INFO(name << (full ? ", validated in full" : ", added nodes checked"));
      PipelineOptions options;
      options.mode = PipelineMode::kRewrite;
      options.full_validation = full;
      const std::string out = (dir / (std::string(name) + (full ? "-full" : "") + ".onnx")).string();
      ModelResult r = RunPipeline(ModelSource{kFixtures + name + "/model.onnx", std::nullopt, ""}, out, rules, options);
      CHECK(r.outcome == ModelOutcome::kClean);
      CHECK(r.status.ok());
      CHECK(fs::exists(out));
    }
  }
  CHECK(registry_map_calls == before);
  // The stand-in is the one ONNX's lookups reach: without it this test
  // could not fail.
  CHECK(onnx::OpSchemaRegistry::Schema("Relu", 14, "") != nullptr);
  CHECK(registry_map_calls > before);
  fs::remove_all(dir);
}

TEST_CASE("schema catalog: every schema of ONNX's registry, at every version, the same as the registry's") {
  const std::vector<onnx::OpSchema> all = onnx::OpSchemaRegistry::get_all_schemas_with_history();
  REQUIRE(all.size() == kSchemaTableSize);
  const SchemaCatalog& catalog = SchemaCatalog::Instance();
  std::set<std::tuple<std::string, std::string>> ops;
  for (const onnx::OpSchema& s : all) ops.emplace(s.domain(), s.Name());
  const int newest = onnx::OpSchemaRegistry::DomainToVersionRange::Instance().Map().at("").second;
  size_t compared = 0;
  for (const auto& [domain, name] : ops) {
    for (int v = 0; v <= newest + 1; ++v) {
      INFO(domain << "::" << name << " at version " << v);
      const onnx::OpSchema* theirs = onnx::OpSchemaRegistry::Schema(name, v, domain);
      const onnx::OpSchema* ours = catalog.Lookup(name, v, domain);
      REQUIRE(SinceOrZero(ours) == SinceOrZero(theirs));
      if (!ours) continue;
      CHECK(ours->Name() == theirs->Name());
      CHECK(ours->domain() == theirs->domain());
      CHECK(ours->inputs().size() == theirs->inputs().size());
      CHECK(ours->outputs().size() == theirs->outputs().size());
      CHECK(ours->min_input() == theirs->min_input());
      CHECK(ours->max_input() == theirs->max_input());
      CHECK(ours->min_output() == theirs->min_output());
      CHECK(ours->max_output() == theirs->max_output());
      CHECK(ours->attributes().size() == theirs->attributes().size());
      CHECK(ours->typeConstraintParams().size() == theirs->typeConstraintParams().size());
      CHECK(ours->has_type_and_shape_inference_function() == theirs->has_type_and_shape_inference_function());
      CHECK(ours->Deprecated() == theirs->Deprecated());
      CHECK(ours->HasFunction() == theirs->HasFunction());
      // Built once: a second ask is the same object.
      CHECK(catalog.Lookup(name, v, domain) == ours);
      ++compared;
    }
  }
  CHECK(compared > kSchemaTableSize);
  // Defines answers from the table what the registry answers at any version.
  for (const auto& [domain, name] : ops) {
    INFO(domain << "::" << name);
    CHECK(SchemaCatalog::Defines(name, domain));
  }
  for (const auto& [name, domain] : std::vector<std::pair<std::string, std::string>>{
           {"NoSuchOp", ""}, {"Relu", "com.example"}, {"", ""}, {"Rel", ""}, {"ReluX", ""}, {"relu", ""}, {"Zzz", ""},
           {"Abs", "zzz"}, {"Abs", "ai.onnx.ml"}}) {
    INFO(domain << "::" << name);
    CHECK_FALSE(SchemaCatalog::Defines(name, domain));
    CHECK(onnx::OpSchemaRegistry::Schema(name, INT32_MAX, domain) == nullptr);
  }
  // Unknown names and domains, and the interface ONNX's checker calls.
  CHECK(catalog.Lookup("NoSuchOp", 17, "") == nullptr);
  CHECK(catalog.Lookup("Relu", 17, "com.example") == nullptr);
  CHECK(catalog.Lookup("", 17, "") == nullptr);
  const onnx::ISchemaRegistry& registry = catalog;
  REQUIRE(registry.GetSchema("Relu", 13, "") != nullptr);
  CHECK(registry.GetSchema("Relu", 13, "")->SinceVersion() == 13);
  CHECK(FindSchema("Relu", 13, "") == registry.GetSchema("Relu", 13, ""));
}
