//===- BytecodeWriter.h - Container-level bytecode rewriter -----*- C++ -*-===//
//
// Writes a decoded bytecode file again with a few changes, without knowing
// any dialect: MLIR's own writer cannot re-emit private-dialect entries it
// cannot parse, and would renumber every entry. What may change:
//
//  * the location of an op or of a block argument (an attribute index; a
//    block argument's may also be elided, which means loc(unknown));
//  * attribute entries blanked at their index (loc(unknown), for what
//    nothing refers to any more), and builtin entries appended after the
//    last one;
//  * strings emptied at their index.
//
// Everything else is copied byte for byte: every other entry, and so every
// private encoding that refers to entries by index, stays valid. The IR
// section is re-encoded only where a location changed (nested sections get
// their new lengths); the resource section is aligned to its largest blob
// alignment and each blob's padding recomputed for where it lands, so every
// blob keeps its alignment (the offset table gets the new entry sizes). Large
// sections are not read through the mapping but handed to the sink as file
// ranges (ByteSink::copyRange), so weights can be streamed without being paged
// into the process.
//
//===----------------------------------------------------------------------===//
#ifndef AIMODEL_BYTECODE_BYTECODEWRITER_H
#define AIMODEL_BYTECODE_BYTECODEWRITER_H

#include "bytecode/BytecodeReader.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

namespace aimodel::bytecode {

/// Where the written bytes go.
class ByteSink {
public:
  virtual ~ByteSink() = default;
  virtual llvm::Error write(llvm::StringRef bytes) = 0;
  /// Writes `range` of the input file (the one being rewritten) unchanged.
  virtual llvm::Error copyRange(Span range) = 0;
  /// Bytes written so far (alignment is measured from the file's start).
  virtual uint64_t written() const = 0;
  /// Reads `range` of the input file (a few bytes: blob headers). Not
  /// through the mapping: touching one byte of a mapped weights file maps
  /// a whole page-cache folio around it.
  virtual llvm::Expected<std::string> readInput(Span range) = 0;
};

/// The changes to apply. Indices are those of the input file.
struct BytecodeEdits {
  /// Block argument location meaning loc(unknown), written elided.
  static constexpr uint64_t kElidedLocation = kNone;

  /// New location (attribute index) of op `first`.
  llvm::DenseMap<uint32_t, uint64_t> opLocations;
  /// New location of argument `second` of block `first`, or kElidedLocation.
  llvm::DenseMap<std::pair<uint32_t, uint32_t>, uint64_t> blockArgLocations;
  /// Attribute entries (by index) that become loc(unknown), the smallest
  /// builtin entry: what blanking an entry nothing refers to writes.
  std::vector<bool> blankedAttributes;
  /// Builtin custom-encoded attribute entries appended after the existing
  /// ones: the first gets index attributes().size().
  std::vector<std::string> appendedAttributes;
  /// Strings that become empty (their index stays valid).
  std::vector<bool> emptiedStrings;

  bool changesAttributes() const {
    return !appendedAttributes.empty() ||
           std::find(blankedAttributes.begin(), blankedAttributes.end(),
                     true) != blankedAttributes.end();
  }
};

/// Builtin attribute encodings the stripper writes.
std::string encodeUnknownLoc();

/// MLIR's prefix varint.
void appendVarInt(std::string &out, uint64_t value);

/// What the writer learnt of the input on its way.
struct WriteResult {
  /// Per resource entry, in file order: its blob's data size, or kNone
  /// (not a blob, or a declaration without data).
  std::vector<uint64_t> blobDataSizes;
};

/// Writes `file` with `edits` applied to `sink`. Errors: edits that refer to
/// what the file does not hold (no builtin dialect for new entries, indices
/// out of range), a blob header that cannot be decoded, or a sink error.
llvm::Error writeBytecode(const BytecodeFile &file, const BytecodeEdits &edits,
                          ByteSink &sink, WriteResult *result = nullptr);

} // namespace aimodel::bytecode

#endif // AIMODEL_BYTECODE_BYTECODEWRITER_H
