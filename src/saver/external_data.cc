#include "saver/external_data.h"

#include <filesystem>
#include <set>

#include <fmt/format.h>

#include "model/external_data_check.h"
#include "model/graph_index.h"

namespace remap {

namespace fs = std::filesystem;

namespace {

void FromTensor(const onnx::TensorProto& t, std::set<std::string>* out) {
  if (t.data_location() != onnx::TensorProto::EXTERNAL) return;
  for (const auto& kv : t.external_data()) {
    if (kv.key() == "location") out->insert(kv.value());
  }
}

void FromGraph(const onnx::GraphProto& g, std::set<std::string>* out) {
  for (const auto& t : g.initializer()) FromTensor(t, out);
  for (const auto& s : g.sparse_initializer()) {
    FromTensor(s.values(), out);
    FromTensor(s.indices(), out);
  }
  for (const auto& n : g.node()) {
    for (const auto& a : n.attribute()) {
      if (a.has_t()) FromTensor(a.t(), out);
      for (const auto& t : a.tensors()) FromTensor(t, out);
    }
    ForEachSubgraph(n, [out](const onnx::GraphProto& sub) { FromGraph(sub, out); });
  }
}

}  // namespace

std::vector<std::string> ExternalDataFiles(const onnx::ModelProto& model) {
  std::set<std::string> files;
  FromGraph(model.graph(), &files);
  for (const auto& f : model.functions()) {
    for (const auto& n : f.node()) {
      for (const auto& a : n.attribute()) {
        if (a.has_t()) FromTensor(a.t(), &files);
      }
    }
  }
  return {files.begin(), files.end()};
}

Status CopyExternalData(const onnx::ModelProto& model, const std::string& source_dir, const std::string& target_dir,
                        std::vector<std::string>* created, DataFileMode mode, Durability durability) {
  return CopyExternalDataFiles(ExternalDataFiles(model), source_dir, target_dir, created, mode, durability);
}

Status CopyExternalDataFiles(const std::vector<std::string>& files, const std::string& source_dir,
                             const std::string& target_dir, std::vector<std::string>* created, DataFileMode mode,
                             Durability durability) {
  if (files.empty()) return Status::Ok();
  std::error_code ec;
  if (fs::equivalent(source_dir, target_dir, ec)) return Status::Ok();
  for (const std::string& rel : files) {
    fs::path from = fs::path(source_dir) / rel, to = fs::path(target_dir) / rel;
    // The pipeline checked the locations already; a copy must not depend on that.
    std::string why;
    if (!LocationInside(source_dir, rel, &why)) return Status(ErrorCode::kInvalidModel, why);
    if (!fs::exists(from, ec))
      return Status(ErrorCode::kInvalidModel, fmt::format("external data file {} does not exist", from.string()));
    const Status other = Status(
        ErrorCode::kOutputFailed,
        fmt::format("{} exists with other content; it would be overwritten by the model's external data", to.string()));
    if (fs::exists(to, ec)) {
      if (SameFileContent(from.string(), to.string())) continue;
      return other;
    }
    // Folders this call creates are recorded too (outermost first), so that
    // removing `created` in reverse order leaves the target as it was.
    std::vector<fs::path> missing;
    for (fs::path p = to.parent_path(); !p.empty() && !fs::exists(p, ec); p = p.parent_path()) missing.push_back(p);
    fs::create_directories(to.parent_path(), ec);
    if (created)
      for (auto it = missing.rbegin(); it != missing.rend(); ++it) created->push_back(it->string());
    const Placement placed = PlaceDataFile(from.string(), to.string(), mode, durability);
    if (placed.outcome == PlaceOutcome::kFailed)
      return Status(ErrorCode::kOutputFailed,
                    fmt::format("cannot copy external data {} to {}: {}", from.string(), to.string(), placed.error));
    // Another writer got there first (two runs into one folder): fine if it is the same data.
    if (placed.outcome == PlaceOutcome::kExisted) {
      if (SameFileContent(from.string(), to.string())) continue;
      return other;
    }
    if (created) created->push_back(to.string());
  }
  return Status::Ok();
}

}  // namespace remap
