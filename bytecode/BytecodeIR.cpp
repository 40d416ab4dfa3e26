//===- BytecodeIR.cpp - Walk the IR section -------------------------------===//
//
// Decodes the IR section into flat op/region/block tables, mirroring the
// upstream reader's algorithm with an explicit stack (no recursion):
//
//  * The IR section starts like a block header of a root block holding the
//    top-level op(s): varint (numOps << 1 | hasArgs).
//  * An op is: op-name index, encoding mask byte, location attr index, then
//    the parts flagged in the mask (attr dict, properties, results,
//    operands, successors, use-list orders, regions).
//  * A region is: numBlocks, and if non-zero numValues followed by its
//    blocks; a block is its header then its ops. An op's regions are decoded
//    right after the op (pre-order). Regions of an op flagged
//    isolated-from-above are stored, all of them together, in ONE nested IR
//    section that follows the op's encoding.
//
// Value numbering (what ValueRef::id means), same as MLIR's writer/reader:
// each isolated-from-above op (and the root) opens a scope whose ids start
// at 0. Entering a region reserves `numValues` ids starting at the end of
// the ids reserved by the enclosing regions of the same scope; the region's
// block arguments and op results take them in order of definition (block 0
// args, block 0 op results, block 1 args, ...). Leaving the region releases
// them, so sibling regions reuse the same ids. Operands may name ids that are
// defined later in the same scope (graph regions, later blocks).
//
//===----------------------------------------------------------------------===//

#include "bytecode/BytecodeDecoder.h"

#include "llvm/ADT/DenseMap.h"

#include <map>

using namespace aimodel::bytecode;
using llvm::Error;

namespace aimodel::bytecode::irwalk {

enum OpMask : uint8_t {
  kHasAttrs = 0x01,
  kHasResults = 0x02,
  kHasOperands = 0x04,
  kHasSuccessors = 0x08,
  kHasInlineRegions = 0x10,
  kHasUseListOrders = 0x20,
  kHasProperties = 0x40,
};

struct ValueSlot {
  bool defined = false;
  bool isBlockArgument = false;
  uint32_t owner = kNoIndex;
  uint32_t number = 0;
};

struct ForwardUse {
  uint32_t operand; ///< index into BytecodeFile::operands_
  uint64_t offset;  ///< where the operand was read, for errors
};

/// Values of one isolated-from-above scope. Ids are only reserved by a
/// counter and slots exist only once defined, so a region that claims many
/// values costs nothing until bytes actually define them.
struct ValueScope {
  uint64_t reservedEnd = 0;      ///< ids [0, reservedEnd) are reserved
  std::vector<uint64_t> nextIds; ///< next id to define, per open region
  /// Open addressing, not a node per value. Ids stay far below DenseMap's
  /// reserved keys (~0 and ~0 - 1): they are bounded by the file's size.
  llvm::DenseMap<uint64_t, ValueSlot> defined;
  std::map<uint64_t, std::vector<ForwardUse>> forwardUses;
};

struct PendingSuccessor {
  uint32_t successor; ///< index into BytecodeFile::successors_
  uint64_t localBlock;
};

/// Progress through the regions of one op (or the root block).
struct RegionWalk {
  uint32_t op = kNoIndex; ///< kNoIndex for the root
  ByteCursor *cur = nullptr;
  std::unique_ptr<ByteCursor> ownedCursor; ///< nested IR section
  bool isolated = false;
  uint32_t depth = 0; ///< depth of the ops inside these regions
  size_t nextRegion = 0, numRegions = 0;
  // The region being decoded. Blocks are created as their headers are read
  // (not when the block count is read), so a bogus count cannot allocate.
  bool inRegion = false;
  uint32_t region = kNoIndex;
  uint64_t numBlocks = 0;
  std::vector<uint32_t> blocks; ///< global indices of the blocks read so far
  std::vector<PendingSuccessor> successors; ///< resolved at region end
  /// Region indices of `op` so far; appended to the flat opRegions_ array
  /// when the walk ends, since regions of nested ops are created in between.
  std::vector<uint32_t> regionIndices;
  uint64_t numOpsRemaining = 0;
  uint64_t numValues = 0;
};

class IRWalker {
public:
  IRWalker(Decoder &decoder) : decoder(decoder), file(decoder.file) {}

