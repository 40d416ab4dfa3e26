//===- BytecodeWriter.cpp - Container-level MLIR bytecode rewriter --------===//
//
// Section by section, in the input's order. Only the String, AttrType,
// AttrTypeOffset and IR sections are ever re-encoded, and each only when an
// edit touches it; the rest is handed to the sink as file ranges.
//
//===----------------------------------------------------------------------===//

#include "bytecode/BytecodeWriter.h"

#include "bytecode/BytecodeStream.h"

#include "llvm/Support/Endian.h"

#include <algorithm>
#include <variant>
#include <vector>

using namespace aimodel::bytecode;
using llvm::Error;

void aimodel::bytecode::appendVarInt(std::string &out, uint64_t value) {
  if ((value >> 7) == 0) {
    out.push_back(char((value << 1) | 1));
    return;
  }
  for (unsigned numBytes = 2; numBytes < 9; ++numBytes) {
    if ((value >> (7 * numBytes)) == 0) {
      uint64_t encoded = ((value << 1) | 1) << (numBytes - 1);
      for (unsigned i = 0; i < numBytes; ++i)
        out.push_back(char(encoded >> (8 * i)));
      return;
    }
  }
  out.push_back(0);
  for (unsigned i = 0; i < 8; ++i)
    out.push_back(char(value >> (8 * i)));
}

static void appendVarIntWithFlag(std::string &out, uint64_t value, bool flag) {
  appendVarInt(out, (value << 1) | uint64_t(flag));
}

std::string aimodel::bytecode::encodeUnknownLoc() {
  std::string out;
  appendVarInt(out, uint64_t(AttrKind::UnknownLoc));
  return out;
}

