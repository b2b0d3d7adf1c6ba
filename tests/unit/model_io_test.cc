#include <filesystem>
#include <fstream>

#include <catch2/catch.hpp>

#include "engine/engine.h"
#include "model/graph_index.h"
#include "model/model_loader.h"
#include "saver/atomic_writer.h"
#include "saver/external_data.h"
#include "saver/model_saver.h"
#include "test_models.h"

using namespace remap;

TEST_CASE("the loader names the file and says what is wrong", "[loader]") {
  auto missing = LoadModel("/nonexistent/model.onnx");
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.status().code() == ErrorCode::kInputNotFound);
  CHECK(missing.status().message() == "/nonexistent/model.onnx: no such file");

  auto text = ParseModel("this is a text file, not a model\n", "notes.txt");
  REQUIRE_FALSE(text.ok());
  CHECK(text.status().code() == ErrorCode::kNotOnnx);
  CHECK(text.status().message().rfind("notes.txt: not an ONNX model", 0) == 0);

  auto empty = ParseModel("", "empty.onnx");
  CHECK(empty.status().code() == ErrorCode::kNotOnnx);
}

TEST_CASE("fields ONNX 1.12 does not know survive load, rewrite and save", "[loader][saver]") {
  auto model = testing::ModelFromText(R"(
    < ir_version: 10, opset_import: ["" : 21, "org.pytorch.aten" : 1] >
    g (float[4] x) => (float[4] y) {
      y = org.pytorch.aten.ATen<operator = "asinh", overload_name = "">(x)
    })");
  std::string bytes;
  model.SerializeToString(&bytes);
  // Append a field number no ONNX version uses (ModelProto field 99, string).
  const std::string unknown = std::string("\x9a\x06\x05hello", 8);
  bytes += unknown;
  auto loaded = ParseModel(bytes, "new.onnx");
  REQUIRE(loaded.ok());
  RuleSet rules = testing::RulesFromText(R"rule(rule { id: "aten-asinh" match { aten: "asinh" }
    signature: "aten::asinh(Tensor self) -> Tensor" alternative { min_opset: 9 replace: "out = Asinh(self)" } })rule");
  auto report = RewriteModel(&*loaded, rules, {});
  REQUIRE(report.ok());
  CHECK(report->rewritten.size() == 1);
  const auto path = std::filesystem::temp_directory_path() / "onnx_remap_unknown_fields.onnx";
  REQUIRE(SaveModel(*loaded, path.string()).ok());
  std::ifstream in(path, std::ios::binary);
  std::string saved((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  CHECK(saved.find(unknown) != std::string::npos);
  auto again = LoadModel(path.string());
  REQUIRE(again.ok());
  CHECK(again->ir_version() == 10);
  CHECK(again->graph().node(0).op_type() == "Asinh");
  std::filesystem::remove(path);
}

TEST_CASE("the saver's single-pass serialization writes what protobuf writes", "[saver]") {
  // Nested messages (a subgraph in an attribute, tensors, value_info) are
  // where cached sizes matter.
  auto model = testing::ModelFromText(R"(
    < ir_version: 8, opset_import: ["" : 17] >
    g (float[2,3] x, bool c) => (float[2,3] y) <float[3] w = {1.0, 2.0, 3.0}> {
      s = Mul(x, w)
      y = If(c) <
        then_branch = t () => (float[2,3] ty) { k = Constant<value = float[1] {0.5}>() ty = Mul(s, k) },
        else_branch = e () => (float[2,3] ey) { ey = Identity(s) }
      >
    })");
  model.mutable_graph()->add_value_info()->set_name("s");
  std::string expected;
  REQUIRE(model.SerializeToString(&expected));
  std::string bytes = "left over";
  REQUIRE(SerializeModel(model, &bytes));
  CHECK(bytes == expected);
  // Sized once by the caller: the cached sizes are used, not computed again.
  const size_t size = model.ByteSizeLong();
  bytes.clear();
  REQUIRE(SerializeModel(model, &bytes, size));
  CHECK(bytes == expected);
  // A size that is not the one protobuf cached is not trusted: the model is sized again.
  for (size_t wrong : {size - 1, size + 1}) {
    bytes.clear();
    REQUIRE(SerializeModel(model, &bytes, wrong));
    CHECK(bytes == expected);
  }
  // Into a buffer that is not zeroed first: the same bytes, every one written.
  for (std::optional<size_t> given : {std::optional<size_t>(), std::optional<size_t>(size),
                                      std::optional<size_t>(size + 1)}) {
    ModelBytes buffer;
    REQUIRE(SerializeModel(model, &buffer, given));
    CHECK(buffer.view() == expected);
  }
}

// The pipeline frees the model on another thread from that point on.
TEST_CASE("the saver reads the model no more once it says the bytes are made", "[saver]") {
  auto model = testing::ModelFromText(R"(< ir_version: 8, opset_import: ["" : 17] > g (float[2] x) => (float[2] y) { y = Relu(x) })");
  std::string expected;
  REQUIRE(model.SerializeToString(&expected));
  const auto path = std::filesystem::temp_directory_path() / "onnx_remap_serialized_hook.onnx";
  int calls = 0;
  SaveOptions options;
  options.serialized = [&] {
    ++calls;
    model.Clear();
  };
  REQUIRE(SaveModel(model, path.string(), options).ok());
  CHECK(calls == 1);
  std::ifstream in(path, std::ios::binary);
  std::string saved((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  CHECK(saved == expected);
  std::filesystem::remove(path);
}

TEST_CASE("saving into a missing folder fails cleanly", "[saver]") {
  auto model = testing::ModelFromText(R"(< ir_version: 7, opset_import: ["" : 13] > g (float[1] x) => (float[1] y) { y = Relu(x) })");
  Status s = SaveModel(model, "/nonexistent-dir/out.onnx");
  CHECK(s.code() == ErrorCode::kOutputFailed);
  CHECK(s.message().find("does not exist") != std::string::npos);
}

TEST_CASE("the index sees producers and uses at every depth", "[index]") {
  auto model = testing::ModelFromText(R"(
    < ir_version: 7, opset_import: ["" : 13] >
    g (bool c, float[2] x) => (float[2] y) {
      k = Constant<value = float {2.0}>()
      y = If(c) < then_branch = t () => (float[2] a) { a = Mul(x, k) },
                  else_branch = e () => (float[2] b) { b = Add(x, k) } >
    })");
  GraphIndex index = GraphIndex::ForGraph(model.graph());
  CHECK(index.Uses("k") == 2);  // both uses are inside branches
  CHECK(index.Uses("x") == 2);
  CHECK(index.Uses("y") == 1);  // graph output
  CHECK(index.ProducerOf("k").kind == Producer::Kind::kNode);
  CHECK(index.ProducerOf("a").node->op_type() == "Mul");
  CHECK(index.ProducerOf("x").kind == Producer::Kind::kGraphInput);
  CHECK(index.FreshValueName("k") == "k_1");
  CHECK(index.FreshValueName("k") == "k_2");
  CHECK(index.FreshValueName("new") == "new");
  CHECK(index.FreshNodeName("k") == "k");
  // A taken base_1 is passed over, the first time as the next.
  CHECK(index.FreshValueName("a") == "a_1");
  CHECK(index.FreshValueName("x_1") == "x_1");
  CHECK(index.FreshValueName("x") == "x_2");
  CHECK(index.FreshValueName("x") == "x_3");
  CHECK(index.FreshNodeName("n") == "n");
  CHECK(index.FreshNodeName("n") == "n_1");
  CHECK(index.FreshNodeName("n") == "n_2");
}

TEST_CASE("external data files follow the model to another folder", "[saver]") {
  namespace fs = std::filesystem;
  auto model = testing::ModelWithExternalWeight("weights.bin");
  const fs::path root = fs::temp_directory_path() / "onnx_remap_external";
  fs::remove_all(root);
  fs::create_directories(root / "in");
  fs::create_directories(root / "out");
  { std::ofstream(root / "in" / "weights.bin", std::ios::binary) << std::string(8, '\1'); }
  CHECK(ExternalDataFiles(model) == std::vector<std::string>{"weights.bin"});
  // A copy: the file is then edited in place below, which through a hard link would edit the input's.
  REQUIRE(CopyExternalData(model, (root / "in").string(), (root / "out").string(), nullptr, DataFileMode::kCopy).ok());
  CHECK(fs::file_size(root / "out" / "weights.bin") == 8);
  // Same content again: fine. Different content: refused, not overwritten.
  CHECK(CopyExternalData(model, (root / "in").string(), (root / "out").string()).ok());
  { std::ofstream(root / "out" / "weights.bin", std::ios::binary) << "other"; }
  Status clash = CopyExternalData(model, (root / "in").string(), (root / "out").string());
  CHECK(clash.code() == ErrorCode::kOutputFailed);
  CHECK(fs::file_size(root / "out" / "weights.bin") == 5);
  fs::remove_all(root);
}

TEST_CASE("temp files have one recognisable name pattern", "[saver]") {
  CHECK(IsAtomicWriterTempName(".out.onnx.onnx-remap-tmp-Ab12Cd"));
  CHECK(IsAtomicWriterTempName(".w.bin.onnx-remap-tmp-000000"));
  CHECK_FALSE(IsAtomicWriterTempName("out.onnx.onnx-remap-tmp-Ab12Cd"));   // not hidden
  CHECK_FALSE(IsAtomicWriterTempName(".onnx-remap-tmp-Ab12Cd"));           // no file name
  CHECK_FALSE(IsAtomicWriterTempName(".out.onnx.onnx-remap-tmp-Ab12C"));   // short suffix
  CHECK_FALSE(IsAtomicWriterTempName(".out.onnx.onnx-remap-tmp-Ab12Cd7")); // long suffix
  CHECK_FALSE(IsAtomicWriterTempName(".out.onnx.onnx-remap-tmp-Ab-2Cd"));
  CHECK_FALSE(IsAtomicWriterTempName(".out.onnx.tmp-Ab12Cd"));
}

TEST_CASE("an atomic write leaves only the file, with its old permissions", "[saver]") {
  namespace fs = std::filesystem;
  const fs::path root = fs::temp_directory_path() / "onnx_remap_atomic";
  fs::remove_all(root);
  fs::create_directories(root);
  const std::string path = (root / "f.bin").string();
  REQUIRE(WriteFileAtomically(path, "one").ok());
  CHECK((fs::status(path).permissions() & fs::perms::all) == (fs::perms::owner_read | fs::perms::owner_write |
                                                               fs::perms::group_read | fs::perms::others_read));
  fs::permissions(path, fs::perms::owner_read | fs::perms::owner_write);
  REQUIRE(WriteFileAtomically(path, "two").ok());
  CHECK((fs::status(path).permissions() & fs::perms::all) == (fs::perms::owner_read | fs::perms::owner_write));
  std::ifstream in(path);
  CHECK(std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>()) == "two");
  size_t entries = 0;
  for (const auto& e : fs::directory_iterator(root)) entries += e.is_regular_file() ? 1 : 100;
  CHECK(entries == 1);
  fs::remove_all(root);
}

TEST_CASE("an atomic write of pieces writes them in order, past one writev's worth", "[saver]") {
  namespace fs = std::filesystem;
  const fs::path root = fs::temp_directory_path() / "onnx_remap_atomic_pieces";
  fs::remove_all(root);
  fs::create_directories(root);
  const std::string path = (root / "f.bin").string();
  // 3,000 pieces (a writev takes 1,024), some empty, one large.
  std::vector<std::string> storage;
  for (int k = 0; k < 3000; ++k) storage.push_back(k % 7 == 0 ? "" : std::to_string(k) + ",");
  storage[1500] = std::string(3 << 20, 'x');
  std::vector<std::string_view> pieces(storage.begin(), storage.end());
  std::string expected;
  for (const auto& piece : storage) expected += piece;
  REQUIRE(WriteFileAtomically(path, pieces).ok());
  std::ifstream in(path, std::ios::binary);
  CHECK(std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>()) == expected);
  REQUIRE(WriteFileAtomically(path, std::vector<std::string_view>{}).ok());
  CHECK(fs::file_size(path) == 0);
  fs::remove_all(root);
}

TEST_CASE("an atomic write asks its gate after the content is written, and a refusal replaces nothing", "[saver]") {
  namespace fs = std::filesystem;
  const fs::path root = fs::temp_directory_path() / "onnx_remap_atomic_gate";
  fs::remove_all(root);
  fs::create_directories(root);
  const std::string path = (root / "f.bin").string();
  REQUIRE(WriteFileAtomically(path, "old").ok());
  const std::vector<std::string_view> pieces{"ne", "w"};
  int asked = 0;
  const Status refused = WriteFileAtomically(path, pieces, Durability::kSynced, [&] {
    ++asked;
    // Asked with the content written in full, before it is anywhere a reader sees it.
    size_t temp_files = 0;
    for (const auto& e : fs::directory_iterator(root)) temp_files += e.path().filename() != "f.bin";
    CHECK(temp_files == 0);
    return Status(ErrorCode::kValidationFailed, "no");
  });
  CHECK(asked == 1);
  CHECK(refused.code() == ErrorCode::kValidationFailed);
  CHECK(refused.message() == "no");
  auto content = [&] {
    std::ifstream in(path, std::ios::binary);
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  };
  CHECK(content() == "old");
  size_t entries = 0;
  for (const auto& e : fs::directory_iterator(root)) entries += e.is_regular_file() ? 1 : 100;
  CHECK(entries == 1);
  REQUIRE(WriteFileAtomically(path, pieces, Durability::kSynced, [&] { return Status::Ok(); }).ok());
  CHECK(content() == "new");
  fs::remove_all(root);
}

TEST_CASE("copied external data is listed, folders first, so it can be undone", "[saver]") {
  namespace fs = std::filesystem;
  auto model = testing::ModelWithExternalWeight("data/deep/w.bin");
  const fs::path root = fs::temp_directory_path() / "onnx_remap_created";
  fs::remove_all(root);
  fs::create_directories(root / "in" / "data" / "deep");
  fs::create_directories(root / "out");
  { std::ofstream(root / "in" / "data" / "deep" / "w.bin", std::ios::binary) << std::string(8, '\1'); }
  std::vector<std::string> created;
  REQUIRE(CopyExternalData(model, (root / "in").string(), (root / "out").string(), &created).ok());
  CHECK(created == std::vector<std::string>{(root / "out" / "data").string(), (root / "out" / "data" / "deep").string(),
                                            (root / "out" / "data" / "deep" / "w.bin").string()});
  // Already there with the same content: kept, and not listed as created.
  created.clear();
  REQUIRE(CopyExternalData(model, (root / "in").string(), (root / "out").string(), &created).ok());
  CHECK(created.empty());
  fs::remove_all(root);
}

// The pipeline refuses these locations before saving; the copy must refuse them
// on its own too (tests/bad_inputs covers the pipeline).
TEST_CASE("the external data copy follows no location out of the model's folder", "[saver]") {
  namespace fs = std::filesystem;
  const fs::path root = fs::temp_directory_path() / "onnx_remap_external_escape";
  fs::remove_all(root);
  fs::create_directories(root / "in");
  fs::create_directories(root / "out");
  { std::ofstream(root / "secret.bin", std::ios::binary) << std::string(8, '\1'); }
  fs::create_symlink("../secret.bin", root / "in" / "link.bin");
  for (const std::string& location : std::vector<std::string>{"link.bin", "../secret.bin", (root / "secret.bin").string()}) {
    INFO(location);
    auto model = testing::ModelWithExternalWeight(location);
    Status copied = CopyExternalData(model, (root / "in").string(), (root / "out").string());
    CHECK(copied.code() == ErrorCode::kInvalidModel);
    CHECK(copied.message().find("refused") != std::string::npos);
    CHECK(fs::is_empty(root / "out"));
  }
  fs::remove_all(root);
}
