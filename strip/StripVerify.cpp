//===- StripVerify.cpp - The written file against the input ---------------===//
//
// Run on the written file, re-read by the project's decoder, before it may
// replace anything: a writer bug must never become a shipped asset. Kept
// entries are compared by their bytes at the same index, which covers every
// attribute, type and property an op refers to; ops, blocks and regions are
// compared field by field. Weights are not read again (that would double the
// I/O of a multi-gigabyte asset): each resource entry must sit at the same
// size with its blob data aligned as declared, and its bytes went through
// the hash that main.hash records.
//
//===----------------------------------------------------------------------===//

#include "strip/StripPlan.h"

#include "mlir-passes/BytecodeLocationView.h"

#include "llvm/ADT/Twine.h"

using namespace aimodel;
using namespace aimodel::strip;
using bytecode::AttrKind;
using bytecode::BytecodeFile;
using bytecode::kNone;

namespace {

llvm::Error differs(const llvm::Twine &what) {
  return llvm::createStringError("verification failed: " + what);
}

template <typename T> bool sameList(llvm::ArrayRef<T> a, llvm::ArrayRef<T> b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin());
}

bool sameValue(const bytecode::ValueRef &a, const bytecode::ValueRef &b) {
  return a.id == b.id && a.isBlockArgument == b.isBlockArgument &&
         a.owner == b.owner && a.number == b.number;
}

llvm::Error compareContainer(const BytecodeFile &in, const BytecodeFile &out) {
  if (in.version() != out.version() || in.producer() != out.producer())
    return differs("the header changed");
  if (in.sections().size() != out.sections().size())
    return differs("the section list changed");
  for (size_t i = 0; i < in.sections().size(); ++i)
    if (in.sections()[i].id != out.sections()[i].id)
      return differs("the section order changed");
  if (in.dialects().size() != out.dialects().size())
    return differs("the dialect list changed");
  for (size_t i = 0; i < in.dialects().size(); ++i) {
    const auto &a = in.dialects()[i], &b = out.dialects()[i];
    if (a.name != b.name ||
        a.versionBlob.has_value() != b.versionBlob.has_value() ||
        (a.versionBlob &&
         in.bytesOf(*a.versionBlob) != out.bytesOf(*b.versionBlob)))
      return differs("dialect '" + a.name + "' changed");
  }
  if (in.opNames().size() != out.opNames().size())
    return differs("the op names changed");
  for (size_t i = 0; i < in.opNames().size(); ++i)
    if (in.fullOpName(i) != out.fullOpName(i) ||
        in.opNames()[i].isRegistered != out.opNames()[i].isRegistered)
      return differs("op name " + in.fullOpName(i) + " changed");
  if (in.properties().size() != out.properties().size())
    return differs("the properties section changed");
  for (size_t i = 0; i < in.properties().size(); ++i)
    if (in.bytesOf(in.properties()[i]) != out.bytesOf(out.properties()[i]))
      return differs("properties entry " + llvm::Twine(i) + " changed");
  return llvm::Error::success();
}

llvm::Error compareEntries(const BytecodeFile &in, const BytecodeFile &out,
                           const StripPlan &plan) {
  uint64_t expected =
      in.attributes().size() + plan.edits.appendedAttributes.size();
  if (out.attributes().size() != expected ||
      out.types().size() != in.types().size())
    return differs("the attribute/type table changed size");
  for (uint64_t i = 0; i < in.attributes().size(); ++i) {
    if (plan.edits.blankedAttributes[i]) {
      if (out.attrKind(i) != AttrKind::UnknownLoc)
        return differs("blanked attribute " + llvm::Twine(i) + " is not empty");
      continue;
    }
    const auto &a = in.attributes()[i], &b = out.attributes()[i];
    if (in.attrDialectName(i) != out.attrDialectName(i) ||
        a.hasCustomEncoding != b.hasCustomEncoding ||
        in.bytesOf(a.encoding) != out.bytesOf(b.encoding))
      return differs("attribute " + llvm::Twine(i) + " changed");
  }
  for (uint64_t i = in.attributes().size(); i < expected; ++i)
    if (out.attrKind(i) != AttrKind::UnknownLoc)
      return differs("added attribute " + llvm::Twine(i) +
                     " is not loc(unknown)");
  for (uint64_t i = 0; i < in.types().size(); ++i) {
    const auto &a = in.types()[i], &b = out.types()[i];
    if (a.dialect != b.dialect || a.hasCustomEncoding != b.hasCustomEncoding ||
        in.bytesOf(a.encoding) != out.bytesOf(b.encoding))
      return differs("type " + llvm::Twine(i) + " changed");
  }
  if (in.strings().size() != out.strings().size())
    return differs("the string table changed size");
  for (uint64_t i = 0; i < in.strings().size(); ++i) {
    llvm::StringRef want =
        plan.edits.emptiedStrings[i] ? llvm::StringRef() : in.strings()[i];
    if (out.strings()[i] != want)
      return differs("string " + llvm::Twine(i) + " changed");
  }
  return llvm::Error::success();
}