namespace {

/// Part of a section's new payload: re-encoded bytes, or a range of the
/// input.
using Piece = std::variant<std::string, Span>;
using Payload = std::vector<Piece>;

uint64_t payloadSize(const Payload &payload) {
  uint64_t size = 0;
  for (const Piece &piece : payload)
    if (const auto *bytes = std::get_if<std::string>(&piece))
      size += bytes->size();
    else
      size += std::get<Span>(piece).size;
  return size;
}

/// Appends `piece`, merging a range that continues the last one.
void append(Payload &payload, Piece piece) {
  if (const Span *span = std::get_if<Span>(&piece)) {
    if (span->size == 0)
      return;
    if (!payload.empty())
      if (Span *last = std::get_if<Span>(&payload.back()))
        if (last->end() == span->offset) {
          last->size += span->size;
          return;
        }
  }
  payload.push_back(std::move(piece));
}

/// Emits a section as MLIR's writer does: id, length, and when the payload
/// needs alignment the current position lacks, the aligned flag, the
/// alignment and 0xCB padding.
Error emitSection(ByteSink &sink, uint8_t id, uint64_t alignment,
                  const Payload &payload) {
  std::string header;
  header.push_back(char(id));
  appendVarInt(header, payloadSize(payload));
  if (alignment > 1 && (sink.written() + header.size()) % alignment) {
    header[0] = char(id | 0x80);
    appendVarInt(header, alignment);
    while ((sink.written() + header.size()) % alignment)
      header.push_back(char(0xCB));
  }
  if (auto err = sink.write(header))
    return err;
  for (const Piece &piece : payload) {
    if (const auto *bytes = std::get_if<std::string>(&piece)) {
      if (auto err = sink.write(*bytes))
        return err;
    } else if (auto err = sink.copyRange(std::get<Span>(piece))) {
      return err;
    }
  }
  return Error::success();
}

/// String section: count, sizes (NUL included) in reverse, then the data.
std::string encodeStrings(const BytecodeFile &file,
                          const std::vector<bool> &emptied) {
  llvm::ArrayRef<llvm::StringRef> strings = file.strings();
  auto textOf = [&](size_t i) {
    return i < emptied.size() && emptied[i] ? llvm::StringRef() : strings[i];
  };
  std::string out;
  appendVarInt(out, strings.size());
  for (size_t i = strings.size(); i-- > 0;)
    appendVarInt(out, textOf(i).size() + 1);
  for (size_t i = 0; i < strings.size(); ++i) {
    out += textOf(i);
    out.push_back(0);
  }
  return out;
}

/// Dialect groups of consecutive entries: dialect, count, then each size
/// with its custom-encoding flag. `layout(i, dialect, custom, size)` gives
/// entry i.
template <typename Layout>
void appendGroups(std::string &out, uint64_t count, Layout layout) {
  uint64_t dialect = 0, nextDialect = 0, size = 0;
  bool custom = false;
  for (uint64_t i = 0; i < count;) {
    layout(i, dialect, custom, size);
    uint64_t end = i + 1;
    for (; end < count; ++end) {
      layout(end, nextDialect, custom, size);
      if (nextDialect != dialect)
        break;
    }
    appendVarInt(out, dialect);
    appendVarInt(out, end - i);
    for (; i < end; ++i) {
      layout(i, dialect, custom, size);
      appendVarIntWithFlag(out, size, custom);
    }
  }
}

/// The AttrType and AttrTypeOffset sections with blanked and appended
/// attribute entries; types are copied.
Error encodeAttrTypes(const BytecodeFile &file, const BytecodeEdits &edits,
                      std::string &entries, std::string &offsets) {
  uint64_t builtin = kNone;
  for (size_t i = 0; i < file.dialects().size(); ++i)
    if (file.dialects()[i].name == "builtin")
      builtin = i;
  if (builtin == kNone)
    return llvm::createStringError(
        "cannot add builtin attributes: the file has no builtin dialect");
  llvm::ArrayRef<AttrTypeEntry> attrs = file.attributes();
  const std::string blank = encodeUnknownLoc();
  auto blanked = [&](uint64_t i) {
    return i < edits.blankedAttributes.size() && edits.blankedAttributes[i];
  };
  uint64_t numAttrs = attrs.size() + edits.appendedAttributes.size();
  auto attrLayout = [&](uint64_t i, uint64_t &dialect, bool &custom,
                        uint64_t &size) {
    if (i >= attrs.size()) {
      dialect = builtin, custom = true;
      size = edits.appendedAttributes[i - attrs.size()].size();
    } else if (blanked(i)) {
      dialect = builtin, custom = true, size = blank.size();
    } else {
      dialect = attrs[i].dialect, custom = attrs[i].hasCustomEncoding;
      size = attrs[i].encoding.size;
    }
  };
  llvm::ArrayRef<AttrTypeEntry> types = file.types();
  auto typeLayout = [&](uint64_t i, uint64_t &dialect, bool &custom,
                        uint64_t &size) {
    dialect = types[i].dialect, custom = types[i].hasCustomEncoding;
    size = types[i].encoding.size;
  };
  for (uint64_t i = 0; i < attrs.size(); ++i)
    entries +=
        blanked(i) ? llvm::StringRef(blank) : file.bytesOf(attrs[i].encoding);
  for (const std::string &bytes : edits.appendedAttributes)
    entries += bytes;
  if (!types.empty())
    entries += file.bytes().slice(types.front().encoding.offset,
                                  types.back().encoding.end());
  appendVarInt(offsets, numAttrs);
  appendVarInt(offsets, types.size());
  appendGroups(offsets, numAttrs, attrLayout);
  appendGroups(offsets, types.size(), typeLayout);
  return Error::success();
}

/// Re-encodes the IR section: byte ranges replaced (location varints, block
/// argument encodings) and nested sections re-framed with their new length.
class IRRewriter {
public:
  IRRewriter(const BytecodeFile &file) : file(file) {}

