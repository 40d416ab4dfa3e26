//===- Hashing.h - Combining 64-bit hashes for the matcher ------*- C++ -*-===//
//
// Labels and fingerprints are 64-bit values combined in a fixed order; only
// their equality matters, within one process. The mixer is a plain function
// of its inputs (no per-process seed), so runs are reproducible.
//
//===----------------------------------------------------------------------===//
#ifndef AIMODEL_GRAPHDIFF_HASHING_H
#define AIMODEL_GRAPHDIFF_HASHING_H

#include <cstdint>

namespace aimodel::graphdiff {

/// MurmurHash3's 64-bit finaliser.
inline uint64_t mix64(uint64_t x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdULL;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ULL;
  x ^= x >> 33;
  return x;
}

/// An ordered combination of 64-bit values.
class HashBuilder {
public:
  explicit HashBuilder(uint64_t tag = 0) : h(mix64(tag ^ 0x6a09e667f3bcc909)) {}
  HashBuilder &add(uint64_t value) {
    h = mix64(h ^ (value + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2)));
    return *this;
  }
  uint64_t get() const { return h; }

private:
  uint64_t h;
};

} // namespace aimodel::graphdiff

#endif // AIMODEL_GRAPHDIFF_HASHING_H
