//===- bytecode-reader-fuzzer.cpp - libFuzzer target for BytecodeFile
//------===//
//
// Feeds arbitrary bytes to aimodel::bytecode::BytecodeFile::fromBuffer. Bad
// input must come back as an llvm::Error (consumed here); good input is then
// walked completely — every operation, block, region, decoded attribute,
// nested location, string, byte span and structural hash — so that
// AddressSanitizer sees any offset or index the decoder got wrong (and a
// reference cycle would overflow the stack). Indices and spans the decoder
// hands out are also checked against the documented contract (an index is valid
// or kNone / kNoIndex; a span lies inside the file): a violation aborts with a
// message, which libFuzzer reports as a crash.
//
// The buffer wraps libFuzzer's own exact-size copy of the input (no NUL
// terminator, no slack), so a one-byte over-read is caught by ASan.
//
// Built only by fuzz/CMakeLists.txt (clang, -fsanitize=fuzzer,address,
// undefined), driven by fuzz/run-fuzz-smoke.sh.
//
//===----------------------------------------------------------------------===//

#include "bytecode/BytecodeReader.h"
#include "bytecode/StructuralHash.h"

#include "llvm/Support/Error.h"
#include "llvm/Support/MemoryBuffer.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>

using namespace aimodel::bytecode;

namespace {

/// Everything read ends up here so the compiler cannot drop the reads.
volatile uint64_t gSink = 0;

[[noreturn]] void contractViolation(const char *what, uint64_t value,
                                    uint64_t limit) {
  std::fprintf(stderr,
               "aimodel-bytecode-fuzzer: contract violation: %s "
               "(value %llu, limit %llu)\n",
               what, (unsigned long long)value, (unsigned long long)limit);
  std::abort();
}

#define EXPECT_INDEX(value, size, what)                                        \
  do {                                                                         \
    uint64_t v_ = uint64_t(value), n_ = uint64_t(size);                        \
    if (v_ >= n_)                                                              \
      contractViolation(what, v_, n_);                                         \
  } while (0)

/// Valid index or the "absent" marker.
#define EXPECT_INDEX_OR_NONE(value, none, size, what)                          \
  do {                                                                         \
    if (uint64_t(value) != uint64_t(none))                                     \
      EXPECT_INDEX(value, size, what);                                         \
  } while (0)

class Toucher {
public:
  explicit Toucher(const BytecodeFile &file)
      : file(file), fileBegin(file.bytes().data()),
        fileSize(file.bytes().size()) {}

  void run();

private:
  const BytecodeFile &file;
  const char *fileBegin;
  uint64_t fileSize;
  uint64_t acc = 0;

  void readBytes(const char *data, size_t size) {
    // Every byte, so ASan checks the whole range.
    for (size_t i = 0; i < size; ++i)
      acc = acc * 31 + uint8_t(data[i]);
  }

  void touchSpan(const Span &span, const char *what) {
    if (span.offset > fileSize || span.size > fileSize - span.offset)
      contractViolation(what, span.offset, fileSize);
    llvm::StringRef bytes = file.bytesOf(span);
    if (bytes.size() != span.size)
      contractViolation(what, bytes.size(), span.size);
    // Read through the raw pointer rather than the clamped StringRef so a
    // wrong span is a real out-of-bounds access.
    readBytes(fileBegin + span.offset, span.size);
  }

  /// Strings are views into the file (or static text such as "builtin").
  void touchString(llvm::StringRef str) { readBytes(str.data(), str.size()); }

  void touchAttrIndex(uint64_t index, const char *what) {
    EXPECT_INDEX_OR_NONE(index, kNone, file.attributes().size(), what);
  }
  void touchTypeIndex(uint64_t index, const char *what) {
    EXPECT_INDEX_OR_NONE(index, kNone, file.types().size(), what);
  }

