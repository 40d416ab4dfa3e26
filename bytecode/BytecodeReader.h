//===- BytecodeReader.h - Dialect-agnostic MLIR bytecode decoder -*- C++
//-*-===//
//
// Decodes the container of an MLIR bytecode file (format version 5 or 6, as
// written by MLIR 22) without knowing any dialect: strings, dialects and op
// names, the attribute/type table, the whole IR tree (including isolated
// regions stored in nested, lazily loadable IR sections), properties and
// resources. Real Core AI files use Apple's private dialects (`aicode`, `mps`,
// ...) that stock MLIR cannot read; this reader keeps every dialect-specific
// encoding as an opaque byte span, hashed so that two files can be compared.
// Builtin attributes (locations, arrays, dictionaries, strings, ...) are
// decoded since the audit needs them.
//
// Nothing is copied out of the file: strings are StringRefs into the buffer
// and every payload (entry encodings, native properties, resource blobs,
// dense element data) is a Span of file offsets. The BytecodeFile owns the
// buffer, so views live as long as the BytecodeFile.
//
// Memory follows the graph, not the weights: open() never reads inside a
// resource blob (blobData() decodes a blob's header on demand), builtin
// attributes and types are validated at open but kept as one kind/code byte
// each (decodedAttr() and builtinType() decode again), and per-op lists share
// flat arrays.
//
// One validation: open() refuses everything the MLIR import (ir/) would
// refuse, so a file is readable or not whichever command reads it. Checked
// at open: list counts, indices, shapes, dense payloads and values against
// their types, that references have the kind MLIR's builtin reader demands
// (names are strings, locations are locations, ...), unknown builtin codes,
// reference cycles and chains longer than kMaxEntryDepth, attribute
// dictionaries of ops, and builtin.module properties. Not checked: that
// textual (asm) entries parse, which needs MLIR's parser (only their
// bracket nesting and NULs are), and blob headers (see blobData()).
//
// Bad input never crashes: every failure is an llvm::Error whose message is
// "byte <offset>: <what>" with the absolute offset in the file.
//
//===----------------------------------------------------------------------===//

#ifndef AIMODEL_BYTECODE_BYTECODEREADER_H
#define AIMODEL_BYTECODE_BYTECODEREADER_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/MemoryBuffer.h"

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

