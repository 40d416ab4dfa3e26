//===- WeightsPolicyTest.cpp - Which constants count by shape only -------===//
//
// A weight (a float tensor of more than 64 elements held by a constant op)
// counts by type and shape unless --weights digest; every other value
// (integer tables, small float constants, attributes of other ops such as
// quantisation scales) counts by its bytes always.
//
//===----------------------------------------------------------------------===//

#include "graphdiff/GraphDiffTestSupport.h"

#include "llvm/ADT/StringExtras.h"

using namespace aimodel::graphdiff;
using namespace aimodel::graphdiff::testing;

namespace {

/// Placeholders: {W} (a 16x16 f32 dense_resource weight), {U} (a 16x16 f32
/// dense weight), {I} (a 256 x i32 dense_resource table), {S} (128 f32
/// quantisation scales), as hex bytes.
const char *kProgram = R"mlir(
"builtin.module"() ({
  "coreai.graph"() <{sym_name = "main"}> ({
  ^bb0(%x: tensor<4x16xf32>):
    %w = "coreai.constant"() {value = dense_resource<w> : tensor<16x16xf32>} : () -> tensor<16x16xf32>
    %u = "coreai.constant"() {value = dense<"0x{U}"> : tensor<16x16xf32>} : () -> tensor<16x16xf32>
    %i = "coreai.constant"() {value = dense_resource<idx> : tensor<256xi32>} : () -> tensor<256xi32>
    %0 = "coreai.matmul"(%x, %w) : (tensor<4x16xf32>, tensor<16x16xf32>) -> tensor<4x16xf32>
    %1 = "coreai.matmul"(%0, %u) : (tensor<4x16xf32>, tensor<16x16xf32>) -> tensor<4x16xf32>
    %2 = "coreai.gather"(%1, %i) : (tensor<4x16xf32>, tensor<256xi32>) -> tensor<4x16xf32>
    %3 = "coreai.quantize"(%2) {scales = dense<"0x{S}"> : tensor<128xf32>} : (tensor<4x16xf32>) -> tensor<4x16xf32>
    "coreai.return"(%3) : (tensor<4x16xf32>) -> ()
  }) : () -> ()
}) : () -> ()
{-# dialect_resources: { builtin: { w: "0x04000000{W}", idx: "0x04000000{I}" } } #-}
)mlir";

/// `count` little-endian 32-bit words counting up from `first` (never a
/// splat, which a writer may fold to one element).
std::string words(uint32_t first, int count) {
  std::string out;
  for (int k = 0; k < count; ++k) {
    uint32_t word = first + uint32_t(k);
    for (int byte = 0; byte < 4; ++byte)
      out += llvm::utohexstr((word >> (8 * byte)) & 0xff, false, 2);
  }
  return out;
}

struct Bytes {
  std::string w = words(0x3f800000, 256), u = words(0x40000000, 256),
              i = words(1, 256), s = words(0x3f000000, 128);
};

std::string program(const Bytes &bytes) {
  return fill(kProgram,
              {{"W", bytes.w}, {"U", bytes.u}, {"I", bytes.i}, {"S", bytes.s}});
}

DiffOptions withWeights(WeightsMode mode) {
  DiffOptions options;
  options.weights = mode;
  return options;
}

} // namespace

TEST_F(GraphDiffTest, WeightValuesCountOnlyWithDigest) {
  Bytes retrained;
  retrained.w = words(0x3fc00000, 256);
  retrained.u = words(0x40400000, 256);
  DiffResult ignored = diff(program({}), program(retrained));
  EXPECT_TRUE(ignored.identical()) << describe(ignored);

  DiffResult digest =
      diff(program({}), program(retrained), withWeights(WeightsMode::Digest));
  ASSERT_EQ(digest.graphs.size(), 1u);
  EXPECT_EQ(digest.graphs[0].counts.modified, 2u) << describe(digest);
  for (const Change &change : digest.graphs[0].changes) {
    EXPECT_EQ(change.op, "coreai.constant");
    EXPECT_EQ(change.detail, "weight values differ: value");
  }
  EXPECT_TRUE(diff(program({}), program({}), withWeights(WeightsMode::Digest))
                  .identical());
}

