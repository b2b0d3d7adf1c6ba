#include "model/model_loader.h"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <fmt/format.h>
#include <google/protobuf/io/coded_stream.h>

#include "model/model_structure.h"

namespace remap {

Expected<onnx::ModelProto> ParseModel(const std::string& bytes, const std::string& name) {
  if (bytes.empty()) return Status(ErrorCode::kNotOnnx, fmt::format("{}: empty file, not an ONNX model", name));
  onnx::ModelProto model;
  google::protobuf::io::CodedInputStream stream(reinterpret_cast<const uint8_t*>(bytes.data()),
                                                 static_cast<int>(bytes.size()));
  stream.SetTotalBytesLimit(INT32_MAX);
  // Each subgraph level is three messages (attribute, graph, node) and a graph's
  // types nest a few more: room for kMaxSubgraphDepth, while the parser's own
  // recursion stays shallow. Deeper models fail here and are measured below.
  stream.SetRecursionLimit(3 * kMaxSubgraphDepth + 24);
  if (!model.ParseFromCodedStream(&stream) || !stream.ConsumedEntireMessage()) {
    const int depth = SerializedSubgraphDepth(bytes, 1 << 30);
    if (depth > kMaxSubgraphDepth)
      return Status(ErrorCode::kInvalidModel, fmt::format("{}: subgraphs nested {} deep (the limit is {})", name, depth,
                                                          kMaxSubgraphDepth));
    return Status(ErrorCode::kNotOnnx, fmt::format("{}: not an ONNX model (protobuf parse failed)", name));
  }
  // Random bytes can parse as a message made only of unknown fields; a model has a graph.
  if (!model.has_graph()) return Status(ErrorCode::kNotOnnx, fmt::format("{}: not an ONNX model (no graph)", name));
  if (model.ir_version() <= 0)
    return Status(ErrorCode::kNotOnnx, fmt::format("{}: not an ONNX model (no IR version)", name));
  if (model.opset_import_size() == 0)
    return Status(ErrorCode::kInvalidModel, fmt::format("{}: model has no opset_import", name));
  Status structure = CheckModelStructure(model);
  if (!structure.ok()) return Status(structure.code(), fmt::format("{}: {}", name, structure.message()));
  return model;
}

Expected<onnx::ModelProto> LoadModel(const std::string& path) {
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
    return ParseModel(buffer.str(), path);
  }
  // One read into a string of the file's size: no stream buffer to grow and copy out of.
  const uintmax_t size = std::filesystem::file_size(path, ec);
  if (ec) return Status(ErrorCode::kInputUnreadable, fmt::format("{}: {}", path, ec.message()));
  if (size > static_cast<uintmax_t>(INT32_MAX))
    return Status(ErrorCode::kInvalidModel,
                  fmt::format("{}: {} bytes is over protobuf's 2 GiB limit; save the weights as external data", path, size));
  std::string bytes(static_cast<size_t>(size), '\0');
  if (!in.read(bytes.data(), static_cast<std::streamsize>(size)))
    return Status(ErrorCode::kInputUnreadable, fmt::format("{}: read failed", path));
  return ParseModel(bytes, path);
}

}  // namespace remap
