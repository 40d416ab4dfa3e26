//===- StripVerify.cpp - The written file against the input ---------------===//
//
// Run on the written file, re-read by the project's decoder, before it may
// replace anything: a writer bug must never become a shipped asset.
//
// What the written file must hold is recorded from the input first, as
// 64-bit hashes (one per op, block and kept attribute entry; one per table
// for the rest), and the input's tables are released before the output is
// decoded: the two full decodes never share memory. Kept entries are
// compared by their bytes at the same index, which covers every attribute,
// type and property an op refers to; ops, blocks and regions field by field.
// Weights are not read again (that would double the I/O of a
// multi-gigabyte asset): each resource entry must sit at the same size with
// its blob data aligned as declared, and its bytes went through the hash
// that main.hash records.
//
//===----------------------------------------------------------------------===//

#include "strip/StripPlan.h"

#include "mlir-passes/BytecodeLocationView.h"

#include "llvm/ADT/Twine.h"
#include "llvm/Support/xxhash.h"

using namespace aimodel;
using namespace aimodel::strip;
using bytecode::AttrKind;
using bytecode::BytecodeFile;
using bytecode::kNone;

namespace {

llvm::Error differs(const llvm::Twine &what) {
  return llvm::createStringError("verification failed: " + what);
}

/// Accumulates numbers and strings into one 64-bit hash.
class Fingerprint {
public:
  Fingerprint &add(uint64_t value) {
    for (unsigned i = 0; i < 8; ++i)
      bytes.push_back(char(value >> (8 * i)));
    return *this;
  }
  Fingerprint &add(llvm::StringRef text) {
    add(text.size());
    bytes.append(text.begin(), text.end());
    return *this;
  }
  template <typename T> Fingerprint &addAll(llvm::ArrayRef<T> values) {
    add(values.size());
    for (const T &value : values)
      add(uint64_t(value));
    return *this;
  }
  uint64_t finish() const {
    return llvm::xxh3_64bits(llvm::ArrayRef<uint8_t>(
        reinterpret_cast<const uint8_t *>(bytes.data()), bytes.size()));
  }

private:
  llvm::SmallVector<char, 256> bytes;
};

uint64_t containerHash(const BytecodeFile &file) {
  Fingerprint print;
  print.add(file.version()).add(file.producer());
  for (const bytecode::SectionInfo &section : file.sections())
    print.add(section.id);
  for (const bytecode::Dialect &dialect : file.dialects()) {
    print.add(dialect.name).add(dialect.versionBlob.has_value());
    if (dialect.versionBlob)
      print.add(file.bytesOf(*dialect.versionBlob));
  }
  for (uint64_t i = 0; i < file.opNames().size(); ++i)
    print.add(file.fullOpName(i)).add(file.opNames()[i].isRegistered);
  for (bytecode::Span properties : file.properties())
    print.add(file.bytesOf(properties));
  return print.finish();
}

uint64_t attrHash(const BytecodeFile &file, uint64_t index) {
  const bytecode::AttrTypeEntry &entry = file.attributes()[index];
  return Fingerprint()
      .add(file.attrDialectName(index))
      .add(entry.hasCustomEncoding)
      .add(file.bytesOf(entry.encoding))
      .finish();
}

uint64_t typesHash(const BytecodeFile &file) {
  Fingerprint print;
  for (const bytecode::AttrTypeEntry &entry : file.types())
    print.add(entry.dialect)
        .add(entry.hasCustomEncoding)
        .add(file.bytesOf(entry.encoding));
  return print.finish();
}

/// Kept strings by their text, emptied ones as empty.
uint64_t stringsHash(const BytecodeFile &file,
                     const std::vector<bool> &emptied) {
  Fingerprint print;
  for (uint64_t i = 0; i < file.strings().size(); ++i)
    print.add(i < emptied.size() && emptied[i] ? llvm::StringRef()
                                               : file.strings()[i]);
  return print.finish();
}

/// Groups and entries; a blob's data size is checked on its own (its entry
/// may gain or lose padding where it lands).
uint64_t resourcesHash(const BytecodeFile &file) {
  Fingerprint print;
  for (const bytecode::ResourceGroup &group : file.resourceGroups()) {
    print.add(group.name).add(group.isExternal).add(group.entries.size());
    for (const bytecode::ResourceEntry &entry : group.entries)
      print.add(entry.key)
          .add(uint64_t(entry.kind))
          .add(entry.kind == bytecode::ResourceKind::Blob ? 0
                                                          : entry.entry.size)
          .add(entry.boolValue)
          .add(entry.stringValue);
  }
  return print.finish();
}

/// Everything about an op but its location.
uint64_t opHash(const BytecodeFile &file, const bytecode::Operation &op) {
  Fingerprint print;
  print.add(op.name)
      .add(op.parentBlock)
      .add(op.depth)
      .add(uint64_t(op.propertiesForm))
      .add(op.hasUseListOrders)
      .add(op.regionsIsolated)
      .add(op.attrDict)
      .add(op.propertiesAttr)
      .add(op.propertiesIndex)
      .add(op.firstResultValueId)
      .addAll(file.resultTypes(op))
      .addAll(file.successors(op))
      .addAll(file.opRegions(op));
  for (const bytecode::ValueRef &value : file.operands(op))
    print.add(value.id)
        .add(value.isBlockArgument)
        .add(value.owner)
        .add(value.number);
  return print.finish();
}

/// Everything about a block but its arguments' locations.
uint64_t blockHash(const bytecode::Block &block) {
  Fingerprint print;
  print.add(block.parentRegion)
      .add(block.firstArgumentValueId)
      .addAll(llvm::ArrayRef<uint32_t>(block.operations))
      .add(block.arguments.size());
  for (const bytecode::BlockArgument &arg : block.arguments)
    print.add(arg.type);
  return print.finish();
}

uint64_t regionsHash(const BytecodeFile &file) {
  Fingerprint print;
  for (const bytecode::Region &region : file.regions())
    print.add(region.parentOp)
        .add(region.numValues)
        .addAll(llvm::ArrayRef<uint32_t>(region.blocks));
  return print.finish();
}

/// A location the stripped file may hold: loc(unknown), a private one the
/// plan kept, or (op-id mode) a bare "coreai" op-id NameLoc.
class LocationCheck {
public:
  LocationCheck(const BytecodeFile &out, const StripOptions &options)
      : out(out), options(options), view(out), predicates(view) {}

