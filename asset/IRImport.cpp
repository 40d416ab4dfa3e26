//===- IRImport.cpp - Decoded bytecode as an MLIR module ------------------===//

#include "asset/IRImport.h"
#include "asset/BytecodeStream.h"

#include "mlir/Bytecode/BytecodeImplementation.h"
#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/AsmState.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/AsmParser/AsmParser.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/SourceMgr.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/xxhash.h"

using namespace aimodel;
using namespace aimodel::bytecode;
using mlir::failure;
using mlir::success;

namespace {

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
    if (mlir::failed(bits))
      return failure();
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
        attrBusy(file.attributes().size()), typeBusy(file.types().size()) {
    auto *builtin = context.getOrLoadDialect<mlir::BuiltinDialect>();
    builtinBytecode =
        builtin->getRegisteredInterface<mlir::BytecodeDialectInterface>();
  }

  llvm::Expected<mlir::OwningOpRef<mlir::Operation *>> run();

  mlir::Attribute attribute(uint64_t index);
  mlir::Type type(uint64_t index);
  mlir::FailureOr<mlir::AsmDialectResourceHandle> resource(uint64_t index);

  /// Records the first error; later ones are consequences of it.
  void fail(const llvm::Twine &message) {
    if (error.empty())
      error = message.str();
  }

  const BytecodeFile &file;
  mlir::MLIRContext &context;
  const ir::ImportOptions &options;

private:
  std::string opaqueText(llvm::StringRef what, llvm::StringRef bytes) const {
    return llvm::formatv("{0}:{1}:{2:x16}", what, bytes.size(),
                         llvm::xxh3_64bits(bytes));
  }
  template <typename T, typename DecodeFn>
  T memoised(uint64_t index, std::vector<T> &table, std::vector<bool> &busy,
             llvm::ArrayRef<AttrTypeEntry> entries, const char *what,
             DecodeFn decode);
  mlir::Attribute decodeAttribute(uint64_t index);
  mlir::Type decodeType(uint64_t index);
  mlir::Location location(uint64_t index);
  mlir::Operation *createOperation(uint32_t index);
  mlir::Value operand(const ValueRef &ref);

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
};

} // namespace

//===----------------------------------------------------------------------===//
// SpanReader
//===----------------------------------------------------------------------===//

SpanReader::SpanReader(Importer &importer, Span span)
    : importer(importer),
      cursor(reinterpret_cast<const uint8_t *>(importer.file.bytes().data()),
             span) {}

llvm::StringRef SpanReader::fileBytes() const { return importer.file.bytes(); }

mlir::MLIRContext *SpanReader::getContext() const { return &importer.context; }

uint64_t SpanReader::getBytecodeVersion() const {
  return importer.file.version();
}

mlir::InFlightDiagnostic SpanReader::emitError(const llvm::Twine &msg) const {
  importer.fail(llvm::formatv("byte {0}: {1}", cursor.offset(), msg.str()));
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
  if (mlir::failed(check(
          cursor.readIndex(index, importer.file.types().size(), "type"))))
    return failure();
  result = importer.type(index);
  return success(bool(result));
}

