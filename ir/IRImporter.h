//===- IRImporter.h - Internals of the bytecode import ----------*- C++ -*-===//
//
// Private to ir/IRImport*.cpp: the Importer that materialises decoded
// entries as MLIR objects, and the SpanReader through which MLIR's builtin
// bytecode code reads them.
//
//===----------------------------------------------------------------------===//
#ifndef AIMODEL_IR_IRIMPORTER_H
#define AIMODEL_IR_IRIMPORTER_H

#include "bytecode/BytecodeStream.h"
#include "ir/IRImport.h"

#include "mlir/Bytecode/BytecodeImplementation.h"
#include "mlir/IR/AsmState.h"
#include "mlir/IR/BuiltinDialect.h"
#include "mlir/IR/Diagnostics.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/xxhash.h"

#include <map>
#include <optional>

namespace aimodel::ir::detail {

using namespace aimodel::bytecode;
using mlir::failure;
using mlir::success;

/// Attribute and type entries refer to each other by index; bound the chain.
inline constexpr unsigned kMaxAttrDepth = 256;

/// Deeper than this, text is refused before MLIR's parser sees it.
inline constexpr unsigned kMaxTextNesting = 1000;

/// MLIR's text parser and printer recurse once per nesting level and
/// overflow the stack long before they would report an error; measure
/// first. Counts brackets, and for each alias reference (`#a`, `!t`) the
/// depth of the alias's own definition, so chains of aliases count as the
/// nesting they build. Strings and comments are skipped. Returns the line
/// and a description of the first excess.
std::optional<std::pair<unsigned, std::string>>
findDeepNesting(llvm::StringRef text, unsigned maxDepth);

/// The text of `attr` (or `type`), or a stand-in naming its kind when it
/// would print more than `maxBytes` or nest too deep (IRPrintBudget.cpp).
std::string boundedText(mlir::Attribute attr, uint64_t maxBytes = 256);
std::string boundedText(mlir::Type type, uint64_t maxBytes = 256);

class Importer;

/// Serves MLIR's builtin bytecode code (and natively encoded properties of
/// registered builtin ops) from one span of the mapped file.
class SpanReader : public mlir::DialectBytecodeReader {
public:
  SpanReader(Importer &importer, Span span);

  mlir::InFlightDiagnostic emitError(const llvm::Twine &msg) const override;
  mlir::FailureOr<const mlir::DialectVersion *>
  getDialectVersion(llvm::StringRef) const override {
    return failure();
  }
  mlir::MLIRContext *getContext() const override;
  uint64_t getBytecodeVersion() const override;

  mlir::LogicalResult readAttribute(mlir::Attribute &result) override;
  mlir::LogicalResult readOptionalAttribute(mlir::Attribute &result) override;
  mlir::LogicalResult readType(mlir::Type &result) override;
  mlir::LogicalResult readVarInt(uint64_t &result) override {
    return check(cursor.readVarInt(result));
  }
  mlir::LogicalResult readSignedVarInt(int64_t &result) override {
    return check(cursor.readSignedVarInt(result));
  }
  mlir::FailureOr<llvm::APInt> readAPIntWithKnownWidth(unsigned width) override;
  mlir::FailureOr<llvm::APFloat>
  readAPFloatWithKnownSemantics(const llvm::fltSemantics &semantics) override {
    mlir::FailureOr<llvm::APInt> bits =
        readAPIntWithKnownWidth(llvm::APFloat::getSizeInBits(semantics));
    // MLIR's generated FloatAttr reader uses this value without checking
    // for failure: never return one. The error is recorded (see
    // readAPIntWithKnownWidth) and fails the whole import.
    if (mlir::failed(bits))
      return llvm::APFloat::getZero(semantics);
    return llvm::APFloat(semantics, *bits);
  }
  mlir::LogicalResult readString(llvm::StringRef &result) override;
  mlir::LogicalResult readBlob(llvm::ArrayRef<char> &result) override {
    uint64_t size;
    Span span;
    if (mlir::failed(check(cursor.readVarInt(size))) ||
        mlir::failed(check(cursor.readSpan(size, span))))
      return failure();
    llvm::StringRef bytes = fileBytes().substr(span.offset, span.size);
    result = llvm::ArrayRef<char>(bytes.data(), bytes.size());
    return success();
  }
  mlir::LogicalResult readBool(bool &result) override {
    uint8_t byte;
    if (mlir::failed(check(cursor.readByte(byte))))
      return failure();
    result = byte != 0;
    return success();
  }
  mlir::FailureOr<mlir::AsmDialectResourceHandle> readResourceHandle() override;

private:
  mlir::LogicalResult check(llvm::Error err);
  llvm::StringRef fileBytes() const;

