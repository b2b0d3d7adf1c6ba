#include "model/model_loader.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <unordered_set>
#include <vector>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>

#include "model/deferred_nodes.h"
#include "model/file_bytes.h"
#include "model/model_structure.h"
#include "model/node_split_parse.h"
#include "model/tensor_size.h"
#include "model/wire_format_scan.h"

namespace remap {

namespace {

bool ParseBytes(std::string_view bytes, onnx::ModelProto* model) {
  // Each subgraph level is three messages (attribute, graph, node) and a graph's
  // types nest a few more: room for kMaxSubgraphDepth, while the parser's own
  // recursion stays shallow. Deeper models fail here and are measured below.
  constexpr int kRecursionLimit = 3 * kMaxSubgraphDepth + 24;
  // A large graph's nodes on every core; anything else (and any failure) the plain way.
  return ParseSplittingNodes(bytes, kRecursionLimit, NodeSplitOptions{}, model) ||
         ParseMessageBytes(bytes.data(), bytes.size(), kRecursionLimit, model);
}

Status CheckParsed(const onnx::ModelProto& model, const std::string& name, GraphIndex* main_index,
                   const DeferredNodes* deferred = nullptr) {
  // Random bytes can parse as a message made only of unknown fields; a model has a graph.
  if (!model.has_graph()) return Status(ErrorCode::kNotOnnx, fmt::format("{}: not an ONNX model (no graph)", name));
  if (model.ir_version() <= 0)
    return Status(ErrorCode::kNotOnnx, fmt::format("{}: not an ONNX model (no IR version)", name));
  if (model.opset_import_size() == 0)
    return Status(ErrorCode::kInvalidModel, fmt::format("{}: model has no opset_import", name));
  Status structure = CheckModelStructure(model, main_index, deferred);
  if (!structure.ok()) return Status(structure.code(), fmt::format("{}: {}", name, structure.message()));
  return Status::Ok();
}

// The scan's cut raw_data must be what the parsed tensor declares; anything
// else goes the plain way, which reports it.
bool LeftOutFits(const onnx::ModelProto& model, const std::vector<WireRawData>& left_out) {
  std::unordered_set<std::string> names;  // the marks are found again by name
  for (const WireRawData& r : left_out) {
    if (r.initializer_index >= model.graph().initializer_size()) return false;
    const onnx::TensorProto& t = model.graph().initializer(r.initializer_index);
    if (!names.insert(t.name()).second) return false;
    const std::optional<int64_t> count = DeclaredElementCount(t);
    const size_t bytes = ElementBytes(t.data_type());
    if (t.has_raw_data() || !count || bytes == 0 || static_cast<uint64_t>(*count) != r.length / bytes ||
        r.length % bytes != 0)
      return false;
    if (HeldElementCount(t).value_or(0) != 0) return false;  // typed data besides: two value fields
  }
  return true;
}

// The scan of a regular file, read a window at a time around the headers:
// the weights stay on disk. Not through a mapping: a kernel may map a whole
// large page-cache folio for one header byte, and a just-written model's
// cached weights then count hundreds of MB in the peak RSS (docs/performance-history.md).
// nullopt: load it whole.
std::optional<WireScan> ScanFile(int fd, size_t size, uint64_t min_bytes) {
  if (size == 0) return std::nullopt;
  // The scan jumps from header to header; read-ahead of the weights would be
  // wasted. The saver copies them through the same descriptor, with read-ahead.
  ::posix_fadvise(fd, 0, 0, POSIX_FADV_RANDOM);
  FileWireSource source(fd, size);
  std::optional<WireScan> scan = ScanForLargeRawData(&source, min_bytes);
  ::posix_fadvise(fd, 0, 0, POSIX_FADV_NORMAL);
  return scan;
}


// Parses `bytes` into *model, without the structure check.
Status ParseInto(std::string_view bytes, const std::string& name, onnx::ModelProto* model) {
  if (bytes.empty()) return Status(ErrorCode::kNotOnnx, fmt::format("{}: empty file, not an ONNX model", name));
  if (ParseBytes(bytes, model)) return Status::Ok();
  const int depth = SerializedSubgraphDepth(bytes, 1 << 30);
  if (depth > kMaxSubgraphDepth)
    return Status(ErrorCode::kInvalidModel, fmt::format("{}: subgraphs nested {} deep (the limit is {})", name, depth,
                                                        kMaxSubgraphDepth));
  return Status(ErrorCode::kNotOnnx, fmt::format("{}: not an ONNX model (protobuf parse failed)", name));
}

// A file's bytes, freed once parsed: the structure check then builds the
// index without the file's copy in memory beside it (the peak of a load).
// With `defer`, plain nodes may stay bytes (deferred_nodes.h); anything that
// goes wrong so then loads the model whole, which words the errors.
Expected<onnx::ModelProto> ParseFileBytes(FileBytes bytes, const std::string& name, GraphIndex* main_index,
                                          const DeferOptions& defer = {}) {
  if (defer.nodes) {
    std::optional<std::string> reduced = DeferPlainNodes(&bytes, defer.min_bytes, defer.nodes);
    if (reduced) {
      onnx::ModelProto model;
      const bool parsed = ParseBytes(*reduced, &model);
      std::string().swap(*reduced);
      if (parsed && CheckParsed(model, name, main_index, defer.nodes).ok()) return model;
      bytes = defer.nodes->TakeFile();
    }
  }
  onnx::ModelProto model;
  Status parsed = ParseInto(bytes.view(), name, &model);
  if (!parsed.ok()) return parsed;
  bytes.Release();
  Status checked = CheckParsed(model, name, main_index);
  if (!checked.ok()) return checked;
  return model;
}

}  // namespace

Expected<onnx::ModelProto> ParseModel(const std::string& bytes, const std::string& name, GraphIndex* main_index) {
  onnx::ModelProto model;
  Status parsed = ParseInto(bytes, name, &model);
  if (!parsed.ok()) return parsed;
  Status checked = CheckParsed(model, name, main_index);
  if (!checked.ok()) return checked;
  return model;
}

Expected<onnx::ModelProto> LoadModel(const std::string& path, GraphIndex* main_index, const DeferOptions& defer) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec))
    return Status(ErrorCode::kInputNotFound, fmt::format("{}: no such file", path));
  if (std::filesystem::is_directory(path, ec))
    return Status(ErrorCode::kInputUnreadable, fmt::format("{}: is a directory, not a model file", path));
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status(ErrorCode::kInputUnreadable, fmt::format("{}: cannot open: {}", path, std::strerror(errno)));
  if (!std::filesystem::is_regular_file(path, ec)) {
    // A pipe or device has no size to read up front.
    std::ostringstream buffer;
    buffer << in.rdbuf();
    if (in.bad()) return Status(ErrorCode::kInputUnreadable, fmt::format("{}: read failed", path));
    return ParseFileBytes(FileBytes(buffer.str()), path, main_index, defer);
  }
  const uintmax_t size = std::filesystem::file_size(path, ec);
  if (ec) return Status(ErrorCode::kInputUnreadable, fmt::format("{}: {}", path, ec.message()));
  if (size > static_cast<uintmax_t>(INT32_MAX))
    return Status(ErrorCode::kInvalidModel,
                  fmt::format("{}: {} bytes is over protobuf's 2 GiB limit; save the weights as external data", path, size));
  // Mapped: no copy of the file to zero and fill (file_bytes.h).
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd >= 0) {
    struct stat st;
    std::optional<FileBytes> mapped;
    if (::fstat(fd, &st) == 0 && static_cast<uintmax_t>(st.st_size) == size)
      mapped = FileBytes::Map(fd, static_cast<size_t>(size), path);
    ::close(fd);
    if (mapped) return ParseFileBytes(std::move(*mapped), path, main_index, defer);
  }
  // One read into a string of the file's size: no stream buffer to grow and copy out of.
  std::string bytes(static_cast<size_t>(size), '\0');
  if (!in.read(bytes.data(), static_cast<std::streamsize>(size)))
    return Status(ErrorCode::kInputUnreadable, fmt::format("{}: read failed", path));
  return ParseFileBytes(FileBytes(std::move(bytes)), path, main_index, defer);
}

