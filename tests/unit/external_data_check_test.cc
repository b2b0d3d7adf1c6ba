#include <filesystem>
#include <fstream>
#include <string>

#include <catch2/catch.hpp>

#include "model/external_data_check.h"
#include "temp_paths.h"
#include "test_models.h"

namespace remap {
namespace {

namespace fs = std::filesystem;

// A float tensor of `count` elements at `offset` in `location`.
onnx::TensorProto* AddExternal(onnx::ModelProto* model, const std::string& name, const std::string& location,
                               int offset, int count) {
  auto* t = model->mutable_graph()->add_initializer();
  t->set_name(name);
  t->set_data_type(onnx::TensorProto::FLOAT);
  t->add_dims(count);
  t->set_data_location(onnx::TensorProto::EXTERNAL);
  auto add = [&](const std::string& key, const std::string& value) {
    auto* kv = t->add_external_data();
    kv->set_key(key);
    kv->set_value(value);
  };
  add("location", location);
  add("offset", std::to_string(offset));
  return t;
}

// Writes a file of `bytes` zeros into `dir`.
void File(const fs::path& dir, const std::string& name, size_t bytes) {
  std::ofstream(dir / name, std::ios::binary) << std::string(bytes, '\0');
}

// Each data file is resolved and measured once for all its tensors: what was
// found for one file must not stand for another.
TEST_CASE("each tensor is held to its own data file", "[external]") {
  testing::TempFolder dir("onnx_remap_external_data_check");
  File(dir.path, "a.bin", 64);   // 16 floats
  File(dir.path, "b.bin", 256);  // 64 floats
  auto model = testing::ModelFromText(R"(< ir_version: 8, opset_import: ["" : 13] > g (float[2] x) => (float[2] y) { y = Relu(x) })");
  for (int k = 0; k < 4; ++k) AddExternal(&model, "a" + std::to_string(k), "a.bin", 16 * k, 4);
  for (int k = 0; k < 4; ++k) AddExternal(&model, "b" + std::to_string(k), "b.bin", 64 * k, 16);
  REQUIRE(CheckExternalData(model, dir.path.string()).ok());

  SECTION("a later tensor past the end of the smaller file") {
    AddExternal(&model, "a_late", "a.bin", 48, 16);  // would fit in b.bin
    const Status s = CheckExternalData(model, dir.path.string());
    CHECK(s.code() == ErrorCode::kInvalidModel);
    CHECK(s.message() ==
          "initializer 'a_late': external data (offset 48, 64 bytes) ends beyond the end of a.bin (64 bytes)");
  }
  SECTION("a later tensor in a file that is missing") {
    AddExternal(&model, "c0", "c.bin", 0, 1);
    const Status s = CheckExternalData(model, dir.path.string());
    CHECK(s.message() == "initializer 'c0': external data file c.bin does not exist");
  }
  SECTION("a bad offset is named before a missing file, as it was for one tensor alone") {
    AddExternal(&model, "c1", "c.bin", 0, 1)->mutable_external_data(1)->set_value("x");
    const Status s = CheckExternalData(model, dir.path.string());
    CHECK(s.message() == "initializer 'c1': external data offset 'x' or length '' is not a byte count");
  }
}

}  // namespace
}  // namespace remap