TEST_F(GraphDiffTest, IntegerResourceCountsByItsBytes) {
  Bytes other;
  other.i = words(1, 255) + words(7, 1);
  for (WeightsMode mode : {WeightsMode::Ignore, WeightsMode::Digest}) {
    DiffResult result = diff(program({}), program(other), withWeights(mode));
    ASSERT_EQ(result.graphs.size(), 1u);
    ASSERT_EQ(result.graphs[0].changes.size(), 1u) << describe(result);
    EXPECT_EQ(result.graphs[0].changes[0].detail,
              "attributes differ: value: dense_resource<idx> \u2192 "
              "dense_resource<idx> (other bytes)");
  }
}

TEST_F(GraphDiffTest, ScalesOfAnOpAreNotWeights) {
  Bytes other;
  other.s = words(0x3f000000, 127) + words(0x3e800000, 1);
  DiffResult result = diff(program({}), program(other));
  ASSERT_EQ(result.graphs.size(), 1u);
  ASSERT_EQ(result.graphs[0].changes.size(), 1u) << describe(result);
  EXPECT_EQ(result.graphs[0].changes[0].op, "coreai.quantize");
  EXPECT_EQ(llvm::StringRef(result.graphs[0].changes[0].detail)
                .starts_with("attributes differ: scales: dense<[0.5, 0.5"),
            true)
      << result.graphs[0].changes[0].detail;
}

namespace {
/// Two projections of one input, each with its own 16x16 weight; {B} is the
/// weight the second one reads.
const char *kTwoProjections = R"mlir(
"builtin.module"() ({
  "coreai.graph"() <{sym_name = "main"}> ({
  ^bb0(%x: tensor<4x16xf32>):
    %w1 = "coreai.constant"() {value = dense_resource<w1> : tensor<16x16xf32>} : () -> tensor<16x16xf32>
    %w2 = "coreai.constant"() {value = dense_resource<w2> : tensor<16x16xf32>} : () -> tensor<16x16xf32>
    %a = "coreai.matmul"(%x, %w1) : (tensor<4x16xf32>, tensor<16x16xf32>) -> tensor<4x16xf32>
    %b = "coreai.matmul"(%x, {B}) : (tensor<4x16xf32>, tensor<16x16xf32>) -> tensor<4x16xf32>
    %c = "coreai.sub"(%a, %b) : (tensor<4x16xf32>, tensor<4x16xf32>) -> tensor<4x16xf32>
    "coreai.return"(%c) : (tensor<4x16xf32>) -> ()
  }) : () -> ()
}) : () -> ()
{-# dialect_resources: { builtin: { w1: "0x04000000{W1}", w2: "0x04000000{W2}" } } #-}
)mlir";
} // namespace

TEST_F(GraphDiffTest, LookAlikeWeightsAreNotInterchangeable) {
  // Weights compared by shape look alike, yet which one an op reads is
  // structure: NEW reads w1 twice and leaves w2 unused.
  auto text = [](const char *second) {
    return fill(kTwoProjections, {{"B", second},
                                  {"W1", words(0x3f800000, 256)},
                                  {"W2", words(0x40000000, 256)}});
  };
  for (WeightsMode mode : {WeightsMode::Ignore, WeightsMode::Digest}) {
    DiffResult result = diff(text("%w2"), text("%w1"), withWeights(mode));
    EXPECT_FALSE(result.identical()) << describe(result);
  }
  EXPECT_TRUE(diff(text("%w2"), text("%w2")).identical());
}

