// FileBytes: a model file mapped for its load, and the SIGBUS handler that
// names a mapped file another process truncates.
#include <catch2/catch.hpp>

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "model/file_bytes.h"
#include "temp_paths.h"

namespace remap {
namespace {

std::optional<FileBytes> MapPath(const std::string& path, size_t size) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  REQUIRE(fd >= 0);
  std::optional<FileBytes> mapped = FileBytes::Map(fd, size, path);
  ::close(fd);  // the mapping holds the file, not the descriptor
  return mapped;
}

TEST_CASE("a regular file is mapped and reads as its bytes", "[file-bytes]") {
  std::string content(3 * 4096 + 17, '\0');
  for (size_t i = 0; i < content.size(); ++i) content[i] = static_cast<char>(i * 7);
  testing::TempFile file("onnx-remap-file-bytes", content);
  std::optional<FileBytes> mapped = MapPath(file.path, content.size());
  REQUIRE(mapped);
  CHECK(mapped->mapped());
  CHECK(mapped->view() == content);

  FileBytes moved = std::move(*mapped);
  CHECK(mapped->empty());
  CHECK_FALSE(mapped->mapped());
  CHECK(moved.view() == content);

  FileBytes assigned(std::string("held"));
  assigned = std::move(moved);
  CHECK(assigned.view() == content);
  assigned.Release();
  CHECK(assigned.empty());
  CHECK_FALSE(assigned.mapped());
}

TEST_CASE("an empty file is not mapped, and a string holds bytes too", "[file-bytes]") {
  testing::TempFile file("onnx-remap-file-bytes", "");
  CHECK_FALSE(MapPath(file.path, 0));
  FileBytes held(std::string("abc"));
  CHECK_FALSE(held.mapped());
  CHECK(held.view() == "abc");
  held.Release();
  CHECK(held.empty());
}

TEST_CASE("a mapped file that shrinks is named in one line, with the exit code given", "[file-bytes]") {
  testing::TempFile file("onnx-remap-file-bytes", std::string(4 * 4096, 'x'));
  int err[2];
  REQUIRE(::pipe(err) == 0);
  const pid_t child = ::fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    ::dup2(err[1], STDERR_FILENO);
    InstallMappedFileFaultHandler(3);
    std::optional<FileBytes> mapped = MapPath(file.path, 4 * 4096);
    if (!mapped) ::_exit(90);
    const int fd = ::open(file.path.c_str(), O_WRONLY);
    if (fd < 0 || ::ftruncate(fd, 0) != 0) ::_exit(91);
    // The page is gone with the file's end: this read raises SIGBUS.
    volatile char c = mapped->data()[2 * 4096];
    (void)c;
    ::_exit(92);
  }
  ::close(err[1]);
  std::string message;
  char buf[512];
  for (ssize_t n; (n = ::read(err[0], buf, sizeof buf)) > 0;) message.append(buf, static_cast<size_t>(n));
  ::close(err[0]);
  int status = 0;
  REQUIRE(::waitpid(child, &status, 0) == child);
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 3);
  CHECK(message == "onnx-remap: error: " + file.path +
                       ": the file shrank while it was being read (another process changed it)\n");
}

}  // namespace
}  // namespace remap