namespace aimodel::bytecode {

/// A byte range of the file (absolute offsets).
struct Span {
  uint64_t offset = 0;
  uint64_t size = 0;
  uint64_t end() const { return offset + size; }
  bool operator==(const Span &other) const {
    return offset == other.offset && size == other.size;
  }
};

/// Marks an absent index (location, attribute, type, parent, ...).
inline constexpr uint64_t kNone = ~uint64_t(0);
inline constexpr uint32_t kNoIndex = ~uint32_t(0);

/// Longest chain of attribute/type entries referring to each other that
/// open() accepts (the importer's recursion bound): consumers may recurse
/// over references this deep. Reference cycles are refused too.
inline constexpr unsigned kMaxEntryDepth = 256;
/// Largest element count of a dense or sparse attribute's type, and of a
/// DenseArray, that open() accepts (the importer's bound; also, every
/// partial product of the dims stays below it).
inline constexpr uint64_t kMaxElementCount = uint64_t(1) << 48;

/// Section ids (upstream mlir/Bytecode/Encoding.h).
enum SectionId : uint8_t {
  kStringSection = 0,
  kDialectSection = 1,
  kAttrTypeSection = 2,
  kAttrTypeOffsetSection = 3,
  kIRSection = 4,
  kResourceSection = 5,
  kResourceOffsetSection = 6,
  kDialectVersionsSection = 7,
  kPropertiesSection = 8,
  kNumSectionIds = 9,
};

/// One section header as found in the file.
struct SectionInfo {
  uint8_t id = 0;
  uint64_t headerOffset = 0; ///< offset of the id byte
  uint64_t alignment = 1;    ///< 1 when the section is not aligned
  Span data;                 ///< section payload (after header and padding)
};

struct Dialect {
  llvm::StringRef name;
  /// Payload of the dialect's version entry (a nested DialectVersions
  /// section); opaque since only the dialect knows its encoding.
  std::optional<Span> versionBlob;
};

struct OpName {
  uint32_t dialect = 0;
  llvm::StringRef name;      ///< without the dialect prefix
  bool isRegistered = false; ///< was the op registered when it was written
};

/// Kinds of attribute entries. Values 0..22 equal the builtin dialect's
/// bytecode codes (mlir/IR/BuiltinDialectBytecode.td in MLIR 22).
enum class AttrKind : uint8_t {
  Array = 0,
  Dictionary = 1,
  String = 2,
  StringWithType = 3,
  FlatSymbolRef = 4,
  SymbolRef = 5,
  Type = 6,
  Unit = 7,
  Integer = 8,
  Float = 9,
  CallSiteLoc = 10,
  FileLineColLoc = 11,
  FusedLoc = 12,
  FusedLocWithMetadata = 13,
  NameLoc = 14,
  UnknownLoc = 15,
  DenseResourceElements = 16,
  DenseArray = 17,
  DenseIntOrFPElements = 18,
  DenseStringElements = 19, ///< kept opaque (only typeIndex decoded)
  SparseElements = 20,      ///< kept opaque (only typeIndex decoded)
  Distinct = 21,
  FileLineColRange = 22, ///< MLIR 22: non-point file ranges
  OtherBuiltin,          ///< unknown code: refused at open, never seen
  Asm,           ///< any dialect, stored as textual assembly (see asmText)
  DialectOpaque, ///< custom-encoded by a non-builtin dialect: not decoded
};

llvm::StringRef attrKindName(AttrKind kind);

/// Builtin type codes: values 0..20 equal the builtin dialect's bytecode
/// codes (BuiltinDialectTypes in MLIR 22's BuiltinDialectBytecode.td).
enum class TypeCode : uint8_t {
  Integer = 0,
  Index = 1,
  Function = 2,
  BFloat16 = 3,
  Float16 = 4,
  Float32 = 5,
  Float64 = 6,
  Float80 = 7,
  Float128 = 8,
  Complex = 9,
  MemRef = 10,
  MemRefWithMemSpace = 11,
  None = 12,
  RankedTensor = 13,
  RankedTensorWithEncoding = 14,
  Tuple = 15,
  UnrankedMemRef = 16,
  UnrankedMemRefWithMemSpace = 17,
  UnrankedTensor = 18,
  Vector = 19,
  VectorWithScalableDims = 20,
  OtherBuiltin = 0xFE, ///< unknown code: refused at open, never seen
  NotBuiltin = 0xFF,   ///< textual, or another dialect's entry
};

/// What the decoder knows of a custom-encoded builtin type entry.
struct BuiltinTypeInfo {
  TypeCode code = TypeCode::NotBuiltin;
  /// Element type index of Complex and of the shaped types.
  uint64_t elementType = kNone;
  uint64_t width = 0; ///< Integer: bit width
  /// Ranked tensor, memref, vector: the shape was read (`rank` dims).
  bool ranked = false;
  uint64_t rank = 0;
  /// Ranked types with no dynamic dim: the element count (fits in int64).
  std::optional<uint64_t> numElements;
  /// Static, and no partial product of the dims exceeds kMaxElementCount.
  bool boundedCount = false;
  llvm::SmallVector<int64_t, 4> shape; ///< ranked types: the dims
};

/// A dictionary member: both are attribute indices (name is a StringAttr).
struct NamedAttrRef {
  uint64_t name = kNone;
  uint64_t value = kNone;
};

/// The decoded structure of one attribute entry. Fields not listed for a
/// kind keep their defaults. All references are indices into the attribute
/// (or type) table, never pointers, so decoding is flat and cycle-free.
struct DecodedAttr {
  AttrKind kind = AttrKind::DialectOpaque;
  /// Array: elements; FusedLoc/FusedLocWithMetadata: locations;
  /// SymbolRef: nested FlatSymbolRefAttrs; FileLineColRange: raw line/col
  /// varints as stored (0 to 4 values).
  std::vector<uint64_t> elements;
  std::vector<NamedAttrRef> namedAttrs; ///< Dictionary members
  /// StringAttr index: FileLineCol* filename, NameLoc name, (Flat)SymbolRef
  /// root reference.
  uint64_t nameAttr = kNone;
  /// Text of String/StringWithType, or the text of `nameAttr` when that is
  /// a builtin string.
  llvm::StringRef str;
  /// Type index: Type, StringWithType, Integer, Float, Dense* element/shaped
  /// type.
  uint64_t typeIndex = kNone;
  uint64_t childLoc = kNone;  ///< NameLoc child location; CallSite callee
  uint64_t callerLoc = kNone; ///< CallSite caller
  /// FusedLocWithMetadata metadata; Distinct referenced attribute.
  uint64_t metadata = kNone;
  uint64_t line = 0, column = 0; ///< FileLineColLoc
  /// Integer / Float of width <= 64 (see intOrFloatBitWidth): raw bits,
  /// sign-extended for integers of width > 8. Wider values are validated
  /// but not kept.
  std::optional<uint64_t> bits;
  /// DenseArray / DenseIntOrFPElements raw data (never copied).
  Span payload;
  uint64_t denseArraySize = 0; ///< DenseArray element count
  /// DenseResourceElements: index into BytecodeFile::dialectResourceHandles.
  uint64_t resourceHandle = kNone;
};

/// One attribute or type entry of the AttrType section. Kept small (24
/// bytes): real files have hundreds of thousands of entries.
struct AttrTypeEntry {
  Span encoding; ///< the entry's bytes in the AttrType section
  uint32_t dialect = 0;
  bool hasCustomEncoding = false;
};

/// What an operand refers to.
struct ValueRef {
  /// Index as written: the value's number in its isolated-from-above scope.
  uint64_t id = 0;
  bool isBlockArgument = false;
  uint32_t owner = kNoIndex; ///< defining op index, or block index
  uint32_t number = 0;       ///< result number, or argument number
};

struct BlockArgument {
  uint64_t type = kNone;
  /// Location attribute index; kNone when elided (an unknown location).
  uint64_t location = kNone;
};

struct Block {
  uint64_t offset = 0;              ///< file offset of the block's header
  uint32_t parentRegion = kNoIndex; ///< kNoIndex for the IR section's root
  std::vector<BlockArgument> arguments;
  uint64_t firstArgumentValueId = 0;
  std::vector<uint32_t> operations; ///< op indices, in order
};

struct Region {
  uint32_t parentOp = kNoIndex;
  uint32_t indexInParent = 0;
  uint64_t numValues = 0; ///< values defined directly in this region
  std::vector<uint32_t> blocks;
};

/// How an op's properties are stored. Either way they are an entry of the
/// Properties section (Operation::propertiesIndex / propertiesBlob).
enum class PropertiesForm : uint8_t {
  None,
  Attribute, ///< unregistered op: the entry is a varint attribute index
  Native,    ///< registered op: the entry is its dialect's own encoding
};

/// A run of one of BytecodeFile's flat per-op arrays.
struct IndexRange {
  uint32_t begin = 0;
  uint32_t count = 0;
};

/// One operation. Its result types, operands, successors and regions live in
/// flat arrays shared by all ops (one heap block each instead of four per
/// op); read them with BytecodeFile::resultTypes(op), operands(op),
/// successors(op) and opRegions(op).
struct Operation {
  uint32_t name = 0;        ///< index into opNames()
  uint32_t parentBlock = 0; ///< block index (0 = the IR section's root block)
  uint32_t depth = 0;       ///< region nesting depth (0 = top level)
  PropertiesForm propertiesForm = PropertiesForm::None;
  bool hasUseListOrders = false;
  /// The regions are isolated from above; since bytecode v2 all of them are
  /// stored in one nested IR section (`nestedSection`).
  bool regionsIsolated = false;
  uint64_t location = kNone; ///< attribute index
  uint64_t attrDict = kNone; ///< attribute index, kNone when absent
  /// PropertiesForm::Attribute: the attribute holding the properties
  /// (usually a DictionaryAttr), decoded from the Properties entry.
  uint64_t propertiesAttr = kNone;
  uint64_t propertiesIndex = kNone; ///< index into properties(), both forms
  Span propertiesBlob;              ///< that entry's bytes, both forms
  uint64_t firstResultValueId = 0;
  std::optional<Span> nestedSection;
  /// Offset of that nested section's header (its id byte).
  uint64_t nestedHeaderOffset = kNone;
  uint64_t offset = 0; ///< file offset where the op's encoding starts
  IndexRange resultTypeRange, operandRange, successorRange, regionRange;
};
// Lets the op table grow by realloc (see BytecodeFile::GrowingTable).
static_assert(std::is_trivially_copyable_v<Operation> &&
                  std::is_trivially_copyable_v<ValueRef>,
              "per-op tables must stay trivially copyable");

enum class ResourceKind : uint8_t { Blob = 0, Bool = 1, String = 2 };

/// One resource entry. Its extent comes from the ResourceOffset section, so
/// opening a file never reads inside a blob entry (touching each blob's
/// header would map file pages around every blob of a weights file); the
/// blob's own header is decoded by BytecodeFile::blobData(). Bool and String
/// entries are a few bytes and are decoded at open.
struct ResourceEntry {
  llvm::StringRef key;
  ResourceKind kind = ResourceKind::Blob;
  Span entry;                  ///< the whole entry in the Resource section
  bool boolValue = false;      ///< Bool
  llvm::StringRef stringValue; ///< String
};

/// A decoded blob resource: the data (after alignment padding, never
/// copied) and its declared alignment.
struct BlobData {
  Span data;
  uint64_t alignment = 1;
};

struct ResourceGroup {
  llvm::StringRef name; ///< dialect name or external provider key
  bool isExternal = false;
  uint32_t dialect = kNoIndex; ///< for dialect groups
  std::vector<ResourceEntry> entries;
};

namespace irwalk {
class IRWalker;
} // namespace irwalk

class BytecodeFile {
public:
  /// Maps `path` (no copy, see support::mapRegularFile) and decodes it. Errors:
  /// "byte N: ..." for malformed content, or mapRegularFile's error.
  static llvm::Expected<std::unique_ptr<BytecodeFile>>
  open(llvm::StringRef path);
  static llvm::Expected<std::unique_ptr<BytecodeFile>>
  fromBuffer(std::unique_ptr<llvm::MemoryBuffer> buffer);