  Importer &importer;
  ByteCursor cursor;
};

/// Materialises attributes, types and ops on demand, memoised by index.
class Importer {
public:
  Importer(const BytecodeFile &file, mlir::MLIRContext &context,
           const ir::ImportOptions &options)
      : file(file), context(context), options(options),
        attrs(file.attributes().size()), types(file.types().size()),
        attrBusy(file.attributes().size()), typeBusy(file.types().size()),
        diagnostics(&context, [this](mlir::Diagnostic &diagnostic) {
          return onDiagnostic(diagnostic);
        }) {
    auto *builtin = context.getOrLoadDialect<mlir::BuiltinDialect>();
    builtinBytecode =
        builtin->getRegisteredInterface<mlir::BytecodeDialectInterface>();
  }

  llvm::Expected<ir::ImportedModule> run();

  mlir::Attribute attribute(uint64_t index);
  mlir::Type type(uint64_t index);
  mlir::FailureOr<mlir::AsmDialectResourceHandle> resource(uint64_t index);

  /// Records the first error; later ones are consequences of it.
  void fail(const llvm::Twine &message) {
    if (error.empty())
      error = message.str();
  }

  /// The first error, or "".
  const std::string &firstError() const { return error; }

  /// Where the diagnostic that SpanReader::emitError is building was raised:
  /// MLIR streams the message into it after the call, so it is recorded
  /// when reported (onDiagnostic).
  std::optional<uint64_t> pendingErrorOffset;

  const BytecodeFile &file;
  mlir::MLIRContext &context;
  const ir::ImportOptions &options;

private:
  /// The text an opaque attribute or type carries: what it stands for, its
  /// size and content hash, so equal text means equal bytes.
  static std::string opaqueText(llvm::StringRef what, uint64_t size,
                                uint64_t hash) {
    return llvm::formatv("{0}:{1}:{2:x16}", what, size, hash);
  }
  template <typename T, typename DecodeFn>
  T memoised(uint64_t index, std::vector<T> &table, std::vector<bool> &busy,
             llvm::ArrayRef<AttrTypeEntry> entries, const char *what,
             DecodeFn decode);
  bool checkBuiltinPayload(uint64_t index);
  mlir::Attribute decodeAttribute(uint64_t index);
  mlir::Type decodeType(uint64_t index);
  mlir::Location location(uint64_t index);
  mlir::Operation *createOperation(uint32_t index);
  mlir::Value operand(const ValueRef &ref);
  llvm::Expected<ir::ImportedModule> takeTopLevel(mlir::Block &block);
  mlir::LogicalResult onDiagnostic(mlir::Diagnostic &diagnostic);

  const mlir::BytecodeDialectInterface *builtinBytecode = nullptr;
  std::vector<mlir::Attribute> attrs;
  std::vector<mlir::Type> types;
  std::vector<bool> attrBusy, typeBusy;
  unsigned depth = 0;
  /// Where the op or block being built is encoded: errors about what it
  /// refers to point there.
  uint64_t referrerOffset = 0;
  std::map<uint64_t, mlir::AsmDialectResourceHandle> resources;
  std::vector<mlir::Block *> blocks;
  std::vector<mlir::Operation *> ops;
  /// Uses of results not created yet (graph regions): placeholder op,
  /// defining op index, result number.
  std::vector<std::tuple<mlir::Operation *, uint32_t, uint32_t>> forwardRefs;
  std::string error;
  mlir::ScopedDiagnosticHandler diagnostics;
};

} // namespace aimodel::ir::detail

#endif // AIMODEL_IR_IRIMPORTER_H
