// Weights as bytes to move (issue 11): large main-graph raw_data stays in the
// input file at load and is copied back at save; the output must be the bytes
// the plain path writes.
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <unistd.h>

#include <catch2/catch.hpp>

#include "model/model_loader.h"
#include "model/wire_format_scan.h"
#include "pipeline/pipeline.h"
#include "saver/model_saver.h"
#include "temp_paths.h"
#include "test_models.h"

using namespace remap;
namespace fs = std::filesystem;

namespace {

std::string ReadAll(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

void WriteBytes(const fs::path& p, const std::string& bytes) {
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out << bytes;
}

void AddInitializer(onnx::GraphProto* g, const std::string& name, int type, std::vector<int64_t> dims, size_t bytes,
                    char seed) {
  onnx::TensorProto* t = g->add_initializer();
  t->set_name(name);
  t->set_data_type(type);
  for (int64_t d : dims) t->add_dims(d);
  std::string raw(bytes, '\0');
  for (size_t i = 0; i < bytes; ++i) raw[i] = static_cast<char>(seed + i * 31);
  t->set_raw_data(raw);
}

// Three weights of 16 KiB (one also a graph input), small tensors a shape
// inference and a rule read (the slope is removed by the rewrite, which moves
// the later initializers up), an ATen node to rewrite, a subgraph initializer.
onnx::ModelProto Fixture() {
  onnx::ModelProto m = testing::ModelFromText(R"(
    < ir_version: 8, opset_import: ["" : 17, "org.pytorch.aten" : 1] >
    g (float[64,64] x, float[64,64] w3) => (float[64,64] y) {
      a = MatMul(x, w1)
      b = Add(a, bias)
      s = Reshape(b, shape)
      c = org.pytorch.aten.ATen<operator = "leaky_relu", overload_name = "">(s, slope)
      d = MatMul(c, w2)
      y = Add(d, w3)
    })");
  onnx::GraphProto* g = m.mutable_graph();
  const int F = onnx::TensorProto::FLOAT;
  AddInitializer(g, "w1", F, {64, 64}, 64 * 64 * 4, 1);
  AddInitializer(g, "bias", F, {64}, 64 * 4, 2);
  onnx::TensorProto* shape = g->add_initializer();
  shape->set_name("shape");
  shape->set_data_type(onnx::TensorProto::INT64);
  shape->add_dims(2);
  shape->add_int64_data(64);
  shape->add_int64_data(64);
  onnx::TensorProto* slope = g->add_initializer();
  slope->set_name("slope");
  slope->set_data_type(onnx::TensorProto::DOUBLE);
  slope->add_double_data(0.25);
  AddInitializer(g, "w2", F, {64, 64}, 64 * 64 * 4, 3);
  AddInitializer(g, "w3", F, {64, 64}, 64 * 64 * 4, 4);
  return m;
}

RuleSet LeakyRelu() {
  return testing::RulesFromText(R"rule(rule { id: "leaky" match { aten: "leaky_relu" }
    signature: "aten::leaky_relu(Tensor self, Scalar negative_slope=0.01) -> Tensor"
    alternative { min_opset: 6 replace: "out = LeakyRelu<alpha = ${float(negative_slope)}>(self)" } })rule");
}

ModelResult Rewrite(const fs::path& in, const fs::path& out, uint64_t splice_min_bytes) {
  PipelineOptions options;
  options.splice_min_bytes = splice_min_bytes;
  return RunPipeline(ModelSource{in.string(), std::nullopt, ""}, out.string(), LeakyRelu(), options);
}

}  // namespace

