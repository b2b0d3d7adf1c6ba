// A file written before it has a name, given one only once it is complete:
// anonymous (O_TMPFILE) where the file system allows, else a locked temp file
// named as the atomic writer names its own (`.NAME.onnx-remap-tmp-XXXXXX`), so
// that the next write into the folder removes it if the process is killed.
// Destroyed without a commit, it leaves nothing.
#pragma once

#include <filesystem>
#include <string>

#include "saver/durability.h"

namespace remap {

class NewFile {
 public:
  NewFile() = default;
  NewFile(const NewFile&) = delete;
  NewFile& operator=(const NewFile&) = delete;
  ~NewFile();

  int fd() const { return fd_; }

  // Opens it in `dir`, for a file to be named `base` there. "" or what failed
  // (with errno's reason).
  std::string Open(const std::filesystem::path& dir, const std::string& base);

  // Gives it mode 0644, syncs it (unless `durability` says not to) and names
  // it `to`, failing with errno EEXIST rather than replacing a file there.
  // "" or what failed.
  std::string Link(const std::string& to, Durability durability = Durability::kSynced);

  // The same, but replacing a file at `to` (rename: what was there is not
  // written to, only unnamed). "" or what failed.
  std::string Replace(const std::string& to, Durability durability = Durability::kSynced);

 private:
  std::string Finish(Durability durability);

  int fd_ = -1;
  std::filesystem::path dir_;
  std::string base_;
  std::string temp_name_;  // set while a named temp file exists
};

}  // namespace remap
