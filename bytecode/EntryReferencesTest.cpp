//===- EntryReferencesTest.cpp - The varint rule and reachability ---------===//

#include "bytecode/EntryReferences.h"
#include "bytecode/BytecodeStream.h"
#include "bytecode/BytecodeWriter.h"

#include "gtest/gtest.h"

#include <random>
#include <set>

using namespace aimodel::bytecode;

namespace {

std::set<uint64_t> possible(llvm::StringRef bytes) {
  std::set<uint64_t> out;
  forEachPossibleIndex(bytes, [&](uint64_t v) { out.insert(v); });
  return out;
}

/// The rule written independently: at each offset, the decoder's own
/// varint reader; odd values halved too.
std::set<uint64_t> reference(const std::string &bytes) {
  std::set<uint64_t> out;
  const auto *data = reinterpret_cast<const uint8_t *>(bytes.data());
  for (uint64_t at = 0; at < bytes.size(); ++at) {
    ByteCursor cursor(data, Span{at, bytes.size() - at});
    uint64_t value;
    if (llvm::Error err = cursor.readVarInt(value)) {
      llvm::consumeError(std::move(err));
      continue;
    }
    out.insert(value);
    if (value & 1)
      out.insert(value >> 1);
  }
  return out;
}

TEST(PossibleReferences, AgreesWithTheDecodersVarintAtEveryOffset) {
  std::mt19937_64 rng(13);
  for (int trial = 0; trial < 2000; ++trial) {
    std::string bytes(rng() % 24, '\0');
    for (char &c : bytes)
      c = char(rng());
    EXPECT_EQ(possible(bytes), reference(bytes)) << "trial " << trial;
  }
}

TEST(PossibleReferences, EveryWrittenReferenceIsFound) {
  // What a dialect writer emits: references among other data, each a
  // varint of the index (or index * 2 + 1 for a present optional one).
  std::mt19937_64 rng(7);
  for (int trial = 0; trial < 2000; ++trial) {
    std::string bytes;
    std::vector<uint64_t> written;
    for (int field = 0; field < 6; ++field) {
      uint64_t index = rng() >> (rng() % 64);
      switch (rng() % 4) {
      case 0: // a reference
        appendVarInt(bytes, index);
        written.push_back(index);
        break;
      case 1: // a present optional attribute
        if (index < (uint64_t(1) << 62)) {
          appendVarInt(bytes, (index << 1) | 1);
          written.push_back(index);
        }
        break;
      case 2: // a raw byte (a small integer, a bool)
        bytes.push_back(char(rng()));
        break;
      default: { // a blob
        std::string blob(rng() % 5, '\0');
        for (char &c : blob)
          c = char(rng());
        appendVarInt(bytes, blob.size());
        bytes += blob;
      }
      }
    }
    std::set<uint64_t> found = possible(bytes);
    for (uint64_t index : written)
      EXPECT_TRUE(found.count(index)) << "trial " << trial << ": " << index;
  }
}

TEST(PossibleReferences, BytesWithoutTheVarintCannotReferToIt) {
  // 0x31 is the varint of 24; nothing here encodes 24 or 49.
  std::string bytes = "\x01\x0f\x1b\x01";
  std::set<uint64_t> found = possible(bytes);
  EXPECT_FALSE(found.count(24));
  EXPECT_TRUE(found.count(13)); // 0x1b
  EXPECT_TRUE(found.count(6));  // 13 halved
  EXPECT_TRUE(found.count(7));  // 0x0f
}

} // namespace