Expected<SplicedModel> LoadModelSpliced(const std::string& path, uint64_t min_bytes, GraphIndex* main_index,
                                        const DeferOptions& defer) {
  auto whole = [&]() -> Expected<SplicedModel> {
    auto model = LoadModel(path, main_index, defer);
    if (!model) return model.status();
    return SplicedModel{std::move(*model), nullptr};
  };
  std::error_code ec;
  // A symbolic link's target may be outside its folder, where the marks
  // (external data of the input's name) would be refused.
  if (min_bytes == 0 || std::filesystem::is_symlink(path, ec) || !std::filesystem::is_regular_file(path, ec))
    return whole();
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return whole();
  auto source = std::make_shared<SplicedSource>(fd, path);
  struct stat st;
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size > INT32_MAX) return whole();
  std::optional<WireScan> scan = ScanFile(fd, static_cast<size_t>(st.st_size), min_bytes);
  if (!scan) return whole();
  SplicedModel out;
  if (!ParseBytes(scan->reduced, &out.model) || !out.model.has_graph() || !LeftOutFits(out.model, scan->left_out))
    return whole();
  scan->reduced = std::string();
  MarkSpliced(out.model.mutable_graph(), scan->left_out, std::filesystem::path(path).filename().string(), source.get());
  if (!CheckParsed(out.model, path, main_index).ok()) return whole();
  out.source = std::move(source);
  return out;
}

}  // namespace remap
