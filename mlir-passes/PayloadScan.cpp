//===- PayloadScan.cpp - Debug payload anywhere in a file -----------------===//

#include "mlir-passes/PayloadScan.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringSet.h"

#include <set>
#include <tuple>

using namespace aimodel;
using namespace aimodel::passes;
using bytecode::AttrKind;
using bytecode::BytecodeFile;
using bytecode::kNone;

llvm::StringRef aimodel::passes::payloadPlaceName(PayloadPlace place) {
  switch (place) {
  case PayloadPlace::Attribute:
    return "attributes";
  case PayloadPlace::Property:
    return "properties";
  case PayloadPlace::Location:
    return "locations";
  case PayloadPlace::Container:
    return "dialect, op or resource names";
  case PayloadPlace::PrivateEntry:
    return "private entries";
  case PayloadPlace::Unreferenced:
    return "unreferenced strings";
  }
  return "";
}

namespace {

/// The most visible place a reach bit set names.
PayloadPlace placeOf(uint8_t bits) {
  if (bits & bytecode::kReachedFromAttribute)
    return PayloadPlace::Attribute;
  if (bits & bytecode::kReachedFromProperty)
    return PayloadPlace::Property;
  if (bits & bytecode::kReachedFromLocation)
    return PayloadPlace::Location;
  if (bits & bytecode::kReachedFromContainer)
    return PayloadPlace::Container;
  if (bits & bytecode::kReachedFromPossible)
    return PayloadPlace::PrivateEntry;
  return PayloadPlace::Unreferenced;
}

class Collector {
public:
  explicit Collector(PayloadScan &out) : out(out) {}

  void string(llvm::StringRef text, PayloadPlace place,
              const std::string &origin) {
    bool any = false;
    auto add = [&](PayloadKind kind, llvm::StringRef piece) {
      any = true;
      hit(kind, piece, place, origin);
    };
    classifyPayload(text, add);
    if (!any)
      classifyBytes(text, add);
    if (any)
      piece(text);
  }

  void bytes(llvm::StringRef data, PayloadPlace place,
             const std::string &origin = "") {
    classifyBytes(data, [&](PayloadKind kind, llvm::StringRef text) {
      hit(kind, text, place, origin);
      if (kind != PayloadKind::UserName)
        piece(text);
    });
  }

private:
  void hit(PayloadKind kind, llvm::StringRef text, PayloadPlace place,
           const std::string &origin) {
    auto key = std::make_tuple(unsigned(kind), text.str(), unsigned(place));
    if (seen.insert(key).second)
      out.hits.push_back({kind, text.str(), place, origin});
  }
  void piece(llvm::StringRef text) {
    if (pieces.insert(text).second)
      out.pieces.push_back(text.str());
  }

  PayloadScan &out;
  std::set<std::tuple<unsigned, std::string, unsigned>> seen;
  llvm::StringSet<> pieces;
};

/// Whether a location entry carries payload: it, or anything it refers to,
/// holds a payload string. Memoized; references are acyclic and at most
/// kMaxEntryDepth deep (checked at open).
class LocationPayload {
public:
  LocationPayload(const BytecodeFile &file,
                  const std::vector<bool> &emptiedStrings,
                  const std::vector<bool> &blanked)
      : file(file), finder(file), emptied(emptiedStrings), blanked(blanked) {}

  bool carries(uint64_t attr) {
    if (attr == kNone || attr >= file.attributes().size() ||
        (attr < blanked.size() && blanked[attr]))
      return false;
    auto [it, fresh] = memo.try_emplace(attr, false);
    if (!fresh)
      return it->second;
    bytecode::EntryReferences refs = finder.ofAttribute(attr);
    bool any = false;
    // What private bytes only may refer to is no location's payload.
    if (refs.possible)
      refs = bytecode::EntryReferences();
    for (uint64_t str : refs.strings)
      any |= !(str < emptied.size() && emptied[str]) &&
             stringCarries(file.strings()[str]);
    for (uint64_t child : refs.attributes)
      any = any || carries(child);
    llvm::StringRef own = file.attrAsmText(attr);
    if (!own.empty() || file.attrKind(attr) == AttrKind::DialectOpaque)
      classifyBytes(file.bytesOf(file.attributes()[attr].encoding),
                    [&](PayloadKind, llvm::StringRef) { any = true; });
    memo[attr] = any;
    return any;
  }

private:
  static bool stringCarries(llvm::StringRef text) {
    bool any = false;
    classifyBytes(text, [&](PayloadKind, llvm::StringRef) { any = true; });
    return any || hasPayload(text);
  }

