#include <filesystem>
#include <fstream>
#include <sys/stat.h>

#include <catch2/catch.hpp>

#include "saver/data_file_placer.h"
#include "saver/external_data.h"
#include "test_models.h"

using namespace remap;
namespace fs = std::filesystem;

namespace {

struct stat StatOf(const fs::path& p) {
  struct stat st {};
  REQUIRE(::stat(p.c_str(), &st) == 0);
  return st;
}

bool SameInode(const fs::path& a, const fs::path& b) {
  const struct stat sa = StatOf(a), sb = StatOf(b);
  return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

std::string Read(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

// 64 MiB, all hole but "weights" at 32 MiB.
void MakeSparse(const fs::path& p) {
  std::ofstream out(p, std::ios::binary);
  out.seekp(32 << 20);
  out << "weights";
  out.close();
  fs::resize_file(p, 64 << 20);
}

fs::path FreshRoot(const char* name) {
  const fs::path root = fs::temp_directory_path() / name;
  fs::remove_all(root);
  fs::create_directories(root / "in");
  fs::create_directories(root / "out");
  return root;
}

}  // namespace

TEST_CASE("data file modes have stable names", "[saver]") {
  DataFileMode m = DataFileMode::kCopy;
  CHECK(ParseDataFileMode("auto", &m));
  CHECK(m == DataFileMode::kAuto);
  CHECK(ParseDataFileMode("link", &m));
  CHECK(m == DataFileMode::kLink);
  CHECK(ParseDataFileMode("reflink", &m));
  CHECK(m == DataFileMode::kReflink);
  CHECK(ParseDataFileMode("copy", &m));
  CHECK(m == DataFileMode::kCopy);
  CHECK_FALSE(ParseDataFileMode("hardlink", &m));
}

TEST_CASE("link mode makes a hard link and leaves the input as it was", "[saver]") {
  const fs::path root = FreshRoot("onnx_remap_place_link");
  MakeSparse(root / "in" / "w.bin");
  const struct stat before = StatOf(root / "in" / "w.bin");
  Placement p = PlaceDataFile((root / "in" / "w.bin").string(), (root / "out" / "w.bin").string(), DataFileMode::kLink);
  REQUIRE(p.outcome == PlaceOutcome::kPlaced);
  CHECK(p.used == DataFileMode::kLink);
  CHECK(SameInode(root / "in" / "w.bin", root / "out" / "w.bin"));
  const struct stat after = StatOf(root / "in" / "w.bin");
  CHECK(after.st_size == before.st_size);
  CHECK(after.st_mtim.tv_sec == before.st_mtim.tv_sec);
  CHECK(after.st_mtim.tv_nsec == before.st_mtim.tv_nsec);
  fs::remove_all(root);
}

TEST_CASE("auto mode does not copy within one file system", "[saver]") {
  const fs::path root = FreshRoot("onnx_remap_place_auto");
  MakeSparse(root / "in" / "w.bin");
  Placement p = PlaceDataFile((root / "in" / "w.bin").string(), (root / "out" / "w.bin").string(), DataFileMode::kAuto);
  REQUIRE(p.outcome == PlaceOutcome::kPlaced);
  INFO("used " << DataFileModeName(p.used));
  CHECK(p.used != DataFileMode::kCopy);
  if (p.used == DataFileMode::kLink) CHECK(SameInode(root / "in" / "w.bin", root / "out" / "w.bin"));
  CHECK(Read(root / "out" / "w.bin") == Read(root / "in" / "w.bin"));
  fs::remove_all(root);
}

TEST_CASE("copy mode makes an independent file, holes kept", "[saver]") {
  const fs::path root = FreshRoot("onnx_remap_place_copy");
  MakeSparse(root / "in" / "w.bin");
  Placement p = PlaceDataFile((root / "in" / "w.bin").string(), (root / "out" / "w.bin").string(), DataFileMode::kCopy);
  REQUIRE(p.outcome == PlaceOutcome::kPlaced);
  CHECK(p.used == DataFileMode::kCopy);
  CHECK_FALSE(SameInode(root / "in" / "w.bin", root / "out" / "w.bin"));
  CHECK(Read(root / "out" / "w.bin") == Read(root / "in" / "w.bin"));
  // 64 MiB with 7 bytes of data: a copy that wrote the holes would allocate all of it.
  CHECK(StatOf(root / "out" / "w.bin").st_blocks * 512 < (1 << 20));
  CHECK((fs::status(root / "out" / "w.bin").permissions() & fs::perms::all) ==
        (fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read | fs::perms::others_read));
  // Nothing else in the folder: no temp file left.
  CHECK(std::distance(fs::directory_iterator(root / "out"), fs::directory_iterator()) == 1);
  fs::remove_all(root);
}

TEST_CASE("no mode replaces a file already at the target", "[saver]") {
  const fs::path root = FreshRoot("onnx_remap_place_exists");
  { std::ofstream(root / "in" / "w.bin", std::ios::binary) << "input"; }
  for (DataFileMode mode : {DataFileMode::kAuto, DataFileMode::kLink, DataFileMode::kCopy}) {
    INFO(DataFileModeName(mode));
    { std::ofstream(root / "out" / "w.bin", std::ios::binary) << "there"; }
    Placement p = PlaceDataFile((root / "in" / "w.bin").string(), (root / "out" / "w.bin").string(), mode);
    CHECK(p.outcome == PlaceOutcome::kExisted);
    CHECK(Read(root / "out" / "w.bin") == "there");
    CHECK(Read(root / "in" / "w.bin") == "input");
    CHECK(std::distance(fs::directory_iterator(root / "out"), fs::directory_iterator()) == 1);
  }
  fs::remove_all(root);
}

TEST_CASE("a hard link is to the file a symbolic link names, not to the link", "[saver]") {
  const fs::path root = FreshRoot("onnx_remap_place_symlink");
  { std::ofstream(root / "in" / "real.bin", std::ios::binary) << "data"; }
  fs::create_symlink("real.bin", root / "in" / "w.bin");
  Placement p = PlaceDataFile((root / "in" / "w.bin").string(), (root / "out" / "w.bin").string(), DataFileMode::kLink);
  REQUIRE(p.outcome == PlaceOutcome::kPlaced);
  CHECK_FALSE(fs::is_symlink(root / "out" / "w.bin"));
  CHECK(Read(root / "out" / "w.bin") == "data");
  fs::remove_all(root);
}

TEST_CASE("same content: same inode, or same size and bytes", "[saver]") {
  const fs::path root = FreshRoot("onnx_remap_same_content");
  { std::ofstream(root / "in" / "a", std::ios::binary) << "abcd"; }
  { std::ofstream(root / "in" / "b", std::ios::binary) << "abcd"; }
  { std::ofstream(root / "in" / "c", std::ios::binary) << "abce"; }
  { std::ofstream(root / "in" / "d", std::ios::binary) << "abc"; }
  fs::create_hard_link(root / "in" / "a", root / "out" / "a");
  CHECK(SameFileContent((root / "in" / "a").string(), (root / "out" / "a").string()));
  CHECK(SameFileContent((root / "in" / "a").string(), (root / "in" / "b").string()));
  CHECK_FALSE(SameFileContent((root / "in" / "a").string(), (root / "in" / "c").string()));
  CHECK_FALSE(SameFileContent((root / "in" / "a").string(), (root / "in" / "d").string()));
  CHECK_FALSE(SameFileContent((root / "in" / "a").string(), (root / "in" / "missing").string()));
  fs::remove_all(root);
}

TEST_CASE("linked external data is listed as created, removing it leaves the input", "[saver]") {
  const fs::path root = FreshRoot("onnx_remap_place_created");
  { std::ofstream(root / "in" / "w.bin", std::ios::binary) << std::string(8, '\1'); }
  std::vector<std::string> created;
  REQUIRE(CopyExternalData(testing::ModelWithExternalWeight("w.bin"), (root / "in").string(), (root / "out").string(), &created,
                           DataFileMode::kLink)
              .ok());
  REQUIRE(created == std::vector<std::string>{(root / "out" / "w.bin").string()});
  CHECK(SameInode(root / "in" / "w.bin", root / "out" / "w.bin"));
  // Again: the same inode is the same file, kept and not listed.
  created.clear();
  REQUIRE(CopyExternalData(testing::ModelWithExternalWeight("w.bin"), (root / "in").string(), (root / "out").string(), &created,
                           DataFileMode::kCopy)
              .ok());
  CHECK(created.empty());
  fs::remove(root / "out" / "w.bin");
  CHECK(Read(root / "in" / "w.bin") == std::string(8, '\1'));
  fs::remove_all(root);
}

TEST_CASE("across file systems: link fails clearly, auto and copy copy", "[saver]") {
  const fs::path shm = "/dev/shm";
  const fs::path root = FreshRoot("onnx_remap_place_xdev");
  std::error_code ec;
  if (!fs::is_directory(shm, ec) || StatOf(shm).st_dev == StatOf(root).st_dev) {
    WARN("skipped: no /dev/shm on another file system than " << root.string());
    fs::remove_all(root);
    return;
  }
  const fs::path out = shm / "onnx_remap_place_xdev";
  fs::remove_all(out);
  fs::create_directories(out);
  MakeSparse(root / "in" / "w.bin");
  Placement link = PlaceDataFile((root / "in" / "w.bin").string(), (out / "w.bin").string(), DataFileMode::kLink);
  CHECK(link.outcome == PlaceOutcome::kFailed);
  CHECK(link.error.find("same file system") != std::string::npos);
  CHECK_FALSE(fs::exists(out / "w.bin"));
  for (DataFileMode mode : {DataFileMode::kAuto, DataFileMode::kCopy}) {
    INFO(DataFileModeName(mode));
    Placement p = PlaceDataFile((root / "in" / "w.bin").string(), (out / "w.bin").string(), mode);
    REQUIRE(p.outcome == PlaceOutcome::kPlaced);
    CHECK(p.used == DataFileMode::kCopy);
    CHECK(Read(out / "w.bin") == Read(root / "in" / "w.bin"));
    CHECK(StatOf(out / "w.bin").st_blocks * 512 < (1 << 20));
    fs::remove(out / "w.bin");
  }
  fs::remove_all(out);
  fs::remove_all(root);
}
