// Main-graph initializers whose raw_data the loader left in the input file
// (model/wire_format_scan): until the save, each is marked as external data
// of the input file at its offset and length, so every reader sees what it
// sees for external data (the checks find the bytes in the file; the ONNX
// checker accepts the tensor; rules do not read it as a constant) and none
// reads garbage. The saver takes the marks off and copies the bytes back
// file to file (saver/spliced_writer).
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include <onnx/onnx_pb.h>

#include "model/wire_format_scan.h"

namespace remap {

// The input file, open from load to save: an in-place save renames over its
// path, and the bytes stay readable through this descriptor.
class SplicedSource {
 public:
  SplicedSource(int fd, std::string path) : fd_(fd), path_(std::move(path)) {}
  ~SplicedSource();
  SplicedSource(const SplicedSource&) = delete;
  SplicedSource& operator=(const SplicedSource&) = delete;
  int fd() const { return fd_; }
  const std::string& path() const { return path_; }

  // The marks this load put, by tensor name: only these are taken off.
  struct Mark {
    uint64_t offset = 0;
    uint64_t length = 0;
  };
  std::unordered_map<std::string, Mark>& marks() { return marks_; }
  const std::unordered_map<std::string, Mark>& marks() const { return marks_; }

 private:
  int fd_;
  std::string path_;
  std::unordered_map<std::string, Mark> marks_;
};

// A main-graph initializer, by its index at save time, whose raw_data is
// `length` bytes at `offset` of the source file.
struct SplicedInitializer {
  int initializer_index = 0;
  uint64_t offset = 0;
  uint64_t length = 0;
};

// Marks the initializers `left_out` names (their raw_data must be absent) as
// external data in `file_name`, the input's name in its folder, and records
// the marks in `source`.
void MarkSpliced(onnx::GraphProto* graph, const std::vector<WireRawData>& left_out, const std::string& file_name,
                 SplicedSource* source);

// Takes the marks off the initializers that still have one (the rewrite may
// have removed or reordered initializers) and says where their data is.
std::vector<SplicedInitializer> TakeSplicedMarks(onnx::GraphProto* graph, const SplicedSource& source);

}  // namespace remap
