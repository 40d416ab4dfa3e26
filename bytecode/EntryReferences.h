//===- EntryReferences.h - What refers to what in a file -------*- C++ -*-===//
//
// What refers to what in a file: from ops (locations, attribute
// dictionaries, properties, types) and from attribute and type entries to
// other entries and to strings. Builtin entries are decoded, so their
// references are exact. Entries the decoder cannot see into (private-dialect
// encodings, natively encoded properties, dialect version blobs) are bounded
// by one rule of MLIR's bytecode, applied in one function
// (forEachPossibleIndex): a dialect's reader reads every reference it holds
// (attribute, type, string, resource) as a prefix varint of the index, or
// of index * 2 + 1 for a present optional attribute. An encoding holding no
// such varint at any byte offset cannot refer to that index; every varint found
// counts as a possible reference, into every table (an over-approximation).
// If that rule were ever wrong, forEachPossibleIndex is what changes.
//
//===----------------------------------------------------------------------===//
#ifndef AIMODEL_BYTECODE_ENTRYREFERENCES_H
#define AIMODEL_BYTECODE_ENTRYREFERENCES_H

#include "bytecode/BytecodeReader.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLFunctionalExtras.h"

#include <cstdint>
#include <string>
#include <vector>

namespace aimodel::bytecode {

struct EntryReferences {
  std::vector<uint64_t> attributes, types, strings;
  /// Some of these are only possible references, from bytes the decoder
  /// cannot see into (bounded by the varint rule).
  bool possible = false;
  /// The decoder cannot bound what this refers to (an entry that fails to
  /// decode again): it may refer to anything.
  bool opaque = false;
};

/// Calls `fn` with every index an opaque encoding `bytes` may refer to: the
/// value of the prefix varint starting at each byte offset, and, when odd,
/// that value halved (a present optional attribute). Values may exceed
/// every table; callers filter.
void forEachPossibleIndex(llvm::StringRef bytes,
                          llvm::function_ref<void(uint64_t)> fn);

class ReferenceFinder {
public:
  explicit ReferenceFinder(const BytecodeFile &file);

  /// What attribute entry `index` refers to.
  EntryReferences ofAttribute(uint64_t index) const;
  /// What type entry `index` refers to.
  EntryReferences ofType(uint64_t index) const;
  /// What `op` refers to besides its location: attribute dictionary,
  /// properties, result types. Natively encoded properties (except
  /// builtin.module's, which are decoded) refer to what their bytes may.
  EntryReferences ofOp(const Operation &op) const;
  /// What dialect `index`'s version entry may refer to.
  EntryReferences ofDialectVersion(uint64_t index) const;
  /// Strings the container itself refers to: dialect and op names,
  /// resource group names, keys and string values.
  std::vector<uint64_t> containerStrings() const;

private:
  uint64_t stringIndex(llvm::StringRef str) const;
  void addPossible(llvm::StringRef bytes, EntryReferences &out) const;

  const BytecodeFile &file;
  llvm::DenseMap<const char *, uint64_t> stringIndices;
};

/// How a part of the file is reached from the IR: a bit set. Location:
/// from an op's or block argument's location; Attribute: from an op's
/// attribute dictionary or a type; Property: from an op's properties;
/// Container: dialect and op names, resource keys; Possible: through bytes
/// the decoder cannot see into (see forEachPossibleIndex).
enum ReachedFrom : uint8_t {
  kReachedFromLocation = 1,
  kReachedFromAttribute = 2,
  kReachedFromProperty = 4,
  kReachedFromContainer = 8,
  kReachedFromPossible = 16,
};

/// What the IR of a file refers to, directly or not: per attribute, type
/// and string, how it is reached (0: not at all).
struct Reachability {
  std::vector<uint8_t> attributes, types, strings;
  /// Something reachable cannot be bounded: anything may be reached.
  bool opaque = false;
  /// For a string reached only possibly: what may refer to it ("the
  /// properties of mps.func", "a private 'mps' attribute"), else "".
  std::vector<std::string> possibleOrigin;
};

/// How a rewrite changes what refers to what: op and block-argument
/// locations as they will be written, and attribute entries blanked (they
/// become loc(unknown), which refers to nothing).
struct LocationOverrides {
  /// New location of op `first`.
  const llvm::DenseMap<uint32_t, uint64_t> *ops = nullptr;
  /// New location of argument `second` of block `first` (kNone: elided).
  const llvm::DenseMap<std::pair<uint32_t, uint32_t>, uint64_t> *arguments =
      nullptr;
  const std::vector<bool> *blanked = nullptr;
};

/// Everything reachable from the roots: ops (locations, attribute
/// dictionaries, properties, result types), block arguments (types and
/// locations), the container's strings and dialect version entries.
/// Attribute indices past the table (appended entries) refer to nothing.
Reachability findReachable(const BytecodeFile &file,
                           const LocationOverrides &overrides = {});

} // namespace aimodel::bytecode

#endif // AIMODEL_BYTECODE_ENTRYREFERENCES_H
