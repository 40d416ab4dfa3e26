//===- BytecodeReader.cpp - Container, tables and resources ---------------===//
//
// Decodes the file header and the top-level sections that are plain tables:
// strings, dialects/op names, attribute/type offsets, properties, resources.
// The IR walk lives in BytecodeIR.cpp, builtin attributes in
// BuiltinAttrDecoder.cpp. Layouts follow upstream mlir/docs/BytecodeFormat.md.
//
//===----------------------------------------------------------------------===//

#include "bytecode/BytecodeDecoder.h"
#include "support/FileSystem.h"
#include "support/GitLfsPointer.h"
#include "support/SafeFile.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/xxhash.h"

#include <algorithm>
#include <array>
#include <sys/mman.h>
#include <unistd.h>

using namespace aimodel::bytecode;
using llvm::Error;

namespace aimodel::bytecode {

bool looksLikeBytecode(llvm::StringRef bytes) {
  return bytes.starts_with(llvm::StringRef("ML\xEFR", 4));
}

llvm::StringRef attrKindName(AttrKind kind) {
  static const char *const names[] = {"Array",
                                      "Dictionary",
                                      "String",
                                      "StringWithType",
                                      "FlatSymbolRef",
                                      "SymbolRef",
                                      "Type",
                                      "Unit",
                                      "Integer",
                                      "Float",
                                      "CallSiteLoc",
                                      "FileLineColLoc",
                                      "FusedLoc",
                                      "FusedLocWithMetadata",
                                      "NameLoc",
                                      "UnknownLoc",
                                      "DenseResourceElements",
                                      "DenseArray",
                                      "DenseIntOrFPElements",
                                      "DenseStringElements",
                                      "SparseElements",
                                      "Distinct",
                                      "FileLineColRange",
                                      "OtherBuiltin",
                                      "Asm",
                                      "DialectOpaque"};
  size_t i = size_t(kind);
  return i < std::size(names) ? names[i] : "?";
}

//===----------------------------------------------------------------------===//
// Decoder: header and section table
//===----------------------------------------------------------------------===//

Error Decoder::decode() {
  if (auto err = decodeHeaderAndSections())
    return err;
  auto find = [&](SectionId id) -> const SectionInfo * {
    return file.section(id);
  };
  // Sections that every version >= 5 file must have (upstream reader rule).
  for (SectionId id : {kStringSection, kDialectSection, kAttrTypeSection,
                       kAttrTypeOffsetSection, kIRSection, kPropertiesSection})
    if (!find(id))
      return errorAt(size, "missing required section " + llvm::Twine(int(id)));
  if (bool(find(kResourceSection)) != bool(find(kResourceOffsetSection)))
    return errorAt(size, "resource section and resource offset section must "
                         "appear together");

  if (auto err = decodeStrings(find(kStringSection)->data))
    return err;
  if (auto err = decodeDialects(find(kDialectSection)->data))
    return err;
  if (auto err = decodeAttrTypeOffsets(find(kAttrTypeOffsetSection)->data,
                                       find(kAttrTypeSection)->data))
    return err;
  if (const SectionInfo *res = find(kResourceSection))
    if (auto err =
            decodeResources(find(kResourceOffsetSection)->data, res->data))
      return err;
  // Attribute kinds first: type entries (memref layouts) and attribute
  // entries are checked against the kinds of what they refer to.
  if (auto err = classifyAttributes())
    return err;
  if (auto err = decodeBuiltinTypes())
    return err;
  if (auto err = decodeBuiltinAttributes())
    return err;
  if (auto err = checkTextualEntries())
    return err;
  if (auto err = checkEntryGraph())
    return err;
  if (auto err = decodeProperties(find(kPropertiesSection)->data))
    return err;
  return decodeIR(find(kIRSection)->data);
}

Error Decoder::decodeHeaderAndSections() {
  ByteCursor cur = cursor(Span{0, size});
  if (!looksLikeBytecode(file.bytes())) {
    if (auto pointer = support::parseGitLfsPointer(file.bytes()))
      return errorAt(0, support::describeGitLfsPointer(*pointer));
    return errorAt(0, "not MLIR bytecode (missing \"ML\\xEFR\" magic)");
  }
  if (auto err = cur.skip(4))
    return err;
  uint64_t versionOffset = cur.offset();
  if (auto err = cur.readVarInt(file.version_))
    return err;
  if (file.version_ > BytecodeFile::kMaxSupportedVersion)
    return errorAt(versionOffset,
                   "bytecode version " + llvm::Twine(file.version_) +
                       " is newer than supported version " +
                       llvm::Twine(BytecodeFile::kMaxSupportedVersion));
  if (file.version_ < BytecodeFile::kMinSupportedVersion)
    return errorAt(versionOffset,
                   "bytecode version " + llvm::Twine(file.version_) +
                       " is older than the oldest supported version " +
                       llvm::Twine(BytecodeFile::kMinSupportedVersion));
  if (auto err = cur.readNullTerminatedString(file.producer_))
    return err;

  std::array<bool, kNumSectionIds> seen{};
  while (!cur.empty()) {
    SectionInfo section;
    if (auto err = cur.readSection(section))
      return err;
    if (section.id == kDialectVersionsSection)
      return errorAt(section.headerOffset,
                     "dialect version section found at top level");
    if (seen[section.id])
      return errorAt(section.headerOffset,
                     "duplicate top-level section " +
                         llvm::Twine(unsigned(section.id)));
    seen[section.id] = true;
    file.sections_.push_back(section);
  }
  return Error::success();
}

Error Decoder::readString(ByteCursor &cur, llvm::StringRef &str) {
  uint64_t index;
  if (auto err = cur.readIndex(index, file.strings_.size(), "string"))
    return err;
  str = file.strings_[index];
  return Error::success();
}

Error Decoder::readDialectIndex(ByteCursor &cur, uint64_t &index) {
  return cur.readIndex(index, file.dialects_.size(), "dialect");
}

//===----------------------------------------------------------------------===//
// String section: count, the string sizes (NUL included) in reverse order,
// then the string data laid out front to back.
//===----------------------------------------------------------------------===//

Error Decoder::decodeStrings(Span section) {
  ByteCursor cur = cursor(section);
  uint64_t count;
  if (auto err = cur.readCount(count, "string"))
    return err;
  file.strings_.resize(count);
  uint64_t dataEnd = section.end();
  for (llvm::StringRef &str : llvm::reverse(file.strings_)) {
    uint64_t sizeOffset = cur.offset();
    uint64_t stringSize;
    if (auto err = cur.readVarInt(stringSize))
      return err;
    // The sizes end where the data starts, so the data must stay beyond them.
    if (stringSize == 0 || cur.offset() > dataEnd ||
        stringSize > dataEnd - cur.offset())
      return errorAt(sizeOffset, "string size " + llvm::Twine(stringSize) +
                                     " does not fit in the string section");
    uint64_t start = dataEnd - stringSize;
    if (data[dataEnd - 1] != 0)
      return errorAt(dataEnd - 1, "string is not NUL-terminated");
    str = llvm::StringRef(reinterpret_cast<const char *>(data + start),
                          stringSize - 1);
    dataEnd = start;
  }
  if (cur.offset() != dataEnd)
    return errorAt(cur.offset(), "unexpected bytes between the string sizes "
                                 "and the string data");
  return Error::success();
}

//===----------------------------------------------------------------------===//
// Dialect section: dialects (name index with a "has version" flag, version
// as a nested DialectVersions section), then the op-name count and op names
// grouped by dialect (name index with an "is registered" flag).
//===----------------------------------------------------------------------===//

Error Decoder::decodeDialects(Span section) {
  ByteCursor cur = cursor(section);
  uint64_t numDialects;
  if (auto err = cur.readCount(numDialects, "dialect"))
    return err;
  for (uint64_t i = 0; i < numDialects; ++i) {
    uint64_t nameOffset = cur.offset();
    uint64_t nameIndex;
    bool hasVersion;
    if (auto err = cur.readVarIntWithFlag(nameIndex, hasVersion))
      return err;
    if (nameIndex >= file.strings_.size())
      return errorAt(nameOffset, "dialect name string index out of range");
    Dialect dialect;
    dialect.name = file.strings_[nameIndex];
    if (hasVersion) {
      SectionInfo versionSection;
      if (auto err = cur.readSection(versionSection))
        return err;
      if (versionSection.id != kDialectVersionsSection)
        return errorAt(versionSection.headerOffset,
                       "expected a dialect version section");
      dialect.versionBlob = versionSection.data;
    }
    if (dialect.name == "builtin" && builtinDialect == kNone)
      builtinDialect = i;
    file.dialects_.push_back(dialect);
  }
  if (auto err = checkUniqueDialectNames(section.offset))
    return err;

  // The total op-name count (a capacity hint, bounded by the bytes left).
  uint64_t numOpNames;
  if (auto err = cur.readCount(numOpNames, "operation name"))
    return err;
  while (!cur.empty()) {
    uint64_t dialect, groupSize;
    if (auto err = readDialectIndex(cur, dialect))
      return err;
    if (auto err = cur.readCount(groupSize, "operation name"))
      return err;
    for (uint64_t i = 0; i < groupSize; ++i) {
      uint64_t nameOffset = cur.offset();
      uint64_t nameIndex;
      bool isRegistered;
      if (auto err = cur.readVarIntWithFlag(nameIndex, isRegistered))
        return err;
      if (nameIndex >= file.strings_.size())
        return errorAt(nameOffset, "operation name string index out of range");
      file.opNames_.push_back(
          OpName{uint32_t(dialect), file.strings_[nameIndex], isRegistered});
    }
  }
  // Like upstream, `numOpNames` is only a capacity hint: no equality check.
  return Error::success();
}

//===----------------------------------------------------------------------===//
// AttrTypeOffset section: attribute count, type count, then per dialect
// group the entry sizes (low bit = custom encoding). Entries are laid out
// back to back in the AttrType section: attributes first, then types.
//===----------------------------------------------------------------------===//

Error Decoder::decodeAttrTypeOffsets(Span offsets, Span entries) {
  ByteCursor cur = cursor(offsets);
  uint64_t numAttrs, numTypes;
  if (auto err = cur.readCount(numAttrs, "attribute"))
    return err;
  uint64_t typesCountOffset = cur.offset();
  if (auto err = cur.readVarInt(numTypes))
    return err;
  if (numTypes > cur.remaining() || numAttrs + numTypes > offsets.size)
    return errorAt(typesCountOffset, "type count " + llvm::Twine(numTypes) +
                                         " exceeds the offset section");
  file.attributes_.resize(numAttrs);
  file.types_.resize(numTypes);

  uint64_t entryOffset = entries.offset;
  auto parseTable = [&](std::vector<AttrTypeEntry> &table) -> Error {
    size_t next = 0;
    while (next != table.size()) {
      uint64_t dialect, groupSize;
      if (auto err = readDialectIndex(cur, dialect))
        return err;
      uint64_t groupOffset = cur.offset();
      if (auto err = cur.readVarInt(groupSize))
        return err;
      if (groupSize > table.size() - next)
        return errorAt(groupOffset, "dialect group of " +
                                        llvm::Twine(groupSize) +
                                        " entries overruns the table");
      for (uint64_t i = 0; i < groupSize; ++i) {
        AttrTypeEntry &entry = table[next++];
        uint64_t sizeOffset = cur.offset();
        uint64_t entrySize;
        if (auto err =
                cur.readVarIntWithFlag(entrySize, entry.hasCustomEncoding))
          return err;
        if (entrySize > entries.end() - entryOffset)
          return errorAt(sizeOffset, "entry size " + llvm::Twine(entrySize) +
                                         " points past the end of the "
                                         "attribute/type section");
        entry.dialect = uint32_t(dialect);
        entry.encoding = Span{entryOffset, entrySize};
        entryOffset += entrySize;
        // A textual entry is a NUL-terminated string.
        if (!entry.hasCustomEncoding &&
            (entrySize == 0 || data[entry.encoding.end() - 1] != 0))
          return errorAt(entry.encoding.offset,
                         "textual attribute/type entry is not NUL-terminated");
      }
    }
    return Error::success();
  };
  if (auto err = parseTable(file.attributes_))
    return err;
  if (auto err = parseTable(file.types_))
    return err;
  if (!cur.empty())
    return cur.error("unexpected trailing data in the attribute/type offset "
                     "section");
  return Error::success();
}

//===----------------------------------------------------------------------===//
// Properties section: count, then `count` entries of {varint size, bytes}.
//===----------------------------------------------------------------------===//

Error Decoder::decodeProperties(Span section) {
  if (section.size == 0)
    return Error::success();
  ByteCursor cur = cursor(section);
  uint64_t count;
  if (auto err = cur.readCount(count, "properties"))
    return err;
  file.properties_.reserve(count);
  for (uint64_t i = 0; i < count; ++i) {
    uint64_t blobSize;
    Span blob;
    if (auto err = cur.readVarInt(blobSize))
      return err;
    if (auto err = cur.readSpan(blobSize, blob))
      return err;
    file.properties_.push_back(blob);
  }
  if (!cur.empty())
    return cur.error("unexpected trailing data in the properties section");
  return Error::success();
}

//===----------------------------------------------------------------------===//
// Resources: the ResourceOffset section lists the external groups (count,
// then key string + entries) followed by dialect groups until its end; each
// entry is {key string, entry size, kind byte}. Entry bytes are consecutive
// in the Resource section.
//===----------------------------------------------------------------------===//

/// Bool and String entries are decoded at open; blobs only by blobData().
Error Decoder::decodeResourceEntry(ByteCursor &cur, ResourceEntry &entry) {
  switch (entry.kind) {
  case ResourceKind::Blob:
    return Error::success();
  case ResourceKind::Bool: {
    uint8_t value;
    if (auto err = cur.readByte(value))
      return err;
    entry.boolValue = value != 0;
    break;
  }
  case ResourceKind::String:
    if (auto err = readString(cur, entry.stringValue))
      return err;
    break;
  }
  if (!cur.empty())
    return cur.error("unexpected trailing bytes in resource entry '" +
                     entry.key + "'");
  return Error::success();
}

Error Decoder::decodeResources(Span offsets, Span entries) {
  ByteCursor offsetCur = cursor(offsets);
  uint64_t entryOffset = entries.offset;

  auto parseGroup = [&](ResourceGroup &group) -> Error {
    uint64_t numEntries;
    // Each entry needs a key, a size and a kind byte.
    if (auto err = offsetCur.readCount(numEntries, "resource entry", 3))
      return err;
    for (uint64_t i = 0; i < numEntries; ++i) {
      ResourceEntry entry;
      uint64_t entrySize;
      uint8_t kind;
      if (auto err = readString(offsetCur, entry.key))
        return err;
      uint64_t sizeOffset = offsetCur.offset();
      if (auto err = offsetCur.readVarInt(entrySize))
        return err;
      uint64_t kindOffset = offsetCur.offset();
      if (auto err = offsetCur.readByte(kind))
        return err;
      if (kind > uint8_t(ResourceKind::String))
        return errorAt(kindOffset,
                       "unknown resource kind " + llvm::Twine(unsigned(kind)));
      if (entrySize > entries.end() - entryOffset)
        return errorAt(sizeOffset, "resource entry size " +
                                       llvm::Twine(entrySize) +
                                       " points past the resource section");
      entry.kind = ResourceKind(kind);
      entry.entry = Span{entryOffset, entrySize};
      entryOffset += entrySize;
      if (!group.isExternal)
        file.dialectResourceHandles_.emplace_back(
            uint32_t(file.resourceGroups_.size()),
            uint32_t(group.entries.size()));
      // Empty entries are declarations without data (upstream skips them).
      if (entrySize != 0) {
        ByteCursor entryCur = cursor(entry.entry);
        if (auto err = decodeResourceEntry(entryCur, entry))
          return err;
      }
      group.entries.push_back(entry);
    }
    return Error::success();
  };

  uint64_t numExternal;
  if (auto err = offsetCur.readCount(numExternal, "external resource group"))
    return err;
  for (uint64_t i = 0; i < numExternal; ++i) {
    ResourceGroup group;
    group.isExternal = true;
    if (auto err = readString(offsetCur, group.name))
      return err;
    if (auto err = parseGroup(group))
      return err;
    file.resourceGroups_.push_back(std::move(group));
  }
  while (!offsetCur.empty()) {
    ResourceGroup group;
    uint64_t dialect;
    if (auto err = readDialectIndex(offsetCur, dialect))
      return err;
    group.dialect = uint32_t(dialect);
    group.name = file.dialects_[dialect].name;
    if (auto err = parseGroup(group))
      return err;
    file.resourceGroups_.push_back(std::move(group));
  }
  // The entries must tile the Resource section: blobs are not read at open,
  // so this is what rejects a resource table that disagrees with the data.
  if (entryOffset != entries.end())
    return errorAt(entryOffset, "resource entries end " +
                                    llvm::Twine(entries.end() - entryOffset) +
                                    " bytes before the end of the resource "
                                    "section");
  return Error::success();
}

} // namespace aimodel::bytecode

