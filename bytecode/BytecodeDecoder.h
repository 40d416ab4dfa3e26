//===- BytecodeDecoder.h - Internal decoder state ---------------*- C++ -*-===//
//
// Internal to the bytecode reader: the Decoder fills a BytecodeFile section by
// section. Split over BytecodeReader.cpp (container, tables, resources),
// BytecodeIR.cpp (the IR walk), BuiltinAttrDecoder.cpp and
// BuiltinTypeDecoder.cpp (builtin entries) and BytecodeFileMapping.cpp.
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
  llvm::Error decodeBuiltinAttributes();

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
};

/// Decodes (validates) custom-encoded builtin type `index` into `out`, or
/// fails with "byte N: ..." (BuiltinTypeDecoder.cpp).
llvm::Error decodeBuiltinTypeEntry(const BytecodeFile &file, uint64_t index,
                                   BuiltinTypeInfo &out);

} // namespace aimodel::bytecode

#endif // AIMODEL_BYTECODE_BYTECODEDECODER_H