  static constexpr uint64_t kMaxSupportedVersion = 6;
  static constexpr uint64_t kMinSupportedVersion = 5;
  static constexpr unsigned kMaxRegionDepth = 1000;

  // --- Header ---------------------------------------------------------------
  uint64_t version() const { return version_; }
  llvm::StringRef producer() const { return producer_; }
  llvm::StringRef bytes() const { return buffer_->getBuffer(); }
  llvm::StringRef bytesOf(Span span) const {
    return bytes().substr(span.offset, span.size);
  }
  /// Top-level sections in file order.
  llvm::ArrayRef<SectionInfo> sections() const { return sections_; }
  const SectionInfo *section(SectionId id) const;

  // --- Strings, dialects, op names ------------------------------------------
  llvm::ArrayRef<llvm::StringRef> strings() const { return strings_; }
  llvm::ArrayRef<Dialect> dialects() const { return dialects_; }
  std::vector<llvm::StringRef> dialectNames() const;
  llvm::ArrayRef<OpName> opNames() const { return opNames_; }
  /// "dialect.opname" of op name `index`.
  std::string fullOpName(uint64_t index) const;

  // --- Attributes and types --------------------------------------------------
  llvm::ArrayRef<AttrTypeEntry> attributes() const { return attributes_; }
  llvm::ArrayRef<AttrTypeEntry> types() const { return types_; }
  /// xxh3 of (xxh3(dialect name), custom flag, xxh3(bytes)) of an entry:
  /// equal hashes mean the entries can be exchanged between files without
  /// being understood (as long as the tables they refer to agree). Computed
  /// on demand. The bytes embed table indices: for identity across files
  /// use StructuralHasher (StructuralHash.h).
  uint64_t attrContentHash(uint64_t index) const;
  uint64_t typeContentHash(uint64_t index) const;
  llvm::StringRef attrDialectName(uint64_t index) const;
  /// Textual form of a non-custom-encoded entry (without the trailing NUL);
  /// empty for custom-encoded entries.
  llvm::StringRef attrAsmText(uint64_t index) const;
  llvm::StringRef typeAsmText(uint64_t index) const;
  /// The structure of attribute `index`. Builtin entries are validated at
  /// open but only their kind is stored (a decoded entry is ~200 bytes, and
  /// files have hundreds of thousands); this decodes the entry again from
  /// its bytes, in time proportional to its size.
  DecodedAttr decodedAttr(uint64_t index) const;
  AttrKind attrKind(uint64_t index) const { return attrKinds_[index]; }
  /// True for builtin location attributes.
  bool isLocation(uint64_t index) const;
  /// Visits `root` and every location nested in it (CallSite, Fused, Name
  /// children; not FusedLoc metadata) once each, with an explicit worklist.
  void forEachNestedLocation(uint64_t root,
                             const std::function<void(uint64_t)> &fn) const;
  /// Builtin type code of a custom-encoded builtin type (e.g. 0 = integer),
  /// or nullopt.
  std::optional<uint64_t> builtinTypeCode(uint64_t typeIndex) const;
  /// Code of type `index`, stored at open (every custom-encoded builtin
  /// type is validated then: counts, indices, shapes, no trailing bytes).
  TypeCode typeCode(uint64_t index) const {
    return TypeCode(typeCodes_[index]);
  }
  /// The decoded builtin type (decoded again on demand, in time proportional
  /// to its entry), or nullopt for a type that is not custom-encoded builtin.
  std::optional<BuiltinTypeInfo> builtinType(uint64_t typeIndex) const;
  /// Element count of a builtin ranked shaped type without dynamic dims.
  std::optional<uint64_t> staticElementCount(uint64_t typeIndex) const;
  /// Bit width of a builtin integer or float type, the float types MLIR
  /// stores as text (f8E4M3FN, tf32, ...) included.
  std::optional<uint64_t> intOrFloatBitWidth(uint64_t typeIndex) const;
  /// Bits per element of a DenseIntOrFPElements payload of element type
  /// `typeIndex` as MLIR 22 stores it (1 for i1, which is bit-packed;
  /// complex counts both parts), when that type is a builtin integer,
  /// index, float or complex of those.
  std::optional<uint64_t> denseElementBitWidth(uint64_t typeIndex) const;
  /// Bytes per element of a DenseArray of builtin integer or float element
  /// type `typeIndex` (one byte per i1).
  std::optional<uint64_t> denseArrayElementBytes(uint64_t typeIndex) const;

