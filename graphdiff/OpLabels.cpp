//===- OpLabels.cpp - What an op computes, as a hash ----------------------===//

#include "graphdiff/OpLabels.h"
#include "bytecode/EntryReferences.h"
#include "bytecode/NativeProperties.h"
#include "graphdiff/Hashing.h"

#include "llvm/Support/xxhash.h"

#include <map>

using namespace aimodel;
using namespace aimodel::graphdiff;
using bytecode::AttrKind;
using bytecode::BytecodeFile;
using bytecode::DecodedAttr;
using bytecode::kNone;
using bytecode::Operation;
using bytecode::TypeCode;

namespace {
/// Domain tags: hashes of different things never mix.
enum Tag : uint64_t {
  kOpTag = 1,
  kResultsTag,
  kRegionsTag,
  kDictionaryTag,
  kArrayTag,
  kSymbolTag,
  kNestedSymbolTag,
  kWeightTag,
  kDistinctTag,
  kNoPropertiesTag,
  kNativePropertiesTag,
  kArgumentTag,
  kExternalTag,
  kNameTag,
  kBlobTag,
  kValueTag,
};
} // namespace

bool graphdiff::isDisplayName(llvm::StringRef attributeName) {
  return attributeName == "sym_name" || attributeName == "coreai.name";
}

/// A known upstream encoding's members that count, like a dictionary's:
/// present, and not a display name. nullopt for an unknown encoding.
static std::optional<llvm::SmallVector<bytecode::PropertyMember, 8>>
countedNativeMembers(const bytecode::BytecodeFile &file,
                     const bytecode::Operation &op) {
  auto decoded = bytecode::decodeNativeProperties(file, op);
  if (decoded)
    llvm::erase_if(*decoded, [](const bytecode::PropertyMember &member) {
      return member.attr == kNone || isDisplayName(member.name);
    });
  return decoded;
}

/// A dictionary member's or property's name: by its text, so that a
/// property written natively (named by its schema) and the same property in
/// a dictionary (named by a string attribute) hash alike.
static uint64_t memberNameHash(llvm::StringRef name) {
  return llvm::xxh3_64bits(name);
}

uint64_t OpLabeler::memberName(uint64_t nameAttr) const {
  return memberNameHash(file.decodedAttr(nameAttr).str);
}

uint64_t OpParts::label() const {
  return HashBuilder(kOpTag)
      .add(name)
      .add(operands)
      .add(results)
      .add(regions)
      .add(attributes)
      .add(properties)
      .get();
}

OpLabeler::OpLabeler(const BytecodeFile &file, WeightsMode weights)
    : file(file), weights(weights), hasher(file),
      nameHashes(file.opNames().size(), 0), noSymbols(file.attributes().size()),
      symbolsKnown(file.attributes().size()) {}

void OpLabeler::setSymbolKeys(SymbolKeys newKeys) {
  keys = std::move(newKeys);
  symbolicMemo.clear();
}

uint64_t OpLabeler::nameKey(llvm::StringRef symbol) {
  return HashBuilder(kNameTag).add(llvm::xxh3_64bits(symbol)).get();
}

uint64_t OpLabeler::symbolKey(llvm::StringRef symbol) {
  return keys ? keys(symbol) : nameKey(symbol);
}

std::optional<OpLabeler::Hashed> OpLabeler::memoised(uint64_t key) const {
  if (auto it = plainMemo.find(key); it != plainMemo.end())
    return Hashed{it->second, false};
  if (auto it = symbolicMemo.find(key); it != symbolicMemo.end())
    return Hashed{it->second, true};
  return std::nullopt;
}

OpLabeler::Hashed OpLabeler::memoise(uint64_t key, Hashed hashed) {
  (hashed.symbolic ? symbolicMemo : plainMemo)[key] = hashed.hash;
  return hashed;
}

OpLabeler::Hashed OpLabeler::attribute(uint64_t index) {
  if (index >= file.attributes().size())
    return {};
  uint64_t key = index << 2;
  if (std::optional<Hashed> known = memoised(key))
    return *known;
  Hashed hashed = computeAttribute(index);
  return memoise(key, hashed);
}

