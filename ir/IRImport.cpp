//===- IRImport.cpp - Decoded bytecode as an MLIR module ------------------===//

#include "ir/IRImporter.h"

#include "mlir/AsmParser/AsmParser.h"
#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectResourceBlobManager.h"

using namespace aimodel;
using namespace aimodel::ir::detail;

//===----------------------------------------------------------------------===//
// Importer
//===----------------------------------------------------------------------===//

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
  mlir::ScopedDiagnosticHandler handler(&importer.context,
                                        [&](mlir::Diagnostic &d) {
                                          if (diagnostic.empty())
                                            diagnostic = d.str();
                                          return success();
                                        });
  if (findDeepNesting(text, kMaxTextNesting)) {
    importer.fail(llvm::formatv("byte {0}: textual entry nests deeper than "
                                "{1} brackets",
                                encoding.offset, kMaxTextNesting));
    return {};
  }
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

/// A number of elements that cannot overflow anything downstream.
static constexpr int64_t kMaxElements = int64_t(1) << 48;

/// The static element count of `type`, if it is a ranked shaped type whose
/// count is sane.
static std::optional<int64_t> staticElementCount(mlir::Type type) {
  auto shaped = llvm::dyn_cast_or_null<mlir::ShapedType>(type);
  if (!shaped || !shaped.hasRank())
    return std::nullopt;
  int64_t count = 1;
  for (int64_t dim : shaped.getShape()) {
    if (dim < 0 || (dim > 0 && count > kMaxElements / dim))
      return std::nullopt;
    count *= dim;
  }
  return count;
}

/// MLIR's builtin bytecode code trusts that a value matches its type (it
/// only asserts so); a damaged file must not make it read past a payload,
/// use a value it failed to read, or allocate by a forged count. Checked
/// here, before MLIR sees the entry.
bool Importer::checkBuiltinPayload(uint64_t index) {
  AttrKind kind = file.attrKind(index);
  if (kind != AttrKind::DenseIntOrFPElements && kind != AttrKind::DenseArray &&
      kind != AttrKind::DenseStringElements &&
      kind != AttrKind::SparseElements && kind != AttrKind::Integer &&
      kind != AttrKind::Float)
    return true;
  uint64_t at = file.attributes()[index].encoding.offset;
  DecodedAttr decoded = file.decodedAttr(index);
  mlir::Type type = this->type(decoded.typeIndex);
  if (!type)
    return false;
  auto reject = [&](llvm::StringRef why) {
    fail(llvm::formatv("byte {0}: {1} attribute {2}: {3}", at,
                       attrKindName(kind), index, why));
    return false;
  };
  std::string diagnostic;
  auto emitError = [&]() {
    return mlir::emitError(mlir::UnknownLoc::get(&context));
  };
  llvm::StringRef payload = file.bytesOf(decoded.payload);
  llvm::ArrayRef<char> raw(payload.data(), payload.size());
  switch (kind) {
  // MLIR reads the value with the type's width or semantics and, for a type
  // of the wrong kind, goes on with a value it never read.
  case AttrKind::Integer:
    if (!llvm::isa<mlir::IntegerType, mlir::IndexType>(type))
      return reject("the type is not an integer type");
    return true;
  case AttrKind::Float:
    if (!llvm::isa<mlir::FloatType>(type))
      return reject("the type is not a float type");
    return true;
  case AttrKind::DenseIntOrFPElements: {
    bool splat = false;
    std::optional<int64_t> count = staticElementCount(type);
    auto shaped = llvm::dyn_cast<mlir::ShapedType>(type);
    mlir::Type element = count ? shaped.getElementType() : mlir::Type();
    if (auto complex = llvm::dyn_cast_or_null<mlir::ComplexType>(element))
      element = complex.getElementType();
    if (!element || !element.isIntOrIndexOrFloat())
      return reject("not a static shape of integers or floats");
    if (!mlir::DenseElementsAttr::isValidRawBuffer(shaped, raw, splat))
      return reject("payload size does not match its type");
    return true;
  }
  case AttrKind::DenseArray:
    if (!type.isIntOrIndexOrFloat() ||
        decoded.denseArraySize > uint64_t(kMaxElements) ||
        mlir::failed(mlir::DenseArrayAttr::verify(
            emitError, type, int64_t(decoded.denseArraySize), raw)))
      return reject("payload size does not match its element type and size");
    return true;
  case AttrKind::DenseStringElements: {
    // MLIR allocates one string per element before reading any.
    std::optional<int64_t> count = staticElementCount(type);
    if (!count || uint64_t(*count) > file.attributes()[index].encoding.size)
      return reject("more elements than the entry has bytes");
    return true;
  }
  case AttrKind::SparseElements: {
    auto shaped = llvm::dyn_cast<mlir::ShapedType>(type);
    if (!staticElementCount(type) || decoded.elements.size() != 2)
      return reject("not a static shape");
    auto indices = llvm::dyn_cast_or_null<mlir::DenseIntElementsAttr>(
        attribute(decoded.elements[0]));
    auto values = llvm::dyn_cast_or_null<mlir::DenseElementsAttr>(
        attribute(decoded.elements[1]));
    if (!indices || !values ||
        mlir::failed(mlir::SparseElementsAttr::verify(emitError, shaped,
                                                      indices, values)))
      return reject("indices or values do not fit its type");
    return true;
  }
  default:
    return true;
  }
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
    if (!checkBuiltinPayload(index))
      return {};
    SpanReader reader(*this, entry.encoding);
    mlir::Attribute result = builtinBytecode->readAttribute(reader);
    pendingErrorOffset.reset();
    if (!result)
      fail(llvm::formatv("byte {0}: cannot decode builtin attribute {1}",
                         entry.encoding.offset, index));
    return result;
  }
  return mlir::OpaqueAttr::get(
      mlir::StringAttr::get(&context, dialect),
      opaqueText("custom", entry.encoding.size, file.attrContentHash(index)),
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
    pendingErrorOffset.reset();
    if (!result)
      fail(llvm::formatv("byte {0}: cannot decode builtin type {1}",
                         entry.encoding.offset, index));
    return result;
  }
  return mlir::OpaqueType::get(
      mlir::StringAttr::get(&context, dialect),
      opaqueText("custom", entry.encoding.size, file.typeContentHash(index)));
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
  auto &manager =
      mlir::DenseResourceElementsHandle::getManagerInterface(&context);
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
  mlir::DenseResourceElementsHandle handle =
      manager.insert(entry.key, std::move(blob));
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
  return ir::makePrivateLocation(attr);
}

