// A model file's bytes while the load (and, for nodes left as bytes, the
// save) needs them: a read-only mapping of a regular file, or a string (a
// pipe's bytes, bytes a caller already has). Reading a large model into a
// string zeroes, fills and copies as much memory as the file; mapped, the
// bytes are the page cache's own (docs/performance-history.md, "The input mapped").
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace remap {

class FileBytes {
 public:
  FileBytes() = default;
  explicit FileBytes(std::string bytes) : owned_(std::move(bytes)) {}
  // The first `size` bytes of the open regular file `fd` (`path` names it in
  // the message should the file shrink while mapped; see
  // InstallMappedFileFaultHandler). nullopt when the file cannot be mapped:
  // the caller reads it instead.
  static std::optional<FileBytes> Map(int fd, size_t size, const std::string& path);

  FileBytes(FileBytes&& other) noexcept;
  FileBytes& operator=(FileBytes&& other) noexcept;
  FileBytes(const FileBytes&) = delete;
  FileBytes& operator=(const FileBytes&) = delete;
  ~FileBytes() { Release(); }

  std::string_view view() const { return mapped_ ? std::string_view(mapped_, mapped_size_) : std::string_view(owned_); }
  const char* data() const { return view().data(); }
  size_t size() const { return view().size(); }
  bool empty() const { return size() == 0; }
  bool mapped() const { return mapped_ != nullptr; }
  // Frees the bytes now; the object is then empty.
  void Release() noexcept;

 private:
  const char* mapped_ = nullptr;
  size_t mapped_size_ = 0;
  int registry_slot_ = -1;  // where the fault handler finds this mapping's path
  std::string owned_;
};

// A mapped file that shrinks while it is read (another process truncates
// it) makes the next read of a lost page raise SIGBUS. The command line
// installs this handler: it names the file on stderr in one line and exits
// with `exit_code`, instead of dying with "Bus error". Any other SIGBUS is
// left to the default action.
void InstallMappedFileFaultHandler(int exit_code);

}  // namespace remap