mlir::FailureOr<llvm::APInt>
SpanReader::readAPIntWithKnownWidth(unsigned width) {
  if (width <= 8) {
    uint8_t byte;
    if (mlir::failed(check(cursor.readByte(byte))))
      return failure();
    return llvm::APInt(width, byte);
  }
  if (width <= 64) {
    int64_t value;
    if (mlir::failed(check(cursor.readSignedVarInt(value))))
      return failure();
    return llvm::APInt(width, uint64_t(value), /*isSigned=*/true,
                       /*implicitTrunc=*/true);
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
  return llvm::APInt(width, data);
}

mlir::LogicalResult SpanReader::readString(llvm::StringRef &result) {
  uint64_t index;
  if (mlir::failed(check(cursor.readIndex(index, importer.file.strings().size(),
                                          "string"))))
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

//===----------------------------------------------------------------------===//
// Importer
//===----------------------------------------------------------------------===//

static constexpr unsigned kMaxAttrDepth = 256;

/// Memoised, cycle- and depth-checked materialisation of table entry
/// `index` (attributes and types alike).
template <typename T, typename DecodeFn>
T Importer::memoised(uint64_t index, std::vector<T> &table,
                     std::vector<bool> &busy,
                     llvm::ArrayRef<AttrTypeEntry> entries, const char *what,
                     DecodeFn decode) {
  if (index >= table.size()) {
    fail(llvm::formatv("byte {0}: {1} index {2} out of range (table has {3})",
                       referrerOffset, what, index, table.size()));
    return {};
  }
  if (table[index])
    return table[index];
  if (busy[index] || depth >= kMaxAttrDepth) {
    fail(llvm::formatv("byte {0}: {1} {2} refers to itself or nests too deep",
                       entries[index].encoding.offset, what, index));
    return {};
  }
  busy[index] = true;
  ++depth;
  T result = decode(index);
  --depth;
  busy[index] = false;
  return table[index] = result;
}

mlir::Attribute Importer::attribute(uint64_t index) {
  return memoised(index, attrs, attrBusy, file.attributes(), "attribute",
                  [&](uint64_t i) { return decodeAttribute(i); });
}

mlir::Type Importer::type(uint64_t index) {
  return memoised(index, types, typeBusy, file.types(), "type",
                  [&](uint64_t i) { return decodeType(i); });
}

/// Parses the textual form MLIR stores for dialects without a bytecode
/// interface; diagnostics become the import error.
template <typename T, typename ParseFn>
static T parseAsm(Importer &importer, Span encoding, llvm::StringRef text,
                  ParseFn parse) {
  std::string diagnostic;
  mlir::ScopedDiagnosticHandler handler(
      &importer.context, [&](mlir::Diagnostic &d) {
        if (diagnostic.empty())
          diagnostic = d.str();
        return success();
      });
  size_t consumed = 0;
  T result = parse(text, consumed);
  if (!result || consumed != text.size()) {
    importer.fail(llvm::formatv("byte {0}: cannot parse '{1}': {2}",
                                encoding.offset, text.take_front(80),
                                diagnostic));
    return {};
  }
  return result;
}

mlir::Attribute Importer::decodeAttribute(uint64_t index) {
  const AttrTypeEntry &entry = file.attributes()[index];
  llvm::StringRef dialect = file.attrDialectName(index);
  if (!entry.hasCustomEncoding)
    return parseAsm<mlir::Attribute>(
        *this, entry.encoding, file.attrAsmText(index),
        [&](llvm::StringRef text, size_t &consumed) {
          return mlir::parseAttribute(text, &context, mlir::Type(), &consumed);
        });
  if (dialect == "builtin") {
    SpanReader reader(*this, entry.encoding);
    mlir::Attribute result = builtinBytecode->readAttribute(reader);
    if (!result)
      fail(llvm::formatv("byte {0}: cannot decode builtin attribute {1}",
                         entry.encoding.offset, index));
    return result;
  }
  return mlir::OpaqueAttr::get(
      mlir::StringAttr::get(&context, dialect),
      opaqueText("custom", file.bytesOf(entry.encoding)),
      mlir::NoneType::get(&context));
}

mlir::Type Importer::decodeType(uint64_t index) {
  const AttrTypeEntry &entry = file.types()[index];
  llvm::StringRef dialect = file.dialects()[entry.dialect].name;
  if (!entry.hasCustomEncoding)
    return parseAsm<mlir::Type>(*this, entry.encoding, file.typeAsmText(index),
                                [&](llvm::StringRef text, size_t &consumed) {
                                  return mlir::parseType(text, &context,
                                                         &consumed);
                                });
  if (dialect == "builtin") {
    SpanReader reader(*this, entry.encoding);
    mlir::Type result = builtinBytecode->readType(reader);
    if (!result)
      fail(llvm::formatv("byte {0}: cannot decode builtin type {1}",
                         entry.encoding.offset, index));
    return result;
  }
  return mlir::OpaqueType::get(
      mlir::StringAttr::get(&context, dialect),
      opaqueText("custom", file.bytesOf(entry.encoding)));
}

mlir::FailureOr<mlir::AsmDialectResourceHandle>
Importer::resource(uint64_t index) {
  if (auto it = resources.find(index); it != resources.end())
    return it->second;
  auto [groupIndex, entryIndex] = file.dialectResourceHandles()[index];
  const ResourceGroup &group = file.resourceGroups()[groupIndex];
  if (group.name != "builtin") {
    fail(llvm::formatv("byte {0}: resource of dialect '{1}' used by a builtin "
                       "attribute",
                       referrerOffset, group.name));
    return failure();
  }
  const ResourceEntry &entry = group.entries[entryIndex];
  auto &manager = mlir::DenseResourceElementsHandle::getManagerInterface(&context);
  std::optional<mlir::AsmResourceBlob> blob;
  if (entry.kind == ResourceKind::Blob && options.withResourceData) {
    // The blob's header is only decoded here, on first use.
    llvm::Expected<BlobData> data = file.blobData(groupIndex, entryIndex);
    if (!data) {
      fail(llvm::toString(data.takeError()));
      return failure();
    }
    // Zero-copy: the blob stays in the file mapping.
    llvm::StringRef bytes = file.bytesOf(data->data);
    blob = mlir::UnmanagedAsmResourceBlob::allocateWithAlign(
        llvm::ArrayRef<char>(bytes.data(), bytes.size()),
        data->alignment ? llvm::PowerOf2Ceil(data->alignment) : 1);
  }
  mlir::DenseResourceElementsHandle handle = manager.insert(entry.key, std::move(blob));
  resources.emplace(index, handle);
  return mlir::AsmDialectResourceHandle(handle);
}

mlir::Location Importer::location(uint64_t index) {
  if (index == kNone)
    return mlir::UnknownLoc::get(&context);
  mlir::Attribute attr = attribute(index);
  if (!attr)
    return mlir::UnknownLoc::get(&context);
  if (auto loc = llvm::dyn_cast<mlir::LocationAttr>(attr))
    return loc;
  // A private dialect's location (e.g. Core AI's versioned locations): keep
  // its identity visible without understanding it.
  std::string text;
  llvm::raw_string_ostream os(text);
  attr.print(os);
  return mlir::NameLoc::get(mlir::StringAttr::get(&context, text));
}

mlir::Value Importer::operand(const ValueRef &ref) {
  if (ref.isBlockArgument) {
    if (ref.owner >= blocks.size() ||
        ref.number >= blocks[ref.owner]->getNumArguments()) {
      fail(llvm::formatv("byte {0}: value {1} refers to a missing block argument",
                         referrerOffset, ref.id));
      return {};
    }
    return blocks[ref.owner]->getArgument(ref.number);
  }
  if (ref.owner >= ops.size() ||
      ref.number >= file.resultTypes(file.operations()[ref.owner]).size()) {
    fail(llvm::formatv("byte {0}: value {1} refers to a missing result",
                       referrerOffset, ref.id));
    return {};
  }
  if (mlir::Operation *def = ops[ref.owner])
    return def->getResult(ref.number);
  // Defined later in a graph region: stand in until the definition exists.
  mlir::Type type =
      this->type(file.resultTypes(file.operations()[ref.owner])[ref.number]);
  if (!type)
    return {};
  mlir::OperationState state(mlir::UnknownLoc::get(&context),
                             "builtin.unrealized_conversion_cast");
  state.addTypes(type);
  mlir::Operation *placeholder = mlir::Operation::create(state);
  forwardRefs.emplace_back(placeholder, ref.owner, ref.number);
  return placeholder->getResult(0);
}

mlir::Operation *Importer::createOperation(uint32_t index) {
  const Operation &op = file.operations()[index];
  referrerOffset = op.offset;
  mlir::OperationName name(file.fullOpName(op.name), &context);
  mlir::OperationState state(location(op.location), name);
  llvm::ArrayRef<uint64_t> resultTypes = file.resultTypes(op);
  llvm::ArrayRef<ValueRef> operands = file.operands(op);
  llvm::ArrayRef<uint32_t> regions = file.opRegions(op);
  for (uint64_t t : resultTypes)
    if (mlir::Type resultType = type(t))
      state.addTypes(resultType);
  for (const ValueRef &ref : operands)
    if (mlir::Value value = operand(ref))
      state.addOperands(value);
  for (uint32_t b : file.successors(op))
    state.addSuccessors(blocks[b]);
  if (op.attrDict != kNone) {
    auto dict = llvm::dyn_cast_or_null<mlir::DictionaryAttr>(attribute(op.attrDict));
    if (!dict)
      fail(llvm::formatv("byte {0}: attribute dictionary is not a dictionary",
                         op.offset));
    else
      state.addAttributes(dict.getValue());
  }
  if (op.propertiesForm == PropertiesForm::Attribute) {
    state.propertiesAttr = attribute(op.propertiesAttr);
  } else if (op.propertiesForm == PropertiesForm::Native) {
    if (auto *iface = name.getInterface<mlir::BytecodeOpInterface>()) {
      SpanReader reader(*this, op.propertiesBlob);
      if (mlir::failed(iface->readProperties(reader, state)))
        fail(llvm::formatv("byte {0}: cannot decode properties of {1}",
                           op.propertiesBlob.offset, name.getStringRef()));
    } else {
      state.propertiesAttr = mlir::OpaqueAttr::get(
          mlir::StringAttr::get(&context, name.getDialectNamespace()),
          opaqueText("properties", file.bytesOf(op.propertiesBlob)),
          mlir::NoneType::get(&context));
    }
  }
  if (!error.empty() || state.types.size() != resultTypes.size() ||
      state.operands.size() != operands.size())
    return nullptr;
  for (size_t r = 0; r < regions.size(); ++r)
    state.addRegion();
  mlir::Operation *created = mlir::Operation::create(state);
  for (size_t r = 0; r < regions.size(); ++r)
    for (uint32_t b : file.regions()[regions[r]].blocks)
      created->getRegion(r).push_back(blocks[b]);
  return created;
}

llvm::Expected<mlir::OwningOpRef<mlir::Operation *>> Importer::run() {
  // Blocks first: successors may name blocks that come later.
  for (const Block &block : file.blocks()) {
    referrerOffset = block.parentRegion == kNoIndex
                         ? 0
                         : file.operations()[file.regions()[block.parentRegion].parentOp].offset;
    auto *created = new mlir::Block();
    blocks.push_back(created);
    for (const BlockArgument &arg : block.arguments) {
      mlir::Type argType = type(arg.type);
      if (!argType)
        break;
      created->addArgument(argType, location(arg.location));
    }
  }
  ops.assign(file.operations().size(), nullptr);
  for (uint32_t i = 0; i < ops.size() && error.empty(); ++i) {
    ops[i] = createOperation(i);
    if (ops[i])
      blocks[file.operations()[i].parentBlock]->push_back(ops[i]);
  }
  for (auto &[placeholder, owner, number] : forwardRefs) {
    if (ops[owner])
      placeholder->getResult(0).replaceAllUsesWith(ops[owner]->getResult(number));
    placeholder->destroy();
  }
  // Blocks that no region took (only after an error) are ours to free.
  std::unique_ptr<mlir::Block> root(blocks.empty() ? nullptr : blocks[0]);
  for (size_t b = 1; b < blocks.size(); ++b)
    if (!blocks[b]->getParent()) {
      blocks[b]->dropAllDefinedValueUses();
      delete blocks[b];
    }
  if (!error.empty())
    return llvm::createStringError(error.c_str());
  if (!root || root->empty())
    return llvm::createStringError("the file holds no operation");
  if (std::next(root->begin()) == root->end()) {
    mlir::Operation *top = &root->front();
    top->remove();
    return mlir::OwningOpRef<mlir::Operation *>(top);
  }
  auto module = mlir::ModuleOp::create(mlir::UnknownLoc::get(&context));
  module.getBody()->getOperations().splice(module.getBody()->end(),
                                           root->getOperations());
  return mlir::OwningOpRef<mlir::Operation *>(module.getOperation());
}

//===----------------------------------------------------------------------===//
// Public entry points
//===----------------------------------------------------------------------===//

std::unique_ptr<mlir::MLIRContext> aimodel::ir::makeImportContext() {
  auto context = std::make_unique<mlir::MLIRContext>(
      mlir::MLIRContext::Threading::DISABLED);
  context->allowUnregisteredDialects();
  context->getOrLoadDialect<mlir::BuiltinDialect>();
  // Diagnostics are collected by the importer; keep MLIR quiet otherwise.
  context->getDiagEngine().registerHandler(
      [](mlir::Diagnostic &) { return success(); });
  return context;
}

llvm::Expected<mlir::OwningOpRef<mlir::Operation *>>
aimodel::ir::importBytecode(const BytecodeFile &file,
                            mlir::MLIRContext &context,
                            const ImportOptions &options) {
  return Importer(file, context, options).run();
}

llvm::Expected<mlir::OwningOpRef<mlir::Operation *>>
aimodel::ir::loadIR(llvm::StringRef path, mlir::MLIRContext &context,
                    std::unique_ptr<BytecodeFile> &file,
                    const ImportOptions &options) {
  auto buffer = llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                            /*RequiresNullTerminator=*/false);
  if (!buffer)
    return llvm::createStringError(buffer.getError(), "%s",
                                   buffer.getError().message().c_str());
  if (looksLikeBytecode((*buffer)->getBuffer())) {
    llvm::Expected<std::unique_ptr<BytecodeFile>> decoded =
        BytecodeFile::fromBuffer(std::move(*buffer));
    if (!decoded)
      return decoded.takeError();
    file = std::move(*decoded);
    return importBytecode(*file, context, options);
  }
  std::string diagnostic;
  mlir::ScopedDiagnosticHandler handler(&context, [&](mlir::Diagnostic &d) {
    if (!diagnostic.empty() || d.getSeverity() != mlir::DiagnosticSeverity::Error)
      return success();
    diagnostic = d.str();
    if (auto at = llvm::dyn_cast<mlir::FileLineColLoc>(d.getLocation()))
      diagnostic = llvm::formatv("line {0}:{1}: {2}", at.getLine(),
                                 at.getColumn(), diagnostic);
    return success();
  });
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(std::move(*buffer), llvm::SMLoc());
  mlir::ParserConfig config(&context, /*verifyAfterParse=*/false);
  mlir::OwningOpRef<mlir::Operation *> op =
      mlir::parseSourceFile<mlir::Operation *>(sourceMgr, config);
  if (!op)
    return llvm::createStringError("not MLIR bytecode, and not MLIR text: %s",
                                   diagnostic.c_str());
  return op;
}
