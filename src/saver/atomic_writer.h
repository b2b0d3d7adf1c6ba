// Writes a file so that readers see the old content or the new, never a
// half-written one: temp file in the same folder, fsync, rename.
#pragma once

#include <string>

#include "core/status.h"

namespace remap {

Status WriteFileAtomically(const std::string& path, const std::string& bytes);

// Copies `from` to `path` the same way. The temp file's name is unique, so
// several threads or processes copying to one path each end with a complete file.
Status CopyFileAtomically(const std::string& from, const std::string& path);

}  // namespace remap
