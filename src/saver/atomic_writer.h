// Writes a file so that readers see the old content or the new, never a
// half-written one: temp file in the same folder, fsync, rename.
#pragma once

#include <string>

#include "core/status.h"

namespace remap {

Status WriteFileAtomically(const std::string& path, const std::string& bytes);

}  // namespace remap