  bool clean(uint64_t loc) const {
    if (loc == kNone || out.attrKind(loc) == AttrKind::UnknownLoc)
      return true;
    if (out.attrDialectName(loc) != "builtin")
      return true; // private: kept only when the file has no payload
    return options.locations == LocationMode::OpId &&
           predicates.isBareOpId(loc) && view.nameOf(loc) == "coreai";
  }

private:
  const BytecodeFile &out;
  const StripOptions &options;
  passes::BytecodeLocationView view;
  passes::LocationPredicates<passes::BytecodeLocationView> predicates;
};

} // namespace

StripExpectation
StripExpectation::record(const BytecodeFile &input, const StripPlan &plan,
                         const bytecode::WriteResult &written) {
  StripExpectation want;
  want.blobDataSizes = written.blobDataSizes;
  const bytecode::BytecodeEdits &edits = plan.edits;
  want.container = containerHash(input);
  want.attributes.reserve(input.attributes().size());
  for (uint64_t i = 0; i < input.attributes().size(); ++i)
    want.attributes.push_back(i < edits.blankedAttributes.size() &&
                                      edits.blankedAttributes[i]
                                  ? kBlanked
                                  : attrHash(input, i));
  want.appendedAttributes = edits.appendedAttributes.size();
  want.types = typesHash(input);
  want.strings = stringsHash(input, edits.emptiedStrings);
  want.resources = resourcesHash(input);
  want.regions = regionsHash(input);
  for (uint32_t i = 0; i < input.operations().size(); ++i) {
    const bytecode::Operation &op = input.operations()[i];
    auto edited = edits.opLocations.find(i);
    want.ops.push_back({opHash(input, op), edited == edits.opLocations.end()
                                               ? op.location
                                               : edited->second});
  }
  for (uint32_t b = 0; b < input.blocks().size(); ++b) {
    const bytecode::Block &block = input.blocks()[b];
    want.blocks.push_back(blockHash(block));
    for (uint32_t a = 0; a < block.arguments.size(); ++a) {
      auto edited = edits.blockArgLocations.find({b, a});
      want.argumentLocations.push_back(edited == edits.blockArgLocations.end()
                                           ? block.arguments[a].location
                                           : edited->second);
    }
  }
  return want;
}

