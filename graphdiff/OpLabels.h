//===- OpLabels.h - What an op computes, as a hash --------------*- C++ -*-===//
//
// The label of an op: its name, operand count, result types, region shape
// (blocks, and every block argument's type), attributes and properties.
// Attributes and types hash by structure (bytecode/StructuralHash.h), so labels
// compare across files. Left out: locations and the display names `sym_name`
// and `coreai.name`. Symbol references hash by a key the caller chooses (the
// function pairing: two references to paired functions hash alike), by default
// the exact name. Weights (dense_resource, and non-splat float dense elements
// of more than one element) hash by type only, or also by a digest of their
// bytes (WeightsMode::Digest).
//
//===----------------------------------------------------------------------===//
#ifndef AIMODEL_GRAPHDIFF_OPLABELS_H
#define AIMODEL_GRAPHDIFF_OPLABELS_H

#include "graphdiff/GraphDiff.h"
#include "graphdiff/GraphModel.h"

#include "bytecode/StructuralHash.h"
#include "bytecode/TypeText.h"

#include "llvm/ADT/BitVector.h"
#include "llvm/ADT/DenseMap.h"

#include <functional>
#include <string>
#include <vector>

namespace aimodel::graphdiff {

/// The parts a label combines, compared one by one to say what differs.
struct OpParts {
  uint64_t name = 0, operands = 0, results = 0, regions = 0, attributes = 0,
           properties = 0;
  uint64_t label() const;
};

class OpLabeler {
public:
  /// How a symbol reference hashes, given the referenced name.
  using SymbolKeys = std::function<uint64_t(llvm::StringRef)>;

  OpLabeler(const bytecode::BytecodeFile &file, WeightsMode weights);

  /// Replaces the symbol keys; forgets hashes computed with the old ones.
  void setSymbolKeys(SymbolKeys keys);
  /// The default key: the exact name.
  static uint64_t nameKey(llvm::StringRef symbol);

  OpParts parts(uint32_t op);
  /// Label of vertex `v` of `graph` (an op, a block argument or a value
  /// defined outside the graph).
  uint64_t vertexLabel(const FunctionGraph &graph, uint32_t v);
  /// Type index of the value an Argument or External vertex stands for.
  uint64_t valueType(const FunctionGraph &graph, uint32_t v) const;

  /// What differs between op `a` of this file and op `b` of `other`'s, in
  /// words ("attributes differ: shape", "result type tensor<2xf32> vs
  /// tensor<3xf32>"); empty when the labels agree.
  std::vector<std::string> differences(uint32_t a, OpLabeler &other,
                                       uint32_t b);

  /// Whether op is a constant whose value is a weight (a float tensor of
  /// more than kMaxValueElements elements): compared by type and shape
  /// only, unless WeightsMode::Digest.
  bool holdsWeight(uint32_t op);
  /// Whether op's label leaves out a weight's bytes (holdsWeight, and the
  /// weights are not digested).
  bool hidesWeight(uint32_t op) {
    if (weights != WeightsMode::Ignore)
      return false;
    // Asked for every vertex whenever fingerprints are computed again.
    if (hiddenWeight.empty())
      hiddenWeight.assign(file.operations().size(), -1);
    if (hiddenWeight[op] < 0)
      hiddenWeight[op] = holdsWeight(op);
    return hiddenWeight[op];
  }

  /// Symbols named by op's attributes and properties, in order.
  void symbolRefs(uint32_t op, llvm::SmallVectorImpl<llvm::StringRef> &out);

  /// A type as MLIR would print it (builtin types; textual entries as
  /// written; private custom-encoded ones as `!dialect<...>`).
  std::string typeText(uint64_t type) const {
    return bytecode::typeText(file, type);
  }
  /// A builtin attribute's value, short ("[1, 16, 64]", "1.0E-5",
  /// "\"gelu\""); private ones as `#dialect<...>` (AttrText.cpp).
  std::string attrText(uint64_t attr, unsigned depth = 0) const;
  /// A scalar of builtin type `type` stored as `bits`.
  std::string scalarText(uint64_t type, uint64_t bits) const;
  uint64_t typeHash(uint64_t type) { return hasher.type(type); }

