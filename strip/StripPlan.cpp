//===- StripPlan.cpp - Which locations, entries and strings go ------------===//

#include "strip/StripPlan.h"

#include "bytecode/EntryReferences.h"
#include "mlir-passes/BytecodeLocationView.h"
#include "mlir-passes/DebugPayload.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SetVector.h"

#include <set>

using namespace aimodel;
using namespace aimodel::strip;
using bytecode::AttrKind;
using bytecode::BytecodeFile;
using bytecode::kNone;

namespace {

constexpr size_t kExamples = 3;

/// What one location becomes.
class LocationChoice {
public:
  LocationChoice(const BytecodeFile &file, const StripOptions &options)
      : file(file), options(options), view(file), predicates(view) {}

  /// The new location of a site located at `loc`: `loc` itself when it
  /// stays, kNone for loc(unknown), or an op-id NameLoc (OpId mode).
  uint64_t choose(uint64_t loc) {
    auto [it, fresh] = choices.try_emplace(loc, loc);
    if (fresh)
      it->second = decide(loc);
    return it->second;
  }

  /// Private-dialect locations met (kept: only their dialect can rewrite
  /// them), by dialect name.
  std::set<std::string> privateDialects;

private:
  bool isCoreaiOpId(uint64_t loc) const {
    return predicates.isBareOpId(loc) && view.nameOf(loc) == "coreai";
  }

  uint64_t decide(uint64_t loc) {
    if (file.attrKind(loc) == AttrKind::UnknownLoc)
      return loc;
    llvm::StringRef dialect = file.attrDialectName(loc);
    if (dialect != "builtin") {
      privateDialects.insert(dialect.str());
      return loc;
    }
    if (options.locations == LocationMode::OpId) {
      if (isCoreaiOpId(loc))
        return loc;
      uint64_t found = kNone;
      file.forEachNestedLocation(loc, [&](uint64_t inner) {
        if (found == kNone && isCoreaiOpId(inner))
          found = inner;
      });
      if (found != kNone)
        return found;
    }
    return kNone;
  }

  const BytecodeFile &file;
  const StripOptions &options;
  passes::BytecodeLocationView view;
  passes::LocationPredicates<passes::BytecodeLocationView> predicates;
  llvm::DenseMap<uint64_t, uint64_t> choices;
};

/// Attribute entries and strings the written file still refers to. `opaque`
/// when some reachable part cannot be seen into.
struct Reachable {
  std::vector<bool> attributes, types, strings;
  bool opaque = false;
};

Reachable findReachable(const BytecodeFile &file, const StripPlan &plan) {
  Reachable out;
  out.attributes.assign(file.attributes().size(), false);
  out.types.assign(file.types().size(), false);
  out.strings.assign(file.strings().size(), false);
  bytecode::ReferenceFinder finder(file);
  std::vector<uint64_t> attrWork, typeWork;
  auto addRefs = [&](const bytecode::EntryReferences &refs) {
    out.opaque |= refs.opaque;
    attrWork.insert(attrWork.end(), refs.attributes.begin(),
                    refs.attributes.end());
    typeWork.insert(typeWork.end(), refs.types.begin(), refs.types.end());
    for (uint64_t str : refs.strings)
      out.strings[str] = true;
  };
  for (const bytecode::Dialect &dialect : file.dialects())
    out.opaque |= dialect.versionBlob.has_value();
  for (uint64_t str : finder.containerStrings())
    out.strings[str] = true;
  const auto &ops = file.operations();
  for (uint32_t i = 0; i < ops.size(); ++i) {
    auto edited = plan.edits.opLocations.find(i);
    attrWork.push_back(edited == plan.edits.opLocations.end() ? ops[i].location
                                                              : edited->second);
    addRefs(finder.ofOp(ops[i]));
  }
  const auto &blocks = file.blocks();
  for (uint32_t b = 0; b < blocks.size(); ++b)
    for (uint32_t a = 0; a < blocks[b].arguments.size(); ++a) {
      typeWork.push_back(blocks[b].arguments[a].type);
      uint64_t loc = blocks[b].arguments[a].location;
      auto edited = plan.edits.blockArgLocations.find({b, a});
      if (edited != plan.edits.blockArgLocations.end())
        loc = edited->second;
      if (loc != kNone)
        attrWork.push_back(loc);
    }
  while (!attrWork.empty() || !typeWork.empty()) {
    if (!attrWork.empty()) {
      uint64_t index = attrWork.back();
      attrWork.pop_back();
      // Appended entries (loc(unknown)) refer to nothing.
      if (index >= out.attributes.size() || out.attributes[index])
        continue;
      out.attributes[index] = true;
      addRefs(finder.ofAttribute(index));
    } else {
      uint64_t index = typeWork.back();
      typeWork.pop_back();
      if (out.types[index])
        continue;
      out.types[index] = true;
      addRefs(finder.ofType(index));
    }
  }
  return out;
}

void chooseLocations(const BytecodeFile &file, const StripOptions &options,
                     StripPlan &plan) {
  LocationChoice choice(file, options);
  bool needUnknown = false;
  const auto &ops = file.operations();
  for (uint32_t i = 0; i < ops.size(); ++i) {
    uint64_t loc = choice.choose(ops[i].location);
    if (loc == ops[i].location)
      continue;
    plan.edits.opLocations[i] = loc; // kNone fixed up below
    ++plan.opLocations;
    if (loc == kNone)
      needUnknown = true;
    else
      ++plan.opIdLocations;
  }
  const auto &blocks = file.blocks();
  for (uint32_t b = 0; b < blocks.size(); ++b)
    for (uint32_t a = 0; a < blocks[b].arguments.size(); ++a) {
      uint64_t old = blocks[b].arguments[a].location;
      if (old == kNone)
        continue; // elided: loc(unknown)
      uint64_t loc = choice.choose(old);
      if (loc == old)
        continue;
      // loc(unknown) of a block argument is written elided.
      plan.edits.blockArgLocations[{b, a}] =
          loc == kNone ? bytecode::BytecodeEdits::kElidedLocation : loc;
      ++plan.blockArgumentLocations;
    }
  if (!choice.privateDialects.empty()) {
    std::string dialects;
    for (const std::string &name : choice.privateDialects)
      dialects += (dialects.empty() ? "'" : ", '") + name + "'";
    plan.refused = "its debug locations are private-dialect attributes (" +
                   dialects +
                   ") that only their dialect can rewrite; re-export the "
                   "model in RELEASE mode instead";
  }
  if (!needUnknown)
    return;
  for (uint64_t i = 0; i < file.attributes().size(); ++i)
    if (file.attrKind(i) == AttrKind::UnknownLoc) {
      plan.unknownLocation = i;
      break;
    }
  if (plan.unknownLocation == kNone) {
    plan.unknownLocation = file.attributes().size();
    plan.edits.appendedAttributes.push_back(bytecode::encodeUnknownLoc());
  }
  for (auto &[op, loc] : plan.edits.opLocations)
    if (loc == kNone)
      loc = plan.unknownLocation;
}

bool hasPayloadString(const BytecodeFile &file) {
  for (llvm::StringRef str : file.strings())
    if (passes::hasPayload(str))
      return true;
  return false;
}

} // namespace

