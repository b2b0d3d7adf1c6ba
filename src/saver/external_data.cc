#include "saver/external_data.h"

#include <filesystem>
#include <fstream>
#include <set>

#include <fmt/format.h>

#include "model/external_data_check.h"
#include "model/graph_index.h"
#include "saver/atomic_writer.h"

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

bool SameContent(const fs::path& a, const fs::path& b) {
  std::error_code ec;
  if (fs::file_size(a, ec) != fs::file_size(b, ec) || ec) return false;
  std::ifstream fa(a, std::ios::binary), fb(b, std::ios::binary);
  return std::equal(std::istreambuf_iterator<char>(fa), std::istreambuf_iterator<char>(),
                    std::istreambuf_iterator<char>(fb));
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
                        std::vector<std::string>* created) {
  std::vector<std::string> files = ExternalDataFiles(model);
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
    if (fs::exists(to, ec)) {
      if (SameContent(from, to)) continue;
      return Status(ErrorCode::kOutputFailed,
                    fmt::format("{} exists with other content; it would be overwritten by the model's external data", to.string()));
    }
    // Folders this call creates are recorded too (outermost first), so that
    // removing `created` in reverse order leaves the target as it was.
    std::vector<fs::path> missing;
    for (fs::path p = to.parent_path(); !p.empty() && !fs::exists(p, ec); p = p.parent_path()) missing.push_back(p);
    fs::create_directories(to.parent_path(), ec);
    if (created)
      for (auto it = missing.rbegin(); it != missing.rend(); ++it) created->push_back(it->string());
    Status copied = CopyFileAtomically(from.string(), to.string());
    if (!copied.ok())
      return Status(ErrorCode::kOutputFailed, fmt::format("cannot copy external data {} to {}: {}", from.string(), to.string(), copied.message()));
    if (created) created->push_back(to.string());
  }
  return Status::Ok();
}

}  // namespace remap