  // --- IR -------------------------------------------------------------------
  /// All operations in pre-order (an op precedes the ops of its regions).
  llvm::ArrayRef<Operation> operations() const { return ops_; }
  llvm::ArrayRef<Region> regions() const { return regions_; }
  /// Block 0 is the IR section's root block holding the top-level op(s).
  llvm::ArrayRef<Block> blocks() const { return blocks_; }
  uint64_t totalOps() const { return ops_.size(); }
  llvm::ArrayRef<uint64_t> resultTypes(const Operation &op) const {
    return slice<uint64_t>(resultTypes_, op.resultTypeRange);
  }
  llvm::ArrayRef<ValueRef> operands(const Operation &op) const {
    return slice<ValueRef>(operands_, op.operandRange);
  }
  /// Block indices.
  llvm::ArrayRef<uint32_t> successors(const Operation &op) const {
    return slice<uint32_t>(successors_, op.successorRange);
  }
  /// Region indices, in the op's region order.
  llvm::ArrayRef<uint32_t> opRegions(const Operation &op) const {
    return slice<uint32_t>(opRegions_, op.regionRange);
  }
  std::map<std::string, uint64_t> opCounts() const;

  // --- Properties -----------------------------------------------------------
  /// Native properties blobs, by properties index (size prefix excluded).
  llvm::ArrayRef<Span> properties() const { return properties_; }