static bool isFloatType(const BytecodeFile &file, uint64_t type) {
  switch (file.typeCode(type)) {
  case TypeCode::BFloat16:
  case TypeCode::Float16:
  case TypeCode::Float32:
  case TypeCode::Float64:
  case TypeCode::Float80:
  case TypeCode::Float128:
    return true;
  case TypeCode::Complex:
    if (auto info = file.builtinType(type))
      return info->elementType != kNone &&
             file.typeCode(info->elementType) != TypeCode::Complex &&
             isFloatType(file, info->elementType);
    return false;
  case TypeCode::NotBuiltin: // f8E4M3FN, tf32, ... are stored as text
    return file.intOrFloatBitWidth(type).has_value();
  default:
    return false;
  }
}

bool graphdiff::isConstantValue(llvm::StringRef opName,
                                llvm::StringRef member) {
  // A dialect's op name with or without its dialect prefix.
  llvm::StringRef kind = opName.substr(opName.rfind('.') + 1);
  return member == "value" && (kind == "constant" || kind == "const");
}

bool OpLabeler::isWeight(const DecodedAttr &attr) const {
  if ((attr.kind != AttrKind::DenseResourceElements &&
       attr.kind != AttrKind::DenseIntOrFPElements) ||
      attr.typeIndex == kNone)
    return false;
  std::optional<bytecode::BuiltinTypeInfo> info =
      file.builtinType(attr.typeIndex);
  if (!info || info->elementType == kNone ||
      !isFloatType(file, info->elementType))
    return false;
  // Few values (epsilons, scales, masks) are not learned: compared always.
  if (info->numElements && *info->numElements <= kMaxValueElements)
    return false;
  if (attr.kind == AttrKind::DenseResourceElements)
    return true;
  std::optional<uint64_t> bits = file.denseElementBitWidth(info->elementType);
  // A splat stores one element.
  return bits && attr.payload.size * 8 > *bits;
}

bool OpLabeler::isWeightAttr(uint64_t index) {
  if (index >= file.attributes().size())
    return false;
  AttrKind kind = file.attrKind(index);
  if (kind != AttrKind::DenseResourceElements &&
      kind != AttrKind::DenseIntOrFPElements)
    return false;
  return isWeight(file.decodedAttr(index));
}

OpLabeler::Hashed OpLabeler::weightOrValue(uint64_t index) {
  if (!isWeightAttr(index))
    return attribute(index);
  uint64_t key = index << 2 | 3;
  if (auto it = plainMemo.find(key); it != plainMemo.end())
    return {it->second, false};
  DecodedAttr attr = file.decodedAttr(index);
  HashBuilder hash(kWeightTag);
  hash.add(hasher.type(attr.typeIndex));
  if (weights == WeightsMode::Digest)
    hash.add(attr.kind == AttrKind::DenseResourceElements
                 ? blobDigest(attr.resourceHandle)
                 : llvm::xxh3_64bits(file.bytesOf(attr.payload)));
  return {plainMemo[key] = hash.get(), false};
}

bool OpLabeler::isConstant(const Operation &op) {
  return isConstantValue(file.opNames()[op.name].name, "value");
}

bool OpLabeler::holdsWeight(uint32_t opIndex) {
  const Operation &op = file.operations()[opIndex];
  if (!isConstant(op))
    return false;
  std::optional<uint64_t> value = bytecode::opMember(file, op, "value");
  return value && isWeightAttr(*value);
}

