// Finds the large raw_data fields of a serialized model's main-graph
// initializers without parsing it (ModelProto field 7 graph -> GraphProto
// field 5 initializer -> TensorProto field 9 raw_data), and builds the bytes
// without them for protobuf's parser. Weights are then bytes to move, not to
// parse: the saver copies them file to file (saver/spliced_writer).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
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
// the raw_data it leaves out.
class WireSource {
 public:
  virtual ~WireSource() = default;
  virtual size_t size() const = 0;
  // At least min(len, size() - pos) bytes at `pos`, valid until the next
  // call; nullptr when they cannot be read.
  virtual const char* Peek(size_t pos, size_t len) = 0;
  // Appends bytes [pos, pos + len) to `out`; false when they cannot be read.
  virtual bool AppendTo(size_t pos, size_t len, std::string* out) = 0;
};

// Bytes in memory.
class MemoryWireSource : public WireSource {
 public:
  MemoryWireSource(const char* data, size_t size) : data_(data), size_(size) {}
  size_t size() const override { return size_; }
  const char* Peek(size_t pos, size_t) override { return data_ + pos; }
  bool AppendTo(size_t pos, size_t len, std::string* out) override;

 private:
  const char* data_;
  size_t size_;
};

// A regular file, read with pread a window at a time. Unlike a mapping, it
// puts none of the file's cached pages in the process's resident set (a
// kernel may map a whole large page-cache folio for one header byte).
class FileWireSource : public WireSource {
 public:
  FileWireSource(int fd, size_t size, size_t window = 64 * 1024) : fd_(fd), size_(size), window_(window) {}
  size_t size() const override { return size_; }
  const char* Peek(size_t pos, size_t len) override;
  bool AppendTo(size_t pos, size_t len, std::string* out) override;

 private:
  bool ReadAt(size_t pos, size_t len, char* into);
  int fd_;
  size_t size_;
  size_t window_;
  std::string buffer_;
  size_t buffer_start_ = 0;
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
bool ReadWireField(const char* data, size_t begin, size_t end, WireField* field);
bool ReadWireField(WireSource* source, size_t begin, size_t end, WireField* field);

}  // namespace remap