  Error collect(const BytecodeEdits &edits) {
    for (const auto &[opIndex, location] : edits.opLocations) {
      const Operation &op = file.operations()[opIndex];
      ByteCursor cur(file, Span{op.offset, file.bytes().size() - op.offset});
      uint64_t ignored;
      uint8_t mask;
      if (auto err = cur.readVarInt(ignored))
        return err;
      if (auto err = cur.readByte(mask))
        return err;
      uint64_t start = cur.offset();
      if (auto err = cur.readVarInt(ignored))
        return err;
      Event event{start, cur.offset() - start, {}, {}};
      appendVarInt(event.bytes, location);
      events.push_back(std::move(event));
    }
    llvm::DenseMap<uint32_t, std::vector<std::pair<uint32_t, uint64_t>>>
        byBlock;
    for (const auto &[key, location] : edits.blockArgLocations)
      byBlock[key.first].push_back({key.second, location});
    for (auto &[blockIndex, args] : byBlock)
      if (auto err = collectBlock(blockIndex, args))
        return err;
    for (const Operation &op : file.operations())
      if (op.nestedSection)
        events.push_back(
            Event{op.nestedHeaderOffset, 0, {}, *op.nestedSection, true});
    std::sort(events.begin(), events.end(), [](const Event &a, const Event &b) {
      return a.offset < b.offset;
    });
    return Error::success();
  }

  std::string rewrite(Span section) {
    std::string out;
    next = 0;
    emit(section, out);
    return out;
  }

private:
  struct Event {
    uint64_t offset;   ///< where the replaced bytes (or nested header) start
    uint64_t size;     ///< bytes replaced (edits)
    std::string bytes; ///< their replacement (edits)
    Span nested;       ///< nested section payload
    bool isNested = false;
  };

  Error collectBlock(uint32_t blockIndex,
                     std::vector<std::pair<uint32_t, uint64_t>> &args) {
    std::sort(args.begin(), args.end());
    const Block &block = file.blocks()[blockIndex];
    ByteCursor cur(file,
                   Span{block.offset, file.bytes().size() - block.offset});
    uint64_t value, numArgs;
    bool hasArgs;
    if (auto err = cur.readVarIntWithFlag(value, hasArgs))
      return err;
    if (!hasArgs)
      return cur.error("block " + llvm::Twine(blockIndex) +
                       " has no arguments");
    if (auto err = cur.readVarInt(numArgs))
      return err;
    size_t nextEdit = 0;
    for (uint64_t i = 0; i < numArgs && nextEdit < args.size(); ++i) {
      uint64_t start = cur.offset(), type, location;
      bool hasLoc;
      if (auto err = cur.readVarIntWithFlag(type, hasLoc))
        return err;
      if (hasLoc)
        if (auto err = cur.readVarInt(location))
          return err;
      if (args[nextEdit].first != i)
        continue;
      uint64_t newLocation = args[nextEdit++].second;
      Event event{start, cur.offset() - start, {}, {}};
      bool elided = newLocation == BytecodeEdits::kElidedLocation;
      appendVarIntWithFlag(event.bytes, type, !elided);
      if (!elided)
        appendVarInt(event.bytes, newLocation);
      events.push_back(std::move(event));
    }
    return Error::success();
  }

  /// Copies `range`, applying the events inside it.
  void emit(Span range, std::string &out) {
    uint64_t pos = range.offset;
    while (next < events.size() && events[next].offset < range.end()) {
      const Event &event = events[next++];
      out += file.bytes().slice(pos, event.offset);
      if (!event.isNested) {
        out += event.bytes;
        pos = event.offset + event.size;
        continue;
      }
      std::string inner;
      emit(event.nested, inner);
      out.push_back(char(kIRSection));
      appendVarInt(out, inner.size());
      out += inner;
      pos = event.nested.end();
    }
    out += file.bytes().slice(pos, range.end());
  }