  Error run(Span section);

private:
  Error step(bool &pushedChild);
  Error startRegion(RegionWalk &walk);
  Error finishRegion(RegionWalk &walk);
  Error parseBlockHeader(RegionWalk &walk);
  Error parseOp(RegionWalk &walk, uint32_t &opIndex, uint64_t &numRegions,
                bool &isolated);
  Error skipUseListOrders(ByteCursor &cur, uint64_t numValues);
  void reserveValues(uint64_t numValues);
  Error defineValues(ByteCursor &cur, uint64_t count, bool isBlockArgument,
                     uint32_t owner, uint64_t &firstId);
  Error popScope();
  void finishWalk(RegionWalk &walk);
  Error appendRange(uint64_t flatSize, uint64_t count, const char *what,
                    IndexRange &range, ByteCursor &cur);

  Decoder &decoder;
  BytecodeFile &file;
  std::vector<RegionWalk> stack;
  std::vector<ValueScope> scopes;
};

} // namespace aimodel::bytecode::irwalk

using namespace aimodel::bytecode::irwalk;

Error IRWalker::run(Span section) {
  ByteCursor rootCursor = decoder.cursor(section);
  file.blocks_.emplace_back(); // Block 0: the root block.
  scopes.emplace_back();
  scopes.back().nextIds.push_back(0);

  RegionWalk root;
  root.cur = &rootCursor;
  root.isolated = true;
  root.numRegions = 1;
  root.inRegion = true;
  root.numBlocks = 1;
  root.blocks = {0};
  stack.push_back(std::move(root));
  if (auto err = parseBlockHeader(stack.back()))
    return err;

  while (!stack.empty()) {
    bool pushedChild;
    if (auto err = step(pushedChild))
      return err;
    if (pushedChild)
      continue;
    // All regions of the top walk are done.
    finishWalk(stack.back());
    bool isolated = stack.back().isolated;
    stack.pop_back();
    if (isolated)
      if (auto err = popScope())
        return err;
  }
  return Error::success();
}

/// Advances the top walk until it either pushes a child walk (an op with
/// regions) or finishes all its regions.
Error IRWalker::step(bool &pushedChild) {
  pushedChild = false;
  size_t walkIndex = stack.size() - 1;
  for (; stack[walkIndex].nextRegion < stack[walkIndex].numRegions;
       ++stack[walkIndex].nextRegion) {
    RegionWalk *walk = &stack[walkIndex];
    if (!walk->inRegion) {
      if (auto err = startRegion(*walk))
        return err;
      if (!walk->inRegion)
        continue; // Empty region.
    }
    while (true) {
      while (walk->numOpsRemaining) {
        --walk->numOpsRemaining;
        uint32_t opIndex;
        uint64_t numRegions;
        bool isolated;
        if (auto err = parseOp(*walk, opIndex, numRegions, isolated))
          return err;
        if (!numRegions)
          continue;

        RegionWalk child;
        child.op = opIndex;
        child.cur = walk->cur;
        child.isolated = isolated;
        child.numRegions = numRegions;
        child.depth = walk->depth + 1;
        if (child.depth > BytecodeFile::kMaxRegionDepth)
          return walk->cur->error("regions nested deeper than " +
                                  llvm::Twine(BytecodeFile::kMaxRegionDepth));
        if (isolated) {
          // All regions of an isolated op live in one nested IR section.
          SectionInfo nested;
          if (auto err = walk->cur->readSection(nested))
            return err;
          if (nested.id != kIRSection)
            return errorAt(nested.headerOffset,
                           "expected a nested IR section for the regions of "
                           "an isolated operation");
          file.ops_[opIndex].nestedSection = nested.data;
          file.ops_[opIndex].nestedHeaderOffset = nested.headerOffset;
          child.ownedCursor =
              std::make_unique<ByteCursor>(decoder.cursor(nested.data));
          child.cur = child.ownedCursor.get();
          scopes.emplace_back();
        }
        stack.push_back(std::move(child)); // invalidates `walk`
        pushedChild = true;
        return Error::success();
      }
      if (walk->blocks.size() == walk->numBlocks)
        break;
      if (auto err = parseBlockHeader(*walk))
        return err;
    }
    if (auto err = finishRegion(*walk))
      return err;
  }
  return Error::success();
}

Error IRWalker::startRegion(RegionWalk &walk) {
  // Region records are created when reached, in the op's region order.
  uint32_t region = uint32_t(file.regions_.size());
  file.regions_.emplace_back();
  file.regions_.back().parentOp = walk.op;
  file.regions_.back().indexInParent = uint32_t(walk.nextRegion);
  walk.regionIndices.push_back(region);

  ByteCursor &cur = *walk.cur;
  if (auto err = cur.readCount(walk.numBlocks, "block"))
    return err;
  if (walk.numBlocks == 0)
    return Error::success();
  if (auto err = cur.readCount(walk.numValues, "region value"))
    return err;
  reserveValues(walk.numValues);
  file.regions_[region].numValues = walk.numValues;
  walk.region = region;
  walk.blocks.clear();
  walk.successors.clear();
  walk.inRegion = true;
  return parseBlockHeader(walk);
}

