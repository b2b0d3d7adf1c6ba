#include "saver/spliced_writer.h"

#include <algorithm>
#include <cerrno>
#include <climits>
#include <unistd.h>

#include <fmt/format.h>

#include "model/wire_format_scan.h"
#include "saver/atomic_writer.h"
#include "saver/model_saver.h"
#include "saver/writeback_pacer.h"

namespace remap {

namespace {

constexpr uint32_t kModelGraph = 7;
constexpr uint32_t kGraphInitializer = 5;
constexpr uint32_t kTensorRawData = 9;
constexpr char kRawDataTag = (kTensorRawData << 3) | 2;

// The output as a list of pieces: bytes of our own, or a range of the input.
struct Piece {
  std::string bytes;
  uint64_t offset = 0;
  uint64_t length = 0;  // > 0: copy this range of the input
};

// copy_file_range where the kernel and file systems allow it, else pread and
// write through a small buffer.
std::string CopyRange(int in, uint64_t offset, uint64_t length, int out, WritebackPacer* pacer) {
  loff_t from = static_cast<loff_t>(offset);
  uint64_t left = length;
  while (left > 0) {
    const ssize_t n = ::copy_file_range(in, &from, out, nullptr, static_cast<size_t>(std::min(left, pacer->Chunk())), 0);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EXDEV || errno == ENOSYS || errno == EOPNOTSUPP || errno == EINVAL)) break;
    if (n < 0) return "write failed";  // as the plain save says it (EFBIG, ENOSPC, EIO)
    if (n == 0) {
      errno = EIO;  // the input shrank under us
      return "copy of the weights from the input failed (the input shrank?)";
    }
    left -= static_cast<uint64_t>(n);
    pacer->Wrote(static_cast<uint64_t>(n));
  }
  std::string buffer(left > 0 ? (1 << 20) : 0, '\0');
  while (left > 0) {
    const ssize_t n = ::pread(in, buffer.data(), static_cast<size_t>(std::min<uint64_t>(left, buffer.size())), from);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      if (n == 0) errno = EIO;
      return "read of the weights from the input failed";
    }
    std::string failed = WriteAllPaced(out, buffer.data(), static_cast<size_t>(n), pacer);
    if (!failed.empty()) return failed;
    from += n;
    left -= static_cast<uint64_t>(n);
  }
  return "";
}

// Where raw_data goes in a serialized tensor: before its first field above 9.
size_t RawDataPlace(const std::string& s, size_t begin, size_t end) {
  for (size_t pos = begin; pos < end;) {
    WireField f;
    if (!ReadWireField(s.data(), pos, end, &f)) return end;  // our own serialization: does not happen
    if (f.number > kTensorRawData) return pos;
    pos = f.end;
  }
  return end;
}

// Pieces of the serialized model `s` with the raw_data put back; the bytes it
// adds in `*added`. False if `s` is not as protobuf writes it.
bool Plan(const std::string& s, const std::vector<SplicedInitializer>& spliced, std::vector<Piece>* pieces,
          uint64_t* added) {
  WireField graph;
  bool found = false;
  for (size_t pos = 0; pos < s.size() && !found;) {
    if (!ReadWireField(s.data(), pos, s.size(), &graph)) return false;
    pos = graph.end;
    found = graph.number == kModelGraph;
  }
  if (!found) return false;
  std::vector<Piece> inner;  // the graph's payload
  uint64_t graph_added = 0;
  size_t copied = graph.payload_start;
  size_t next = 0;  // into `spliced`, which is by ascending index
  int index = 0;
  auto own = [&](size_t from, size_t to) {
    if (to > from) inner.push_back({s.substr(from, to - from), 0, 0});
  };
  for (size_t pos = graph.payload_start; pos < graph.end && next < spliced.size();) {
    WireField f;
    if (!ReadWireField(s.data(), pos, graph.end, &f)) return false;
    pos = f.end;
    if (f.number != kGraphInitializer) continue;
    if (index++ != spliced[next].initializer_index) continue;
    const SplicedInitializer& r = spliced[next++];
    const size_t place = RawDataPlace(s, f.payload_start, f.end);
    const uint64_t field_size = 1 + VarintSize(r.length) + r.length;
    const uint64_t old_size = f.end - f.payload_start;
    std::string head(1, static_cast<char>((kGraphInitializer << 3) | 2));
    AppendVarint(old_size + field_size, &head);
    own(copied, f.start);
    inner.push_back({head, 0, 0});
    own(f.payload_start, place);
    std::string raw_head(1, kRawDataTag);
    AppendVarint(r.length, &raw_head);
    inner.push_back({raw_head, 0, 0});
    inner.push_back({"", r.offset, r.length});
    copied = place;
    graph_added += (head.size() - (f.payload_start - f.start)) + field_size;
  }
  if (next != spliced.size()) return false;
  own(copied, graph.end);
  std::string head(1, static_cast<char>((kModelGraph << 3) | 2));
  const uint64_t old_size = graph.end - graph.payload_start;
  AppendVarint(old_size + graph_added, &head);
  pieces->push_back({s.substr(0, graph.start), 0, 0});
  pieces->push_back({head, 0, 0});
  for (auto& p : inner) pieces->push_back(std::move(p));
  pieces->push_back({s.substr(graph.end), 0, 0});
  *added = graph_added + (head.size() - (graph.payload_start - graph.start));
  return true;
}

}  // namespace

Status SaveModelSpliced(const onnx::ModelProto& model, const std::vector<SplicedInitializer>& spliced, int source_fd,
                        const std::string& path, uint64_t* copied, const SaveOptions& options) {
  const Status too_big(ErrorCode::kOutputFailed,
                       fmt::format("{}: the model does not serialize (over protobuf's 2 GiB limit?)", path));
  std::string bytes;
  if (!SerializeModelWith(model, options, &bytes)) return too_big;
  std::vector<Piece> pieces;
  uint64_t added = 0;
  if (!spliced.empty() && !Plan(bytes, spliced, &pieces, &added))
    return Status(ErrorCode::kOutputFailed, fmt::format("{}: the serialized model has no graph to put the weights back in", path));
  // The same limit SaveModel applies to the whole model.
  if (bytes.size() + added > static_cast<uint64_t>(INT32_MAX)) return too_big;
  if (spliced.empty()) pieces.push_back({std::move(bytes), 0, 0});
  else bytes = std::string();
  if (options.serialized) options.serialized();
  uint64_t total = 0;
  Status s = WriteFileAtomicallyWith(path, [&](int fd, WritebackPacer* pacer) -> std::string {
    for (const Piece& p : pieces) {
      std::string failed = p.length > 0 ? CopyRange(source_fd, p.offset, p.length, fd, pacer)
                                        : WriteAllPaced(fd, p.bytes.data(), p.bytes.size(), pacer);
      if (!failed.empty()) return failed;
      total += p.length;
    }
    return "";
  }, options.durability);
  if (s.ok() && copied) *copied = total;
  return s;
}

}  // namespace remap