uint64_t OpLabeler::blobDigest(uint64_t handle) {
  if (auto it = blobDigests.find(handle); it != blobDigests.end())
    return it->second;
  uint64_t digest = 0;
  if (handle < file.dialectResourceHandles().size()) {
    auto [group, entry] = file.dialectResourceHandles()[handle];
    const bytecode::ResourceEntry &resource =
        file.resourceGroups()[group].entries[entry];
    HashBuilder out(kBlobTag);
    switch (resource.kind) {
    case bytecode::ResourceKind::Blob:
      if (llvm::Expected<bytecode::BlobData> blob =
              file.blobData(group, entry)) {
        out.add(blob->data.size)
            .add(llvm::xxh3_64bits(file.bytesOf(blob->data)));
        if (blob->data.size > (uint64_t(1) << 20))
          file.releasePages(blob->data);
      } else {
        llvm::consumeError(blob.takeError());
        out.add(~uint64_t(0)).add(llvm::xxh3_64bits(resource.key));
      }
      break;
    case bytecode::ResourceKind::Bool:
      out.add(resource.boolValue);
      break;
    case bytecode::ResourceKind::String:
      out.add(llvm::xxh3_64bits(resource.stringValue));
      break;
    }
    digest = out.get();
  }
  return blobDigests[handle] = digest;
}

OpLabeler::Hashed OpLabeler::computeAttribute(uint64_t index) {
  AttrKind kind = file.attrKind(index);
  switch (kind) {
  case AttrKind::Dictionary:
  case AttrKind::Array:
  case AttrKind::FlatSymbolRef:
  case AttrKind::SymbolRef:
  case AttrKind::DenseResourceElements:
  case AttrKind::DenseIntOrFPElements:
  case AttrKind::Distinct:
    break;
  default: // nothing inside can name a symbol or be a weight
    return {hasher.attribute(index), false};
  }
  DecodedAttr attr = file.decodedAttr(index);
  Hashed out;
  switch (kind) {
  case AttrKind::Dictionary: {
    HashBuilder hash(kDictionaryTag);
    hash.add(attr.namedAttrs.size());
    for (const bytecode::NamedAttrRef &named : attr.namedAttrs) {
      Hashed value = attribute(named.value);
      hash.add(memberName(named.name)).add(value.hash);
      out.symbolic |= value.symbolic;
    }
    out.hash = hash.get();
    break;
  }
  case AttrKind::Array: {
    HashBuilder hash(kArrayTag);
    hash.add(attr.elements.size());
    for (uint64_t element : attr.elements) {
      Hashed value = attribute(element);
      hash.add(value.hash);
      out.symbolic |= value.symbolic;
    }
    out.hash = hash.get();
    break;
  }
  case AttrKind::FlatSymbolRef:
  case AttrKind::SymbolRef: {
    HashBuilder hash(kSymbolTag);
    hash.add(symbolKey(attr.str)).add(attr.elements.size());
    for (uint64_t nested : attr.elements)
      hash.add(HashBuilder(kNestedSymbolTag)
                   .add(nameKey(file.decodedAttr(nested).str))
                   .get());
    out = {hash.get(), true};
    break;
  }
  case AttrKind::DenseIntOrFPElements:
    // Inline data is part of the entry: its structural hash has it.
    return {hasher.attribute(index), false};
  case AttrKind::DenseResourceElements:
    // A value, not a weight (weightOrValue() decides): by its bytes,
    // whatever the blob's key.
    out.hash = HashBuilder(kValueTag)
                   .add(hasher.type(attr.typeIndex))
                   .add(blobDigest(attr.resourceHandle))
                   .get();
    break;
  default: { // Distinct: as the attribute it wraps
    Hashed value = attribute(attr.metadata);
    out = {HashBuilder(kDistinctTag).add(value.hash).get(), value.symbolic};
    break;
  }
  }
  return out;
}

OpLabeler::Hashed OpLabeler::filteredDictionary(uint64_t index,
                                                bool constantOp) {
  if (index >= file.attributes().size() ||
      file.attrKind(index) != AttrKind::Dictionary)
    return attribute(index);
  uint64_t key = index << 2 | (constantOp ? 2 : 1);
  if (std::optional<Hashed> known = memoised(key))
    return *known;
  DecodedAttr attr = file.decodedAttr(index);
  HashBuilder hash(kDictionaryTag);
  Hashed out;
  for (const bytecode::NamedAttrRef &named : attr.namedAttrs) {
    llvm::StringRef name = file.decodedAttr(named.name).str;
    if (isDisplayName(name))
      continue;
    Hashed value = memberValue(name, named.value, constantOp);
    hash.add(memberNameHash(name)).add(value.hash);
    out.symbolic |= value.symbolic;
  }
  out.hash = hash.get();
  return memoise(key, out);
}