llvm::Error StripExpectation::check(const BytecodeFile &out,
                                    const StripOptions &options) const {
  if (containerHash(out) != container)
    return differs("the header, dialects, op names or properties changed");
  if (out.attributes().size() != attributes.size() + appendedAttributes)
    return differs("the attribute table changed size");
  for (uint64_t i = 0; i < attributes.size(); ++i) {
    if (attributes[i] == kBlanked) {
      if (out.attrKind(i) != AttrKind::UnknownLoc)
        return differs("blanked attribute " + llvm::Twine(i) + " is not empty");
    } else if (attrHash(out, i) != attributes[i]) {
      return differs("attribute " + llvm::Twine(i) + " changed");
    }
  }
  for (uint64_t i = attributes.size(); i < out.attributes().size(); ++i)
    if (out.attrKind(i) != AttrKind::UnknownLoc)
      return differs("added attribute " + llvm::Twine(i) +
                     " is not loc(unknown)");
  if (typesHash(out) != types)
    return differs("the type table changed");
  if (stringsHash(out, {}) != strings)
    return differs("the string table changed");
  if (resourcesHash(out) != resources)
    return differs("the resources changed");
  size_t entryIndex = 0;
  for (uint32_t g = 0; g < out.resourceGroups().size(); ++g) {
    const bytecode::ResourceGroup &group = out.resourceGroups()[g];
    for (uint32_t e = 0; e < group.entries.size(); ++e, ++entryIndex) {
      uint64_t want =
          entryIndex < blobDataSizes.size() ? blobDataSizes[entryIndex] : kNone;
      if (group.entries[e].kind != bytecode::ResourceKind::Blob ||
          (want == kNone && group.entries[e].entry.size == 0))
        continue;
      llvm::Expected<bytecode::BlobData> blob = out.blobData(g, e);
      out.releasePages(group.entries[e].entry);
      if (!blob)
        return differs("resource '" + group.entries[e].key +
                       "': " + llvm::toString(blob.takeError()));
      if (blob->data.size != want)
        return differs("resource '" + group.entries[e].key + "' holds " +
                       llvm::Twine(blob->data.size) + " bytes, not " +
                       llvm::Twine(want));
      if (blob->data.offset % blob->alignment)
        return differs("resource '" + group.entries[e].key + "' lost its " +
                       llvm::Twine(blob->alignment) + "-byte alignment");
    }
  }
  if (regionsHash(out) != regions)
    return differs("the regions changed");
  if (out.operations().size() != ops.size() ||
      out.blocks().size() != blocks.size())
    return differs("the number of ops or blocks changed");
  LocationCheck clean(out, options);
  for (uint32_t i = 0; i < ops.size(); ++i) {
    const bytecode::Operation &op = out.operations()[i];
    auto where = [&] {
      return "op " + llvm::Twine(i) + " (" + out.fullOpName(op.name) + ")";
    };
    if (opHash(out, op) != ops[i].hash)
      return differs(where() + " changed");
    if (op.location != ops[i].location)
      return differs(where() + ": unexpected location");
    if (!clean.clean(op.location))
      return differs(where() + " still carries a debug location");
  }
  size_t arg = 0;
  for (uint32_t b = 0; b < blocks.size(); ++b) {
    const bytecode::Block &block = out.blocks()[b];
    if (blockHash(block) != blocks[b])
      return differs("block " + llvm::Twine(b) + " changed");
    for (uint32_t a = 0; a < block.arguments.size(); ++a, ++arg) {
      uint64_t location = block.arguments[a].location;
      if (arg >= argumentLocations.size() ||
          location != argumentLocations[arg] || !clean.clean(location))
        return differs("block " + llvm::Twine(b) + " argument " +
                       llvm::Twine(a) + ": unexpected location");
    }
  }
  return llvm::Error::success();
}
