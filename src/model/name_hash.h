// The hash of value and node names in the flat tables (NameTable, the index's
// node-name set). std::hash<std::string_view> is an out-of-line call that
// costs more than the table's own probe on names of 5 to 30 bytes, and the
// index, the structure check and their prefetches hash each of a
// million-node graph's names several times. This is wyhash's scheme
// (64x64->128-bit multiply-and-fold of the bytes read 4 or 8 at a time),
// inlined: strong enough for linear probing on the low bits and a tag from
// the high ones.
#pragma once

#include <cstdint>
#include <cstring>
#include <string_view>

namespace remap {

namespace name_hash_detail {

// GCC's and clang's 128-bit integer (__extension__: not ISO C++, which -pedantic flags).
__extension__ typedef unsigned __int128 Wide;

inline uint64_t Fold(uint64_t a, uint64_t b) {
  const Wide r = static_cast<Wide>(a) * b;
  return static_cast<uint64_t>(r) ^ static_cast<uint64_t>(r >> 64);
}
inline uint64_t Read8(const char* p) {
  uint64_t v;
  std::memcpy(&v, p, 8);
  return v;
}
inline uint64_t Read4(const char* p) {
  uint32_t v;
  std::memcpy(&v, p, 4);
  return v;
}

}  // namespace name_hash_detail

inline uint64_t NameHash(std::string_view s) {
  using namespace name_hash_detail;
  constexpr uint64_t k0 = 0xa0761d6478bd642full, k1 = 0xe7037ed1a0b428dbull, k2 = 0x8ebc6af09c88c6e3ull;
  const char* p = s.data();
  const size_t n = s.size();
  uint64_t seed = k0;
  uint64_t a = 0, b = 0;
  if (n <= 16) {
    if (n >= 4) {
      // Two overlapping pairs of 4-byte reads cover 4..16 bytes.
      const size_t q = (n >> 3) << 2;
      a = (Read4(p) << 32) | Read4(p + q);
      b = (Read4(p + n - 4) << 32) | Read4(p + n - 4 - q);
    } else if (n > 0) {
      const auto byte = [p](size_t i) { return static_cast<uint64_t>(static_cast<unsigned char>(p[i])); };
      a = (byte(0) << 16) | (byte(n >> 1) << 8) | byte(n - 1);
    }
  } else {
    size_t left = n;
    while (left > 16) {
      seed = Fold(Read8(p) ^ k1, Read8(p + 8) ^ seed);
      p += 16;
      left -= 16;
    }
    // The last 16 bytes, overlapping the block before when fewer are left.
    a = Read8(p + left - 16);
    b = Read8(p + left - 8);
  }
  return Fold(k1 ^ n, Fold(a ^ k1, b ^ seed ^ k2));
}

// NameHash as a std::unordered_map / set hasher, for the small maps keyed by
// operator names that are asked once per node.
struct NameHasher {
  size_t operator()(std::string_view s) const noexcept { return static_cast<size_t>(NameHash(s)); }
};

}  // namespace remap