//===----------------------------------------------------------------------===//
// BytecodeFile
//===----------------------------------------------------------------------===//

llvm::Expected<std::unique_ptr<BytecodeFile>>
BytecodeFile::fromBuffer(std::unique_ptr<llvm::MemoryBuffer> buffer) {
  std::unique_ptr<BytecodeFile> file(new BytecodeFile());
  file->buffer_ = std::move(buffer);
  Decoder decoder(*file);
  if (auto err = decoder.decode())
    return err;
  return file;
}

const SectionInfo *BytecodeFile::section(SectionId id) const {
  for (const SectionInfo &section : sections_)
    if (section.id == id)
      return &section;
  return nullptr;
}

std::vector<llvm::StringRef> BytecodeFile::dialectNames() const {
  std::vector<llvm::StringRef> names;
  for (const Dialect &dialect : dialects_)
    names.push_back(dialect.name);
  return names;
}

std::string BytecodeFile::fullOpName(uint64_t index) const {
  const OpName &op = opNames_[index];
  return (dialects_[op.dialect].name + "." + op.name).str();
}

llvm::StringRef BytecodeFile::attrDialectName(uint64_t index) const {
  return dialects_[attributes_[index].dialect].name;
}

static llvm::StringRef asmTextOf(const BytecodeFile &file,
                                 const AttrTypeEntry &entry) {
  if (entry.hasCustomEncoding || entry.encoding.size == 0)
    return {};
  return file.bytesOf(Span{entry.encoding.offset, entry.encoding.size - 1});
}

