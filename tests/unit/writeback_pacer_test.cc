// The writeback pacer starts the disk on a synced file a step at a time, and
// leaves an unsynced one alone; writers cap each write at its chunk.
#include <fcntl.h>
#include <unistd.h>

#include <fstream>
#include <iterator>
#include <string>
#include <string_view>
#include <vector>

#include <catch2/catch.hpp>

#include "saver/atomic_writer.h"
#include "saver/writeback_pacer.h"
#include "temp_paths.h"

using remap::Durability;
using remap::WritebackPacer;

namespace {

// A new file in a folder of its own, open for writing; both go at the end.
struct OpenFile {
  explicit OpenFile(const std::string& prefix)
      : dir(prefix), path((dir.path / "f.bin").string()), fd(::open(path.c_str(), O_CREAT | O_RDWR | O_CLOEXEC, 0644)) {}
  ~OpenFile() {
    if (fd >= 0) ::close(fd);
  }
  OpenFile(const OpenFile&) = delete;
  OpenFile& operator=(const OpenFile&) = delete;
  remap::testing::TempFolder dir;
  std::string path;
  int fd;
};

}  // namespace

TEST_CASE("the pacer starts writeback once a step is written since the last start", "[saver]") {
  OpenFile file("onnx_remap_pacer");
  const int fd = file.fd;
  REQUIRE(fd >= 0);
  WritebackPacer pacer(fd, Durability::kSynced, /*step=*/4096, /*first=*/4096);
  CHECK(pacer.Chunk() == 4096);
  const std::string block(1000, 'a');
  for (int k = 0; k < 10; ++k) {
    REQUIRE(::write(fd, block.data(), block.size()) == static_cast<ssize_t>(block.size()));
    pacer.Wrote(block.size());
    // Started at 5,000 bytes (the first write past 4,096), then at 10,000
    // (past 5,000 + 4,096).
    CHECK(pacer.starts() == (k + 1 >= 10 ? 2 : k + 1 >= 5 ? 1 : 0));
  }
  // Offsets that skip ahead (a sparse copy's holes) count as written.
  pacer.WrittenUpTo(20000);
  CHECK(pacer.starts() == 3);
  pacer.WrittenUpTo(20001);
  CHECK(pacer.starts() == 3);
  CHECK(::fsync(fd) == 0);
  std::ifstream in(file.path, std::ios::binary);
  CHECK(std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>()) == std::string(10000, 'a'));
}

TEST_CASE("the pacer starts nothing before the file reaches its first size", "[saver]") {
  OpenFile file("onnx_remap_pacer_first");
  const int fd = file.fd;
  REQUIRE(fd >= 0);
  WritebackPacer pacer(fd, Durability::kSynced, /*step=*/4096, /*first=*/10000);
  const std::string bytes(10000, 'b');
  REQUIRE(::write(fd, bytes.data(), 9999) == 9999);
  pacer.Wrote(9999);
  CHECK(pacer.starts() == 0);  // two steps' worth, short of `first`
  REQUIRE(::write(fd, bytes.data(), 1) == 1);
  pacer.Wrote(1);
  CHECK(pacer.starts() == 1);  // all 10,000 bytes at once
  // The defaults: a model of a few dozen megabytes is left to its fsync.
  CHECK(WritebackPacer::kFirst >= 4 * WritebackPacer::kStep);
}

TEST_CASE("the pacer leaves an unsynced file to the kernel", "[saver]") {
  WritebackPacer pacer(/*fd=*/-1, Durability::kUnsynced, /*step=*/4096);
  CHECK(pacer.Chunk() == uint64_t{1} << 30);
  pacer.Wrote(1 << 20);
  pacer.WrittenUpTo(uint64_t{1} << 32);
  CHECK(pacer.starts() == 0);
}

TEST_CASE("a synced atomic write of pieces larger than the pacer's step keeps every byte in order", "[saver]") {
  remap::testing::TempFolder dir("onnx_remap_pacer_pieces");
  const std::string path = (dir.path / "f.bin").string();
  // A piece of 2.5 steps written a chunk at a time, pieces on both sides of
  // a chunk's end, and a patterned body so a byte out of place shows.
  std::vector<std::string> storage;
  const size_t big = WritebackPacer::kStep * 5 / 2 + 7;
  std::string body(big, '\0');
  for (size_t i = 0; i < big; ++i) body[i] = static_cast<char>('a' + (i * 7 + i / 4093) % 26);
  storage.push_back("head,");
  storage.push_back(std::move(body));
  for (int k = 0; k < 2000; ++k) storage.push_back(k % 5 == 0 ? "" : std::to_string(k) + ";");
  storage.push_back(std::string(WritebackPacer::kStep - 3, 'z'));
  storage.push_back("tail");
  std::vector<std::string_view> pieces(storage.begin(), storage.end());
  std::string expected;
  for (const auto& piece : storage) expected += piece;
  for (Durability durability : {Durability::kSynced, Durability::kUnsynced}) {
    REQUIRE(remap::WriteFileAtomically(path, pieces, durability).ok());
    std::ifstream in(path, std::ios::binary);
    const std::string got((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    CHECK(got.size() == expected.size());
    CHECK(got == expected);
  }
}
