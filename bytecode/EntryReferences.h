//===- EntryReferences.h - What refers to what in a file -------*- C++ -*-===//
//
// The references the decoder can see between the parts of a file: from ops
// (locations, attribute dictionaries, properties, types) and from builtin
// attribute and type entries to other entries and to strings. Entries the
// decoder cannot see into (private-dialect encodings, natively encoded
// properties of ops other than builtin.module, dialect version blobs) may
// refer to anything by index: they are reported as opaque, so a consumer can
// tell "nothing refers to X" from "nothing it can see refers to X".
//
//===----------------------------------------------------------------------===//
#ifndef AIMODEL_BYTECODE_ENTRYREFERENCES_H
#define AIMODEL_BYTECODE_ENTRYREFERENCES_H

#include "bytecode/BytecodeReader.h"

#include "llvm/ADT/DenseMap.h"

#include <cstdint>
#include <vector>

namespace aimodel::bytecode {

struct EntryReferences {
  std::vector<uint64_t> attributes, types, strings;
  /// The decoder cannot see all this refers to.
  bool opaque = false;
};

class ReferenceFinder {
public:
  explicit ReferenceFinder(const BytecodeFile &file);

  /// What attribute entry `index` refers to.
  EntryReferences ofAttribute(uint64_t index) const;
  /// What type entry `index` refers to.
  EntryReferences ofType(uint64_t index) const;
  /// What `op` refers to besides its location: attribute dictionary,
  /// properties, result types. Natively encoded properties are opaque,
  /// except builtin.module's.
  EntryReferences ofOp(const Operation &op) const;
  /// Strings the container itself refers to: dialect and op names,
  /// resource group names, keys and string values.
  std::vector<uint64_t> containerStrings() const;

private:
  uint64_t stringIndex(llvm::StringRef str) const;

  const BytecodeFile &file;
  llvm::DenseMap<const char *, uint64_t> stringIndices;
};

} // namespace aimodel::bytecode

#endif // AIMODEL_BYTECODE_ENTRYREFERENCES_H