TEST_F(GraphDiffTest, WeightsSwappedBetweenLookAlikesAreSaidPlainly) {
  // Two projections whose weights trade places: by shape only (the
  // default) nothing tells them apart; with --weights digest the sub reads
  // each projection where the other was, and the report says which op the
  // old producer is, not "matmul [4] → matmul [4]".
  const char *kSwap = R"mlir(
"builtin.module"() ({
  "coreai.graph"() <{sym_name = "main"}> ({
  ^bb0(%x: tensor<4x16xf32>):
    %w1 = "coreai.constant"() {value = dense_resource<w1> : tensor<16x16xf32>} : () -> tensor<16x16xf32>
    %w2 = "coreai.constant"() {value = dense_resource<w2> : tensor<16x16xf32>} : () -> tensor<16x16xf32>
    %a = "coreai.matmul"(%x, {A}) : (tensor<4x16xf32>, tensor<16x16xf32>) -> tensor<4x16xf32>
    %b = "coreai.matmul"(%x, {B}) : (tensor<4x16xf32>, tensor<16x16xf32>) -> tensor<4x16xf32>
    %c = "coreai.sub"(%a, %b) : (tensor<4x16xf32>, tensor<4x16xf32>) -> tensor<4x16xf32>
    "coreai.return"(%c) : (tensor<4x16xf32>) -> ()
  }) : () -> ()
}) : () -> ()
{-# dialect_resources: { builtin: { w1: "0x04000000{W1}", w2: "0x04000000{W2}" } } #-}
)mlir";
  auto text = [&](const char *a, const char *b) {
    return fill(kSwap, {{"A", a},
                        {"B", b},
                        {"W1", words(0x3f800000, 256)},
                        {"W2", words(0x40000000, 256)}});
  };
  EXPECT_TRUE(diff(text("%w1", "%w2"), text("%w2", "%w1")).identical());
  DiffResult digest = diff(text("%w1", "%w2"), text("%w2", "%w1"),
                           withWeights(WeightsMode::Digest));
  ASSERT_EQ(digest.graphs.size(), 1u);
  ASSERT_EQ(digest.graphs[0].changes.size(), 1u) << describe(digest);
  const Change &sub = digest.graphs[0].changes[0];
  EXPECT_EQ(sub.op, "coreai.sub");
  EXPECT_EQ(sub.detail,
            "operand 0: coreai.matmul [4] \u2192 coreai.matmul [4] (the old "
            "producer is coreai.matmul [5] there); operand 1: coreai.matmul "
            "[5] \u2192 coreai.matmul [5] (the old producer is coreai.matmul "
            "[4] there)");
}

TEST_F(GraphDiffTest, AChoiceTheStructureCannotMakeIsSaid) {
  // One weight read by an add and a mul becomes two of one shape, one each.
  // By shape only, which of the two is the old one and which is new is a
  // guess: the added one is reported, marked ambiguous. With the bytes
  // compared it is no guess.
  const char *kShared = R"mlir(
"builtin.module"() ({
  "coreai.graph"() <{sym_name = "main"}> ({
  ^bb0(%x: tensor<16x16xf32>):
{BODY}    %s = "coreai.sub"(%r1, %r2) : (tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<16x16xf32>
    "coreai.return"(%s) : (tensor<16x16xf32>) -> ()
  }) : () -> ()
}) : () -> ()
{-# dialect_resources: { builtin: { w1: "0x04000000{W1}", w2: "0x04000000{W2}" } } #-}
)mlir";
  auto constant = [](const char *name, const char *key) {
    return std::string("    %") + name +
           " = \"coreai.constant\"() {value = dense_resource<" + key +
           "> : tensor<16x16xf32>} : () -> tensor<16x16xf32>\n";
  };
  auto reader = [](const char *result, const char *op, const char *weight) {
    return std::string("    %") + result + " = \"coreai." + op + "\"(%x, %" +
           weight +
           ") : (tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<16x16xf32>\n";
  };
  auto text = [&](const std::string &body) {
    return fill(kShared, {{"BODY", body},
                          {"W1", words(0x3f800000, 256)},
                          {"W2", words(0x40000000, 256)}});
  };
  std::string shared = text(constant("p", "w1") + reader("r1", "add", "p") +
                            reader("r2", "mul", "p"));
  std::string split =
      text(constant("q1", "w1") + constant("q2", "w2") +
           reader("r1", "add", "q1") + reader("r2", "mul", "q2"));
  DiffResult guessed = diff(shared, split);
  ASSERT_EQ(guessed.graphs.size(), 1u);
  ASSERT_EQ(guessed.graphs[0].changes.size(), 1u) << describe(guessed);
  const Change &added = guessed.graphs[0].changes[0];
  EXPECT_EQ(added.kind, ChangeKind::Added);
  EXPECT_EQ(added.op, "coreai.constant");
  EXPECT_TRUE(added.ambiguous);
  EXPECT_NE(added.detail.find("(paired among look-alikes: ambiguous)"),
            std::string::npos)
      << added.detail;
  // The same split with the bytes compared: w1 is the old one, no guess.
  DiffResult known = diff(shared, split, withWeights(WeightsMode::Digest));
  ASSERT_EQ(known.graphs.size(), 1u);
  for (const Change &change : known.graphs[0].changes)
    EXPECT_FALSE(change.ambiguous) << describe(known);
  EXPECT_FALSE(known.identical());
}