llvm::Error compareResources(const BytecodeFile &in, const BytecodeFile &out) {
  if (in.resourceGroups().size() != out.resourceGroups().size())
    return differs("the resource groups changed");
  for (uint32_t g = 0; g < in.resourceGroups().size(); ++g) {
    const auto &a = in.resourceGroups()[g], &b = out.resourceGroups()[g];
    if (a.name != b.name || a.isExternal != b.isExternal ||
        a.entries.size() != b.entries.size())
      return differs("resource group '" + a.name + "' changed");
    for (uint32_t e = 0; e < a.entries.size(); ++e) {
      const auto &x = a.entries[e], &y = b.entries[e];
      if (x.key != y.key || x.kind != y.kind || x.entry.size != y.entry.size ||
          x.boolValue != y.boolValue || x.stringValue != y.stringValue)
        return differs("resource '" + x.key + "' changed");
      if (x.kind != bytecode::ResourceKind::Blob)
        continue;
      llvm::Expected<bytecode::BlobData> blob = out.blobData(g, e);
      out.releasePages(y.entry);
      if (!blob)
        return blob.takeError();
      if (blob->data.offset % blob->alignment)
        return differs("resource '" + x.key + "' lost its " +
                       llvm::Twine(blob->alignment) + "-byte alignment");
    }
  }
  return llvm::Error::success();
}

/// A location the stripped file may hold: loc(unknown), one the plan kept,
/// or (op-id mode) a bare "coreai" op-id NameLoc.
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

llvm::Error compareIR(const BytecodeFile &in, const BytecodeFile &out,
                      const StripPlan &plan, const StripOptions &options) {
  if (in.operations().size() != out.operations().size() ||
      in.blocks().size() != out.blocks().size() ||
      in.regions().size() != out.regions().size())
    return differs("the number of ops, blocks or regions changed");
  LocationCheck check(out, options);
  for (uint32_t i = 0; i < in.operations().size(); ++i) {
    const auto &a = in.operations()[i], &b = out.operations()[i];
    auto where = [&] {
      return "op " + llvm::Twine(i) + " (" + in.fullOpName(a.name) + ")";
    };
    if (a.name != b.name || a.parentBlock != b.parentBlock ||
        a.depth != b.depth || a.propertiesForm != b.propertiesForm ||
        a.regionsIsolated != b.regionsIsolated || a.attrDict != b.attrDict ||
        a.propertiesAttr != b.propertiesAttr ||
        a.propertiesIndex != b.propertiesIndex ||
        a.hasUseListOrders != b.hasUseListOrders ||
        a.firstResultValueId != b.firstResultValueId ||
        !sameList(in.resultTypes(a), out.resultTypes(b)) ||
        !sameList(in.successors(a), out.successors(b)) ||
        !sameList(in.opRegions(a), out.opRegions(b)))
      return differs(where() + " changed");
    auto ina = in.operands(a), outb = out.operands(b);
    if (ina.size() != outb.size() ||
        !std::equal(ina.begin(), ina.end(), outb.begin(), sameValue))
      return differs(where() + ": its operands changed");
    auto edited = plan.edits.opLocations.find(i);
    uint64_t want =
        edited == plan.edits.opLocations.end() ? a.location : edited->second;
    if (b.location != want)
      return differs(where() + ": unexpected location");
    if (!check.clean(b.location))
      return differs(where() + " still carries a debug location");
  }
  for (uint32_t r = 0; r < in.regions().size(); ++r) {
    const auto &a = in.regions()[r], &b = out.regions()[r];
    if (a.parentOp != b.parentOp || a.numValues != b.numValues ||
        !sameList<uint32_t>(a.blocks, b.blocks))
      return differs("region " + llvm::Twine(r) + " changed");
  }
  for (uint32_t k = 0; k < in.blocks().size(); ++k) {
    const auto &a = in.blocks()[k], &b = out.blocks()[k];
    if (a.parentRegion != b.parentRegion ||
        a.arguments.size() != b.arguments.size() ||
        a.firstArgumentValueId != b.firstArgumentValueId ||
        !sameList<uint32_t>(a.operations, b.operations))
      return differs("block " + llvm::Twine(k) + " changed");
    for (uint32_t j = 0; j < a.arguments.size(); ++j) {
      if (a.arguments[j].type != b.arguments[j].type)
        return differs("block " + llvm::Twine(k) + " argument types changed");
      auto edited = plan.edits.blockArgLocations.find({k, j});
      uint64_t want = edited == plan.edits.blockArgLocations.end()
                          ? a.arguments[j].location
                          : edited->second;
      if (b.arguments[j].location != want ||
          !check.clean(b.arguments[j].location))
        return differs("block " + llvm::Twine(k) + " argument " +
                       llvm::Twine(j) + ": unexpected location");
    }
  }
  return llvm::Error::success();
}

} // namespace

llvm::Error aimodel::strip::verifyStripped(const BytecodeFile &input,
                                           const BytecodeFile &output,
                                           const StripPlan &plan,
                                           const StripOptions &options) {
  if (auto err = compareContainer(input, output))
    return err;
  if (auto err = compareEntries(input, output, plan))
    return err;
  if (auto err = compareResources(input, output))
    return err;
  return compareIR(input, output, plan, options);
}
