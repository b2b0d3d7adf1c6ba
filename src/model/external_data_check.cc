#include "model/external_data_check.h"

#include <algorithm>
#include <filesystem>
#include <optional>
#include <unordered_map>

#include <fmt/format.h>

#include "model/graph_index.h"
#include "model/tensor_size.h"

namespace remap {

namespace fs = std::filesystem;

bool LocationInside(const std::string& dir, const std::string& location, std::string* why) {
  const fs::path rel(location);
  bool climbs = false;
  for (const auto& part : rel) climbs = climbs || part == "..";
  if (location.empty() || rel.is_absolute() || rel.has_root_name() || climbs) {
    *why = fmt::format("external data location '{}' is not a relative path inside the model's folder; refused", location);
    return false;
  }
  std::error_code ec;
  const fs::path base = fs::weakly_canonical(fs::absolute(dir), ec);
  const fs::path target = fs::weakly_canonical(fs::absolute(dir) / rel, ec);
  if (ec) {
    *why = fmt::format("external data location '{}' cannot be resolved: {}", location, ec.message());
    return false;
  }
  // Lexically inside, so only a symbolic link on the way can lead out.
  const auto mismatch = std::mismatch(base.begin(), base.end(), target.begin(), target.end());
  if (mismatch.first != base.end()) {
    *why = fmt::format("external data file {} is a symbolic link to outside the model's folder; refused", location);
    return false;
  }
  return true;
}

namespace {

std::optional<uint64_t> ParseSize(const std::string& text) {
  if (text.empty() || text.size() > 19 || text.find_first_not_of("0123456789") != std::string::npos) return std::nullopt;
  return std::stoull(text);
}

// What the checks of one data file found. A model keeps most of its
// tensors in one file or a few: each is resolved and measured once, not once
// per tensor (on a 48-layer model, 288 resolutions of one path, about ten
// system calls each).
struct DataFile {
  std::string outside;  // why the location is refused, or empty
  std::string bad;      // why the file cannot hold data, or empty
  uint64_t size = 0;
};

DataFile CheckDataFile(const std::string& dir, const std::string& location) {
  DataFile file;
  if (!LocationInside(dir, location, &file.outside)) return file;
  const fs::path path = fs::path(dir) / location;
  std::error_code ec;
  const fs::file_status status = fs::status(path, ec);
  if (!fs::exists(status)) {
    file.bad = fmt::format("external data file {} does not exist", location);
  } else if (!fs::is_regular_file(status)) {
    file.bad = fmt::format("external data file {} is not a regular file", location);
  } else {
    file.size = fs::file_size(path, ec);
    if (ec) file.bad = fmt::format("external data file {} cannot be read: {}", location, ec.message());
  }
  return file;
}

// `data_file(location)` is that location's DataFile.
template <typename DataFileOf>
Status CheckTensor(const onnx::TensorProto& t, const std::string& what, DataFileOf&& data_file) {
  if (t.data_location() != onnx::TensorProto::EXTERNAL) return Status::Ok();
  std::string location, offset_text, length_text;
  for (const auto& kv : t.external_data()) {
    if (kv.key() == "location") location = kv.value();
    else if (kv.key() == "offset") offset_text = kv.value();
    else if (kv.key() == "length") length_text = kv.value();
  }
  auto fail = [&](const std::string& why) { return Status(ErrorCode::kInvalidModel, fmt::format("{}: {}", what, why)); };
  const DataFile& file = data_file(location);
  if (!file.outside.empty()) return fail(file.outside);
  const std::optional<uint64_t> offset = offset_text.empty() ? std::optional<uint64_t>(0) : ParseSize(offset_text);
  const std::optional<uint64_t> length = length_text.empty() ? std::nullopt : ParseSize(length_text);
  if (!offset || (!length_text.empty() && !length))
    return fail(fmt::format("external data offset '{}' or length '{}' is not a byte count", offset_text, length_text));
  if (!file.bad.empty()) return fail(file.bad);
  const uint64_t file_size = file.size;
  // The bytes the tensor needs: its length, else what its dims and type make.
  std::optional<uint64_t> bytes = length;
  const std::optional<int64_t> count = DeclaredElementCount(t);
  const size_t element = ElementBytes(t.data_type());
  if (!count) return fail(fmt::format("dims [{}] declare over 2^63 elements", fmt::join(t.dims(), ", ")));
  if (!bytes && element != 0) {
    if (static_cast<uint64_t>(*count) > UINT64_MAX / element)
      return fail(fmt::format("dims [{}] declare over 2^64 bytes", fmt::join(t.dims(), ", ")));
    bytes = static_cast<uint64_t>(*count) * element;
  }
  const uint64_t need = bytes.value_or(0);
  if (*offset > file_size || need > file_size - *offset)
    return fail(fmt::format("external data (offset {}, {} bytes) ends beyond the end of {} ({} bytes)", *offset, need,
                            location, file_size));
  return Status::Ok();
}

class Walk {
 public:
  explicit Walk(const std::string& dir) : dir_(dir) {}

  Status Graph(const onnx::GraphProto& g) {
    for (const auto& t : g.initializer()) Check(t, [&] { return fmt::format("initializer '{}'", t.name()); });
    for (const auto& s : g.sparse_initializer()) {
      Check(s.values(), [&] { return fmt::format("sparse initializer '{}'", s.values().name()); });
      Check(s.indices(), [&] { return fmt::format("sparse initializer '{}' indices", s.values().name()); });
    }
    for (const auto& n : g.node()) {
      Node(n);
      ForEachSubgraph(n, [this](const onnx::GraphProto& sub) { Graph(sub); });
    }
    return status_;
  }
  void Node(const onnx::NodeProto& n) {
    for (const auto& a : n.attribute()) {
      auto what = [&] { return fmt::format("node '{}' attribute '{}'", n.name(), a.name()); };
      if (a.has_t()) Check(a.t(), what);
      for (const auto& t : a.tensors()) Check(t, what);
    }
  }
  Status status() const { return status_; }

 private:
  // `what` names the tensor; formatted only for external tensors.
  template <typename What>
  void Check(const onnx::TensorProto& t, What what) {
    if (status_.ok() && t.data_location() == onnx::TensorProto::EXTERNAL)
      status_ = CheckTensor(t, what(), [this](const std::string& location) -> const DataFile& {
        auto it = files_.find(location);
        if (it == files_.end()) it = files_.emplace(location, CheckDataFile(dir_, location)).first;
        return it->second;
      });
  }
  const std::string& dir_;
  std::unordered_map<std::string, DataFile> files_;  // by location
  Status status_;
};

}  // namespace

Status CheckExternalData(const onnx::ModelProto& model, const std::string& model_dir) {
  Walk walk(model_dir);
  walk.Graph(model.graph());
  for (const auto& f : model.functions())
    for (const auto& n : f.node()) walk.Node(n);
  return walk.status();
}

}  // namespace remap
