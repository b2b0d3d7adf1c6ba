#include "saver/weight_storage.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>

#include "model/external_data_check.h"
#include "saver/new_file.h"
#include "saver/writeback_pacer.h"

namespace remap {

namespace fs = std::filesystem;

namespace {

using TensorFn = std::function<void(onnx::TensorProto*)>;

void InitializersOf(onnx::GraphProto* g, const TensorFn& fn) {
  for (auto& t : *g->mutable_initializer()) fn(&t);
  for (auto& n : *g->mutable_node())
    for (auto& a : *n.mutable_attribute()) {
      if (a.has_g()) InitializersOf(a.mutable_g(), fn);
      for (auto& sub : *a.mutable_graphs()) InitializersOf(&sub, fn);
    }
}

void AttributeTensors(onnx::AttributeProto* a, const TensorFn& fn);

// Every tensor of a graph: initializers, sparse ones, tensor attributes, at any depth.
void TensorsOf(onnx::GraphProto* g, const TensorFn& fn) {
  for (auto& t : *g->mutable_initializer()) fn(&t);
  for (auto& s : *g->mutable_sparse_initializer()) {
    fn(s.mutable_values());
    fn(s.mutable_indices());
  }
  for (auto& n : *g->mutable_node())
    for (auto& a : *n.mutable_attribute()) AttributeTensors(&a, fn);
}

void AttributeTensors(onnx::AttributeProto* a, const TensorFn& fn) {
  if (a->has_t()) fn(a->mutable_t());
  for (auto& t : *a->mutable_tensors()) fn(&t);
  if (a->has_sparse_tensor()) {
    fn(a->mutable_sparse_tensor()->mutable_values());
    fn(a->mutable_sparse_tensor()->mutable_indices());
  }
  if (a->has_g()) TensorsOf(a->mutable_g(), fn);
  for (auto& sub : *a->mutable_graphs()) TensorsOf(&sub, fn);
}

void AllTensors(onnx::ModelProto* model, const TensorFn& fn) {
  TensorsOf(model->mutable_graph(), fn);
  for (auto& f : *model->mutable_functions())
    for (auto& n : *f.mutable_node())
      for (auto& a : *n.mutable_attribute()) AttributeTensors(&a, fn);
}

std::string Why(const std::string& what) { return fmt::format("{}: {}", what, std::strerror(errno)); }

std::string WriteAt(int fd, const std::string& bytes, uint64_t offset, WritebackPacer* pacer) {
  size_t done = 0;
  while (done < bytes.size()) {
    const size_t want = static_cast<size_t>(std::min<uint64_t>(bytes.size() - done, pacer->Chunk()));
    ssize_t n = ::pwrite(fd, bytes.data() + done, want, static_cast<off_t>(offset + done));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return Why("write failed");
    done += static_cast<size_t>(n);
    pacer->WrittenUpTo(offset + done);
  }
  return "";
}

struct ExternalRef {
  onnx::TensorProto* tensor;
  std::string location;
  uint64_t offset = 0;
  std::optional<uint64_t> length;
};

}  // namespace

bool ValidDataFileName(const std::string& name) {
  const fs::path p(name);
  if (name.empty() || p.is_absolute() || !p.has_filename()) return false;
  for (const auto& part : p)
    if (part == "..") return false;
  return true;
}

Status MoveWeightsToFile(onnx::ModelProto* model, const std::string& dir, const std::string& name,
                         uint64_t threshold, std::vector<std::string>* created, Durability durability) {
  std::vector<onnx::TensorProto*> moving;
  InitializersOf(model->mutable_graph(), [&](onnx::TensorProto* t) {
    if (t->data_location() != onnx::TensorProto::EXTERNAL && !t->raw_data().empty() && t->raw_data().size() >= threshold)
      moving.push_back(t);
  });
  if (moving.empty()) return Status::Ok();
  const fs::path path = fs::path(dir) / name;
  auto fail = [&](const std::string& failed) {
    return Status(ErrorCode::kOutputFailed, fmt::format("{}: {}", path.string(), failed));
  };
  std::error_code ec;
  fs::create_directories(path.parent_path(), ec);
  NewFile file;
  std::string failed = file.Open(path.parent_path(), path.filename().string());
  if (!failed.empty()) return fail(failed);
  std::vector<uint64_t> offsets;
  uint64_t end = 0;
  WritebackPacer pacer(file.fd(), durability);
  for (const onnx::TensorProto* t : moving) {
    const uint64_t offset = (end + kExternalDataAlignment - 1) / kExternalDataAlignment * kExternalDataAlignment;
    failed = WriteAt(file.fd(), t->raw_data(), offset, &pacer);
    if (!failed.empty()) return fail(failed);
    offsets.push_back(offset);
    end = offset + t->raw_data().size();
  }
  failed = file.Replace(path.string(), durability);
  if (!failed.empty()) return fail(failed);
  if (created) created->push_back(path.string());
  for (size_t i = 0; i < moving.size(); ++i) {
    onnx::TensorProto* t = moving[i];
    const size_t length = t->raw_data().size();
    t->clear_raw_data();
    t->clear_external_data();
    t->set_data_location(onnx::TensorProto::EXTERNAL);
    for (const auto& [key, value] : {std::pair<const char*, std::string>{"location", name},
                                     {"offset", std::to_string(offsets[i])},
                                     {"length", std::to_string(length)}}) {
      auto* kv = t->add_external_data();
      kv->set_key(key);
      kv->set_value(value);
    }
  }
  return Status::Ok();
}

Status EmbedExternalData(onnx::ModelProto* model, const std::string& dir, uint64_t limit) {
  std::vector<ExternalRef> refs;
  AllTensors(model, [&](onnx::TensorProto* t) {
    if (t->data_location() != onnx::TensorProto::EXTERNAL) return;
    ExternalRef r{t, "", 0, std::nullopt};
    for (const auto& kv : t->external_data()) {
      if (kv.key() == "location") r.location = kv.value();
      if (kv.key() == "offset") r.offset = std::strtoull(kv.value().c_str(), nullptr, 10);
      if (kv.key() == "length") r.length = std::strtoull(kv.value().c_str(), nullptr, 10);
    }
    refs.push_back(std::move(r));
  });
  if (refs.empty()) return Status::Ok();
  // The size it would have, from the lengths alone: nothing is read when it is too large.
  uint64_t total = model->ByteSizeLong();
  for (ExternalRef& r : refs) {
    std::string why;
    if (!LocationInside(dir, r.location, &why)) return Status(ErrorCode::kInvalidModel, why);
    if (!r.length) {
      std::error_code ec;
      const uint64_t size = fs::file_size(fs::path(dir) / r.location, ec);
      if (ec || size < r.offset)
        return Status(ErrorCode::kInvalidModel, fmt::format("external data file {} cannot be read", r.location));
      r.length = size - r.offset;
    }
    total += *r.length + 16;  // the bytes, and at most a field header for them
  }
  if (total > limit)
    return Status(ErrorCode::kOutputFailed,
                  fmt::format("with its external data embedded the model would be about {} bytes, past protobuf's "
                              "limit of {} for one file; nothing written (keep the weights external)",
                              total, limit));
  std::map<std::string, int> fds;
  auto close_all = [&] {
    for (auto& entry : fds)
      if (entry.second >= 0) ::close(entry.second);
  };
  std::vector<std::string> bytes(refs.size());
  for (size_t i = 0; i < refs.size(); ++i) {
    const ExternalRef& r = refs[i];
    const std::string path = (fs::path(dir) / r.location).string();
    auto it = fds.find(path);
    if (it == fds.end()) it = fds.emplace(path, ::open(path.c_str(), O_RDONLY | O_CLOEXEC)).first;
    if (it->second < 0) {
      Status s(ErrorCode::kInputUnreadable, Why(path + ": cannot open"));
      close_all();
      return s;
    }
    bytes[i].resize(*r.length);
    size_t done = 0;
    while (done < bytes[i].size()) {
      ssize_t n = ::pread(it->second, &bytes[i][done], bytes[i].size() - done, static_cast<off_t>(r.offset + done));
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        Status s(ErrorCode::kInputUnreadable, n < 0 ? Why(path + ": read failed") : path + ": shorter than its tensors say");
        close_all();
        return s;
      }
      done += static_cast<size_t>(n);
    }
  }
  close_all();
  for (size_t i = 0; i < refs.size(); ++i) {
    onnx::TensorProto* t = refs[i].tensor;
    t->clear_external_data();
    t->clear_data_location();
    t->set_raw_data(std::move(bytes[i]));
  }
  return Status::Ok();
}

}  // namespace remap
