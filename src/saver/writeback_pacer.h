// Starts the disk writing a file that will be fsynced while the rest of it is
// still being written. Without it the page cache fills first and the fsync
// then waits for the whole file: copy time plus disk time. With it the two
// overlap, and the fsync waits for the last step only. (A 1.6 GB model with
// its weights copied from the input: 0.61x the wall time, docs/performance-history.md.)
// A file smaller than kFirst is left to its fsync: written from memory in a
// few milliseconds, it has nothing to overlap, and starting its writeback
// only blocks the writer (sync_file_range waits while the device's queue is
// full) for what the fsync would wait for anyway.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "saver/durability.h"

namespace remap {

class WritebackPacer {
 public:
  // Past this much written since the last start, the writeback of those
  // bytes starts: large enough that a step is one efficient disk write,
  // small enough that the fsync's wait for the last one is short.
  static constexpr uint64_t kStep = uint64_t{32} << 20;
  static constexpr uint64_t kFirst = uint64_t{128} << 20;

  // Paces only a file to be synced (kSynced): an unsynced one is left to the
  // kernel's own writeback, as a plain write is.
  WritebackPacer(int fd, Durability durability, uint64_t step = kStep, uint64_t first = kFirst)
      : fd_(fd), on_(durability == Durability::kSynced), step_(step), first_(first) {}

  // The most to write (or copy) in one call before telling the pacer: at most
  // a step when pacing, so a large copy is started on in steps too.
  uint64_t Chunk() const { return on_ ? step_ : uint64_t{1} << 30; }

  // The file's bytes [0, end) are written; `end` never goes back. Once `end`
  // reaches `first`, starts the writeback of what was written since the last
  // start whenever that is a step or more. Best effort: a failure to start it shows at the fsync, which
  // writes whatever is left.
  void WrittenUpTo(uint64_t end);
  // For a file written front to back: `bytes` more were appended.
  void Wrote(uint64_t bytes) { WrittenUpTo(appended_ += bytes); }

  // How many times writeback was started (for tests).
  int starts() const { return starts_; }

 private:
  int fd_;
  bool on_;
  uint64_t step_;
  uint64_t first_;
  uint64_t started_ = 0;  // the writeback of [0, started_) is under way
  uint64_t appended_ = 0;
  int starts_ = 0;
};

// Writes all of [data, data + size) at the file's position, a chunk at a
// time, telling `pacer`; "" or "write failed" (errno says why).
std::string WriteAllPaced(int fd, const char* data, size_t size, WritebackPacer* pacer);

}  // namespace remap
