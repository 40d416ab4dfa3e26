//===- BytecodeDecoder.h - Internal decoder state ---------------*- C++ -*-===//
//
// Internal to the bytecode reader: the Decoder fills a BytecodeFile section by
// section. Split over BytecodeReader.cpp (container, tables, resources),
// BytecodeIR.cpp (the IR walk), BuiltinAttrDecoder.cpp and
// BuiltinTypeDecoder.cpp (builtin entries), BuiltinAttrChecks.cpp (what an
// entry's referents must be) and EntryGraph.cpp (textual entries, reference
// cycles and depth).
//
//===----------------------------------------------------------------------===//

#ifndef AIMODEL_BYTECODE_BYTECODEDECODER_H
#define AIMODEL_BYTECODE_BYTECODEDECODER_H

#include "bytecode/BytecodeReader.h"
#include "bytecode/BytecodeStream.h"

namespace aimodel::bytecode {

class Decoder {
public:
  explicit Decoder(BytecodeFile &file)
      : file(file),
        data(reinterpret_cast<const uint8_t *>(file.buffer_->getBufferStart())),
        size(file.buffer_->getBufferSize()) {}

  llvm::Error decode();

  // Section decoders (BytecodeReader.cpp).
  llvm::Error decodeHeaderAndSections();
  llvm::Error decodeStrings(Span section);
  llvm::Error decodeDialects(Span section);
  llvm::Error decodeAttrTypeOffsets(Span offsets, Span entries);
  llvm::Error decodeProperties(Span section);
  llvm::Error decodeResources(Span offsets, Span entries);
  llvm::Error decodeResourceEntry(ByteCursor &entryCursor,
                                  ResourceEntry &entry);

  // BuiltinAttrDecoder.cpp.
  llvm::Error classifyAttributes();
  llvm::Error decodeBuiltinAttributes();

  // EntryGraph.cpp.
  llvm::Error checkTextualEntries();
  llvm::Error checkEntryGraph();

  // BuiltinTypeDecoder.cpp.
  llvm::Error decodeBuiltinTypes();
  llvm::Error checkUniqueDialectNames(uint64_t sectionOffset);

  // BytecodeIR.cpp.
  llvm::Error decodeIR(Span section);

  ByteCursor cursor(Span span) const { return ByteCursor(data, span); }
  llvm::Error readString(ByteCursor &cur, llvm::StringRef &str);
  llvm::Error readDialectIndex(ByteCursor &cur, uint64_t &index);

  BytecodeFile &file;
  const uint8_t *data;
  uint64_t size;
  /// Index of the `builtin` dialect, or kNone.
  uint64_t builtinDialect = kNone;
  /// The entries each attribute refers to (appendAttrReferences), as
  /// decodeBuiltinAttributes found them: attribute i's are
  /// attrRefs[attrRefsBegin[i], attrRefsBegin[i + 1]). So checkEntryGraph
  /// need not decode every entry again.
  std::vector<uint64_t> attrRefs;
  std::vector<uint64_t> attrRefsBegin;
};

/// Decodes (validates) custom-encoded builtin type `index` into `out`, or
/// fails with "byte N: ...". With `refs`, appends the entries it refers to:
/// attribute i as i, type j as numAttributes + j (BuiltinTypeDecoder.cpp).
llvm::Error decodeBuiltinTypeEntry(const BytecodeFile &file, uint64_t index,
                                   BuiltinTypeInfo &out,
                                   std::vector<uint64_t> *refs = nullptr);

/// Decodes builtin custom-encoded attribute `index` into `out` (vectors
/// empty, scalars default), checking its own bytes; `str` is left unresolved
/// (BuiltinAttrDecoder.cpp).
llvm::Error decodeBuiltinAttrEntry(const BytecodeFile &file, uint64_t index,
                                   DecodedAttr &out);

/// The entries decoded attribute `attr` refers to, numbered as for
/// decodeBuiltinTypeEntry's `refs`.
void appendAttrReferences(const BytecodeFile &file, const DecodedAttr &attr,
                          std::vector<uint64_t> &refs);

/// What the import demands of decoded builtin attribute `index` beyond its
/// own bytes: referents of the right kind, payloads that match their types
/// (BuiltinAttrChecks.cpp). Errors name the entry's offset.
llvm::Error checkBuiltinAttribute(const BytecodeFile &file, uint64_t index,
                                  const DecodedAttr &attr);

/// True for String and StringWithType (what MLIR reads as a StringAttr).
bool isStringKind(AttrKind kind);

/// Whether the importer can use attribute `index` as an op or block
/// argument location (BuiltinAttrChecks.cpp).
bool usableAsLocation(const BytecodeFile &file, uint64_t index);

/// The properties of `op` (natively encoded) as the importer decodes them
/// when `op` is builtin.module (BuiltinAttrChecks.cpp).
llvm::Error checkModuleProperties(const BytecodeFile &file,
                                  const Operation &op);

/// The attributes builtin.module's native properties refer to, appended to
/// `refs`; fails for the properties of any other op, which only their
/// dialect can decode.
llvm::Error readModuleProperties(const BytecodeFile &file, const Operation &op,
                                 std::vector<uint64_t> *refs);

} // namespace aimodel::bytecode

#endif // AIMODEL_BYTECODE_BYTECODEDECODER_H