  // --- Resources ------------------------------------------------------------
  llvm::ArrayRef<ResourceGroup> resourceGroups() const {
    return resourceGroups_;
  }
  /// Handles of dialect resources in declaration order (what a
  /// DenseResourceElements attribute's handle index refers to):
  /// (group index, entry index).
  llvm::ArrayRef<std::pair<uint32_t, uint32_t>> dialectResourceHandles() const {
    return dialectResourceHandles_;
  }
  /// Decodes the header of blob entry `entry` of group `group` (alignment,
  /// size, padding). Errors ("byte N: ...") for an entry that is not a blob
  /// or whose header is malformed. An empty entry (a declaration without
  /// data) yields empty data with alignment 1.
  llvm::Expected<BlobData> blobData(uint32_t group, uint32_t entry) const;
  /// Lets the kernel drop the pages of `span` from this process's view of
  /// a mapped file (they are read again if touched). For walks over many
  /// blob headers: each touch can map a whole large page-cache folio, and
  /// a walk over thousands of blobs would otherwise keep gigabytes resident.
  void releasePages(Span span) const;

private:
  friend class Decoder;
  friend class irwalk::IRWalker;
  BytecodeFile() = default;

  template <typename T>
  static llvm::ArrayRef<T> slice(llvm::ArrayRef<T> all, IndexRange range) {
    return all.slice(range.begin, range.count);
  }
  /// For tables that grow while the IR is walked: SmallVector grows trivially
  /// copyable elements with realloc (mremap for large blocks), so growing
  /// does not briefly hold the old and the new buffer as std::vector does.
  template <typename T> using GrowingTable = llvm::SmallVector<T, 0>;

  std::unique_ptr<llvm::MemoryBuffer> buffer_;
  uint64_t version_ = 0;
  llvm::StringRef producer_;
  std::vector<SectionInfo> sections_;
  std::vector<llvm::StringRef> strings_;
  std::vector<Dialect> dialects_;
  std::vector<OpName> opNames_;
  std::vector<AttrTypeEntry> attributes_, types_;
  std::vector<AttrKind> attrKinds_;
  std::vector<uint8_t> typeCodes_; ///< TypeCode per type
  GrowingTable<Operation> ops_;
  // Flat per-op arrays (see Operation).
  GrowingTable<uint64_t> resultTypes_;
  GrowingTable<ValueRef> operands_;
  GrowingTable<uint32_t> successors_, opRegions_;
  std::vector<Region> regions_;
  std::vector<Block> blocks_;
  std::vector<Span> properties_;
  std::vector<ResourceGroup> resourceGroups_;
  std::vector<std::pair<uint32_t, uint32_t>> dialectResourceHandles_;
};

/// True when `bytes` starts with the MLIR bytecode magic "ML\xEFR".
bool looksLikeBytecode(llvm::StringRef bytes);

} // namespace aimodel::bytecode

#endif // AIMODEL_BYTECODE_BYTECODEREADER_H