Error IRWalker::finishRegion(RegionWalk &walk) {
  walk.inRegion = false;
  for (const PendingSuccessor &pending : walk.successors)
    file.successors_[pending.successor] = walk.blocks[pending.localBlock];
  walk.successors.clear();
  if (walk.region != kNoIndex)
    file.regions_[walk.region].blocks = walk.blocks;

  ValueScope &scope = scopes.back();
  uint64_t base = scope.reservedEnd - walk.numValues;
  // Forward references into the released ids were never defined.
  auto unresolved = scope.forwardUses.lower_bound(base);
  if (unresolved != scope.forwardUses.end())
    return errorAt(unresolved->second.front().offset,
                   "operand refers to value " + llvm::Twine(unresolved->first) +
                       " that is never defined");
  for (uint64_t id = base; id < scope.nextIds.back(); ++id)
    scope.defined.erase(id);
  scope.reservedEnd = base;
  scope.nextIds.pop_back();
  walk.numValues = 0;
  return Error::success();
}

void IRWalker::finishWalk(RegionWalk &walk) {
  if (walk.op == kNoIndex)
    return;
  // opRegions_ has one entry per region, and regions already use 32-bit
  // indices (each costs at least one byte of IR).
  Operation &op = file.ops_[walk.op];
  op.regionRange = IndexRange{uint32_t(file.opRegions_.size()),
                              uint32_t(walk.regionIndices.size())};
  file.opRegions_.insert(file.opRegions_.end(), walk.regionIndices.begin(),
                         walk.regionIndices.end());
}

/// Reserves `count` entries at the end of a flat array of `flatSize`
/// entries. Ranges use 32-bit indices; a file would need more than 4 GiB of
/// IR to exceed them.
Error IRWalker::appendRange(uint64_t flatSize, uint64_t count, const char *what,
                            IndexRange &range, ByteCursor &cur) {
  if (count > UINT32_MAX - flatSize)
    return cur.error(llvm::Twine("more than 2^32 ") + what + " in the file");
  range = IndexRange{uint32_t(flatSize), uint32_t(count)};
  return Error::success();
}

Error IRWalker::popScope() {
  ValueScope &scope = scopes.back();
  if (!scope.forwardUses.empty()) {
    const auto &entry = *scope.forwardUses.begin();
    return errorAt(entry.second.front().offset, "operand refers to value " +
                                                    llvm::Twine(entry.first) +
                                                    " that is never defined");
  }
  scopes.pop_back();
  return Error::success();
}

void IRWalker::reserveValues(uint64_t numValues) {
  // No overflow: each count is bounded by the file size and so is the depth.
  ValueScope &scope = scopes.back();
  scope.nextIds.push_back(scope.reservedEnd);
  scope.reservedEnd += numValues;
}

Error IRWalker::defineValues(ByteCursor &cur, uint64_t count,
                             bool isBlockArgument, uint32_t owner,
                             uint64_t &firstId) {
  ValueScope &scope = scopes.back();
  uint64_t &nextId = scope.nextIds.back();
  firstId = nextId;
  if (count > scope.reservedEnd - nextId)
    return cur.error("value ids [" + llvm::Twine(nextId) + ", " +
                     llvm::Twine(nextId + count) +
                     ") exceed the ids reserved by the enclosing regions (" +
                     llvm::Twine(scope.reservedEnd) + ")");
  for (uint64_t i = 0; i < count; ++i, ++nextId) {
    scope.defined[nextId] =
        ValueSlot{true, isBlockArgument, owner, uint32_t(i)};
    auto it = scope.forwardUses.find(nextId);
    if (it == scope.forwardUses.end())
      continue;
    for (const ForwardUse &use : it->second) {
      ValueRef &ref = file.operands_[use.operand];
      ref.isBlockArgument = isBlockArgument;
      ref.owner = owner;
      ref.number = uint32_t(i);
    }
    scope.forwardUses.erase(it);
  }
  return Error::success();
}

