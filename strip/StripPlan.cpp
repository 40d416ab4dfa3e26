//===- StripPlan.cpp - Which locations, entries and strings go ------------===//

#include "strip/StripPlan.h"

#include "bytecode/EntryReferences.h"
#include "mlir-passes/BytecodeLocationView.h"
#include "mlir-passes/DebugPayload.h"
#include "mlir-passes/PayloadScan.h"

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
  plan.needsUnknown = needUnknown;
}

/// Gives the ops that lose their location an index of loc(unknown): an
/// existing entry, else an entry blanked anyway (a blank is loc(unknown)),
/// else a new one, so a strip that removes anything never grows a file.
void placeUnknownLocation(const BytecodeFile &file, StripPlan &plan) {
  if (!plan.needsUnknown)
    return;
  for (uint64_t i = 0;
       i < file.attributes().size() && plan.unknownLocation == kNone; ++i)
    if (file.attrKind(i) == AttrKind::UnknownLoc ||
        plan.edits.blankedAttributes[i])
      plan.unknownLocation = i;
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

/// A private entry nothing reaches is blanked only when it carries payload:
/// a blank is a change, made only where it removes something.
bool entryHoldsPayload(const BytecodeFile &file, uint64_t index) {
  bool any = false;
  passes::classifyBytes(
      file.bytesOf(file.attributes()[index].encoding),
      [&](passes::PayloadKind, llvm::StringRef) { any = true; });
  return any;
}

} // namespace

KeptPayload aimodel::strip::keptPayloadOf(const passes::PayloadScan &scan,
                                          bool opaque) {
  KeptPayload kept;
  kept.count = scan.pieces.size();
  for (size_t i = 0; i < scan.pieces.size() && i < kExamples; ++i)
    kept.examples.push_back(scan.pieces[i]);
  if (!kept.count)
    return kept;
  std::set<passes::PayloadPlace> places;
  llvm::SetVector<llvm::StringRef> origins;
  for (const passes::PayloadHit &hit : scan.hits) {
    places.insert(hit.place);
    if (hit.place == passes::PayloadPlace::PrivateEntry && !hit.origin.empty())
      origins.insert(hit.origin);
  }
  std::string reason;
  auto add = [&](llvm::StringRef why) {
    reason += (reason.empty() ? "" : "; ") + why.str();
  };
  using passes::PayloadPlace;
  if (places.count(PayloadPlace::Attribute))
    add("op attributes or types the file keeps use them");
  if (places.count(PayloadPlace::Property))
    add("op properties the file keeps use them");
  if (places.count(PayloadPlace::Location))
    add("locations the file keeps use them");
  if (places.count(PayloadPlace::Container))
    add("they name dialects, ops or resources");
  if (places.count(PayloadPlace::PrivateEntry)) {
    std::string who;
    for (size_t i = 0; i < origins.size() && i < kExamples; ++i)
      who += (i ? ", " : "") + origins[i].str();
    if (origins.size() > kExamples)
      who += ", ...";
    add((who.empty() ? std::string("private-dialect entries") : who) +
        " may refer to them (private bytes are kept as they are, and these "
        "hold them or their index as a varint)");
  }
  if (places.count(PayloadPlace::Unreferenced))
    add(opaque ? "the file holds an entry whose references cannot be "
                 "bounded, so nothing could be removed"
               : "nothing refers to them");
  kept.reason = reason;
  return kept;
}

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

  // What the rewritten IR still reaches (ops losing their location reach
  // nothing through it).
  bytecode::LocationOverrides written{&plan.edits.opLocations,
                                      &plan.edits.blockArgLocations};
  bytecode::Reachability reach = bytecode::findReachable(file, written);
  plan.edits.blankedAttributes.assign(file.attributes().size(), false);
  plan.edits.emptiedStrings.assign(file.strings().size(), false);
  if (!reach.opaque) {
    // A location entry only private bytes may refer to (their varints may
    // be its index) becomes loc(unknown) at its index: still a location,
    // so whatever reads one there still can, without the payload.
    for (uint64_t i = 0; i < file.attributes().size(); ++i)
      if (reach.attributes[i] == bytecode::kReachedFromPossible &&
          file.isLocation(i) && file.attrKind(i) != AttrKind::UnknownLoc) {
        plan.edits.blankedAttributes[i] = true;
        ++plan.possiblyUsedLocations;
      }
    if (plan.possiblyUsedLocations) {
      written.blanked = &plan.edits.blankedAttributes;
      reach = bytecode::findReachable(file, written);
    }
    // Everything else nothing reaches is blanked (builtin entries, and
    // private ones that hold payload), every such string emptied.
    std::string blank = bytecode::encodeUnknownLoc();
    for (uint64_t i = 0; i < file.attributes().size(); ++i) {
      if (plan.edits.blankedAttributes[i]) {
        ++plan.entriesRemoved;
        continue;
      }
      if (reach.attributes[i] ||
          file.bytesOf(file.attributes()[i].encoding) == blank)
        continue;
      if (file.attrDialectName(i) != "builtin" && !entryHoldsPayload(file, i))
        continue;
      plan.edits.blankedAttributes[i] = true;
      ++plan.entriesRemoved;
    }
    for (uint64_t i = 0; i < file.strings().size(); ++i)
      if (!reach.strings[i] && !file.strings()[i].empty()) {
        plan.edits.emptiedStrings[i] = true;
        ++plan.stringsRemoved;
      }
  }
  placeUnknownLocation(file, plan);

  // What stays: the same scan the audit's AIM007 runs.
  passes::PayloadScan left = passes::scanPayload(
      file, reach, plan.edits.emptiedStrings, plan.edits.blankedAttributes);
  plan.kept = keptPayloadOf(left, reach.opaque);
  return plan;
}
