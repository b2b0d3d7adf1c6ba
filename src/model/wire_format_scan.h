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

// nullopt when nothing is worth leaving out or the bytes are not in the plain
// shape this handles (malformed, truncated, groups, a repeated graph or
// raw_data field, a tensor that also names external data): the caller then
// parses the bytes whole, so every error keeps its usual message.
std::optional<WireScan> ScanForLargeRawData(const char* data, size_t size, uint64_t min_bytes);

// Protobuf's base-128 varint encoding of `value` appended to `out`.
void AppendVarint(uint64_t value, std::string* out);
size_t VarintSize(uint64_t value);

// One field of a message: its tag's start, its payload (for length-delimited
// fields) and its end. Fails on malformed or truncated input and on groups.
struct WireField {
  uint32_t number = 0;
  uint32_t wire_type = 0;
  size_t start = 0;          // first byte of the tag
  size_t payload_start = 0;  // after the length prefix (wire type 2)
  size_t end = 0;            // one past the field
};
bool ReadWireField(const char* data, size_t begin, size_t end, WireField* field);

}  // namespace remap