  const BytecodeFile &file;
  bytecode::ReferenceFinder finder;
  const std::vector<bool> &emptied;
  const std::vector<bool> &blanked;
  llvm::DenseMap<uint64_t, bool> memo;
};

bool isInlineText(const BytecodeFile &file, uint64_t attr) {
  switch (file.attrKind(attr)) {
  case AttrKind::Asm:
  case AttrKind::DialectOpaque:
  case AttrKind::DenseStringElements:
    return true;
  default:
    return false;
  }
}

} // namespace

PayloadScan
aimodel::passes::scanPayload(const BytecodeFile &file,
                             const bytecode::Reachability &reach,
                             const std::vector<bool> &emptiedStrings,
                             const std::vector<bool> &blankedAttributes) {
  PayloadScan out;
  Collector collect(out);
  auto isEmptied = [&](uint64_t i) {
    return i < emptiedStrings.size() && emptiedStrings[i];
  };
  auto isBlanked = [&](uint64_t i) {
    return i < blankedAttributes.size() && blankedAttributes[i];
  };
  for (uint64_t i = 0; i < file.strings().size(); ++i)
    if (!isEmptied(i))
      collect.string(file.strings()[i], placeOf(reach.strings[i]),
                     i < reach.possibleOrigin.size() ? reach.possibleOrigin[i]
                                                     : "");
  for (uint64_t i = 0; i < file.attributes().size(); ++i) {
    if (isBlanked(i) || !isInlineText(file, i))
      continue;
    PayloadPlace place = placeOf(reach.attributes[i]);
    std::string origin;
    if (file.attrKind(i) == AttrKind::DialectOpaque &&
        place != PayloadPlace::Unreferenced) {
      place = PayloadPlace::PrivateEntry;
      origin = "a private '" + file.attrDialectName(i).str() + "' attribute";
    }
    collect.bytes(file.bytesOf(file.attributes()[i].encoding), place, origin);
  }
  for (uint64_t i = 0; i < file.types().size(); ++i) {
    const bytecode::AttrTypeEntry &entry = file.types()[i];
    bool inlineText = !entry.hasCustomEncoding ||
                      file.typeCode(i) == bytecode::TypeCode::NotBuiltin;
    if (!inlineText)
      continue;
    PayloadPlace place = placeOf(reach.types[i]);
    std::string origin;
    if (entry.hasCustomEncoding && place != PayloadPlace::Unreferenced) {
      place = PayloadPlace::PrivateEntry;
      origin =
          "a private '" + file.dialects()[entry.dialect].name.str() + "' type";
    }
    collect.bytes(file.bytesOf(entry.encoding), place, origin);
  }
  for (const bytecode::Operation &op : file.operations())
    if (op.propertiesForm == bytecode::PropertiesForm::Native)
      collect.bytes(file.bytesOf(op.propertiesBlob), PayloadPlace::PrivateEntry,
                    "the properties of " + file.fullOpName(op.name));
  for (const bytecode::Dialect &dialect : file.dialects())
    if (dialect.versionBlob)
      collect.bytes(file.bytesOf(*dialect.versionBlob),
                    PayloadPlace::PrivateEntry,
                    "the '" + dialect.name.str() + "' dialect's version");

  // Which ops and block arguments are located by something with payload.
  if (!out.hits.empty()) {
    LocationPayload locations(file, emptiedStrings, blankedAttributes);
    for (const bytecode::Operation &op : file.operations())
      out.ops += locations.carries(op.location);
    for (const bytecode::Block &block : file.blocks())
      for (const bytecode::BlockArgument &arg : block.arguments)
        out.blockArguments += locations.carries(arg.location);
  }
  return out;
}

