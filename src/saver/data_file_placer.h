// Puts a copy of an external data file into the output's folder without
// reading it in user space: a reflink (copy-on-write clone, FICLONE), a hard
// link, or an in-kernel copy (copy_file_range, holes kept). The new file
// appears under its name complete or not at all (an anonymous O_TMPFILE, or a
// locked `.NAME.onnx-remap-tmp-XXXXXX` where there is none, linked in with
// linkat/link), and an existing file of that name is never replaced.
#pragma once

#include <string>

#include "core/status.h"
#include "saver/durability.h"

namespace remap {

enum class DataFileMode {
  kAuto,     // reflink, else hard link, else copy
  kReflink,  // only a reflink (btrfs, XFS, ...); an error where none can be made
  kLink,     // only a hard link (same file system); an error otherwise
  kCopy,     // always an independent copy (copy_file_range)
};

// "auto", "reflink", "link", "copy".
const char* DataFileModeName(DataFileMode mode);
bool ParseDataFileMode(const std::string& name, DataFileMode* mode);

enum class PlaceOutcome {
  kPlaced,   // `to` was created; `used` says how
  kExisted,  // `to` already existed (perhaps made by a concurrent writer); left as it was
  kFailed,   // nothing was created; `error` says why
};

struct Placement {
  PlaceOutcome outcome = PlaceOutcome::kFailed;
  DataFileMode used = DataFileMode::kCopy;  // kReflink, kLink or kCopy when placed
  std::string error;                        // a phrase with the reason, when failed
};

// Creates `to` (its folder must exist) with the content of `from`, as `mode`
// asks; a reflink or copy is synced before it is named unless `durability`
// says not to.
Placement PlaceDataFile(const std::string& from, const std::string& to, DataFileMode mode,
                        Durability durability = Durability::kSynced);

// Whether two existing files hold the same bytes: the same inode is, another
// size is not; otherwise the contents are compared (this reads both files).
bool SameFileContent(const std::string& a, const std::string& b);

}  // namespace remap
