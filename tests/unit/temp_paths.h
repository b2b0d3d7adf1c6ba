// Files and folders a test writes, named after the process so that tests
// ctest runs side by side never share one, and removed when the test ends.
#pragma once

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <system_error>
#include <unistd.h>

namespace remap::testing {

inline std::filesystem::path TempPath(const std::string& prefix, const void* owner, const std::string& suffix = "") {
  return std::filesystem::temp_directory_path() / (prefix + "-" + std::to_string(::getpid()) + "-" +
                                                   std::to_string(reinterpret_cast<uintptr_t>(owner)) + suffix);
}

// An empty folder.
struct TempFolder {
  explicit TempFolder(const std::string& prefix) : path(TempPath(prefix, this)) {
    std::filesystem::remove_all(path);
    std::filesystem::create_directories(path);
  }
  ~TempFolder() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
  TempFolder(const TempFolder&) = delete;
  TempFolder& operator=(const TempFolder&) = delete;
  std::filesystem::path path;
};

// A file holding `bytes`.
struct TempFile {
  TempFile(const std::string& prefix, const std::string& bytes) : path(TempPath(prefix, this, ".onnx").string()) {
    std::ofstream(path, std::ios::binary) << bytes;
  }
  ~TempFile() {
    std::error_code ec;
    std::filesystem::remove(path, ec);
  }
  TempFile(const TempFile&) = delete;
  TempFile& operator=(const TempFile&) = delete;
  std::string path;
};

}  // namespace remap::testing