OpLabeler::Hashed OpLabeler::memberValue(llvm::StringRef name, uint64_t value,
                                         bool constantOp) {
  if (constantOp && name == "value")
    return weightOrValue(value);
  if (name != "arg_attrs" && name != "res_attrs")
    return attribute(value);
  // One dictionary per input or output: their display names are the
  // interface's, which the interface comparison reports (GraphDiff.h).
  if (value >= file.attributes().size() ||
      file.attrKind(value) != AttrKind::Array)
    return attribute(value);
  uint64_t key = value << 2 | 1;
  if (std::optional<Hashed> known = memoised(key))
    return *known;
  DecodedAttr attr = file.decodedAttr(value);
  HashBuilder hash(kArrayTag);
  hash.add(attr.elements.size());
  Hashed out;
  for (uint64_t element : attr.elements) {
    Hashed port = filteredDictionary(element);
    hash.add(port.hash);
    out.symbolic |= port.symbolic;
  }
  out.hash = hash.get();
  return memoise(key, out);
}

OpLabeler::Hashed OpLabeler::opProperties(const Operation &op,
                                          bool constantOp) {
  switch (op.propertiesForm) {
  case bytecode::PropertiesForm::None:
    return {HashBuilder(kNoPropertiesTag).get(), false};
  case bytecode::PropertiesForm::Attribute:
    return filteredDictionary(op.propertiesAttr, constantOp);
  case bytecode::PropertiesForm::Native:
    if (auto decoded = countedNativeMembers(file, op)) {
      // A known upstream encoding: its fields, like a dictionary's members.
      HashBuilder hash(kDictionaryTag);
      Hashed out;
      for (const bytecode::PropertyMember &member : *decoded) {
        Hashed value = memberValue(member.name, member.attr, constantOp);
        hash.add(memberNameHash(member.name)).add(value.hash);
        out.symbolic |= value.symbolic;
      }
      out.hash = hash.get();
      return out;
    }
    return {opaqueProperties(op.propertiesBlob), false};
  }
  return {};
}

uint64_t OpLabeler::opaqueProperties(bytecode::Span blob) {
  // The dialect's own encoding: its bytes, which may embed table indices,
  // AND what every index it may hold names (the varint rule of
  // EntryReferences.h). Equal bytes naming different entries (the same
  // index, another table order) must not compare equal. Locations never
  // count, as everywhere in a label.
  llvm::StringRef bytes = file.bytesOf(blob);
  HashBuilder hash(kNativePropertiesTag);
  hash.add(llvm::xxh3_64bits(bytes));
  uint64_t numAttrs = file.attributes().size(), numTypes = file.types().size(),
           numStrings = file.strings().size();
  bytecode::forEachPossibleIndex(bytes, [&](uint64_t v) {
    hash.add(v < numAttrs && !file.isLocation(v) ? hasher.attribute(v) : 0);
    hash.add(v < numTypes ? hasher.type(v) : 0);
    hash.add(v < numStrings ? llvm::xxh3_64bits(file.strings()[v]) : 0);
  });
  return hash.get();
}

OpParts OpLabeler::parts(uint32_t opIndex) {
  const Operation &op = file.operations()[opIndex];
  OpParts parts;
  uint64_t &name = nameHashes[op.name];
  if (!name)
    name = llvm::xxh3_64bits(file.fullOpName(op.name)) | 1;
  parts.name = name;
  parts.operands = file.operands(op).size();
  HashBuilder results(kResultsTag);
  results.add(file.resultTypes(op).size());
  for (uint64_t type : file.resultTypes(op))
    results.add(hasher.type(type));
  parts.results = results.get();
  HashBuilder regions(kRegionsTag);
  regions.add(file.opRegions(op).size());
  // Every block's argument count and types: a region's interface.
  for (uint32_t region : file.opRegions(op)) {
    regions.add(file.regions()[region].blocks.size());
    for (uint32_t block : file.regions()[region].blocks) {
      regions.add(file.blocks()[block].arguments.size());
      for (const bytecode::BlockArgument &arg : file.blocks()[block].arguments)
        regions.add(hasher.type(arg.type));
    }
  }
  regions.add(file.successors(op).size());
  if (!file.successors(op).empty() && blockPositions.empty()) {
    blockPositions.assign(file.blocks().size(), 0);
    for (const bytecode::Region &region : file.regions())
      for (uint32_t k = 0; k < region.blocks.size(); ++k)
        blockPositions[region.blocks[k]] = k;
  }
  for (uint32_t block : file.successors(op)) // by position in its region
    regions.add(blockPositions[block]);
  parts.regions = regions.get();
  // No dictionary is an empty one (one with display names only, too).
  bool constant = isConstant(op);
  parts.attributes = op.attrDict == kNone
                         ? HashBuilder(kDictionaryTag).get()
                         : filteredDictionary(op.attrDict, constant).hash;
  parts.properties = opProperties(op, constant).hash;
  return parts;
}