Error IRWalker::parseBlockHeader(RegionWalk &walk) {
  ByteCursor &cur = *walk.cur;
  uint32_t blockIndex;
  if (walk.op == kNoIndex) {
    blockIndex = 0; // The root block, created by run().
  } else {
    blockIndex = uint32_t(file.blocks_.size());
    file.blocks_.emplace_back();
    file.blocks_.back().parentRegion = walk.region;
    walk.blocks.push_back(blockIndex);
  }
  bool hasArgs;
  uint64_t countOffset = cur.offset();
  file.blocks_[blockIndex].offset = countOffset;
  if (auto err = cur.readVarIntWithFlag(walk.numOpsRemaining, hasArgs))
    return err;
  if (walk.numOpsRemaining > cur.remaining())
    return errorAt(countOffset,
                   "block claims " + llvm::Twine(walk.numOpsRemaining) +
                       " operations but only " + llvm::Twine(cur.remaining()) +
                       " bytes remain");
  if (!hasArgs)
    return Error::success();

  uint64_t numArgs;
  if (auto err = cur.readCount(numArgs, "block argument"))
    return err;
  std::vector<BlockArgument> args(numArgs);
  for (BlockArgument &arg : args) {
    bool hasLoc;
    uint64_t typeOffset = cur.offset();
    if (auto err = cur.readVarIntWithFlag(arg.type, hasLoc))
      return err;
    if (arg.type >= file.types_.size())
      return errorAt(typeOffset, "block argument type index out of range");
    uint64_t locOffset = cur.offset();
    if (hasLoc)
      if (auto err = cur.readIndex(arg.location, file.attributes_.size(),
                                   "block argument location"))
        return err;
    if (hasLoc && !usableAsLocation(file, arg.location))
      return errorAt(locOffset, "block argument location (attribute " +
                                    llvm::Twine(arg.location) +
                                    ") is not a location attribute");
  }
  file.blocks_[blockIndex].arguments = std::move(args);
  if (auto err =
          defineValues(cur, numArgs, /*isBlockArgument=*/true, blockIndex,
                       file.blocks_[blockIndex].firstArgumentValueId))
    return err;
  uint8_t hasUseListOrders;
  if (auto err = cur.readByte(hasUseListOrders))
    return err;
  if (hasUseListOrders)
    return skipUseListOrders(cur, numArgs);
  return Error::success();
}

/// Use-list orders only permute uses; the audit does not need them, so they
/// are validated and skipped.
Error IRWalker::skipUseListOrders(ByteCursor &cur, uint64_t numValues) {
  uint64_t numEntries = 1;
  if (numValues > 1)
    if (auto err = cur.readCount(numEntries, "use-list order"))
      return err;
  for (uint64_t i = 0; i < numEntries; ++i) {
    uint64_t valueIndex, numIndices;
    bool indexPairEncoding;
    if (numValues > 1)
      if (auto err = cur.readIndex(valueIndex, numValues, "use-list value"))
        return err;
    if (auto err = cur.readVarIntWithFlag(numIndices, indexPairEncoding))
      return err;
    if (numIndices > cur.remaining())
      return cur.error("use-list order longer than the remaining data");
    for (uint64_t j = 0; j < numIndices; ++j) {
      uint64_t ignored;
      if (auto err = cur.readVarInt(ignored))
        return err;
    }
  }
  return Error::success();
}