llvm::StringRef BytecodeFile::attrAsmText(uint64_t index) const {
  return asmTextOf(*this, attributes_[index]);
}

llvm::StringRef BytecodeFile::typeAsmText(uint64_t index) const {
  return asmTextOf(*this, types_[index]);
}

/// xxh3 over (xxh3(dialect name), custom flag, xxh3(bytes)): independent of
/// the entry's position, stable across runs and machines (little-endian
/// packing).
static uint64_t contentHashOf(const BytecodeFile &file,
                              const AttrTypeEntry &entry) {
  llvm::StringRef bytes = file.bytesOf(entry.encoding);
  uint64_t parts[3] = {
      llvm::xxh3_64bits(file.dialects()[entry.dialect].name),
      entry.hasCustomEncoding ? 1u : 0u,
      llvm::xxh3_64bits(llvm::ArrayRef<uint8_t>(
          reinterpret_cast<const uint8_t *>(bytes.data()), bytes.size()))};
  uint8_t packed[sizeof(parts)];
  for (size_t i = 0; i < sizeof(packed); ++i)
    packed[i] = uint8_t(parts[i / 8] >> (8 * (i % 8)));
  return llvm::xxh3_64bits(llvm::ArrayRef<uint8_t>(packed));
}

uint64_t BytecodeFile::attrContentHash(uint64_t index) const {
  return contentHashOf(*this, attributes_[index]);
}

