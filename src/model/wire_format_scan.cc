#include "model/wire_format_scan.h"

namespace remap {

namespace {

constexpr uint32_t kModelGraph = 7;
constexpr uint32_t kGraphInitializer = 5;
constexpr uint32_t kTensorRawData = 9;
constexpr uint32_t kTensorExternalData = 13;
constexpr uint32_t kTensorDataLocation = 14;
constexpr uint32_t kLengthDelimited = 2;

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
bool LargeRawData(const char* data, const WireField& tensor, uint64_t min_bytes, WireField* raw) {
  int raw_fields = 0;
  for (size_t pos = tensor.payload_start; pos < tensor.end;) {
    WireField f;
    if (!ReadWireField(data, pos, tensor.end, &f)) return false;
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

bool ReadWireField(const char* data, size_t begin, size_t end, WireField* field) {
  size_t pos = begin;
  uint64_t tag = 0;
  if (!ReadVarint(data, &pos, end, &tag) || (tag >> 3) == 0 || (tag >> 3) > 0x1fffffff) return false;
  field->start = begin;
  field->number = static_cast<uint32_t>(tag >> 3);
  field->wire_type = static_cast<uint32_t>(tag & 7);
  uint64_t skip = 0;
  switch (field->wire_type) {
    case 0: {
      uint64_t ignored;
      if (!ReadVarint(data, &pos, end, &ignored)) return false;
      break;
    }
    case 1: skip = 8; break;
    case 5: skip = 4; break;
    case kLengthDelimited:
      if (!ReadVarint(data, &pos, end, &skip)) return false;
      break;
    default: return false;  // groups (3, 4) and invalid types
  }
  field->payload_start = pos;
  if (skip > end - pos) return false;
  field->end = pos + static_cast<size_t>(skip);
  return true;
}

std::optional<WireScan> ScanForLargeRawData(const char* data, size_t size, uint64_t min_bytes) {
  if (min_bytes == 0) return std::nullopt;
  WireField graph;
  int graphs = 0;
  for (size_t pos = 0; pos < size;) {
    WireField f;
    if (!ReadWireField(data, pos, size, &f)) return std::nullopt;
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
    if (!ReadWireField(data, pos, graph.end, &f)) return std::nullopt;
    pos = f.end;
    if (f.number != kGraphInitializer) continue;
    if (f.wire_type != kLengthDelimited) return std::nullopt;
    WireField raw;
    if (LargeRawData(data, f, min_bytes, &raw)) {
      cuts.push_back({f, raw});
      scan.left_out.push_back({initializer, raw.payload_start, raw.end - raw.payload_start});
    }
    ++initializer;
  }
  if (cuts.empty()) return std::nullopt;

  // The graph's new payload: each cut initializer with a fresh length prefix.
  std::string graph_payload;
  size_t copied = graph.payload_start;
  for (const Cut& c : cuts) {
    graph_payload.append(data + copied, c.initializer.start - copied);
    size_t tag_end = c.initializer.start;
    uint64_t ignored;
    ReadVarint(data, &tag_end, c.initializer.end, &ignored);
    graph_payload.append(data + c.initializer.start, tag_end - c.initializer.start);
    const size_t length = (c.initializer.end - c.initializer.payload_start) - (c.raw_data.end - c.raw_data.start);
    AppendVarint(length, &graph_payload);
    graph_payload.append(data + c.initializer.payload_start, c.raw_data.start - c.initializer.payload_start);
    graph_payload.append(data + c.raw_data.end, c.initializer.end - c.raw_data.end);
    copied = c.initializer.end;
  }
  graph_payload.append(data + copied, graph.end - copied);

  size_t graph_tag_end = graph.start;
  uint64_t ignored;
  ReadVarint(data, &graph_tag_end, graph.end, &ignored);
  scan.reduced.reserve(size - (graph.end - graph.start) + graph_payload.size() + 16);
  scan.reduced.append(data, graph_tag_end);
  AppendVarint(graph_payload.size(), &scan.reduced);
  scan.reduced += graph_payload;
  scan.reduced.append(data + graph.end, size - graph.end);
  return scan;
}

}  // namespace remap