PayloadScan aimodel::passes::scanPayload(const BytecodeFile &file) {
  return scanPayload(file, bytecode::findReachable(file));
}

/// Whether scanPayload(file) finds any piece at all: what it classifies,
/// classified alike, up to the first piece (most files have none; those
/// that do, have it early).
static bool anyPayload(const BytecodeFile &file) {
  auto carries = [](llvm::StringRef bytes, bool isString) {
    bool any = false;
    auto found = [&](PayloadKind, llvm::StringRef) { any = true; };
    if (isString)
      classifyPayload(bytes, found);
    if (!any)
      classifyBytes(bytes, found);
    return any;
  };
  for (llvm::StringRef text : file.strings())
    if (carries(text, /*isString=*/true))
      return true;
  for (uint64_t i = 0; i < file.attributes().size(); ++i)
    if (isInlineText(file, i) &&
        carries(file.bytesOf(file.attributes()[i].encoding), false))
      return true;
  for (uint64_t i = 0; i < file.types().size(); ++i) {
    const bytecode::AttrTypeEntry &entry = file.types()[i];
    if ((!entry.hasCustomEncoding ||
         file.typeCode(i) == bytecode::TypeCode::NotBuiltin) &&
        carries(file.bytesOf(entry.encoding), false))
      return true;
  }
  for (const bytecode::Operation &op : file.operations())
    if (op.propertiesForm == bytecode::PropertiesForm::Native &&
        carries(file.bytesOf(op.propertiesBlob), false))
      return true;
  for (const bytecode::Dialect &dialect : file.dialects())
    if (dialect.versionBlob &&
        carries(file.bytesOf(*dialect.versionBlob), false))
      return true;
  return false;
}

std::optional<IRFinding>
aimodel::passes::debugPayloadFinding(const BytecodeFile &file) {
  // Reachability (where a piece lives) only when there is a piece at all.
  if (!anyPayload(file))
    return std::nullopt;
  PayloadScan scan = scanPayload(file);
  constexpr size_t kExamples = 3;
  IRFinding finding;
  finding.ruleId = "AIM007";
  finding.ops = scan.ops;
  finding.blockArguments = scan.blockArguments;
  std::string what;
  for (unsigned kind = 0; kind < kNumPayloadKinds; ++kind) {
    llvm::SmallVector<llvm::StringRef, 8> pieces;
    llvm::StringSet<> seen;
    for (const PayloadHit &hit : scan.hits)
      if (unsigned(hit.kind) == kind && seen.insert(hit.text).second)
        pieces.push_back(hit.text);
    if (pieces.empty())
      continue;
    std::string part = std::to_string(pieces.size()) + " " +
                       payloadKindName(PayloadKind(kind)).str() +
                       (pieces.size() == 1 ? "" : "s") + " (";
    for (size_t i = 0; i < pieces.size() && i < kExamples; ++i) {
      part += (i ? ", " : "") + pieces[i].str();
      finding.examples.push_back(pieces[i].str());
    }
    part += pieces.size() > kExamples ? ", ...)" : ")";
    what += (what.empty() ? "" : "; ") + part;
  }
  finding.message = "debug payload: " + what;
  if (finding.ops || finding.blockArguments)
    finding.message += "; in the locations of " +
                       countPhrase(finding.ops, finding.blockArguments);
  // Where it lives, most visible first.
  std::set<PayloadPlace> places;
  llvm::SetVector<llvm::StringRef> origins;
  for (const PayloadHit &hit : scan.hits) {
    places.insert(hit.place);
    if (hit.place == PayloadPlace::PrivateEntry && !hit.origin.empty())
      origins.insert(hit.origin);
  }
  std::string where;
  for (PayloadPlace place : places) {
    std::string part = payloadPlaceName(place).str();
    if (place == PayloadPlace::PrivateEntry && !origins.empty()) {
      part += " (";
      for (size_t i = 0; i < origins.size() && i < kExamples; ++i)
        part += (i ? ", " : "") + origins[i].str();
      part += origins.size() > kExamples ? ", ...)" : ")";
    }
    where += (where.empty() ? "" : ", ") + part;
  }
  finding.message += "; in: " + where;
  return finding;
}
