#include "saver/new_file.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <random>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>

namespace remap {

namespace {

std::string Why(const std::string& what) { return fmt::format("{}: {}", what, std::strerror(errno)); }

}  // namespace

NewFile::~NewFile() {
  if (fd_ >= 0) ::close(fd_);
  if (!temp_name_.empty()) ::unlink(temp_name_.c_str());
}

std::string NewFile::Open(const std::filesystem::path& dir, const std::string& base) {
  dir_ = dir;
  base_ = base;
  // /proc is needed to name an anonymous file (linkat through /proc/self/fd).
  if (::access("/proc/self/fd", X_OK) == 0) {
    fd_ = ::open(dir.c_str(), O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
    if (fd_ >= 0) return "";
  }
  std::string name = (dir / ("." + base + ".onnx-remap-tmp-XXXXXX")).string();
  fd_ = ::mkostemp(name.data(), O_CLOEXEC);
  if (fd_ < 0) return Why("cannot create a file in " + dir.string());
  temp_name_ = name;
  if (::flock(fd_, LOCK_EX) != 0) return Why("flock failed");
  return "";
}

std::string NewFile::Finish(Durability durability) {
  if (::fchmod(fd_, 0644) != 0) return Why("chmod failed");
  if (durability == Durability::kSynced && ::fsync(fd_) != 0) return Why("fsync failed");
  return "";
}

std::string NewFile::Link(const std::string& to, Durability durability) {
  std::string failed = Finish(durability);
  if (!failed.empty()) return failed;
  int linked;
  if (temp_name_.empty()) {
    const std::string proc = fmt::format("/proc/self/fd/{}", fd_);
    linked = ::linkat(AT_FDCWD, proc.c_str(), AT_FDCWD, to.c_str(), AT_SYMLINK_FOLLOW);
  } else {
    linked = ::link(temp_name_.c_str(), to.c_str());
  }
  return linked == 0 ? "" : Why("link failed");
}

std::string NewFile::Replace(const std::string& to, Durability durability) {
  std::string failed = Finish(durability);
  if (!failed.empty()) return failed;
  if (temp_name_.empty()) {
    const std::string proc = fmt::format("/proc/self/fd/{}", fd_);
    for (int attempt = 0; attempt < 16 && temp_name_.empty(); ++attempt) {
      thread_local std::mt19937_64 rng{std::random_device{}()};
      std::string suffix(6, 'x');
      for (char& c : suffix) c = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"[rng() % 62];
      std::string name = (dir_ / ("." + base_ + ".onnx-remap-tmp-" + suffix)).string();
      if (::linkat(AT_FDCWD, proc.c_str(), AT_FDCWD, name.c_str(), AT_SYMLINK_FOLLOW) == 0)
        temp_name_ = name;
      else if (errno != EEXIST)
        return Why("link failed");
    }
    if (temp_name_.empty()) return Why("link failed");
  }
  if (std::rename(temp_name_.c_str(), to.c_str()) != 0) return Why("rename failed");
  temp_name_.clear();
  return "";
}

}  // namespace remap