uint64_t OpLabeler::valueType(const FunctionGraph &graph, uint32_t v) const {
  const VertexInfo &info = graph[v];
  auto blockArgType = [&](uint32_t block, uint32_t number) -> uint64_t {
    if (block >= file.blocks().size() ||
        number >= file.blocks()[block].arguments.size())
      return kNone;
    return file.blocks()[block].arguments[number].type;
  };
  if (info.kind == VertexKind::Argument) {
    auto regions = file.opRegions(file.operations()[info.op]);
    if (info.region >= regions.size())
      return kNone;
    const bytecode::Region &region = file.regions()[regions[info.region]];
    if (info.block >= region.blocks.size())
      return kNone;
    return blockArgType(region.blocks[info.block], info.number);
  }
  if (info.kind == VertexKind::External) {
    if (info.op == bytecode::kNoIndex)
      return blockArgType(info.block, info.number);
    auto types = file.resultTypes(file.operations()[info.op]);
    return info.number < types.size() ? types[info.number] : kNone;
  }
  return kNone;
}

uint64_t OpLabeler::vertexLabel(const FunctionGraph &graph, uint32_t v) {
  const VertexInfo &info = graph[v];
  switch (info.kind) {
  case VertexKind::Op:
    return parts(info.op).label();
  case VertexKind::Argument:
    return HashBuilder(kArgumentTag)
        .add(graph[info.parent].opName)
        .add(info.region)
        .add(info.block)
        .add(info.number)
        .add(hasher.type(valueType(graph, v)))
        .get();
  case VertexKind::External:
    return HashBuilder(kExternalTag)
        .add(hasher.type(valueType(graph, v)))
        .get();
  }
  return 0;
}

std::vector<std::pair<std::string, uint64_t>>
OpLabeler::propertyMembers(const Operation &op) {
  if (op.propertiesForm == bytecode::PropertiesForm::Attribute)
    return members(op.propertiesAttr);
  std::vector<std::pair<std::string, uint64_t>> out;
  if (auto decoded = countedNativeMembers(file, op))
    for (const bytecode::PropertyMember &member : *decoded)
      out.emplace_back(member.name.str(), member.attr);
  return out;
}

std::vector<std::pair<std::string, uint64_t>>
OpLabeler::members(uint64_t dict) {
  std::vector<std::pair<std::string, uint64_t>> out;
  if (dict == kNone || dict >= file.attributes().size())
    return out;
  if (file.attrKind(dict) != AttrKind::Dictionary) {
    out.emplace_back("", dict);
    return out;
  }
  for (const bytecode::NamedAttrRef &named : file.decodedAttr(dict).namedAttrs)
    if (!isDisplayName(file.decodedAttr(named.name).str))
      out.emplace_back(file.decodedAttr(named.name).str.str(), named.value);
  return out;
}

