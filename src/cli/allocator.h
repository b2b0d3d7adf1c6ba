// The executable's allocator: its name for --version and bug reports. (Its
// settings are made in allocator.cc before the process allocates.)
#pragma once

#include <string>

namespace remap::cli {

// "mimalloc 2.0.9" when mimalloc serves malloc and operator new; "system
// malloc" in a build without it (ONNX_REMAP_MIMALLOC=OFF, sanitizers).
std::string AllocatorName();

}  // namespace remap::cli