  const BytecodeFile &file;
  std::vector<Event> events;
  size_t next = 0;
};

/// The Resource and ResourceOffset sections laid out again for where the
/// resources land in the written file. A blob's data must sit at a multiple
/// of its alignment, counted from the file's start, and the bytes before a
/// resource section shrink or grow with the rest of the rewrite; so the
/// section is aligned to the largest blob alignment and each blob's
/// padding is computed for that start. Blob data are ranges of the input
/// (never read); a blob whose header stays as it was is copied whole, and
/// consecutive ranges merge, so an unchanged layout is one copy.
struct ResourceLayout {
  uint64_t alignment = 1;
  Payload entries; ///< the Resource section's payload
  Payload offsets; ///< the ResourceOffset section's payload
};

llvm::Expected<ResourceLayout>
layoutResources(const BytecodeFile &file, ByteSink &sink, WriteResult &result) {
  ResourceLayout layout;
  const SectionInfo *resources = file.section(kResourceSection);
  const SectionInfo *offsets = file.section(kResourceOffsetSection);
  if (!resources || !offsets)
    return layout;
  layout.alignment = std::max<uint64_t>(resources->alignment, 1);
  struct Blob {
    uint64_t alignment = 0; ///< 0: not a blob with data
    Span data;
  };
  std::vector<Blob> blobs;
  llvm::ArrayRef<ResourceGroup> groups = file.resourceGroups();
  for (uint32_t g = 0; g < groups.size(); ++g)
    for (uint32_t e = 0; e < groups[g].entries.size(); ++e) {
      const ResourceEntry &entry = groups[g].entries[e];
      Blob blob;
      if (entry.kind == ResourceKind::Blob && entry.entry.size) {
        // The header (alignment, size) through the sink, not the mapping.
        llvm::Expected<std::string> header = sink.readInput(
            Span{entry.entry.offset, std::min<uint64_t>(entry.entry.size, 18)});
        if (!header)
          return header.takeError();
        ByteCursor cur(reinterpret_cast<const uint8_t *>(header->data()),
                       Span{0, header->size()});
        uint64_t size = 0;
        bool ok = !cur.readVarInt(blob.alignment).operator bool() &&
                  blob.alignment && !(blob.alignment & (blob.alignment - 1)) &&
                  !cur.readVarInt(size).operator bool() &&
                  size <= entry.entry.size;
        if (!ok) {
          // Let the decoder say what is wrong, where.
          llvm::Expected<BlobData> checked = file.blobData(g, e);
          if (!checked)
            return checked.takeError();
          blob.alignment = checked->alignment;
          size = checked->data.size;
        }
        blob.data = Span{entry.entry.end() - size, size};
        layout.alignment = std::max(layout.alignment, blob.alignment);
      }
      blobs.push_back(blob);
    }

  // The entries, for a payload that starts at a multiple of the alignment.
  std::vector<uint64_t> sizes;
  size_t next = 0;
  for (const ResourceGroup &group : groups)
    for (const ResourceEntry &entry : group.entries) {
      const Blob &blob = blobs[next++];
      uint64_t at = payloadSize(layout.entries);
      if (!blob.alignment) {
        append(layout.entries, entry.entry);
        sizes.push_back(entry.entry.size);
        result.blobDataSizes.push_back(kNone);
        continue;
      }
      std::string header;
      appendVarInt(header, blob.alignment);
      appendVarInt(header, blob.data.size);
      while ((at + header.size()) % blob.alignment)
        header.push_back(char(0xCB));
      uint64_t oldHeader = blob.data.offset - entry.entry.offset;
      llvm::Expected<std::string> old =
          sink.readInput(Span{entry.entry.offset, oldHeader});
      if (!old)
        return old.takeError();
      if (*old == header)
        append(layout.entries, entry.entry);
      else
        append(layout.entries, std::move(header)),
            append(layout.entries, blob.data);
      sizes.push_back(payloadSize(layout.entries) - at);
      result.blobDataSizes.push_back(blob.data.size);
    }

  // The offset table: the same bytes with each entry's size replaced.
  ByteCursor cur(file, offsets->data);
  std::string table;
  uint64_t copiedTo = offsets->data.offset;
  bool changed = false;
  next = 0;
  auto copyUpTo = [&](uint64_t offset) {
    table += file.bytes().slice(copiedTo, offset);
    copiedTo = offset;
  };
  auto group = [&]() -> Error {
    uint64_t count, ignored;
    if (auto err = cur.readVarInt(count))
      return err;
    for (uint64_t i = 0; i < count; ++i) {
      uint8_t kind;
      if (auto err = cur.readVarInt(ignored)) // key
        return err;
      uint64_t sizeAt = cur.offset(), size;
      if (auto err = cur.readVarInt(size))
        return err;
      copyUpTo(sizeAt);
      appendVarInt(table, sizes[next]);
      changed |= sizes[next++] != size;
      copiedTo = cur.offset();
      if (auto err = cur.readByte(kind))
        return err;
    }
    return Error::success();
  };
  uint64_t external, ignored;
  if (auto err = cur.readVarInt(external))
    return err;
  for (uint64_t i = 0; i < external; ++i) {
    if (auto err = cur.readVarInt(ignored)) // group key
      return err;
    if (auto err = group())
      return err;
  }
  while (!cur.empty()) {
    if (auto err = cur.readVarInt(ignored)) // dialect
      return err;
    if (auto err = group())
      return err;
  }
  copyUpTo(offsets->data.end());
  if (changed)
    layout.offsets.push_back(std::move(table));
  else
    layout.offsets.push_back(offsets->data);
  return layout;
}

} // namespace

