#include <filesystem>
#include <fstream>

#include <catch2/catch.hpp>

#include "saver/weight_storage.h"
#include "test_models.h"

using namespace remap;
namespace fs = std::filesystem;

namespace {

std::string Bytes(size_t n, char seed) {
  std::string s(n, '\0');
  for (size_t i = 0; i < n; ++i) s[i] = static_cast<char>(seed + i * 7);
  return s;
}

onnx::TensorProto* AddRaw(onnx::GraphProto* g, const std::string& name, const std::string& raw) {
  auto* t = g->add_initializer();
  t->set_name(name);
  t->set_data_type(onnx::TensorProto::UINT8);
  t->add_dims(static_cast<int64_t>(raw.size()));
  t->set_raw_data(raw);
  return t;
}

// Two large initializers (one in a subgraph), a small one and one in float_data.
onnx::ModelProto WeightedModel() {
  auto model = testing::ModelFromText(R"(
    < ir_version: 8, opset_import: ["" : 13] >
    g (bool c) => (float[2] y) {
      y = If(c) <then_branch = t () => (float[2] a) { a = Identity(w) },
                 else_branch = e () => (float[2] b) { b = Identity(w) }>
    })");
  AddRaw(model.mutable_graph(), "big", Bytes(5000, 1));
  AddRaw(model.mutable_graph(), "small", Bytes(8, 2));
  auto* typed = model.mutable_graph()->add_initializer();
  typed->set_name("typed");
  typed->set_data_type(onnx::TensorProto::FLOAT);
  typed->add_dims(2000);
  for (int i = 0; i < 2000; ++i) typed->add_float_data(static_cast<float>(i));
  AddRaw(model.mutable_graph()->mutable_node(0)->mutable_attribute(0)->mutable_g(), "inner", Bytes(3000, 3));
  return model;
}

std::string Serialized(const onnx::ModelProto& m) {
  std::string s;
  m.SerializeToString(&s);
  return s;
}

std::string Location(const onnx::TensorProto& t, const std::string& key) {
  for (const auto& kv : t.external_data())
    if (kv.key() == key) return kv.value();
  return "";
}

std::string ReadAt(const fs::path& p, uint64_t offset, uint64_t length) {
  std::ifstream in(p, std::ios::binary);
  in.seekg(static_cast<std::streamoff>(offset));
  std::string s(length, '\0');
  in.read(&s[0], static_cast<std::streamsize>(length));
  return s;
}

fs::path FreshRoot(const char* name) {
  const fs::path root = fs::temp_directory_path() / name;
  fs::remove_all(root);
  fs::create_directories(root);
  return root;
}

}  // namespace

TEST_CASE("data file names are relative paths that stay in the output's folder", "[saver]") {
  CHECK(ValidDataFileName("m.onnx.data"));
  CHECK(ValidDataFileName("weights/m.bin"));
  CHECK_FALSE(ValidDataFileName(""));
  CHECK_FALSE(ValidDataFileName("/tmp/m.data"));
  CHECK_FALSE(ValidDataFileName("../m.data"));
  CHECK_FALSE(ValidDataFileName("a/../../m.data"));
  CHECK_FALSE(ValidDataFileName("weights/"));
}

TEST_CASE("large initializers move to one file at page-aligned offsets, and back byte for byte", "[saver]") {
  const fs::path root = FreshRoot("onnx_remap_weights_move");
  const onnx::ModelProto original = WeightedModel();
  onnx::ModelProto model = original;
  std::vector<std::string> created;
  REQUIRE(MoveWeightsToFile(&model, root.string(), "m.onnx.data", kDefaultExternalThreshold, &created).ok());
  CHECK(created == std::vector<std::string>{(root / "m.onnx.data").string()});
  // Only the file: no temp file left.
  CHECK(std::distance(fs::directory_iterator(root), fs::directory_iterator()) == 1);

  const auto& g = model.graph();
  const onnx::TensorProto& big = g.initializer(0);
  const onnx::TensorProto& inner = g.node(0).attribute(0).g().initializer(0);
  for (const onnx::TensorProto* t : {&big, &inner}) {
    INFO(t->name());
    CHECK(t->data_location() == onnx::TensorProto::EXTERNAL);
    CHECK(t->raw_data().empty());
    CHECK(Location(*t, "location") == "m.onnx.data");
    CHECK(std::stoull(Location(*t, "offset")) % kExternalDataAlignment == 0);
  }
  CHECK(ReadAt(root / "m.onnx.data", std::stoull(Location(big, "offset")), 5000) == Bytes(5000, 1));
  CHECK(ReadAt(root / "m.onnx.data", std::stoull(Location(inner, "offset")), 3000) == Bytes(3000, 3));
  CHECK(Location(inner, "length") == "3000");
  // Below the threshold, or not in raw_data: left in the model.
  CHECK(g.initializer(1).raw_data() == Bytes(8, 2));
  CHECK(g.initializer(1).data_location() == onnx::TensorProto::DEFAULT);
  CHECK(g.initializer(2).float_data_size() == 2000);

  REQUIRE(EmbedExternalData(&model, root.string(), kProtobufLimit).ok());
  CHECK(Serialized(model) == Serialized(original));
  fs::remove_all(root);
}

TEST_CASE("moving weights replaces an earlier data file of that name, and writes none when nothing qualifies", "[saver]") {
  const fs::path root = FreshRoot("onnx_remap_weights_replace");
  { std::ofstream(root / "m.data") << "an earlier run's file"; }
  onnx::ModelProto model = WeightedModel();
  REQUIRE(MoveWeightsToFile(&model, root.string(), "m.data", 1024, nullptr).ok());
  CHECK(ReadAt(root / "m.data", 0, 5000) == Bytes(5000, 1));

  onnx::ModelProto untouched = WeightedModel();
  std::vector<std::string> created;
  REQUIRE(MoveWeightsToFile(&untouched, root.string(), "none.data", 1 << 20, &created).ok());
  CHECK(created.empty());
  CHECK_FALSE(fs::exists(root / "none.data"));
  CHECK(Serialized(untouched) == Serialized(WeightedModel()));
  fs::remove_all(root);
}

TEST_CASE("embedding refuses past the limit before reading anything, the model as it was", "[saver]") {
  const fs::path root = FreshRoot("onnx_remap_weights_limit");
  onnx::ModelProto model = WeightedModel();
  REQUIRE(MoveWeightsToFile(&model, root.string(), "m.data", 1024, nullptr).ok());
  const std::string before = Serialized(model);
  // 8 KiB of weights cannot fit in 4 KiB.
  Status s = EmbedExternalData(&model, root.string(), 4096);
  CHECK(s.code() == ErrorCode::kOutputFailed);
  CHECK(s.message().find("past protobuf's limit of 4096") != std::string::npos);
  CHECK(Serialized(model) == before);
  fs::remove_all(root);
}