std::string OpLabeler::differingMembers(const MemberList &mine,
                                        OpLabeler &other,
                                        const MemberList &theirs,
                                        bool constantOps, bool &onlyWeights) {
  // Member values by name, as attribute index + 1 (0: absent).
  std::map<std::string, std::pair<uint64_t, uint64_t>> byName;
  for (const auto &[name, value] : mine)
    byName[name].first = value + 1;
  for (const auto &[name, value] : theirs)
    byName[name].second = value + 1;
  std::string text;
  onlyWeights = true;
  // A value is shown when it is short enough to read in one line.
  auto shown = [](std::string value) {
    constexpr size_t kMaxValue = 60;
    if (value.size() > kMaxValue)
      value = value.substr(0, kMaxValue - 3) + "...";
    return value;
  };
  for (const auto &[name, values] : byName) {
    auto [a, b] = values;
    if (a && b &&
        memberValue(name, a - 1, constantOps).hash ==
            other.memberValue(name, b - 1, constantOps).hash)
      continue;
    bool weights =
        a && b && constantOps && isConstantValue("constant", name) &&
        isWeightAttr(a - 1) && other.isWeightAttr(b - 1) &&
        hasher.type(file.decodedAttr(a - 1).typeIndex) ==
            other.hasher.type(other.file.decodedAttr(b - 1).typeIndex);
    onlyWeights &= weights;
    text += (text.empty() ? "" : ", ") + (name.empty() ? "(whole)" : name);
    if (weights)
      continue;
    std::string before = a ? shown(attrText(a - 1)) : std::string("(none)");
    std::string after =
        b ? shown(other.attrText(b - 1)) : std::string("(none)");
    if (a && b && before == after) {
      // Equal as printed: say what differs, never "x -> x".
      uint64_t ta = file.decodedAttr(a - 1).typeIndex,
               tb = other.file.decodedAttr(b - 1).typeIndex;
      if (ta != kNone && tb != kNone &&
          hasher.type(ta) != other.hasher.type(tb)) {
        before += " : " + typeText(ta);
        after += " : " + other.typeText(tb);
      } else if (attribute(a - 1).symbolic) {
        after += " (the symbols name functions that do not pair)";
      } else if (file.attrKind(a - 1) == AttrKind::DenseResourceElements) {
        after += " (other bytes)";
      } else {
        after += " (same text, other encoding)";
      }
    }
    text += ": " + before + " \u2192 " + after;
  }
  if (text.empty())
    onlyWeights = false;
  return text;
}

std::vector<std::string> OpLabeler::differences(uint32_t a, OpLabeler &other,
                                                uint32_t b) {
  std::vector<std::string> out;
  OpParts pa = parts(a), pb = other.parts(b);
  const Operation &opA = file.operations()[a];
  const Operation &opB = other.file.operations()[b];
  if (pa.name != pb.name)
    out.push_back("op " + file.fullOpName(opA.name) + " vs " +
                  other.file.fullOpName(opB.name));
  if (pa.operands != pb.operands)
    out.push_back("operand count " + std::to_string(pa.operands) + " vs " +
                  std::to_string(pb.operands));
  if (pa.results != pb.results) {
    auto ta = file.resultTypes(opA), tb = other.file.resultTypes(opB);
    if (ta.size() != tb.size())
      out.push_back("result count " + std::to_string(ta.size()) + " vs " +
                    std::to_string(tb.size()));
    else
      for (size_t i = 0; i < ta.size(); ++i)
        if (typeHash(ta[i]) != other.typeHash(tb[i])) {
          out.push_back((ta.size() == 1
                             ? std::string("result type ")
                             : "result " + std::to_string(i) + " type ") +
                        typeText(ta[i]) + " \u2192 " + other.typeText(tb[i]));
          break;
        }
  }
  if (pa.regions != pb.regions)
    regionDifferences(opA, other, opB, out);
  auto describe = [&](const char *what, const MemberList &membersA,
                      const MemberList &membersB) {
    bool onlyWeights = false;
    std::string names =
        differingMembers(membersA, other, membersB,
                         isConstant(opA) && other.isConstant(opB), onlyWeights);
    if (names.empty())
      names = "(order)";
    out.push_back(onlyWeights ? "weight values differ: " + names
                              : std::string(what) + " differ: " + names);
  };
  if (pa.attributes != pb.attributes)
    describe("attributes", members(opA.attrDict), other.members(opB.attrDict));
  if (pa.properties != pb.properties) {
    using bytecode::PropertiesForm;
    auto readable = [](const BytecodeFile &f, const Operation &op) {
      return op.propertiesForm == PropertiesForm::Attribute ||
             bytecode::decodeNativeProperties(f, op).has_value();
    };
    if (opA.propertiesForm == opB.propertiesForm && readable(file, opA) &&
        readable(other.file, opB))
      describe("properties", propertyMembers(opA), other.propertyMembers(opB));
    else if (opA.propertiesForm == PropertiesForm::Native &&
             opB.propertiesForm == PropertiesForm::Native)
      out.push_back("properties differ (natively encoded)");
    else
      out.push_back("properties differ");
  }
  return out;
}