Error aimodel::bytecode::writeBytecode(const BytecodeFile &file,
                                       const BytecodeEdits &edits,
                                       ByteSink &sink, WriteResult *result) {
  WriteResult ignored;
  WriteResult &out = result ? *result : ignored;
  out = WriteResult();
  for (const auto &[opIndex, location] : edits.opLocations)
    if (opIndex >= file.operations().size())
      return llvm::createStringError("op edit out of range");
  for (const auto &[key, location] : edits.blockArgLocations)
    if (key.first >= file.blocks().size() ||
        key.second >= file.blocks()[key.first].arguments.size())
      return llvm::createStringError("block argument edit out of range");
  uint64_t numAttrs =
      file.attributes().size() + edits.appendedAttributes.size();
  auto badLocation = [&](uint64_t loc) {
    return loc != BytecodeEdits::kElidedLocation && loc >= numAttrs;
  };
  for (const auto &[opIndex, location] : edits.opLocations)
    if (location == BytecodeEdits::kElidedLocation || badLocation(location))
      return llvm::createStringError("op location out of range");
  for (const auto &[key, location] : edits.blockArgLocations)
    if (badLocation(location))
      return llvm::createStringError("block argument location out of range");

  llvm::ArrayRef<SectionInfo> sections = file.sections();
  uint64_t headerEnd =
      sections.empty() ? file.bytes().size() : sections.front().headerOffset;
  if (auto err = sink.write(file.bytes().take_front(headerEnd)))
    return err;

  std::string attrEntries, attrOffsets;
  if (edits.changesAttributes())
    if (auto err = encodeAttrTypes(file, edits, attrEntries, attrOffsets))
      return err;
  bool rewritesIR =
      !edits.opLocations.empty() || !edits.blockArgLocations.empty();
  IRRewriter ir(file);
  if (rewritesIR)
    if (auto err = ir.collect(edits))
      return err;
  bool emptiesStrings =
      std::find(edits.emptiedStrings.begin(), edits.emptiedStrings.end(),
                true) != edits.emptiedStrings.end();

  llvm::Expected<ResourceLayout> resources = layoutResources(file, sink, out);
  if (!resources)
    return resources.takeError();
  for (const SectionInfo &section : sections) {
    Payload payload = {section.data};
    uint64_t alignment = section.alignment;
    if (section.id == kStringSection && emptiesStrings)
      payload = {encodeStrings(file, edits.emptiedStrings)};
    else if (section.id == kAttrTypeSection && edits.changesAttributes())
      payload = {std::move(attrEntries)};
    else if (section.id == kAttrTypeOffsetSection && edits.changesAttributes())
      payload = {std::move(attrOffsets)};
    else if (section.id == kIRSection && rewritesIR)
      payload = {ir.rewrite(section.data)};
    else if (section.id == kResourceSection)
      payload = std::move(resources->entries), alignment = resources->alignment;
    else if (section.id == kResourceOffsetSection)
      payload = std::move(resources->offsets);
    if (auto err = emitSection(sink, section.id, alignment, payload))
      return err;
  }
  return Error::success();
}
