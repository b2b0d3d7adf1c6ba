// The library's version, and the ONNX and protobuf it was built against.
#pragma once

#include <string>

namespace remap {

const char* Version();  // "0.1.0" (CMake's project version)

// "onnx-remap 0.1.0 (ONNX 1.12.0, protobuf 3.21.12)"
std::string VersionLine();

}  // namespace remap