Error IRWalker::parseOp(RegionWalk &walk, uint32_t &opIndex,
                        uint64_t &numRegions, bool &isolated) {
  ByteCursor &cur = *walk.cur;
  uint32_t blockIndex = walk.blocks.back();
  Operation op;
  op.offset = cur.offset();
  op.parentBlock = blockIndex;
  op.depth = walk.depth;
  numRegions = 0;
  isolated = false;

  uint64_t nameIndex;
  uint8_t mask;
  if (auto err =
          cur.readIndex(nameIndex, file.opNames_.size(), "operation name"))
    return err;
  op.name = uint32_t(nameIndex);
  if (auto err = cur.readByte(mask))
    return err;
  if (auto err =
          cur.readIndex(op.location, file.attributes_.size(), "location"))
    return err;
  if (!usableAsLocation(file, op.location))
    return errorAt(op.offset, "location (attribute " +
                                  llvm::Twine(op.location) +
                                  ") is not a location attribute");
  if (mask & kHasAttrs) {
    if (auto err = cur.readIndex(op.attrDict, file.attributes_.size(),
                                 "attribute dictionary"))
      return err;
    if (file.attrKinds_[op.attrDict] != AttrKind::Dictionary)
      return errorAt(op.offset, "attribute dictionary (attribute " +
                                    llvm::Twine(op.attrDict) +
                                    ") is not a dictionary");
  }
  if (mask & kHasProperties) {
    // Both forms are an index into the Properties section. A registered op
    // stores its dialect's native encoding there; an unregistered one stores
    // a varint attribute index (upstream PropertiesSectionReader::read).
    if (auto err = cur.readIndex(op.propertiesIndex, file.properties_.size(),
                                 "properties"))
      return err;
    op.propertiesBlob = file.properties_[op.propertiesIndex];
    if (file.opNames_[nameIndex].isRegistered) {
      op.propertiesForm = PropertiesForm::Native;
      if (auto err = checkModuleProperties(file, op))
        return err;
    } else {
      op.propertiesForm = PropertiesForm::Attribute;
      ByteCursor blob = decoder.cursor(op.propertiesBlob);
      if (auto err = blob.readIndex(op.propertiesAttr, file.attributes_.size(),
                                    "properties attribute"))
        return err;
      if (!blob.empty())
        return blob.error("unexpected trailing bytes in the properties of "
                          "an unregistered operation");
    }
  }
  if (mask & kHasResults) {
    uint64_t numResults;
    if (auto err = cur.readCount(numResults, "result"))
      return err;
    if (auto err = appendRange(file.resultTypes_.size(), numResults, "results",
                               op.resultTypeRange, cur))
      return err;
    for (uint64_t i = 0; i < numResults; ++i) {
      uint64_t type;
      if (auto err = cur.readIndex(type, file.types_.size(), "result type"))
        return err;
      file.resultTypes_.push_back(type);
    }
  }
  opIndex = uint32_t(file.ops_.size());
  if (mask & kHasOperands) {
    uint64_t numOperands;
    if (auto err = cur.readCount(numOperands, "operand"))
      return err;
    if (auto err = appendRange(file.operands_.size(), numOperands, "operands",
                               op.operandRange, cur))
      return err;
    ValueScope &scope = scopes.back();
    for (uint64_t i = 0; i < numOperands; ++i) {
      uint32_t operandIndex = uint32_t(file.operands_.size());
      uint64_t operandOffset = cur.offset();
      uint64_t id;
      if (auto err = cur.readIndex(id, scope.reservedEnd, "value"))
        return err;
      ValueRef &ref = file.operands_.emplace_back();
      ref.id = id;
      auto slot = scope.defined.find(ref.id);
      if (slot != scope.defined.end()) {
        ref.isBlockArgument = slot->second.isBlockArgument;
        ref.owner = slot->second.owner;
        ref.number = slot->second.number;
      } else {
        scope.forwardUses[ref.id].push_back(
            ForwardUse{operandIndex, operandOffset});
      }
    }
  }
  if (mask & kHasSuccessors) {
    uint64_t numSuccessors;
    if (auto err = cur.readCount(numSuccessors, "successor"))
      return err;
    if (auto err = appendRange(file.successors_.size(), numSuccessors,
                               "successors", op.successorRange, cur))
      return err;
    for (uint64_t i = 0; i < numSuccessors; ++i) {
      uint64_t successor;
      if (auto err =
              cur.readIndex(successor, walk.numBlocks, "successor block"))
        return err;
      // Resolved to a block index when the region ends.
      walk.successors.push_back(
          PendingSuccessor{uint32_t(file.successors_.size()), successor});
      file.successors_.push_back(kNoIndex);
    }
  }
  if ((mask & kHasUseListOrders)) {
    op.hasUseListOrders = true;
    if (auto err = skipUseListOrders(cur, op.resultTypeRange.count))
      return err;
  }
  if (mask & kHasInlineRegions) {
    uint64_t countOffset = cur.offset();
    if (auto err = cur.readVarIntWithFlag(numRegions, isolated))
      return err;
    // Each region needs at least its block count byte.
    if (numRegions > cur.remaining())
      return errorAt(countOffset, "region count " + llvm::Twine(numRegions) +
                                      " exceeds the remaining data");
    op.regionsIsolated = isolated;
  }
  uint64_t numResults = op.resultTypeRange.count;
  file.ops_.push_back(op);
  file.blocks_[blockIndex].operations.push_back(opIndex);
  return defineValues(cur, numResults, /*isBlockArgument=*/false, opIndex,
                      file.ops_[opIndex].firstResultValueId);
}

namespace aimodel::bytecode {
Error Decoder::decodeIR(Span section) {
  IRWalker walker(*this);
  if (auto err = walker.run(section))
    return err;
  // As MLIR's tools, the importer needs an operation to hand back.
  if (file.blocks_[0].operations.empty())
    return errorAt(section.offset, "the file holds no operation");
  return Error::success();
}
} // namespace aimodel::bytecode
