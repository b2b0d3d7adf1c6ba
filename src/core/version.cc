#include "core/version.h"

#include <fmt/format.h>
#include <google/protobuf/stubs/common.h>
#include <onnx/common/version.h>

namespace remap {

const char* Version() { return ONNX_REMAP_VERSION; }

std::string VersionLine() {
  return fmt::format("onnx-remap {} (ONNX {}, protobuf {})", Version(), onnx::LAST_RELEASE_VERSION,
                     google::protobuf::internal::VersionString(GOOGLE_PROTOBUF_VERSION));
}

}  // namespace remap
