#include "saver/writeback_pacer.h"

#include <algorithm>
#include <cerrno>
#include <fcntl.h>
#include <unistd.h>

namespace remap {

void WritebackPacer::WrittenUpTo(uint64_t end) {
  if (!on_ || end < first_ || end < started_ + step_) return;
  // SYNC_FILE_RANGE_WRITE queues the dirty pages of the range for writing and
  // returns; it waits only when the device's queue is full, which paces the
  // writer to the disk instead of letting dirty pages pile up.
  if (::sync_file_range(fd_, static_cast<off64_t>(started_), static_cast<off64_t>(end - started_),
                        SYNC_FILE_RANGE_WRITE) == 0)
    ++starts_;
  started_ = end;
}

std::string WriteAllPaced(int fd, const char* data, size_t size, WritebackPacer* pacer) {
  while (size > 0) {
    const ssize_t n = ::write(fd, data, static_cast<size_t>(std::min<uint64_t>(size, pacer->Chunk())));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return "write failed";
    data += n;
    size -= static_cast<size_t>(n);
    pacer->Wrote(static_cast<uint64_t>(n));
  }
  return "";
}

}  // namespace remap