StripPlan aimodel::strip::planStrip(const BytecodeFile &file,
                                    const StripOptions &options) {
  StripPlan plan;
  chooseLocations(file, options, plan);
  // Private locations without any payload in the file are harmless: keep
  // them. With payload, the file cannot be made clean here.
  if (plan.refused && !hasPayloadString(file))
    plan.refused.reset();
  if (plan.refused)
    return plan;

  Reachable reachable = findReachable(file, plan);
  plan.edits.blankedAttributes.assign(file.attributes().size(), false);
  plan.edits.emptiedStrings.assign(file.strings().size(), false);
  if (!reachable.opaque) {
    std::string blank = bytecode::encodeUnknownLoc();
    for (uint64_t i = 0; i < file.attributes().size(); ++i) {
      if (reachable.attributes[i] || file.attrDialectName(i) != "builtin" ||
          file.bytesOf(file.attributes()[i].encoding) == blank)
        continue;
      plan.edits.blankedAttributes[i] = true;
      ++plan.entriesRemoved;
    }
    for (uint64_t i = 0; i < file.strings().size(); ++i)
      if (!reachable.strings[i] && !file.strings()[i].empty()) {
        plan.edits.emptiedStrings[i] = true;
        ++plan.stringsRemoved;
      }
  }
  llvm::SetVector<llvm::StringRef> kept;
  for (uint64_t i = 0; i < file.strings().size(); ++i)
    if (!plan.edits.emptiedStrings[i] && passes::hasPayload(file.strings()[i]))
      kept.insert(file.strings()[i]);
  plan.stringsKept = kept.size();
  for (size_t i = 0; i < kept.size() && i < kExamples; ++i)
    plan.keptExamples.push_back(kept[i].str());
  if (!kept.empty())
    plan.keptReason =
        reachable.opaque
            ? "the file holds entries the decoder cannot see into (private-"
              "dialect attributes or types, natively encoded properties or "
              "dialect versions), which may refer to any string"
            : "still used by what the file keeps (op attributes, properties "
              "or locations without payload)";
  return plan;
}
