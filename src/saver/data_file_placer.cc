#include "saver/data_file_placer.h"

#include "saver/new_file.h"
#include "saver/writeback_pacer.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

#include <fmt/format.h>

namespace remap {

namespace fs = std::filesystem;

namespace {

std::string Why(const std::string& what) { return fmt::format("{}: {}", what, std::strerror(errno)); }


// Copies [from, to) of `in` to the same offsets of `out` in the kernel:
// copy_file_range, or sendfile where that cannot cross these file systems.
std::string CopyRange(int in, int out, off_t from, off_t to, WritebackPacer* pacer) {
  off_t in_off = from, out_off = from;
  bool use_sendfile = false;
  while (in_off < to) {
    const size_t want = static_cast<size_t>(std::min<uint64_t>(static_cast<uint64_t>(to - in_off), pacer->Chunk()));
    ssize_t n;
    if (!use_sendfile) {
      n = ::copy_file_range(in, &in_off, out, &out_off, want, 0);
      if (n < 0 && (errno == EXDEV || errno == ENOSYS || errno == EOPNOTSUPP || errno == EINVAL)) {
        use_sendfile = true;
        if (::lseek(out, out_off, SEEK_SET) < 0) return Why("seek failed");
        continue;
      }
    } else {
      n = ::sendfile(out, in, &in_off, want);
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return Why("write failed");
    if (n == 0) {
      errno = EIO;
      return Why("the source file shrank while it was copied");
    }
    pacer->WrittenUpTo(static_cast<uint64_t>(in_off));  // the output's offsets are the input's
  }
  return "";
}

// An in-kernel copy that skips holes: a sparse data file stays sparse and its
// holes are neither read nor written.
std::string CopyContent(int in, int out, off_t size, Durability durability) {
  WritebackPacer pacer(out, durability);
  off_t pos = 0;
  while (pos < size) {
    off_t data = ::lseek(in, pos, SEEK_DATA);
    if (data < 0 && errno == ENXIO) break;  // only a hole is left
    if (data < 0) data = pos;               // no SEEK_DATA here: all of it is data
    off_t hole = ::lseek(in, data, SEEK_HOLE);
    if (hole < 0 || hole > size) hole = size;
    std::string failed = CopyRange(in, out, data, hole, &pacer);
    if (!failed.empty()) return failed;
    pos = hole;
  }
  if (::ftruncate(out, size) != 0) return Why("write failed");
  return "";
}

struct Fd {
  int fd = -1;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

Placement Failed(std::string error) {
  Placement p;
  p.error = std::move(error);
  return p;
}

Placement Placed(DataFileMode used) {
  Placement p;
  p.outcome = PlaceOutcome::kPlaced;
  p.used = used;
  return p;
}

Placement Existed() {
  Placement p;
  p.outcome = PlaceOutcome::kExisted;
  return p;
}

// A hard link to the file `from` names (through symbolic links: a link to the
// link itself could point elsewhere from the output's folder).
int HardLink(const std::string& from, const std::string& to) {
  return ::linkat(AT_FDCWD, from.c_str(), AT_FDCWD, to.c_str(), AT_SYMLINK_FOLLOW);
}

}  // namespace

const char* DataFileModeName(DataFileMode mode) {
  switch (mode) {
    case DataFileMode::kAuto: return "auto";
    case DataFileMode::kReflink: return "reflink";
    case DataFileMode::kLink: return "link";
    case DataFileMode::kCopy: return "copy";
  }
  return "auto";
}

bool ParseDataFileMode(const std::string& name, DataFileMode* mode) {
  for (DataFileMode m : {DataFileMode::kAuto, DataFileMode::kReflink, DataFileMode::kLink, DataFileMode::kCopy}) {
    if (name == DataFileModeName(m)) {
      *mode = m;
      return true;
    }
  }
  return false;
}

Placement PlaceDataFile(const std::string& from, const std::string& to, DataFileMode mode, Durability durability) {
  if (mode == DataFileMode::kLink) {
    if (HardLink(from, to) == 0) return Placed(DataFileMode::kLink);
    if (errno == EEXIST) return Existed();
    return Failed(Why("hard link failed (--data-files link needs the same file system)"));
  }
  Fd in;
  in.fd = ::open(from.c_str(), O_RDONLY | O_CLOEXEC);
  if (in.fd < 0) return Failed(Why("cannot open " + from));
  struct stat st;
  if (::fstat(in.fd, &st) != 0) return Failed(Why("cannot stat " + from));

  const fs::path target(to);
  NewFile file;
  std::string failed = file.Open(target.parent_path().empty() ? fs::path(".") : target.parent_path(),
                                 target.filename().string());
  if (!failed.empty()) return Failed(failed);
  DataFileMode used = DataFileMode::kCopy;
  if (mode == DataFileMode::kAuto || mode == DataFileMode::kReflink) {
    if (::ioctl(file.fd(), FICLONE, in.fd) == 0) {
      used = DataFileMode::kReflink;
    } else if (mode == DataFileMode::kReflink) {
      return Failed(Why("reflink failed (--data-files reflink needs a file system with reflinks, such as btrfs or XFS, "
                        "and the same one)"));
    }
  }
  if (used != DataFileMode::kReflink && mode == DataFileMode::kAuto) {
    if (HardLink(from, to) == 0) return Placed(DataFileMode::kLink);  // the unused new file vanishes
    if (errno == EEXIST) return Existed();
  }
  if (used == DataFileMode::kCopy) {
    failed = CopyContent(in.fd, file.fd(), st.st_size, durability);
    if (!failed.empty()) return Failed(failed);
  }
  failed = file.Link(to, durability);
  if (failed.empty()) return Placed(used);
  if (errno == EEXIST) return Existed();
  return Failed(failed);
}

bool SameFileContent(const std::string& a, const std::string& b) {
  struct stat sa, sb;
  if (::stat(a.c_str(), &sa) != 0 || ::stat(b.c_str(), &sb) != 0) return false;
  if (sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino) return true;
  if (sa.st_size != sb.st_size) return false;
  Fd fa, fb;
  fa.fd = ::open(a.c_str(), O_RDONLY | O_CLOEXEC);
  fb.fd = ::open(b.c_str(), O_RDONLY | O_CLOEXEC);
  if (fa.fd < 0 || fb.fd < 0) return false;
  std::vector<char> ba(1 << 20), bb(1 << 20);
  for (off_t pos = 0; pos < sa.st_size;) {
    const ssize_t na = ::pread(fa.fd, ba.data(), ba.size(), pos);
    if (na <= 0) return false;
    ssize_t got = 0;
    while (got < na) {
      const ssize_t nb = ::pread(fb.fd, bb.data() + got, static_cast<size_t>(na - got), pos + got);
      if (nb <= 0) return false;
      got += nb;
    }
    if (std::memcmp(ba.data(), bb.data(), static_cast<size_t>(na)) != 0) return false;
    pos += na;
  }
  return true;
}

}  // namespace remap
