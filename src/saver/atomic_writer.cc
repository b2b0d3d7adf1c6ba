#include "saver/atomic_writer.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <filesystem>
#include <unistd.h>
#include <vector>

#include <fmt/format.h>

namespace remap {

namespace {

namespace fs = std::filesystem;

// A temp file next to `path`, filled by `fill(fd)`, synced and renamed over `path`.
template <typename Fill>
Status ReplaceAtomically(const std::string& path, Fill fill) {
  fs::path target(path);
  fs::path dir = target.has_parent_path() ? target.parent_path() : fs::path(".");
  std::error_code ec;
  if (!fs::is_directory(dir, ec))
    return Status(ErrorCode::kOutputFailed, fmt::format("{}: folder {} does not exist", path, dir.string()));
  if (fs::is_directory(target, ec))
    return Status(ErrorCode::kOutputFailed, fmt::format("{}: is a directory", path));
  std::string tmpl = (dir / ("." + target.filename().string() + ".tmp-XXXXXX")).string();
  int fd = mkstemp(tmpl.data());
  if (fd < 0) return Status(ErrorCode::kOutputFailed, fmt::format("{}: cannot create a file in {}: {}", path, dir.string(), std::strerror(errno)));
  auto fail = [&](const std::string& what) {
    std::string msg = fmt::format("{}: {} failed: {}", path, what, std::strerror(errno));
    ::close(fd);
    ::unlink(tmpl.c_str());
    return Status(ErrorCode::kOutputFailed, msg);
  };
  std::string failed = fill(fd);
  if (!failed.empty()) return fail(failed);
  if (::fchmod(fd, 0644) != 0) return fail("chmod");
  if (::fsync(fd) != 0) return fail("fsync");
  if (::close(fd) != 0) {
    ::unlink(tmpl.c_str());
    return Status(ErrorCode::kOutputFailed, fmt::format("{}: close failed: {}", path, std::strerror(errno)));
  }
  if (std::rename(tmpl.c_str(), path.c_str()) != 0) {
    std::string msg = fmt::format("{}: rename failed: {}", path, std::strerror(errno));
    ::unlink(tmpl.c_str());
    return Status(ErrorCode::kOutputFailed, msg);
  }
  return Status::Ok();
}

// Writes all of [data, data + size) to fd; "" or the name of the failing call.
std::string WriteAll(int fd, const char* data, size_t size) {
  size_t done = 0;
  while (done < size) {
    ssize_t n = ::write(fd, data + done, size - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      return "write";
    }
    done += static_cast<size_t>(n);
  }
  return "";
}

}  // namespace

Status WriteFileAtomically(const std::string& path, const std::string& bytes) {
  return ReplaceAtomically(path, [&](int fd) { return WriteAll(fd, bytes.data(), bytes.size()); });
}

Status CopyFileAtomically(const std::string& from, const std::string& path) {
  int in = ::open(from.c_str(), O_RDONLY | O_CLOEXEC);
  if (in < 0) return Status(ErrorCode::kInputUnreadable, fmt::format("{}: cannot open: {}", from, std::strerror(errno)));
  Status s = ReplaceAtomically(path, [&](int fd) -> std::string {
    std::vector<char> buffer(1 << 20);
    for (;;) {
      ssize_t n = ::read(in, buffer.data(), buffer.size());
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) return "read of " + from;
      if (n == 0) return "";
      std::string failed = WriteAll(fd, buffer.data(), static_cast<size_t>(n));
      if (!failed.empty()) return failed;
    }
  });
  ::close(in);
  return s;
}

}  // namespace remap
