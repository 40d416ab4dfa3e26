//===- BytecodeStream.h - Bounds-checked cursor over MLIR bytecode --------===//
//
// Internal helper of the bytecode decoder: a cursor over a byte range of the
// mapped file that never reads past its end. Every failure is an llvm::Error
// whose message starts with "byte <absolute file offset>: ", so a caller can
// point at the exact spot of a corrupt file.
//
//===----------------------------------------------------------------------===//

#ifndef AIMODEL_BYTECODE_BYTECODESTREAM_H
#define AIMODEL_BYTECODE_BYTECODESTREAM_H

#include "bytecode/BytecodeReader.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/Error.h"

#include <cstdint>

namespace aimodel::bytecode {

/// Builds the uniform "byte <offset>: <what>" error.
inline llvm::Error errorAt(uint64_t offset, const llvm::Twine &what) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 "byte " + llvm::Twine(offset) + ": " + what);
}

/// A cursor over [begin, end) of a file whose first byte is `fileStart`.
/// Offsets reported in errors and spans are relative to `fileStart`.
class ByteCursor {
public:
  ByteCursor() = default;
  ByteCursor(const uint8_t *fileStart, Span range)
      : fileStart(fileStart), pos(fileStart + range.offset),
        end(fileStart + range.offset + range.size) {}
  /// A cursor over `range` of `file`, with offsets relative to its start.
  ByteCursor(const BytecodeFile &file, Span range)
      : ByteCursor(reinterpret_cast<const uint8_t *>(file.bytes().data()),
                   range) {}

  uint64_t offset() const { return uint64_t(pos - fileStart); }
  uint64_t remaining() const { return uint64_t(end - pos); }
  bool empty() const { return pos == end; }

  llvm::Error error(const llvm::Twine &what) const {
    return errorAt(offset(), what);
  }

  // Out-parameters are always assigned first, so callers never see (and
  // GCC never warns about) uninitialized values on the error path.
  llvm::Error readByte(uint8_t &value) {
    value = 0;
    if (pos == end)
      return error("unexpected end of data");
    value = *pos++;
    return llvm::Error::success();
  }

  /// Takes `size` bytes and returns their file span without copying them.
  llvm::Error readSpan(uint64_t size, Span &span) {
    span = Span{offset(), 0};
    if (size > remaining())
      return error("need " + llvm::Twine(size) + " bytes but only " +
                   llvm::Twine(remaining()) + " remain");
    span = Span{offset(), size};
    pos += size;
    return llvm::Error::success();
  }

  llvm::Error skip(uint64_t size) {
    Span ignored;
    return readSpan(size, ignored);
  }

  /// MLIR's prefix varint: the number of trailing zero bits of the first byte
  /// is the number of extra bytes; a zero first byte means 8 extra bytes.
  llvm::Error readVarInt(uint64_t &value) {
    value = 0;
    uint64_t start = offset();
    uint8_t first = 0;
    if (auto err = readByte(first))
      return err;
    if (first & 1) {
      value = first >> 1;
      return llvm::Error::success();
    }
    unsigned extraBytes = first == 0 ? 8 : unsigned(__builtin_ctz(first));
    if (extraBytes > remaining())
      return errorAt(start, "truncated varint");
    uint64_t raw = 0;
    for (unsigned i = 0; i < extraBytes; ++i)
      raw |= uint64_t(pos[i]) << (8 * i);
    pos += extraBytes;
    if (first == 0) {
      value = raw;
    } else {
      // Low `extraBytes + 1` bits of the little-endian whole are the marker.
      uint64_t whole = uint64_t(first) | (raw << 8);
      value = whole >> (extraBytes + 1);
    }
    return llvm::Error::success();
  }

  /// Zigzag-encoded signed varint.
  llvm::Error readSignedVarInt(int64_t &value) {
    value = 0;
    uint64_t raw = 0;
    if (auto err = readVarInt(raw))
      return err;
    value = int64_t(raw >> 1) ^ -int64_t(raw & 1);
    return llvm::Error::success();
  }

  /// A varint whose low bit is a flag.
  llvm::Error readVarIntWithFlag(uint64_t &value, bool &flag) {
    flag = false;
    if (auto err = readVarInt(value))
      return err;
    flag = value & 1;
    value >>= 1;
    return llvm::Error::success();
  }

  /// Reads a count of items that each need at least `minBytesPerItem` bytes
  /// of the remaining data; rejects counts that cannot possibly fit, so that
  /// callers can allocate or loop over the count safely.
  llvm::Error readCount(uint64_t &count, const llvm::Twine &what,
                        uint64_t minBytesPerItem = 1) {
    uint64_t start = offset();
    if (auto err = readVarInt(count))
      return err;
    if (minBytesPerItem && count > remaining() / minBytesPerItem)
      return errorAt(start, what + " count " + llvm::Twine(count) +
                                " exceeds the " + llvm::Twine(remaining()) +
                                " bytes that remain");
    return llvm::Error::success();
  }

  /// A varint that must be a valid index into a table of `size` entries.
  llvm::Error readIndex(uint64_t &index, uint64_t size,
                        const llvm::Twine &what) {
    uint64_t start = offset();
    if (auto err = readVarInt(index))
      return err;
    if (index >= size)
      return errorAt(start, what + " index " + llvm::Twine(index) +
                                " out of range (table has " +
                                llvm::Twine(size) + " entries)");
    return llvm::Error::success();
  }

  llvm::Error readNullTerminatedString(llvm::StringRef &str) {
    for (const uint8_t *it = pos; it != end; ++it) {
      if (*it == 0) {
        str = llvm::StringRef(reinterpret_cast<const char *>(pos),
                              size_t(it - pos));
        pos = it + 1;
        return llvm::Error::success();
      }
    }
    return error("unterminated string");
  }

  /// Skips 0xCB padding up to the next multiple of `alignment` (measured from
  /// the start of the file, which is how the writer lays sections out).
  llvm::Error alignTo(uint64_t alignment) {
    if (alignment == 0 || (alignment & (alignment - 1)))
      return error("alignment " + llvm::Twine(alignment) +
                   " is not a power of two");
    while (offset() & (alignment - 1)) {
      uint8_t padding = 0;
      if (auto err = readByte(padding))
        return err;
      if (padding != 0xCB)
        return errorAt(offset() - 1, "expected alignment padding byte 0xCB");
    }
    return llvm::Error::success();
  }

  /// Section header: id byte (bit 7 = aligned), varint length, and for
  /// aligned sections a varint alignment followed by padding.
  llvm::Error readSection(SectionInfo &section) {
    section.headerOffset = offset();
    uint8_t idAndAligned = 0;
    uint64_t length = 0;
    if (auto err = readByte(idAndAligned))
      return err;
    if (auto err = readVarInt(length))
      return err;
    section.id = idAndAligned & 0x7F;
    section.alignment = 1;
    if (section.id >= kNumSectionIds)
      return errorAt(section.headerOffset,
                     "invalid section id " + llvm::Twine(unsigned(section.id)));
    if (idAndAligned & 0x80) {
      if (auto err = readVarInt(section.alignment))
        return err;
      if (auto err = alignTo(section.alignment))
        return err;
    }
    return readSpan(length, section.data);
  }

private:
  const uint8_t *fileStart = nullptr;
  const uint8_t *pos = nullptr;
  const uint8_t *end = nullptr;
};

} // namespace aimodel::bytecode

#endif // AIMODEL_BYTECODE_BYTECODESTREAM_H
