#include "saver/atomic_writer.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <dirent.h>
#include <fcntl.h>
#include <filesystem>
#include <mutex>
#include <random>
#include <set>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>
#include <vector>

#include <fmt/format.h>

#include "saver/writeback_pacer.h"

namespace remap {

namespace {

namespace fs = std::filesystem;

constexpr char kTempTag[] = ".onnx-remap-tmp-";
constexpr size_t kSuffixLength = 6;  // as mkstemp's XXXXXX

std::string RandomSuffix() {
  static const char kChars[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
  thread_local std::mt19937_64 rng{std::random_device{}()};
  std::string s(kSuffixLength, 'x');
  for (char& c : s) c = kChars[rng() % (sizeof(kChars) - 1)];
  return s;
}

bool SameInode(const struct stat& a, const struct stat& b) { return a.st_dev == b.st_dev && a.st_ino == b.st_ino; }

// Removes temp files of ours in `dir` whose writer is gone: a live writer holds
// an flock on its temp file, so one we can lock was left by a killed process.
// Once per folder and process: a batch writing thousands of outputs into one
// folder must not list it thousands of times.
void RemoveStaleTempFiles(const fs::path& dir) {
  static std::mutex mu;
  static std::set<std::string> cleaned;
  {
    std::error_code ec;
    std::string key = fs::absolute(dir, ec).lexically_normal().string();
    std::lock_guard<std::mutex> lock(mu);
    if (!cleaned.insert(key).second) return;
  }
  DIR* d = ::opendir(dir.c_str());
  if (!d) return;
  const int dfd = ::dirfd(d);
  while (const struct dirent* e = ::readdir(d)) {
    if (!IsAtomicWriterTempName(e->d_name)) continue;
    int fd = ::openat(dfd, e->d_name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) continue;
    struct stat opened, named;
    // The name must still be the file we locked (it cannot have been renamed
    // into place: a writer renames while it holds the lock).
    if (::fstat(fd, &opened) == 0 && S_ISREG(opened.st_mode) && ::flock(fd, LOCK_EX | LOCK_NB) == 0 &&
        ::fstatat(dfd, e->d_name, &named, AT_SYMLINK_NOFOLLOW) == 0 && SameInode(opened, named))
      ::unlinkat(dfd, e->d_name, 0);
    ::close(fd);
  }
  ::closedir(d);
}

// The new content of one file until it is renamed into place. Closing it
// without Commit removes it.
class PendingFile {
 public:
  explicit PendingFile(std::string path) : path_(std::move(path)) {}
  PendingFile(const PendingFile&) = delete;
  PendingFile& operator=(const PendingFile&) = delete;
  ~PendingFile() {
    if (fd_ >= 0) ::close(fd_);
    if (!temp_name_.empty()) ::unlink(temp_name_.c_str());
  }

  int fd() const { return fd_; }

  // "" or what failed, as a phrase (errno says why).
  std::string Open(const fs::path& dir, const std::string& base) {
    dir_ = dir;
    base_ = base;
    // Anonymous first: nothing to clean up if the process dies. /proc is
    // needed to give it a name later (linkat through /proc/self/fd).
    if (::access("/proc/self/fd", X_OK) == 0) {
      fd_ = ::open(dir.c_str(), O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
      if (fd_ >= 0) return ::flock(fd_, LOCK_EX) == 0 ? "" : "flock failed";
    }
    // EOPNOTSUPP and the like: a named temp file, locked, and checked to be
    // still ours (a cleaner may have removed it between mkstemp and flock).
    for (int attempt = 0; attempt < 16; ++attempt) {
      std::string name = (dir / ("." + base + kTempTag + "XXXXXX")).string();
      fd_ = ::mkostemp(name.data(), O_CLOEXEC);
      if (fd_ < 0) return "cannot create a file in " + dir.string();
      temp_name_ = name;
      struct stat opened, named;
      if (::flock(fd_, LOCK_EX) != 0) return "flock failed";
      if (::fstat(fd_, &opened) == 0 && ::stat(name.c_str(), &named) == 0 && SameInode(opened, named)) return "";
      ::close(fd_);
      fd_ = -1;
      temp_name_.clear();
    }
    errno = EEXIST;
    return "cannot create a file in " + dir.string();
  }

  // Gives the content its mode and syncs it (as `durability` asks); "" or
  // what failed.
  std::string Finish(mode_t mode, Durability durability) {
    if (::fchmod(fd_, mode) != 0) return "chmod failed";
    if (durability == Durability::kSynced && ::fsync(fd_) != 0) return "fsync failed";
    return "";
  }

  // Renames the finished content over `path_`; "" or what failed.
  std::string Commit(Durability durability) {
    const bool sync = durability == Durability::kSynced;
    if (temp_name_.empty()) {
      const std::string proc = fmt::format("/proc/self/fd/{}", fd_);
      for (int attempt = 0; attempt < 16 && temp_name_.empty(); ++attempt) {
        std::string name = (dir_ / ("." + base_ + kTempTag + RandomSuffix())).string();
        if (::linkat(AT_FDCWD, proc.c_str(), AT_FDCWD, name.c_str(), AT_SYMLINK_FOLLOW) == 0)
          temp_name_ = name;
        else if (errno != EEXIST)
          return "link failed";
      }
      if (temp_name_.empty()) return "link failed";
    }
    if (std::rename(temp_name_.c_str(), path_.c_str()) != 0) return "rename failed";
    temp_name_.clear();
    // The lock is held until here so no cleaner takes the named file for
    // stale. Synced, a failing close cannot lose the data; unsynced, the
    // caller has given up knowing that.
    ::close(fd_);
    fd_ = -1;
    if (!sync) return "";
    // Best effort: make the rename itself durable.
    int dfd = ::open(dir_.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd >= 0) {
      ::fsync(dfd);
      ::close(dfd);
    }
    return "";
  }

 private:
  std::string path_;
  fs::path dir_;
  std::string base_;
  int fd_ = -1;
  std::string temp_name_;  // set while a named temp file exists
};

// Writes `path` from `fill(fd, pacer)` ("" or the name of the failing call)
// via a PendingFile in the same folder; `pacer` paces that file's writeback.
template <typename Fill>
Status ReplaceAtomically(const std::string& path, Fill fill, Durability durability, const CommitGate& gate = {}) {
  fs::path target(path);
  fs::path dir = target.has_parent_path() ? target.parent_path() : fs::path(".");
  std::error_code ec;
  if (!fs::is_directory(dir, ec))
    return Status(ErrorCode::kOutputFailed, fmt::format("{}: folder {} does not exist", path, dir.string()));
  if (fs::is_directory(target, ec))
    return Status(ErrorCode::kOutputFailed, fmt::format("{}: is a directory", path));
  mode_t mode = 0644;
  struct stat existing;
  if (::lstat(path.c_str(), &existing) == 0) {
    if (S_ISREG(existing.st_mode))
      mode = existing.st_mode & 0777;
    else if (!S_ISLNK(existing.st_mode))  // a device or a pipe: renaming over it would replace the node
      return Status(ErrorCode::kOutputFailed, fmt::format("{}: exists and is not a regular file", path));
  }
  RemoveStaleTempFiles(dir);
  PendingFile file(path);
  std::string failed = file.Open(dir, target.filename().string());
  if (failed.empty()) {
    WritebackPacer pacer(file.fd(), durability);
    failed = fill(file.fd(), &pacer);
  }
  if (failed.empty()) failed = file.Finish(mode, durability);
  if (failed.empty() && gate) {
    Status verdict = gate();
    if (!verdict.ok()) return verdict;  // ~PendingFile removes the temp file
  }
  if (failed.empty()) failed = file.Commit(durability);
  if (failed.empty()) return Status::Ok();
  std::string message = fmt::format("{}: {}: {}", path, failed, std::strerror(errno));
  return Status(ErrorCode::kOutputFailed, message);  // ~PendingFile removes the temp file
}

// Writes the pieces in order with writev, a batch of them per call: a model
// written from its parts has two pieces per run of nodes left as bytes.
// A batch holds at most the pacer's chunk of bytes (a larger piece is
// written a chunk at a time, as a short write would leave it).
std::string WritePieces(int fd, const std::vector<std::string_view>& pieces, WritebackPacer* pacer) {
  constexpr size_t kBatch = 1024;  // IOV_MAX on Linux
  std::vector<iovec> batch;
  batch.reserve(kBatch);
  size_t next = 0;    // the first piece not in a batch yet
  size_t offset = 0;  // how much of pieces[next] a short write already wrote
  while (next < pieces.size()) {
    batch.clear();
    uint64_t room = pacer->Chunk();
    for (size_t k = next; k < pieces.size() && batch.size() < kBatch && room > 0; ++k) {
      const size_t skip = k == next ? offset : 0;
      if (pieces[k].size() == skip) continue;
      const size_t take = static_cast<size_t>(std::min<uint64_t>(pieces[k].size() - skip, room));
      batch.push_back(iovec{const_cast<char*>(pieces[k].data() + skip), take});
      room -= take;
    }
    if (batch.empty()) return "";
    ssize_t n = ::writev(fd, batch.data(), static_cast<int>(batch.size()));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return "write failed";  // 0 from a regular file would loop forever
    pacer->Wrote(static_cast<uint64_t>(n));
    // Advance past what was written, whole pieces and then a part of one.
    size_t left = static_cast<size_t>(n);
    while (next < pieces.size() && left >= pieces[next].size() - offset) {
      left -= pieces[next].size() - offset;
      offset = 0;
      ++next;
    }
    offset += left;
  }
  return "";
}

}  // namespace

bool IsAtomicWriterTempName(const std::string& filename) {
  const size_t tag = filename.rfind(kTempTag);
  if (filename.empty() || filename[0] != '.' || tag == std::string::npos || tag < 2) return false;
  const size_t suffix = tag + sizeof(kTempTag) - 1;
  if (filename.size() != suffix + kSuffixLength) return false;
  for (size_t i = suffix; i < filename.size(); ++i) {
    const char c = filename[i];
    if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'))) return false;
  }
  return true;
}

Status WriteFileAtomically(const std::string& path, const std::string& bytes, Durability durability) {
  return ReplaceAtomically(
      path, [&](int fd, WritebackPacer* pacer) { return WriteAllPaced(fd, bytes.data(), bytes.size(), pacer); },
      durability);
}

Status WriteFileAtomically(const std::string& path, const std::vector<std::string_view>& pieces, Durability durability,
                           const CommitGate& gate) {
  return ReplaceAtomically(
      path, [&](int fd, WritebackPacer* pacer) { return WritePieces(fd, pieces, pacer); }, durability, gate);
}

Status WriteFileAtomicallyWith(const std::string& path,
                               const std::function<std::string(int fd, WritebackPacer* pacer)>& fill,
                               Durability durability) {
  return ReplaceAtomically(path, fill, durability);
}

Status CopyFileAtomically(const std::string& from, const std::string& path, Durability durability) {
  int in = ::open(from.c_str(), O_RDONLY | O_CLOEXEC);
  if (in < 0) return Status(ErrorCode::kInputUnreadable, fmt::format("{}: cannot open: {}", from, std::strerror(errno)));
  Status s = ReplaceAtomically(path, [&](int fd, WritebackPacer* pacer) -> std::string {
    std::vector<char> buffer(1 << 20);
    for (;;) {
      ssize_t n = ::read(in, buffer.data(), buffer.size());
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) return "read of " + from + " failed";
      if (n == 0) return "";
      std::string failed = WriteAllPaced(fd, buffer.data(), static_cast<size_t>(n), pacer);
      if (!failed.empty()) return failed;
    }
  }, durability);
  ::close(in);
  return s;
}

}  // namespace remap