  void touchLocation(uint64_t root) {
    if (root == kNone)
      return;
    EXPECT_INDEX(root, file.attributes().size(), "location index");
    uint64_t visited = 0;
    file.forEachNestedLocation(root, [&](uint64_t index) {
      EXPECT_INDEX(index, file.attributes().size(), "nested location index");
      DecodedAttr attr = file.decodedAttr(index);
      if (attr.kind != file.attrKind(index))
        contractViolation("decodedAttr kind differs from attrKind",
                          uint64_t(attr.kind), uint64_t(file.attrKind(index)));
      acc += uint64_t(attr.kind) + attr.line + attr.column;
      touchString(attr.str);
      ++visited;
    });
    acc += visited;
  }

  void touchHeader();
  void touchTables();
  void touchAttributes();
  void touchIR();
  void touchResources();
};

void Toucher::touchHeader() {
  acc += file.version();
  touchString(file.producer());
  for (const SectionInfo &section : file.sections()) {
    acc += section.id + section.alignment;
    if (section.headerOffset >= fileSize)
      contractViolation("section header offset", section.headerOffset,
                        fileSize);
    touchSpan(section.data, "section span");
  }
  for (unsigned id = 0; id < kNumSectionIds; ++id)
    if (const SectionInfo *section = file.section(SectionId(id)))
      acc += section->data.size;
}

void Toucher::touchTables() {
  for (llvm::StringRef str : file.strings())
    touchString(str);
  for (const Dialect &dialect : file.dialects()) {
    touchString(dialect.name);
    if (dialect.versionBlob)
      touchSpan(*dialect.versionBlob, "dialect version span");
  }
  for (llvm::StringRef name : file.dialectNames())
    touchString(name);
  for (size_t i = 0; i < file.opNames().size(); ++i) {
    const OpName &name = file.opNames()[i];
    EXPECT_INDEX(name.dialect, file.dialects().size(), "op name dialect");
    touchString(name.name);
    acc += file.fullOpName(i).size() + name.isRegistered;
  }
  for (const Span &blob : file.properties())
    touchSpan(blob, "properties span");
}

void Toucher::touchAttributes() {
  llvm::ArrayRef<AttrTypeEntry> attrs = file.attributes();
  llvm::ArrayRef<AttrTypeEntry> types = file.types();
  for (size_t i = 0; i < types.size(); ++i) {
    EXPECT_INDEX(types[i].dialect, file.dialects().size(), "type dialect");
    touchSpan(types[i].encoding, "type encoding span");
    touchString(file.typeAsmText(i));
    acc += file.typeContentHash(i);
    if (auto code = file.builtinTypeCode(i))
      acc += *code;
    acc += uint64_t(file.typeCode(i));
    // Every custom-encoded builtin type was validated at open, so decoding
    // it again must succeed and yield in-range references.
    std::optional<BuiltinTypeInfo> info = file.builtinType(i);
    if (bool(info) != (file.typeCode(i) != TypeCode::NotBuiltin))
      contractViolation("builtinType disagrees with typeCode", i,
                        uint64_t(file.typeCode(i)));
    if (info) {
      if (info->code != file.typeCode(i))
        contractViolation("builtinType code differs from typeCode", i,
                          uint64_t(info->code));
      touchTypeIndex(info->elementType, "builtin type element type");
      if (info->numElements &&
          (!info->ranked || *info->numElements > uint64_t(INT64_MAX)))
        contractViolation("bad static element count", i, *info->numElements);
      acc += info->rank + info->width + info->numElements.value_or(0);
    }
    acc += file.staticElementCount(i).value_or(0) +
           file.denseElementBitWidth(i).value_or(0) +
           file.denseArrayElementBytes(i).value_or(0);
  }
  for (size_t i = 0; i < attrs.size(); ++i) {
    EXPECT_INDEX(attrs[i].dialect, file.dialects().size(), "attr dialect");
    touchSpan(attrs[i].encoding, "attr encoding span");
    touchString(file.attrAsmText(i));
    touchString(file.attrDialectName(i));
    acc += file.attrContentHash(i);

    DecodedAttr attr = file.decodedAttr(i);
    if (attr.kind != file.attrKind(i))
      contractViolation("decodedAttr kind differs from attrKind",
                        uint64_t(attr.kind), uint64_t(file.attrKind(i)));
    acc += uint64_t(attr.kind) + file.isLocation(i);
    touchString(attrKindName(attr.kind));
    touchString(attr.str);
    touchAttrIndex(attr.nameAttr, "attr nameAttr");
    touchTypeIndex(attr.typeIndex, "attr typeIndex");
    touchAttrIndex(attr.childLoc, "attr childLoc");
    touchAttrIndex(attr.callerLoc, "attr callerLoc");
    touchAttrIndex(attr.metadata, "attr metadata");
    acc += attr.line + attr.column + attr.denseArraySize;
    if (attr.bits)
      acc += *attr.bits;
    touchSpan(attr.payload, "attr payload span");
    if (attr.kind == AttrKind::DenseResourceElements)
      EXPECT_INDEX_OR_NONE(attr.resourceHandle, kNone,
                           file.dialectResourceHandles().size(),
                           "dense resource handle");
    // FileLineColRange keeps raw varints in `elements`; every other kind
    // that uses it stores attribute indices.
    if (attr.kind != AttrKind::FileLineColRange)
      for (uint64_t element : attr.elements)
        EXPECT_INDEX(element, attrs.size(), "attr element index");
    for (const NamedAttrRef &named : attr.namedAttrs) {
      EXPECT_INDEX(named.name, attrs.size(), "dictionary member name");
      EXPECT_INDEX(named.value, attrs.size(), "dictionary member value");
    }
    // Every location, whether or not an op uses it.
    if (file.isLocation(i))
      touchLocation(i);
  }
}

void Toucher::touchIR() {
  llvm::ArrayRef<Operation> ops = file.operations();
  llvm::ArrayRef<Region> regions = file.regions();
  llvm::ArrayRef<Block> blocks = file.blocks();
  acc += file.totalOps();
  for (const auto &[name, count] : file.opCounts())
    acc += name.size() + count;

  for (const Operation &op : ops) {
    EXPECT_INDEX(op.name, file.opNames().size(), "op name index");
    touchAttrIndex(op.location, "op location");
    touchLocation(op.location);
    touchAttrIndex(op.attrDict, "op attr dict");
    if (op.attrDict != kNone)
      acc += uint64_t(file.attrKind(op.attrDict));
    switch (op.propertiesForm) {
    case PropertiesForm::None:
      break;
    case PropertiesForm::Attribute:
      touchAttrIndex(op.propertiesAttr, "op properties attr");
      if (op.propertiesAttr == kNone)
        contractViolation("attribute-form properties without an attribute",
                          op.offset, 0);
      [[fallthrough]]; // Both forms name a Properties entry.
    case PropertiesForm::Native:
      EXPECT_INDEX_OR_NONE(op.propertiesIndex, kNone, file.properties().size(),
                           "op properties index");
      touchSpan(op.propertiesBlob, "op properties blob");
      break;
    }
    for (uint64_t type : file.resultTypes(op))
      EXPECT_INDEX(type, file.types().size(), "op result type");
    for (const ValueRef &ref : file.operands(op)) {
      if (ref.isBlockArgument) {
        EXPECT_INDEX(ref.owner, blocks.size(), "operand owner block");
        EXPECT_INDEX(ref.number, blocks[ref.owner].arguments.size(),
                     "operand block argument number");
      } else {
        EXPECT_INDEX(ref.owner, ops.size(), "operand owner op");
        EXPECT_INDEX(ref.number, file.resultTypes(ops[ref.owner]).size(),
                     "operand result number");
      }
      acc += ref.id;
    }
    for (uint32_t successor : file.successors(op))
      EXPECT_INDEX(successor, blocks.size(), "op successor block");
    for (uint32_t region : file.opRegions(op))
      EXPECT_INDEX(region, regions.size(), "op region");
    if (op.nestedSection)
      touchSpan(*op.nestedSection, "op nested section");
    EXPECT_INDEX(op.parentBlock, blocks.size(), "op parent block");
    if (op.offset > fileSize)
      contractViolation("op offset", op.offset, fileSize);
    acc += op.depth + op.hasUseListOrders + op.regionsIsolated +
           op.firstResultValueId;
  }
  for (const Region &region : regions) {
    EXPECT_INDEX_OR_NONE(region.parentOp, kNoIndex, ops.size(),
                         "region parent op");
    for (uint32_t block : region.blocks)
      EXPECT_INDEX(block, blocks.size(), "region block");
    acc += region.numValues + region.indexInParent;
  }
  for (const Block &block : blocks) {
    EXPECT_INDEX_OR_NONE(block.parentRegion, kNoIndex, regions.size(),
                         "block parent region");
    for (const BlockArgument &arg : block.arguments) {
      EXPECT_INDEX(arg.type, file.types().size(), "block argument type");
      touchAttrIndex(arg.location, "block argument location");
      touchLocation(arg.location);
    }
    for (uint32_t op : block.operations)
      EXPECT_INDEX(op, ops.size(), "block operation");
    acc += block.firstArgumentValueId;
  }
}

void Toucher::touchResources() {
  llvm::ArrayRef<ResourceGroup> groups = file.resourceGroups();
  for (uint32_t g = 0; g < groups.size(); ++g) {
    const ResourceGroup &group = groups[g];
    touchString(group.name);
    if (!group.isExternal)
      EXPECT_INDEX_OR_NONE(group.dialect, kNoIndex, file.dialects().size(),
                           "resource group dialect");
    for (uint32_t e = 0; e < group.entries.size(); ++e) {
      const ResourceEntry &entry = group.entries[e];
      touchString(entry.key);
      touchSpan(entry.entry, "resource entry span");
      touchString(entry.stringValue);
      acc += uint64_t(entry.kind) + entry.boolValue;
      // Blob headers are decoded on demand: a "byte N: ..." error or data
      // that lies inside the entry, aligned as declared.
      llvm::Expected<BlobData> blob = file.blobData(g, e);
      if (!blob) {
        std::string message = llvm::toString(blob.takeError());
        if (message.rfind("byte ", 0) != 0)
          contractViolation("blobData error without a byte offset", 0, 0);
        acc += message.size();
        continue;
      }
      if (entry.kind != ResourceKind::Blob)
        contractViolation("blobData of a non-blob entry", e, g);
      touchSpan(blob->data, "resource data span");
      if (blob->data.offset < entry.entry.offset ||
          blob->data.end() > entry.entry.end())
        contractViolation("blob data outside its entry", blob->data.offset,
                          entry.entry.offset);
      acc += blob->alignment;
      if (blob->alignment == 0 || (blob->alignment & (blob->alignment - 1)))
        contractViolation("blob alignment not a power of two", blob->alignment,
                          0);
      if (blob->data.offset % blob->alignment != 0)
        contractViolation("resource blob misaligned", blob->data.offset,
                          blob->alignment);
    }
  }
  for (const auto &[groupIndex, entryIndex] : file.dialectResourceHandles()) {
    EXPECT_INDEX(groupIndex, groups.size(), "resource handle group");
    EXPECT_INDEX(entryIndex, groups[groupIndex].entries.size(),
                 "resource handle entry");
  }
}

void Toucher::run() {
  touchHeader();
  touchTables();
  touchAttributes();
  touchIR();
  touchResources();
  // The structural hash recurses over references: open() must have bounded
  // them (no cycle, no chain deeper than kMaxEntryDepth).
  StructuralHasher hasher(file);
  for (uint64_t i = 0, e = file.attributes().size(); i < e; ++i)
    acc += hasher.attribute(i);
  for (uint64_t i = 0, e = file.types().size(); i < e; ++i)
    acc += hasher.type(i);
  gSink = gSink + acc;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  // No copy: libFuzzer's buffer is an exact-size heap allocation.
  auto buffer = llvm::MemoryBuffer::getMemBuffer(
      llvm::StringRef(reinterpret_cast<const char *>(data), size), "fuzz-input",
      /*RequiresNullTerminator=*/false);
  (void)looksLikeBytecode(buffer->getBuffer());
  auto file = BytecodeFile::fromBuffer(std::move(buffer));
  if (!file) {
    std::string message = llvm::toString(file.takeError());
    // Errors are "byte N: ..." or at least not empty.
    if (message.empty())
      contractViolation("empty error message", 0, 0);
    gSink = gSink + message.size();
    return 0;
  }
  Toucher(**file).run();
  return 0;
}