void OpLabeler::regionDifferences(const Operation &opA, OpLabeler &other,
                                  const Operation &opB,
                                  std::vector<std::string> &out) {
  auto ra = file.opRegions(opA), rb = other.file.opRegions(opB);
  size_t before = out.size();
  if (ra.size() != rb.size())
    out.push_back("region count " + std::to_string(ra.size()) + " vs " +
                  std::to_string(rb.size()));
  for (size_t r = 0; r < std::min(ra.size(), rb.size()); ++r) {
    const auto &ba = file.regions()[ra[r]].blocks;
    const auto &bb = other.file.regions()[rb[r]].blocks;
    std::string where = "region " + std::to_string(r);
    if (ba.size() != bb.size()) {
      out.push_back(where + ": " + std::to_string(ba.size()) + " vs " +
                    std::to_string(bb.size()) + " blocks");
      continue;
    }
    for (size_t k = 0; k < ba.size(); ++k) {
      const auto &aa = file.blocks()[ba[k]].arguments;
      const auto &ab = other.file.blocks()[bb[k]].arguments;
      std::string block =
          where + (ba.size() > 1 ? " block " + std::to_string(k) : "");
      if (aa.size() != ab.size()) {
        out.push_back(block + ": " + std::to_string(aa.size()) + " vs " +
                      std::to_string(ab.size()) + " block arguments");
        continue;
      }
      for (size_t i = 0; i < aa.size(); ++i)
        if (typeHash(aa[i].type) != other.typeHash(ab[i].type))
          out.push_back(block + " argument " + std::to_string(i) + " type " +
                        typeText(aa[i].type) + " \u2192 " +
                        other.typeText(ab[i].type));
    }
  }
  if (out.size() == before)
    out.push_back("successors differ");
}

bool OpLabeler::collectSymbols(uint64_t index,
                               llvm::SmallVectorImpl<llvm::StringRef> *out) {
  if (index >= file.attributes().size())
    return false;
  if (symbolsKnown[index] && noSymbols[index])
    return false;
  bool found = false;
  switch (file.attrKind(index)) {
  case AttrKind::FlatSymbolRef:
  case AttrKind::SymbolRef:
    if (out)
      out->push_back(file.decodedAttr(index).str);
    found = true;
    break;
  case AttrKind::Dictionary:
    for (const bytecode::NamedAttrRef &named :
         file.decodedAttr(index).namedAttrs)
      found |= collectSymbols(named.value, out);
    break;
  case AttrKind::Array:
    for (uint64_t element : file.decodedAttr(index).elements)
      found |= collectSymbols(element, out);
    break;
  case AttrKind::Distinct:
    found = collectSymbols(file.decodedAttr(index).metadata, out);
    break;
  default:
    break;
  }
  symbolsKnown.set(index);
  if (!found)
    noSymbols.set(index);
  return found;
}

void OpLabeler::symbolRefs(uint32_t opIndex,
                           llvm::SmallVectorImpl<llvm::StringRef> &out) {
  const Operation &op = file.operations()[opIndex];
  if (op.attrDict != kNone)
    collectSymbols(op.attrDict, &out);
  if (op.propertiesForm == bytecode::PropertiesForm::Attribute)
    collectSymbols(op.propertiesAttr, &out);
  else if (auto decoded = bytecode::decodeNativeProperties(file, op))
    for (const bytecode::PropertyMember &member : *decoded)
      if (member.attr != kNone)
        collectSymbols(member.attr, &out);
}
