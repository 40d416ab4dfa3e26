//===- StructuralHash.h - Attribute and type identity across files -*- C++ -*-//
//
// BytecodeFile::attrContentHash hashes an entry's bytes, and those embed
// table indices: the same attribute in two files hashes differently as soon
// as the tables are ordered differently (one more attribute elsewhere is
// enough). StructuralHasher hashes entries by meaning instead, so equal
// hashes identify equal attributes and types across files:
//
//  - builtin attributes and types: their kind and decoded fields, with every
//    reference replaced by the structural hash of the entry it names;
//    strings by their text, Integer/Float values by their bits (one spelling
//    per value) and type, dense payloads by their bytes and type, locations
//    like any other attribute. Two encodings of one attribute hash the same:
//    a SymbolRef without nested references is a FlatSymbolRef, a
//    FileLineColRange of a line and a column is a FileLineColLoc;
//  - dense_resource: its type and the resource's key. The blob is NOT hashed
//    (it can be gigabytes, or absent): whether two files' weights match is a
//    separate decision, e.g. by hashing blobData() where a policy wants it;
//  - distinct attributes: as the attribute they wrap (their identity does
//    not carry across files);
//  - textual (asm) entries: dialect name and text;
//  - private custom-encoded entries: dialect name and bytes. The references
//    they embed cannot be found without the dialect, so a private entry that
//    embeds table indices hashes by those indices, i.e. depends on table
//    order; nothing else does.
//
// Values are stable across runs and machines (xxh3 over a little-endian
// serialisation). Hashes are memoised per index; they follow references
// recursively, which open() bounds (no cycles, chains of at most
// kMaxEntryDepth entries).
//
//===----------------------------------------------------------------------===//

#ifndef AIMODEL_BYTECODE_STRUCTURALHASH_H
#define AIMODEL_BYTECODE_STRUCTURALHASH_H

#include "bytecode/BytecodeReader.h"

#include "llvm/ADT/BitVector.h"

namespace aimodel::bytecode {

class StructuralHasher {
public:
  /// `file` must outlive the hasher.
  explicit StructuralHasher(const BytecodeFile &file);

  /// Structural hash of attribute `index` (< file.attributes().size()).
  uint64_t attribute(uint64_t index);
  /// Structural hash of type `index` (< file.types().size()).
  uint64_t type(uint64_t index);

private:
  uint64_t computeAttribute(uint64_t index);
  uint64_t computeType(uint64_t index);

  const BytecodeFile &file;
  std::vector<uint64_t> attrHashes, typeHashes;
  llvm::BitVector attrDone, typeDone;
  unsigned depth = 0;
};

} // namespace aimodel::bytecode

#endif // AIMODEL_BYTECODE_STRUCTURALHASH_H