  const bytecode::BytecodeFile &file;

private:
  struct Hashed {
    uint64_t hash = 0;
    bool symbolic = false; ///< depends on the symbol keys
  };
  Hashed attribute(uint64_t index);
  Hashed computeAttribute(uint64_t index);
  /// A dictionary without the display-name members.
  Hashed filteredDictionary(uint64_t index, bool constantOp = false);
  Hashed opProperties(const bytecode::Operation &op, bool constantOp);
  /// Natively encoded properties of no known schema.
  uint64_t opaqueProperties(bytecode::Span blob);
  uint64_t symbolKey(llvm::StringRef symbol);
  /// Hash of a dictionary member's name attribute, by its text.
  uint64_t memberName(uint64_t nameAttr) const;
  /// The hash of member `name`'s value: as attribute(), but for the
  /// per-input and per-output dictionaries of a function (`arg_attrs`,
  /// `res_attrs`), without their display names.
  /// In a constant op (`constantOp`), member `value` may be a weight
  /// (weightOrValue()).
  Hashed memberValue(llvm::StringRef name, uint64_t value,
                     bool constantOp = false);
  /// A weight by type (and digest): otherwise as attribute(), a value.
  Hashed weightOrValue(uint64_t index);
  bool isConstant(const bytecode::Operation &op);
  bool isWeight(const bytecode::DecodedAttr &attr) const;
  uint64_t blobDigest(uint64_t handle);
  /// (name, value attribute) of the members of a dictionary, display
  /// names left out.
  using MemberList = std::vector<std::pair<std::string, uint64_t>>;
  MemberList members(uint64_t dict);
  /// The same for an op's properties (a dictionary, or natively encoded
  /// with a known schema).
  MemberList propertyMembers(const bytecode::Operation &op);
  /// "shape, axis": the members of two lists that differ; `onlyWeights`
  /// when all of them are weights of one type on both sides.
  std::string differingMembers(const MemberList &mine, OpLabeler &other,
                               const MemberList &theirs, bool constantOps,
                               bool &onlyWeights);
  bool isWeightAttr(uint64_t index);
  /// What differs in the regions (counts, block argument types) or
  /// successors of two ops whose region parts differ.
  void regionDifferences(const bytecode::Operation &a, OpLabeler &other,
                         const bytecode::Operation &b,
                         std::vector<std::string> &out);
  bool collectSymbols(uint64_t index,
                      llvm::SmallVectorImpl<llvm::StringRef> *out);

  WeightsMode weights;
  bytecode::StructuralHasher hasher;
  SymbolKeys keys;
  /// Memoised hashes by (index << 2 | what: 0 as is, 1 filtered, 2 filtered
  /// for a constant op, 3 a constant's value); symbolic ones are dropped
  /// when the keys change.
  llvm::DenseMap<uint64_t, uint64_t> plainMemo, symbolicMemo;
  std::optional<Hashed> memoised(uint64_t key) const;
  Hashed memoise(uint64_t key, Hashed hashed);
  llvm::DenseMap<uint64_t, uint64_t> blobDigests;
  std::vector<uint64_t> nameHashes;
  std::vector<int8_t> hiddenWeight;     ///< per op: -1 not known yet
  std::vector<uint32_t> blockPositions; ///< per block, filled on demand
  llvm::BitVector noSymbols, symbolsKnown;
};

bool isDisplayName(llvm::StringRef attributeName);

/// Adds Order edges to every graph of `file`: within a block, between ops
/// naming the same symbol that is not a function, and between ops without
/// results (both kept in the order written). Once per file, before any
/// fingerprint.
void addOrderEdges(FileGraphs &graphs, const bytecode::BytecodeFile &file,
                   OpLabeler &labeler);

/// Float data of at most this many elements (epsilons, scale factors, a
/// few mask or shape values) is never a weight: it compares by value. A
/// learned tensor has at least a hidden size of elements.
inline constexpr uint64_t kMaxValueElements = 16;

/// Whether member `member` of an op named `opName` holds a constant's
/// value, the one place a weight may be (`coreai.constant`'s `value`).
bool isConstantValue(llvm::StringRef opName, llvm::StringRef member);

} // namespace aimodel::graphdiff

#endif // AIMODEL_GRAPHDIFF_OPLABELS_H