mlir::Value Importer::operand(const ValueRef &ref) {
  if (ref.isBlockArgument) {
    if (ref.owner >= blocks.size() ||
        ref.number >= blocks[ref.owner]->getNumArguments()) {
      fail(llvm::formatv(
          "byte {0}: value {1} refers to a missing block argument",
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
    auto dict =
        llvm::dyn_cast_or_null<mlir::DictionaryAttr>(attribute(op.attrDict));
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
          opaqueText("properties", op.propertiesBlob.size,
                     llvm::xxh3_64bits(file.bytesOf(op.propertiesBlob))),
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

/// The file's top-level ops in a builtin.module (MLIR's tools read several
/// ops, and PassManager runs, only so), with the entry maps.
llvm::Expected<ir::ImportedModule> Importer::takeTopLevel(mlir::Block &block) {
  if (block.empty())
    return llvm::createStringError("the file holds no operation");
  ir::ImportedModule result;
  auto single = std::next(block.begin()) == block.end()
                    ? llvm::dyn_cast<mlir::ModuleOp>(block.front())
                    : mlir::ModuleOp();
  if (single) {
    single->remove();
    result.module = single;
    blocks[0] = nullptr;
  } else {
    result.addedModule = std::next(block.begin()) == block.end();
    result.module = mlir::ModuleOp::create(mlir::UnknownLoc::get(&context));
    mlir::Block *body = result.module->getBody();
    body->getOperations().splice(body->end(), block.getOperations());
    blocks[0] = body;
  }
  result.ops = std::move(ops);
  result.attributes = std::move(attrs);
  result.types = std::move(types);
  result.blocks = std::move(blocks);
  return result;
}

/// The message of a diagnostic MLIR's builtin reader raised. Attributes and
/// types in it are printed only when small: a damaged file can make them
/// print without end.
static std::string diagnosticText(mlir::Diagnostic &diagnostic) {
  std::string text;
  llvm::raw_string_ostream os(text);
  for (const mlir::DiagnosticArgument &arg : diagnostic.getArguments()) {
    switch (arg.getKind()) {
    case mlir::DiagnosticArgument::DiagnosticArgumentKind::Attribute:
      os << boundedText(arg.getAsAttribute());
      break;
    case mlir::DiagnosticArgument::DiagnosticArgumentKind::Type:
      os << boundedText(arg.getAsType());
      break;
    default:
      arg.print(os);
    }
  }
  return text;
}

mlir::LogicalResult Importer::onDiagnostic(mlir::Diagnostic &diagnostic) {
  // Only what SpanReader::emitError raised; other diagnostics (the value
  // checks before MLIR sees an entry) go on to the context's silent handler.
  if (!pendingErrorOffset)
    return failure();
  std::string text = diagnosticText(diagnostic);
  fail(llvm::formatv("byte {0}: {1}", *pendingErrorOffset,
                     text.empty() ? "cannot decode" : text));
  pendingErrorOffset.reset();
  return success();
}

llvm::Expected<ir::ImportedModule> Importer::run() {
  // Blocks first: successors may name blocks that come later.
  for (const Block &block : file.blocks()) {
    referrerOffset =
        block.parentRegion == kNoIndex
            ? 0
            : file.operations()[file.regions()[block.parentRegion].parentOp]
                  .offset;
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
      placeholder->getResult(0).replaceAllUsesWith(
          ops[owner]->getResult(number));
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
  if (!root)
    return llvm::createStringError("the file holds no operation");
  return takeTopLevel(*root);
}

//===----------------------------------------------------------------------===//
// Public entry points
//===----------------------------------------------------------------------===//

llvm::Expected<ir::ImportedModule>
aimodel::ir::importBytecode(const BytecodeFile &file,
                            mlir::MLIRContext &context,
                            const ImportOptions &options) {
  return Importer(file, context, options).run();
}

/// Tags the OpaqueLocs made by makePrivateLocation.
static mlir::TypeID privateLocationID() {
  static mlir::SelfOwningTypeID id;
  return id;
}

mlir::Location aimodel::ir::makePrivateLocation(mlir::Attribute attr) {
  std::string text;
  if (llvm::isa<mlir::OpaqueAttr>(attr)) {
    llvm::raw_string_ostream os(text);
    attr.print(os);
  } else {
    text = boundedText(attr, 4096);
  }
  mlir::MLIRContext *context = attr.getContext();
  // Attributes are uniqued in the context: the pointer lives as long.
  return mlir::OpaqueLoc::get(
      reinterpret_cast<uintptr_t>(attr.getAsOpaquePointer()),
      privateLocationID(),
      mlir::NameLoc::get(mlir::StringAttr::get(context, text)));
}

mlir::Attribute aimodel::ir::privateLocationAttr(mlir::Location loc) {
  auto opaque = llvm::dyn_cast<mlir::OpaqueLoc>(loc);
  if (!opaque || opaque.getUnderlyingTypeID() != privateLocationID())
    return {};
  return mlir::Attribute::getFromOpaquePointer(
      reinterpret_cast<const void *>(opaque.getUnderlyingLocation()));
}

void aimodel::ir::privateLocationsToNameLocs(mlir::Operation *root) {
  auto fallback = [](mlir::Location loc) -> mlir::Location {
    if (isPrivateLocation(loc))
      return llvm::cast<mlir::OpaqueLoc>(loc).getFallbackLocation();
    return loc;
  };
  root->walk([&](mlir::Operation *op) {
    op->setLoc(fallback(op->getLoc()));
    for (mlir::Region &region : op->getRegions())
      for (mlir::Block &block : region)
        for (mlir::BlockArgument arg : block.getArguments())
          arg.setLoc(fallback(arg.getLoc()));
  });
}