TEST_CASE("a spliced save writes the bytes the plain save writes", "[splice][pipeline]") {
  testing::TempFolder dir("onnx_remap_splice");
  onnx::ModelProto model = Fixture();
  std::string bytes;
  REQUIRE(model.SerializeToString(&bytes));
  WriteBytes(dir.path / "in.onnx", bytes);

  ModelResult plain = Rewrite(dir.path / "in.onnx", dir.path / "plain.onnx", 0);
  INFO(plain.status.message());
  REQUIRE(plain.written);
  CHECK(plain.spliced_bytes == 0);
  const std::string expected = ReadAll(dir.path / "plain.onnx");
  auto rewritten = ParseModel(expected, "plain.onnx");
  REQUIRE(rewritten.ok());
  CHECK(rewritten->graph().node(3).op_type() == "LeakyRelu");
  CHECK(rewritten->graph().initializer_size() == 5);  // the slope went with the ATen node

  SECTION("to another file") {
    ModelResult spliced = Rewrite(dir.path / "in.onnx", dir.path / "spliced.onnx", 1024);
    INFO(spliced.status.message());
    REQUIRE(spliced.written);
    CHECK(spliced.spliced_bytes == 3 * 64 * 64 * 4);  // w1, w2, w3; not bias, shape or slope
    CHECK(ReadAll(dir.path / "spliced.onnx") == expected);
    CHECK(ReadAll(dir.path / "in.onnx") == bytes);
  }
  SECTION("in place: the input is read until the new file is complete") {
    WriteBytes(dir.path / "same.onnx", bytes);
    ModelResult spliced = Rewrite(dir.path / "same.onnx", dir.path / "same.onnx", 1024);
    INFO(spliced.status.message());
    REQUIRE(spliced.written);
    CHECK(spliced.spliced_bytes == 3 * 64 * 64 * 4);
    CHECK(ReadAll(dir.path / "same.onnx") == expected);
  }
  SECTION("every raw_data of a byte or more") {
    // The bias (256 bytes) too; shape and slope hold typed fields, not raw_data.
    ModelResult spliced = Rewrite(dir.path / "in.onnx", dir.path / "all.onnx", 1);
    INFO(spliced.status.message());
    REQUIRE(spliced.written);
    CHECK(spliced.spliced_bytes == 3 * 64 * 64 * 4 + 64 * 4);
    CHECK(ReadAll(dir.path / "all.onnx") == expected);
  }
}

TEST_CASE("no splice for bytes in memory, dry runs or a kept model", "[splice][pipeline]") {
  testing::TempFolder dir("onnx_remap_splice");
  std::string bytes;
  REQUIRE(Fixture().SerializeToString(&bytes));
  WriteBytes(dir.path / "in.onnx", bytes);
  PipelineOptions options;
  options.splice_min_bytes = 1024;
  options.keep_model = true;
  ModelResult kept = RunPipeline(ModelSource{(dir.path / "in.onnx").string(), std::nullopt, ""},
                                 (dir.path / "out.onnx").string(), LeakyRelu(), options);
  REQUIRE(kept.written);
  CHECK(kept.spliced_bytes == 0);
  REQUIRE(kept.model);
  CHECK(kept.model->graph().initializer(0).raw_data().size() == 64 * 64 * 4);
  options.keep_model = false;
  ModelResult from_bytes = RunPipeline(ModelSource{"mem.onnx", bytes, dir.path.string()},
                                       (dir.path / "out2.onnx").string(), LeakyRelu(), options);
  REQUIRE(from_bytes.written);
  CHECK(from_bytes.spliced_bytes == 0);
  CHECK(ReadAll(dir.path / "out.onnx") == ReadAll(dir.path / "out2.onnx"));
}

TEST_CASE("the wire scan leaves out exactly the large raw_data", "[splice][loader]") {
  onnx::ModelProto model = Fixture();
  std::string bytes;
  REQUIRE(model.SerializeToString(&bytes));
  auto scan = ScanForLargeRawData(bytes.data(), bytes.size(), 1024);
  REQUIRE(scan);
  REQUIRE(scan->left_out.size() == 3);
  CHECK(scan->left_out[0].initializer_index == 0);
  CHECK(scan->left_out[1].initializer_index == 4);
  CHECK(scan->left_out[2].initializer_index == 5);
  CHECK(bytes.substr(scan->left_out[1].offset, scan->left_out[1].length) == model.graph().initializer(4).raw_data());
  onnx::ModelProto reduced;
  REQUIRE(reduced.ParseFromString(scan->reduced));
  for (int i : {0, 4, 5}) model.mutable_graph()->mutable_initializer(i)->clear_raw_data();
  CHECK(reduced.SerializeAsString() == model.SerializeAsString());

  CHECK_FALSE(ScanForLargeRawData(bytes.data(), bytes.size(), 1 << 20));  // nothing that large
  CHECK_FALSE(ScanForLargeRawData(bytes.data(), bytes.size() - 100, 1024));  // truncated inside a raw_data
  CHECK_FALSE(ScanForLargeRawData(bytes.data(), bytes.size(), 0));
}

