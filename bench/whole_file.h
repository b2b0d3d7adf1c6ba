// The bench programs' input: the whole file in one buffer of its size, as
// the tool's loader reads it.
#pragma once

#include <fstream>
#include <string>

inline bool ReadWholeFile(const char* path, std::string* bytes) {
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) return false;
  bytes->assign(static_cast<size_t>(in.tellg()), '\0');
  in.seekg(0);
  return static_cast<bool>(in.read(bytes->data(), static_cast<std::streamsize>(bytes->size())));
}
