//===- IRImportReader.cpp - MLIR's builtin decoding, fed from the file ----===//

#include "ir/IRImporter.h"

using namespace aimodel::ir::detail;

//===----------------------------------------------------------------------===//
// SpanReader
//===----------------------------------------------------------------------===//

SpanReader::SpanReader(Importer &importer, Span span)
    : importer(importer), cursor(importer.file, span) {}

llvm::StringRef SpanReader::fileBytes() const { return importer.file.bytes(); }

mlir::MLIRContext *SpanReader::getContext() const { return &importer.context; }

uint64_t SpanReader::getBytecodeVersion() const {
  return importer.file.version();
}

mlir::InFlightDiagnostic SpanReader::emitError(const llvm::Twine &msg) const {
  // MLIR streams most of the message into the result:
  // Importer::onDiagnostic records it when the diagnostic is reported.
  importer.pendingErrorOffset = cursor.offset();
  return mlir::emitError(mlir::UnknownLoc::get(&importer.context), msg);
}

mlir::LogicalResult SpanReader::check(llvm::Error err) {
  if (!err)
    return success();
  importer.fail(llvm::toString(std::move(err)));
  return failure();
}

mlir::LogicalResult SpanReader::readAttribute(mlir::Attribute &result) {
  uint64_t index;
  if (mlir::failed(check(cursor.readIndex(
          index, importer.file.attributes().size(), "attribute"))))
    return failure();
  result = importer.attribute(index);
  return success(bool(result));
}

mlir::LogicalResult SpanReader::readOptionalAttribute(mlir::Attribute &result) {
  uint64_t index;
  bool present;
  if (mlir::failed(check(cursor.readVarIntWithFlag(index, present))))
    return failure();
  if (!present)
    return success();
  result = importer.attribute(index);
  return success(bool(result));
}

mlir::LogicalResult SpanReader::readType(mlir::Type &result) {
  uint64_t index;
  if (mlir::failed(
          check(cursor.readIndex(index, importer.file.types().size(), "type"))))
    return failure();
  result = importer.type(index);
  return success(bool(result));
}

mlir::FailureOr<llvm::APInt>
SpanReader::readAPIntWithKnownWidth(unsigned width) {
  // A damaged file can hold a value wider than its type; APInt must never
  // see one (it trusts its callers), so refuse rather than truncate. Every
  // refusal is recorded through emitError/check, so the import fails even
  // where MLIR's caller ignores the failure (readAPFloatWithKnownSemantics).
  if (width == 0)
    return emitError("integer of width 0"), failure();
  if (width <= 8) {
    uint8_t byte;
    if (mlir::failed(check(cursor.readByte(byte))))
      return failure();
    if (!llvm::isUIntN(width, byte))
      return emitError("value does not fit its " + llvm::Twine(width) +
                       "-bit type"),
             failure();
    return llvm::APInt(width, byte);
  }
  if (width <= 64) {
    int64_t value;
    if (mlir::failed(check(cursor.readSignedVarInt(value))))
      return failure();
    // MLIR writes the zero-extended bits (-1 : i32 as 0xFFFFFFFF); accept
    // the sign-extended spelling too.
    if (llvm::isUIntN(width, uint64_t(value)))
      return llvm::APInt(width, uint64_t(value), /*isSigned=*/false);
    if (!llvm::isIntN(width, value))
      return emitError("value does not fit its " + llvm::Twine(width) +
                       "-bit type"),
             failure();
    return llvm::APInt(width, uint64_t(value), /*isSigned=*/true);
  }
  uint64_t words;
  if (mlir::failed(check(cursor.readVarInt(words))))
    return failure();
  if (words == 0 || words > llvm::divideCeil(width, 64) ||
      words > cursor.remaining())
    return emitError("bad APInt word count"), failure();
  llvm::SmallVector<uint64_t, 4> data(words);
  for (uint64_t &word : data) {
    int64_t value;
    if (mlir::failed(check(cursor.readSignedVarInt(value))))
      return failure();
    word = uint64_t(value);
  }
  // The words are sign-extended: the constructor drops bits past `width`.
  return llvm::APInt(width, data);
}

mlir::LogicalResult SpanReader::readString(llvm::StringRef &result) {
  uint64_t index;
  if (mlir::failed(check(
          cursor.readIndex(index, importer.file.strings().size(), "string"))))
    return failure();
  result = importer.file.strings()[index];
  return success();
}

mlir::FailureOr<mlir::AsmDialectResourceHandle>
SpanReader::readResourceHandle() {
  uint64_t index;
  if (mlir::failed(check(cursor.readIndex(
          index, importer.file.dialectResourceHandles().size(), "resource"))))
    return failure();
  return importer.resource(index);
}