uint64_t BytecodeFile::typeContentHash(uint64_t index) const {
  return contentHashOf(*this, types_[index]);
}

void BytecodeFile::releasePages(Span span) const {
  if (buffer_->getBufferKind() != llvm::MemoryBuffer::MemoryBuffer_MMap)
    return;
  // A touch maps the whole page-cache folio around it, up to a 2 MiB huge
  // page: drop whole huge pages around `span`, within the mapping.
  uintptr_t page = uintptr_t(::sysconf(_SC_PAGESIZE));
  constexpr uintptr_t kHugePage = uintptr_t(2) << 20;
  uintptr_t base = uintptr_t(bytes().data());
  uintptr_t lowest = base & ~(page - 1);
  uintptr_t highest = (base + bytes().size() + page - 1) & ~(page - 1);
  uintptr_t start = (base + span.offset) & ~(kHugePage - 1);
  uintptr_t end = (base + span.end() + kHugePage - 1) & ~(kHugePage - 1);
  start = std::max(start, lowest);
  end = std::min(end, highest);
  // A read-only private mapping: dropping pages loses nothing.
  if (start < end)
    support::dropMappedPages(reinterpret_cast<const void *>(start),
                             end - start);
}

llvm::Expected<BlobData> BytecodeFile::blobData(uint32_t group,
                                                uint32_t entry) const {
  const ResourceEntry &res = resourceGroups_[group].entries[entry];
  if (res.kind != ResourceKind::Blob)
    return errorAt(res.entry.offset,
                   "resource entry '" + res.key + "' is not a blob");
  BlobData blob;
  blob.data = Span{res.entry.offset, 0};
  if (res.entry.size == 0)
    return blob; // A declaration without data.
  ByteCursor cur(reinterpret_cast<const uint8_t *>(bytes().data()), res.entry);
  uint64_t blobSize;
  uint64_t alignmentOffset = cur.offset();
  if (auto err = cur.readVarInt(blob.alignment))
    return err;
  if (blob.alignment == 0 || (blob.alignment & (blob.alignment - 1)))
    return errorAt(alignmentOffset, "alignment " + llvm::Twine(blob.alignment) +
                                        " is not a power of two");
  if (auto err = cur.readVarInt(blobSize))
    return err;
  if (auto err = cur.alignTo(blob.alignment))
    return err;
  if (auto err = cur.readSpan(blobSize, blob.data))
    return err;
  if (!cur.empty())
    return cur.error("unexpected trailing bytes in resource entry '" + res.key +
                     "'");
  return blob;
}

std::map<std::string, uint64_t> BytecodeFile::opCounts() const {
  std::vector<uint64_t> perName(opNames_.size());
  for (const Operation &op : ops_)
    ++perName[op.name];
  std::map<std::string, uint64_t> counts;
  for (size_t i = 0; i < perName.size(); ++i)
    if (perName[i])
      counts[fullOpName(i)] += perName[i];
  return counts;
}

llvm::Expected<std::unique_ptr<BytecodeFile>>
BytecodeFile::open(llvm::StringRef path) {
  auto buffer = support::mapRegularFile(path);
  if (!buffer)
    return buffer.takeError();
  return fromBuffer(std::move(*buffer));
}
