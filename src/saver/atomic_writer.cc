#include "saver/atomic_writer.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <filesystem>
#include <unistd.h>

#include <fmt/format.h>

namespace remap {

Status WriteFileAtomically(const std::string& path, const std::string& bytes) {
  namespace fs = std::filesystem;
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
  auto fail = [&](const char* what) {
    std::string msg = fmt::format("{}: {} failed: {}", path, what, std::strerror(errno));
    ::close(fd);
    ::unlink(tmpl.c_str());
    return Status(ErrorCode::kOutputFailed, msg);
  };
  size_t done = 0;
  while (done < bytes.size()) {
    ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      return fail("write");
    }
    done += static_cast<size_t>(n);
  }
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

}  // namespace remap