TEST_CASE("a field is read alike with one-byte varints (inline) or longer ones", "[splice][loader]") {
  auto read = [](const std::string& bytes, size_t end, WireField* f) { return ReadWireField(bytes.data(), 0, end, f); };
  auto same = [](const WireField& a, const WireField& b) {
    return a.number == b.number && a.wire_type == b.wire_type && a.start == b.start && a.tag_end == b.tag_end &&
           a.payload_start == b.payload_start && a.end == b.end;
  };
  WireField f, g;
  // Field 4 (a string), 3 bytes: the inline path; with the varints padded to
  // two bytes (0x80 continuation), the general one.
  const std::string small = std::string("\x22\x03" "abc", 5);
  REQUIRE(read(small, small.size(), &f));
  CHECK((f.number == 4 && f.wire_type == 2 && f.tag_end == 1 && f.payload_start == 2 && f.end == 5));
  REQUIRE(ReadWireFieldSlowly(small.data(), 0, small.size(), &g));
  CHECK(same(f, g));
  // A 127-byte payload is the longest inline; 128 takes a two-byte length.
  for (size_t n : {size_t{0}, size_t{127}, size_t{128}, size_t{300}}) {
    CAPTURE(n);
    std::string bytes("\x0a", 1);
    AppendVarint(n, &bytes);
    bytes += std::string(n, 'x');
    REQUIRE(read(bytes, bytes.size(), &f));
    REQUIRE(ReadWireFieldSlowly(bytes.data(), 0, bytes.size(), &g));
    CHECK(same(f, g));
    CHECK(f.end == bytes.size());
    CHECK_FALSE(read(bytes, bytes.size() - 1, &f));  // the payload runs past the end
  }
  // Not length-delimited, field number 0, a group: never the inline path.
  CHECK(read(std::string("\x08\x05", 2), 2, &f));
  CHECK((f.wire_type == 0 && f.end == 2));
  CHECK_FALSE(read(std::string("\x02\x01x", 3), 3, &f));
  CHECK_FALSE(read(std::string("\x0b\x01x", 3), 3, &f));
  CHECK_FALSE(read(std::string("\x0a", 1), 1, &f));  // a tag and no length
}

TEST_CASE("the wire scan reads a file by windows as it reads bytes in memory", "[splice][loader]") {
  testing::TempFolder dir("onnx_remap_splice");
  std::string bytes;
  REQUIRE(Fixture().SerializeToString(&bytes));
  const fs::path path = dir.path / "m.onnx";
  WriteBytes(path, bytes);
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  REQUIRE(fd >= 0);
  auto in_memory = ScanForLargeRawData(bytes.data(), bytes.size(), 1024);
  REQUIRE(in_memory);
  // Windows smaller than a field header, headers across window edges, and
  // ranges to keep that start inside the window and end past it.
  for (size_t window : {size_t{1}, size_t{7}, size_t{16}, size_t{333}, size_t{4096}, size_t{64 * 1024}}) {
    CAPTURE(window);
    FileWireSource source(fd, bytes.size(), window);
    auto scan = ScanForLargeRawData(&source, 1024);
    REQUIRE(scan);
    CHECK(scan->reduced == in_memory->reduced);
    REQUIRE(scan->left_out.size() == in_memory->left_out.size());
    for (size_t k = 0; k < scan->left_out.size(); ++k) {
      CHECK(scan->left_out[k].initializer_index == in_memory->left_out[k].initializer_index);
      CHECK(scan->left_out[k].offset == in_memory->left_out[k].offset);
      CHECK(scan->left_out[k].length == in_memory->left_out[k].length);
    }
  }
  // A file shorter than the size the scan was told (it shrank after the
  // stat): a read comes up short, and the scan gives up.
  FileWireSource too_long(fd, bytes.size() + 64, 16);
  CHECK_FALSE(ScanForLargeRawData(&too_long, 1024));
  ::close(fd);
}

TEST_CASE("bad models keep their messages on the spliced load", "[splice][loader]") {
  testing::TempFolder dir("onnx_remap_splice");
  onnx::ModelProto model = Fixture();
  std::string bytes;
  REQUIRE(model.SerializeToString(&bytes));
  auto same_error = [&](const std::string& content, const std::string& name) {
    const fs::path p = dir.path / name;
    WriteBytes(p, content);
    auto plain = LoadModel(p.string());
    auto spliced = LoadModelSpliced(p.string(), 1024);
    REQUIRE_FALSE(plain.ok());
    REQUIRE_FALSE(spliced.ok());
    CHECK(spliced.status().code() == plain.status().code());
    CHECK(spliced.status().message() == plain.status().message());
  };
  same_error(bytes.substr(0, bytes.size() - 100), "truncated.onnx");
  onnx::ModelProto wrong = model;
  wrong.mutable_graph()->mutable_initializer(4)->set_dims(0, 65);  // 65x64 floats declared, 64x64 held
  same_error(wrong.SerializeAsString(), "wrong_dims.onnx");
  onnx::ModelProto strings = model;
  strings.mutable_graph()->mutable_initializer(4)->set_data_type(onnx::TensorProto::FLOAT16);  // 2x the elements
  same_error(strings.SerializeAsString(), "wrong_type.onnx");
}
