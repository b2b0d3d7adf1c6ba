// Writes a file so that readers see the old content or the new, never a
// half-written one, and so that a killed writer leaves nothing behind.
//
// The new content goes to an anonymous file (O_TMPFILE) in the destination's
// folder, so rename() is atomic and a process killed while writing leaves no
// file at all: the kernel frees it. It is given a temporary name only for the
// instant between linkat() and rename(). Where the file system has no
// O_TMPFILE, a named temp file is used instead. Temporary names are
// `.NAME.onnx-remap-tmp-XXXXXX` next to NAME; the writer holds an flock() on
// it until it is renamed, and the first write into a folder removes the temp
// files of that pattern no live writer holds (left by a killed run).
//
// Write errors (full disk, EFBIG under `ulimit -f`, read-only folder) come back
// as kOutputFailed with the temp file removed and the old file untouched. A
// program that may run under a file-size limit should ignore SIGXFSZ, or the
// kernel kills it instead of failing the write (the CLI does).
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"
#include "saver/durability.h"

namespace remap {

// Asked once the new content is written (and synced, as asked), before it
// replaces the destination: a status other than ok discards the content and
// is returned as it is. The pipeline checks the rewrite's nodes meanwhile.
using CommitGate = std::function<Status()>;

// An existing file keeps its permission bits; a new one gets 0644.
Status WriteFileAtomically(const std::string& path, const std::string& bytes,
                           Durability durability = Durability::kSynced);

// The same, for content in pieces, written in order.
Status WriteFileAtomically(const std::string& path, const std::vector<std::string_view>& pieces,
                           Durability durability = Durability::kSynced, const CommitGate& gate = {});

class WritebackPacer;

// Writes `path` from `fill(fd, pacer)`, which writes the content to the open
// temp file, telling `pacer` what it wrote (saver/writeback_pacer.h), and
// returns "" or the name of the call that failed (errno says why).
Status WriteFileAtomicallyWith(const std::string& path,
                               const std::function<std::string(int fd, WritebackPacer* pacer)>& fill,
                               Durability durability = Durability::kSynced);

// Copies `from` to `path` the same way. Each writer has its own temp file, so
// several threads or processes writing one path each end with a complete file
// (the last rename wins).
Status CopyFileAtomically(const std::string& from, const std::string& path,
                          Durability durability = Durability::kSynced);

// True for a name WriteFileAtomically uses for its temp files.
bool IsAtomicWriterTempName(const std::string& filename);

}  // namespace remap
