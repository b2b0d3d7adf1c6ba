#include "model/wire_format_scan.h"

#include <algorithm>
#include <cerrno>
#include <unistd.h>

#include "model/wire_fields.h"

namespace remap {

namespace {

using namespace wire;  // NOLINT: the field numbers
// The longest field header: a tag (5 bytes) and a varint (10).
constexpr size_t kMaxFieldHeader = 15;

bool ReadVarint(const char* data, size_t* pos, size_t end, uint64_t* value) {
  uint64_t v = 0;
  for (int shift = 0; shift < 64; shift += 7) {
    if (*pos >= end) return false;
    const uint8_t b = static_cast<uint8_t>(data[(*pos)++]);
    v |= static_cast<uint64_t>(b & 0x7f) << shift;
    if (!(b & 0x80)) {
      *value = v;
      return true;
    }
  }
  return false;
}

// A spliced initializer: its field in the graph and its raw_data field inside it.
struct Cut {
  WireField initializer;
  WireField raw_data;
};

// The raw_data field of a tensor worth leaving out, or false.
bool LargeRawData(WireSource* source, const WireField& tensor, uint64_t min_bytes, WireField* raw) {
  int raw_fields = 0;
  for (size_t pos = tensor.payload_start; pos < tensor.end;) {
    WireField f;
    if (!ReadWireField(source, pos, tensor.end, &f)) return false;
    pos = f.end;
    // A tensor that names external data too is left to the usual checks.
    if (f.number == kTensorExternalData || f.number == kTensorDataLocation) return false;
    if (f.number == kTensorRawData) {
      if (f.wire_type != kLengthDelimited || ++raw_fields > 1) return false;  // the last would win: keep it simple
      *raw = f;
    }
  }
  return raw_fields == 1 && raw->end - raw->payload_start >= min_bytes;
}

}  // namespace

size_t VarintSize(uint64_t value) {
  size_t n = 1;
  while (value >= 0x80) {
    value >>= 7;
    ++n;
  }
  return n;
}

void AppendVarint(uint64_t value, std::string* out) {
  while (value >= 0x80) {
    out->push_back(static_cast<char>((value & 0x7f) | 0x80));
    value >>= 7;
  }
  out->push_back(static_cast<char>(value));
}

namespace {

// A field's header in data[begin, limit): its number, wire type and tag end,
// where its payload starts, and how long the payload is.
bool ReadFieldHeader(const char* data, size_t begin, size_t limit, WireField* field, uint64_t* payload_length) {
  size_t pos = begin;
  uint64_t tag = 0;
  if (!ReadVarint(data, &pos, limit, &tag) || (tag >> 3) == 0 || (tag >> 3) > 0x1fffffff) return false;
  field->start = begin;
  field->tag_end = pos;
  field->number = static_cast<uint32_t>(tag >> 3);
  field->wire_type = static_cast<uint32_t>(tag & 7);
  uint64_t skip = 0;
  switch (field->wire_type) {
    case 0: {
      uint64_t ignored;
      if (!ReadVarint(data, &pos, limit, &ignored)) return false;
      break;
    }
    case 1: skip = 8; break;
    case 5: skip = 4; break;
    case kLengthDelimited:
      if (!ReadVarint(data, &pos, limit, &skip)) return false;
      break;
    default: return false;  // groups (3, 4) and invalid types
  }
  field->payload_start = pos;
  *payload_length = skip;
  return true;
}

}  // namespace

bool ReadWireFieldSlowly(const char* data, size_t begin, size_t end, WireField* field) {
  uint64_t skip = 0;
  if (!ReadFieldHeader(data, begin, end, field, &skip)) return false;
  if (skip > end - field->payload_start) return false;
  field->end = field->payload_start + static_cast<size_t>(skip);
  return true;
}

bool ReadWireField(WireSource* source, size_t begin, size_t end, WireField* field) {
  if (begin >= end) return false;
  const size_t len = std::min(kMaxFieldHeader, end - begin);
  const char* header = source->Peek(begin, len);
  if (!header) return false;
  uint64_t skip = 0;
  if (!ReadFieldHeader(header, 0, len, field, &skip)) return false;
  field->start = begin;
  field->tag_end += begin;
  field->payload_start += begin;
  if (skip > end - field->payload_start) return false;
  field->end = field->payload_start + static_cast<size_t>(skip);
  return true;
}

bool FindModelGraph(std::string_view bytes, WireField* graph) {
  bool found = false;
  for (size_t pos = 0; pos < bytes.size();) {
    WireField f;
    if (!ReadWireField(bytes.data(), pos, bytes.size(), &f)) return false;
    if (f.number == kModelGraph) {
      if (found || f.wire_type != kLengthDelimited) return false;
      *graph = f;
      found = true;
    }
    pos = f.end;
  }
  return found;
}

bool MemoryWireSource::AppendTo(size_t pos, size_t len, std::string* out) {
  if (!InWindow(pos, len)) return false;
  out->append(window_ + pos, len);
  return true;
}

bool FileWireSource::ReadAt(size_t pos, size_t len, char* into) {
  while (len > 0) {
    const ssize_t n = ::pread(fd_, into, len, static_cast<off_t>(pos));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;  // an error, or the file ended early (it shrank)
    into += n;
    pos += static_cast<size_t>(n);
    len -= static_cast<size_t>(n);
  }
  return true;
}

const char* FileWireSource::Fill(size_t pos, size_t len) {
  if (pos > size()) return nullptr;
  len = std::min(len, size() - pos);
  const size_t n = std::min(std::max(window_size_, len), size() - pos);
  buffer_.resize(n);
  if (!ReadAt(pos, n, buffer_.data())) {
    buffer_.clear();
    SetWindow(nullptr, 0, 0);
    return nullptr;
  }
  SetWindow(buffer_.data(), pos, pos + n);
  return buffer_.data();
}

bool FileWireSource::AppendTo(size_t pos, size_t len, std::string* out) {
  if (pos > size() || len > size() - pos) return false;
  if (InWindow(pos, len)) {
    out->append(window_ + (pos - window_start_), len);
    return true;
  }
  const size_t old = out->size();
  out->resize(old + len);
  if (ReadAt(pos, len, out->data() + old)) return true;
  out->resize(old);
  return false;
}

std::optional<WireScan> ScanForLargeRawData(WireSource* source, uint64_t min_bytes) {
  if (min_bytes == 0) return std::nullopt;
  const size_t size = source->size();
  WireField graph;
  int graphs = 0;
  for (size_t pos = 0; pos < size;) {
    WireField f;
    if (!ReadWireField(source, pos, size, &f)) return std::nullopt;
    pos = f.end;
    if (f.number == kModelGraph) {
      if (f.wire_type != kLengthDelimited || ++graphs > 1) return std::nullopt;  // two would be merged
      graph = f;
    }
  }
  if (graphs != 1) return std::nullopt;

  std::vector<Cut> cuts;
  WireScan scan;
  int initializer = 0;
  for (size_t pos = graph.payload_start; pos < graph.end;) {
    WireField f;
    if (!ReadWireField(source, pos, graph.end, &f)) return std::nullopt;
    pos = f.end;
    if (f.number != kGraphInitializer) continue;
    if (f.wire_type != kLengthDelimited) return std::nullopt;
    WireField raw;
    if (LargeRawData(source, f, min_bytes, &raw)) {
      cuts.push_back({f, raw});
      scan.left_out.push_back({initializer, raw.payload_start, raw.end - raw.payload_start});
    }
    ++initializer;
  }
  if (cuts.empty()) return std::nullopt;

  // The graph's new payload: each cut initializer with a fresh length prefix.
  std::string graph_payload;
  auto keep = [&](size_t from, size_t to, std::string* out) { return source->AppendTo(from, to - from, out); };
  size_t copied = graph.payload_start;
  for (const Cut& c : cuts) {
    if (!keep(copied, c.initializer.tag_end, &graph_payload)) return std::nullopt;
    const size_t length = (c.initializer.end - c.initializer.payload_start) - (c.raw_data.end - c.raw_data.start);
    AppendVarint(length, &graph_payload);
    if (!keep(c.initializer.payload_start, c.raw_data.start, &graph_payload) ||
        !keep(c.raw_data.end, c.initializer.end, &graph_payload))
      return std::nullopt;
    copied = c.initializer.end;
  }
  if (!keep(copied, graph.end, &graph_payload)) return std::nullopt;

  scan.reduced.reserve(size - (graph.end - graph.start) + graph_payload.size() + 16);
  if (!keep(0, graph.tag_end, &scan.reduced)) return std::nullopt;
  AppendVarint(graph_payload.size(), &scan.reduced);
  scan.reduced += graph_payload;
  if (!keep(graph.end, size, &scan.reduced)) return std::nullopt;
  return scan;
}

}  // namespace remap
