// Finds the large raw_data fields of a serialized model's main-graph
// initializers without parsing it (ModelProto field 7 graph -> GraphProto
// field 5 initializer -> TensorProto field 9 raw_data), and builds the bytes
// without them for protobuf's parser. Weights are then bytes to move, not to
// parse: the saver copies them file to file (saver/spliced_writer).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace remap {

// One raw_data left out: the k-th initializer of the main graph (in wire
// order, which is the order of the parsed repeated field) and where its
// bytes are in the input.
struct WireRawData {
  int initializer_index = 0;
  uint64_t offset = 0;
  uint64_t length = 0;
};

struct WireScan {
  std::string reduced;  // the input without the listed raw_data fields, length prefixes fixed
  std::vector<WireRawData> left_out;
};

// Where the scan reads a serialized model from. The scan asks for a few
// bytes at each field header and copies the ranges it keeps; it never reads
// the raw_data it leaves out. A source holds one window of bytes; a header
// inside it is read without a call through the vtable (a 1M-node graph has a
// million headers).
class WireSource {
 public:
  virtual ~WireSource() = default;
  size_t size() const { return size_; }
  // At least min(len, size() - pos) bytes at `pos`, valid until the next
  // call; nullptr when they cannot be read.
  const char* Peek(size_t pos, size_t len) {
    if (pos <= size_ && InWindow(pos, std::min(len, size_ - pos))) return window_ + (pos - window_start_);
    return Fill(pos, len);
  }
  // Appends bytes [pos, pos + len) to `out`; false when they cannot be read.
  virtual bool AppendTo(size_t pos, size_t len, std::string* out) = 0;

 protected:
  explicit WireSource(size_t size) : size_(size) {}
  // Makes a window that holds what Peek(pos, len) promises, or returns nullptr.
  virtual const char* Fill(size_t pos, size_t len) = 0;
  void SetWindow(const char* data, size_t start, size_t end) {
    window_ = data;
    window_start_ = start;
    window_end_ = end;
  }
  // True when [pos, pos + len) is inside the window.
  bool InWindow(size_t pos, size_t len) const {
    return pos >= window_start_ && pos <= window_end_ && len <= window_end_ - pos;
  }
  const char* window_ = nullptr;
  size_t window_start_ = 0;
  size_t window_end_ = 0;

 private:
  size_t size_;
};

// Bytes in memory: one window over all of them.
class MemoryWireSource : public WireSource {
 public:
  MemoryWireSource(const char* data, size_t size) : WireSource(size) { SetWindow(data, 0, size); }
  bool AppendTo(size_t pos, size_t len, std::string* out) override;

 protected:
  const char* Fill(size_t, size_t) override { return nullptr; }  // past the end
};

// A regular file, read with pread a window at a time. Unlike a mapping, it
// puts none of the file's cached pages in the process's resident set (a
// kernel may map a whole large page-cache folio for one header byte).
class FileWireSource : public WireSource {
 public:
  FileWireSource(int fd, size_t size, size_t window = 64 * 1024) : WireSource(size), fd_(fd), window_size_(window) {}
  bool AppendTo(size_t pos, size_t len, std::string* out) override;

 protected:
  const char* Fill(size_t pos, size_t len) override;

 private:
  bool ReadAt(size_t pos, size_t len, char* into);
  int fd_;
  size_t window_size_;
  std::string buffer_;
};

// nullopt when nothing is worth leaving out or the bytes are not in the plain
// shape this handles (malformed, truncated, groups, a repeated graph or
// raw_data field, a tensor that also names external data) or cannot be read:
// the caller then loads the model whole, so every error keeps its usual message.
std::optional<WireScan> ScanForLargeRawData(WireSource* source, uint64_t min_bytes);
inline std::optional<WireScan> ScanForLargeRawData(const char* data, size_t size, uint64_t min_bytes) {
  MemoryWireSource source(data, size);
  return ScanForLargeRawData(&source, min_bytes);
}

// Protobuf's base-128 varint encoding of `value` appended to `out`.
void AppendVarint(uint64_t value, std::string* out);
size_t VarintSize(uint64_t value);

// One field of a message: its tag's start, its payload (for length-delimited
// fields) and its end. Fails on malformed or truncated input and on groups.
struct WireField {
  uint32_t number = 0;
  uint32_t wire_type = 0;
  size_t start = 0;          // first byte of the tag
  size_t tag_end = 0;        // one past the tag
  size_t payload_start = 0;  // after the length prefix (wire type 2)
  size_t end = 0;            // one past the field
};
bool ReadWireFieldSlowly(const char* data, size_t begin, size_t end, WireField* field);
inline bool ReadWireField(const char* data, size_t begin, size_t end, WireField* field) {
  // Nearly every field of a node record is a string under 128 bytes: a
  // one-byte tag and a one-byte length, read inline here. A million-node
  // scan reads five million such fields.
  if (begin < end && end - begin >= 2) {
    const auto tag = static_cast<uint8_t>(data[begin]);
    const auto length = static_cast<uint8_t>(data[begin + 1]);
    // Wire type 2 (length-delimited), field number >= 1, one-byte varints.
    if ((tag & 0x87) == 2 && tag >= 8 && length < 0x80 && length <= end - begin - 2) {
      field->number = tag >> 3;
      field->wire_type = 2;
      field->start = begin;
      field->tag_end = begin + 1;
      field->payload_start = begin + 2;
      field->end = begin + 2 + length;
      return true;
    }
  }
  return ReadWireFieldSlowly(data, begin, end, field);
}
bool ReadWireField(WireSource* source, size_t begin, size_t end, WireField* field);

// The serialized model's one graph field (ModelProto.graph). False when it
// has none, more than one (protobuf would merge them: not the plain shape),
// or the bytes are malformed.
bool FindModelGraph(std::string_view bytes, WireField* graph);

}  // namespace remap
