//===- GraphDiffTest.cpp - The matcher on programs with known answers -----===//
//
// Each test states the answer a reviewer expects (identical, or how many
// ops were added, removed or modified) for two programs written as MLIR
// generic text and compiled to stock bytecode by mlir-opt-22.
//
//===----------------------------------------------------------------------===//

#include "graphdiff/GraphDiffTestSupport.h"

using namespace aimodel::graphdiff;
using namespace aimodel::graphdiff::testing;

namespace {

/// A model with composites: `main` invokes an RMS norm and an MLP, which
/// invokes a GELU twice. Placeholders: suffixes {R} {M} {G}; locations
/// {L1} {L2}; weight bytes {W}; bias values {B}; reshape {SHAPE}.
const char *kModel = R"mlir(
"builtin.module"() ({
  "coreai.graph"() <{function_type = (tensor<4x8xf32>) -> tensor<4x8xf32>, sym_name = "main"}> ({
  ^bb0(%x: tensor<4x8xf32>):
    %w = "coreai.constant"() {coreai.name = "w", value = dense_resource<w0> : tensor<8x8xf32>} : () -> tensor<8x8xf32> {L1}
    %b = "coreai.constant"() {coreai.name = "b", value = dense<[{B}]> : tensor<8xf32>} : () -> tensor<8xf32> {L2}
    %0 = "coreai.matmul"(%x, %w) {coreai.name = "mm"} : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32> {L1}
    %1 = "coreai.add"(%0, %b) : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32> {L1}
    %2 = "coreai.invoke"(%1) {callee = @rms_norm_{R}} : (tensor<4x8xf32>) -> tensor<4x8xf32> {L2}
    %3 = "coreai.invoke"(%2) {callee = @mlp_{M}} : (tensor<4x8xf32>) -> tensor<4x8xf32> {L2}
    %4 = "coreai.reshape"(%3) {shape = array<i64: {SHAPE}>} : (tensor<4x8xf32>) -> tensor<4x8xf32> {L1}
    "coreai.return"(%4) : (tensor<4x8xf32>) -> () {L2}
  }) : () -> ()
  "coreai.graph"() <{sym_name = "rms_norm_{R}"}> ({
  ^bb0(%x: tensor<4x8xf32>):
    %0 = "coreai.mul"(%x, %x) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32> {L1}
    %1 = "coreai.mean"(%0) {axis = -1 : i64} : (tensor<4x8xf32>) -> tensor<4x1xf32> {L2}
    %2 = "coreai.rsqrt"(%1) : (tensor<4x1xf32>) -> tensor<4x1xf32>
    %3 = "coreai.mul"(%x, %2) : (tensor<4x8xf32>, tensor<4x1xf32>) -> tensor<4x8xf32>
    "coreai.return"(%3) : (tensor<4x8xf32>) -> ()
  }) : () -> ()
  "coreai.graph"() <{sym_name = "mlp_{M}"}> ({
  ^bb0(%x: tensor<4x8xf32>):
    %0 = "coreai.invoke"(%x) {callee = @gelu_{G}} : (tensor<4x8xf32>) -> tensor<4x8xf32>
    %1 = "coreai.invoke"(%0) {callee = @gelu_{G}} : (tensor<4x8xf32>) -> tensor<4x8xf32>
    "coreai.return"(%1) : (tensor<4x8xf32>) -> ()
  }) : () -> ()
  "coreai.graph"() ({
  ^bb0(%x: tensor<4x8xf32>):
    %0 = "coreai.tanh"(%x) : (tensor<4x8xf32>) -> tensor<4x8xf32>
    %1 = "coreai.mul"(%x, %0) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
    "coreai.return"(%1) : (tensor<4x8xf32>) -> ()
  }) {sym_name = "gelu_{G}"} : () -> ()
}) : () -> ()
{-# dialect_resources: { builtin: { w0: "0x04000000{W}" } } #-}
)mlir";

/// The same program written in another valid order: composites defined
/// in reverse, independent ops of `main` and of the RMS norm swapped.
const char *kModelReordered = R"mlir(
"builtin.module"() ({
  "coreai.graph"() ({
  ^bb0(%x: tensor<4x8xf32>):
    %0 = "coreai.tanh"(%x) : (tensor<4x8xf32>) -> tensor<4x8xf32>
    %1 = "coreai.mul"(%x, %0) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
    "coreai.return"(%1) : (tensor<4x8xf32>) -> ()
  }) {sym_name = "gelu_{G}"} : () -> ()
  "coreai.graph"() <{sym_name = "mlp_{M}"}> ({
  ^bb0(%x: tensor<4x8xf32>):
    %0 = "coreai.invoke"(%x) {callee = @gelu_{G}} : (tensor<4x8xf32>) -> tensor<4x8xf32>
    %1 = "coreai.invoke"(%0) {callee = @gelu_{G}} : (tensor<4x8xf32>) -> tensor<4x8xf32>
    "coreai.return"(%1) : (tensor<4x8xf32>) -> ()
  }) : () -> ()
  "coreai.graph"() <{sym_name = "rms_norm_{R}"}> ({
  ^bb0(%x: tensor<4x8xf32>):
    %0 = "coreai.mul"(%x, %x) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
    %1 = "coreai.mean"(%0) {axis = -1 : i64} : (tensor<4x8xf32>) -> tensor<4x1xf32>
    %2 = "coreai.rsqrt"(%1) : (tensor<4x1xf32>) -> tensor<4x1xf32>
    %3 = "coreai.mul"(%x, %2) : (tensor<4x8xf32>, tensor<4x1xf32>) -> tensor<4x8xf32>
    "coreai.return"(%3) : (tensor<4x8xf32>) -> ()
  }) : () -> ()
  "coreai.graph"() <{function_type = (tensor<4x8xf32>) -> tensor<4x8xf32>, sym_name = "main"}> ({
  ^bb0(%x: tensor<4x8xf32>):
    %b = "coreai.constant"() {coreai.name = "bias", value = dense<[{B}]> : tensor<8xf32>} : () -> tensor<8xf32>
    %w = "coreai.constant"() {value = dense_resource<w0> : tensor<8x8xf32>, coreai.name = "weight"} : () -> tensor<8x8xf32>
    %0 = "coreai.matmul"(%x, %w) : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
    %1 = "coreai.add"(%0, %b) : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
    %2 = "coreai.invoke"(%1) {callee = @rms_norm_{R}} : (tensor<4x8xf32>) -> tensor<4x8xf32>
    %3 = "coreai.invoke"(%2) {callee = @mlp_{M}} : (tensor<4x8xf32>) -> tensor<4x8xf32>
    %4 = "coreai.reshape"(%3) {shape = array<i64: {SHAPE}>} : (tensor<4x8xf32>) -> tensor<4x8xf32>
    "coreai.return"(%4) : (tensor<4x8xf32>) -> ()
  }) : () -> ()
}) : () -> ()
{-# dialect_resources: { builtin: { w0: "0x04000000{W}" } } #-}
)mlir";

const char *kLegacyLoc =
    R"(loc(fused<{call_stack = ["Linear$1", "Block$3", "Model$1"], identifiers = ["addmm"]}>["/Users/x/torch/nn/modules/linear.py":134:0, "coreai"("op_id":3:0)]))";

std::string model(const char *text = kModel, std::string r = "k3j9x0qa",
                  std::string m = "a1b2c3d4", std::string g = "zz11yy22") {
  return fill(text, {{"R", r},
                     {"M", m},
                     {"G", g},
                     {"L1", ""},
                     {"L2", ""},
                     {"W", repeat("0000803F", 64)},
                     {"B", "1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0"},
                     {"SHAPE", "4, 8"}});
}

/// A chain of `length` unary ops; `insertAt` >= 0 adds a `coreai.tanh`
/// after that many.
std::string chain(int length, int insertAt = -1) {
  const char *names[] = {"coreai.relu", "coreai.neg", "coreai.exp"};
  std::string body;
  int value = 0;
  for (int i = 0; i < length; ++i) {
    if (i == insertAt) {
      body += "    %v" + std::to_string(value + 1) + " = \"coreai.tanh\"(%v" +
              std::to_string(value) + ") : (tensor<4xf32>) -> tensor<4xf32>\n";
      ++value;
    }
    body += "    %v" + std::to_string(value + 1) + " = \"" + names[i % 3] +
            "\"(%v" + std::to_string(value) +
            ") : (tensor<4xf32>) -> tensor<4xf32>\n";
    ++value;
  }
  return "\"builtin.module\"() ({\n  \"coreai.graph\"() <{sym_name = "
         "\"main\"}> ({\n  ^bb0(%v0: tensor<4xf32>):\n" +
         body + "    \"coreai.return\"(%v" + std::to_string(value) +
         ") : (tensor<4xf32>) -> ()\n  }) : () -> ()\n}) : () -> ()\n";
}

/// One function of `body` with arguments %a, %b: tensor<4xf32>.
std::string function(const std::string &body) {
  return "\"builtin.module\"() ({\n  \"coreai.graph\"() <{sym_name = "
         "\"main\"}> ({\n  ^bb0(%a: tensor<4xf32>, %b: tensor<4xf32>):\n" +
         body + "  }) : () -> ()\n}) : () -> ()\n";
}

} // namespace

TEST_F(GraphDiffTest, IdenticalCopyIsIdentical) {
  DiffResult result = diff(model(), model());
  EXPECT_TRUE(result.identical()) << describe(result);
  ASSERT_EQ(result.graphs.size(), 4u);
  EXPECT_EQ(result.graphs[0].source, "main");
  EXPECT_EQ(result.graphs[0].target, "main");
  EXPECT_EQ(result.graphs[0].sourceOps, 9u); // the graph op and 8 ops
  EXPECT_EQ(result.graphs[0].counts.identical, 9u);
  EXPECT_EQ(result.graphs[3].source, "gelu_zz11yy22"); // `sym_name` attr
  EXPECT_TRUE(result.graphs[0].changes.empty());
}

TEST_F(GraphDiffTest, ReorderedAndResuffixedIsIdentical) {
  DiffResult result =
      diff(model(), model(kModelReordered, "p0zz81m2", "q9w8e7r6", "mm00nn11"));
  EXPECT_TRUE(result.identical()) << describe(result);
  ASSERT_EQ(result.graphs.size(), 4u);
  const GraphComparison *rms = graphNamed(result, "rms_norm_k3j9x0qa");
  ASSERT_TRUE(rms);
  EXPECT_EQ(rms->target, "rms_norm_p0zz81m2");
  EXPECT_EQ(graphNamed(result, "gelu_zz11yy22")->target, "gelu_mm00nn11");
}

TEST_F(GraphDiffTest, OnlyDebugLocationsDifferIsIdentical) {
  std::string located =
      fill(kModel, {{"L1", kLegacyLoc}, {"L2", "loc(\"/a/model.py\":7:3)"}});
  DiffResult result = diff(model(), model(located.c_str()));
  EXPECT_TRUE(result.identical()) << describe(result);
}

TEST_F(GraphDiffTest, SmallConstantsCountAsValues) {
  // 8 biases are values (epsilons, scale factors, masks), compared whatever
  // the weights mode; the 64 weights are weights.
  std::string other =
      fill(kModel, {{"W", repeat("00000040", 64)},
                    {"B", "1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 9.0"}});
  for (WeightsMode mode : {WeightsMode::Ignore, WeightsMode::Digest}) {
    DiffOptions options;
    options.weights = mode;
    DiffResult result = diff(model(), model(other.c_str()), options);
    const GraphComparison *main = graphNamed(result, "main");
    ASSERT_TRUE(main);
    bool digest = mode == WeightsMode::Digest;
    EXPECT_EQ(main->counts.modified, digest ? 2u : 1u) << describe(result);
    EXPECT_EQ(main->counts.added + main->counts.removed, 0u);
    EXPECT_EQ(main->weightsByShape, digest ? 0u : 1u);
    ASSERT_EQ(main->changes.size(), digest ? 2u : 1u);
    EXPECT_EQ(main->changes.back().detail,
              "attributes differ: value: dense<[1, 2, 3, 4, 5, 6, 7, 8]> "
              "\u2192 dense<[1, 2, 3, 4, 5, 6, 7, 9]>");
  }
}

TEST_F(GraphDiffTest, OpInsertedEarlyInALongChainIsOneAddedOp) {
  DiffResult result = diff(chain(500), chain(500, 10));
  Counts counts = totals(result);
  EXPECT_EQ(counts.added, 1u) << describe(result);
  EXPECT_EQ(counts.removed, 0u);
  EXPECT_EQ(counts.modified, 0u);
  EXPECT_EQ(counts.identical, 502u); // graph op, 500 ops, return
  ASSERT_EQ(result.graphs[0].changes.size(), 1u);
  EXPECT_EQ(result.graphs[0].changes[0].op, "coreai.tanh");
  EXPECT_EQ(result.graphs[0].changes[0].kind, ChangeKind::Added);
  // And the other way round.
  Counts back = totals(diff(chain(500, 10), chain(500)));
  EXPECT_EQ(back.removed, 1u);
  EXPECT_EQ(back.added + back.modified, 0u);
}

TEST_F(GraphDiffTest, OperandSwapIsAModification) {
  const char *sub =
      "    %0 = \"coreai.sub\"({X}, {Y}) : (tensor<4xf32>, "
      "tensor<4xf32>) -> tensor<4xf32>\n    \"coreai.return\"(%0) "
      ": (tensor<4xf32>) -> ()\n";
  DiffResult result = diff(function(fill(sub, {{"X", "%a"}, {"Y", "%b"}})),
                           function(fill(sub, {{"X", "%b"}, {"Y", "%a"}})));
  EXPECT_FALSE(result.identical());
  Counts counts = totals(result);
  EXPECT_EQ(counts.modified, 1u) << describe(result);
  EXPECT_EQ(counts.added + counts.removed, 0u);
  ASSERT_EQ(result.graphs[0].changes.size(), 1u);
  EXPECT_EQ(result.graphs[0].changes[0].op, "coreai.sub");
  EXPECT_EQ(result.graphs[0].changes[0].detail,
            "operand 0: argument 0 of coreai.graph [1] \u2192 argument 1 of "
            "coreai.graph [1]; operand 1: argument 1 of coreai.graph [1] "
            "\u2192 argument 0 of coreai.graph [1]");
}

TEST_F(GraphDiffTest, AddOfOneValueTwiceIsNotAddOfTwoValues) {
  const char *add =
      "    %0 = \"coreai.add\"(%a, {Y}) : (tensor<4xf32>, "
      "tensor<4xf32>) -> tensor<4xf32>\n    \"coreai.return\"(%0) "
      ": (tensor<4xf32>) -> ()\n";
  DiffResult result = diff(function(fill(add, {{"Y", "%a"}})),
                           function(fill(add, {{"Y", "%b"}})));
  EXPECT_FALSE(result.identical());
  ASSERT_EQ(result.graphs[0].changes.size(), 1u) << describe(result);
  EXPECT_EQ(result.graphs[0].changes[0].kind, ChangeKind::Modified);
  EXPECT_EQ(result.graphs[0].changes[0].detail,
            "operand 1: argument 0 of coreai.graph [1] \u2192 argument 1 of "
            "coreai.graph [1]");
  // Both edges of add(x, x) are kept: itself, it is identical.
  EXPECT_TRUE(diff(function(fill(add, {{"Y", "%a"}})),
                   function(fill(add, {{"Y", "%a"}})))
                  .identical());
}

TEST_F(GraphDiffTest, ChangedReshapeShapeIsOneModifiedOp) {
  std::string located = fill(kModel, {{"L1", kLegacyLoc}});
  std::string changed = fill(located, {{"SHAPE", "8, 4"}});
  DiffResult result = diff(model(located.c_str()), model(changed.c_str()));
  Counts counts = totals(result);
  EXPECT_EQ(counts.modified, 1u) << describe(result);
  EXPECT_EQ(counts.added + counts.removed, 0u);
  const GraphComparison *main = graphNamed(result, "main");
  ASSERT_TRUE(main);
  ASSERT_EQ(main->changes.size(), 1u);
  const Change &change = main->changes[0];
  EXPECT_EQ(change.op, "coreai.reshape");
  EXPECT_EQ(change.detail, "attributes differ: shape: [4, 8] \u2192 [8, 4]");
  EXPECT_EQ(change.module, "Linear$1/Block$3/Model$1");
  EXPECT_EQ(change.sourceLine, "linear.py:134");
  ASSERT_TRUE(change.sourceIndex && change.targetIndex);
  EXPECT_EQ(main->status, GraphStatus::Different);
  EXPECT_EQ(graphNamed(result, "mlp_a1b2c3d4")->status, GraphStatus::Identical);
}

TEST_F(GraphDiffTest, ChangedResultTypeIsNamed) {
  const char *cast = "    %0 = \"coreai.cast\"(%a) : (tensor<4xf32>) -> "
                     "tensor<4x{T}>\n    \"coreai.return\"(%0) : "
                     "(tensor<4x{T}>) -> ()\n";
  DiffResult result = diff(function(fill(cast, {{"T", "f16"}})),
                           function(fill(cast, {{"T", "si8"}})));
  ASSERT_EQ(result.graphs.size(), 1u);
  ASSERT_EQ(result.graphs[0].changes.size(), 1u) << describe(result);
  EXPECT_EQ(result.graphs[0].changes[0].op, "coreai.cast");
  EXPECT_EQ(result.graphs[0].changes[0].detail,
            "result type tensor<4xf16> \u2192 tensor<4xsi8>");
}

namespace {
/// `layers` layers of constant weight, matmul, bias, add, relu.
std::string layered(int layers) {
  std::string body;
  std::string x = "%x";
  for (int i = 0; i < layers; ++i) {
    std::string n = std::to_string(i);
    body += fill(
        R"(    %w{N} = "coreai.constant"() {value = dense<1.0> : tensor<8x8xf32>} : () -> tensor<8x8xf32>
    %b{N} = "coreai.constant"() {value = dense<0.5> : tensor<8xf32>} : () -> tensor<8xf32>
    %m{N} = "coreai.matmul"({X}, %w{N}) : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
    %a{N} = "coreai.add"(%m{N}, %b{N}) : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
    %r{N} = "coreai.relu"(%a{N}) : (tensor<4x8xf32>) -> tensor<4x8xf32>
)",
        {{"N", n}, {"X", x}});
    x = "%r" + n;
  }
  return "\"builtin.module\"() ({\n  \"coreai.graph\"() <{sym_name = "
         "\"main\"}> ({\n  ^bb0(%x: tensor<4x8xf32>):\n" +
         body + "    %s = \"coreai.softmax\"(" + x +
         ") : (tensor<4x8xf32>) -> tensor<4x8xf32>\n    "
         "\"coreai.return\"(%s) : (tensor<4x8xf32>) -> ()\n  }) : () -> ()\n"
         "}) : () -> ()\n";
}
} // namespace

TEST_F(GraphDiffTest, RemovedLayerIsReportedAsRemovedOps) {
  DiffResult result = diff(layered(3), layered(2));
  Counts counts = totals(result);
  EXPECT_EQ(counts.removed, 5u) << describe(result);
  EXPECT_EQ(counts.added, 0u);
  EXPECT_EQ(counts.modified, 0u);
  EXPECT_EQ(counts.identical, 13u);
  EXPECT_EQ(result.graphs[0].status, GraphStatus::Different);
  Counts back = totals(diff(layered(2), layered(3)));
  EXPECT_EQ(back.added, 5u);
  EXPECT_EQ(back.removed + back.modified, 0u);
}

namespace {
/// Attention with look-alike q, k and v projections (same op names and
/// types, weights differing only in value), written in the order `order`.
std::string attention(const std::string &order, const std::string &kShape) {
  auto projection = [&](char which) {
    std::string p(1, which);
    return fill(
        R"(    %w{P} = "coreai.constant"() {value = dense_resource<{P}> : tensor<8x8xf32>} : () -> tensor<8x8xf32>
    %{P}0 = "coreai.matmul"(%x, %w{P}) : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
    %{P}1 = "coreai.reshape"(%{P}0) {shape = array<i64: {S}>} : (tensor<4x8xf32>) -> tensor<4x2x4xf32>
    %{P}2 = "coreai.transpose"(%{P}1) {perm = array<i64: 1, 0, 2>} : (tensor<4x2x4xf32>) -> tensor<2x4x4xf32>
)",
        {{"P", p}, {"S", which == 'k' ? kShape : "4, 2, 4"}});
  };
  std::string body;
  for (char which : order)
    body += projection(which);
  std::string blob = repeat("0000803F", 64);
  return "\"builtin.module\"() ({\n  \"coreai.graph\"() <{sym_name = "
         "\"main\"}> ({\n  ^bb0(%x: tensor<4x8xf32>):\n" +
         body +
         R"(    %s = "coreai.matmul"(%q2, %k2) : (tensor<2x4x4xf32>, tensor<2x4x4xf32>) -> tensor<2x4x4xf32>
    %p = "coreai.softmax"(%s) : (tensor<2x4x4xf32>) -> tensor<2x4x4xf32>
    %o = "coreai.matmul"(%p, %v2) : (tensor<2x4x4xf32>, tensor<2x4x4xf32>) -> tensor<2x4x4xf32>
    "coreai.return"(%o) : (tensor<2x4x4xf32>) -> ()
  }) : () -> ()
}) : () -> ()
{-# dialect_resources: { builtin: { q: "0x04000000)" +
         blob + R"(", k: "0x04000000)" + repeat("00000040", 64) +
         R"(", v: "0x04000000)" + repeat("00004040", 64) + "\" } } #-}\n";
}
} // namespace

TEST_F(GraphDiffTest, ReorderedLookAlikeChainsAreIdentical) {
  DiffResult result =
      diff(attention("qkv", "4, 2, 4"), attention("vkq", "4, 2, 4"));
  EXPECT_TRUE(result.identical()) << describe(result);
  EXPECT_EQ(totals(result).identical, 17u);
  DiffOptions digest;
  digest.weights = WeightsMode::Digest;
  EXPECT_TRUE(
      diff(attention("qkv", "4, 2, 4"), attention("kvq", "4, 2, 4"), digest)
          .identical());
  // One change in the k chain is one modified op, the k reshape.
  DiffResult changed =
      diff(attention("qkv", "4, 2, 4"), attention("vqk", "2, 4, 4"));
  Counts counts = totals(changed);
  EXPECT_EQ(counts.modified, 1u) << describe(changed);
  EXPECT_EQ(counts.added + counts.removed, 0u);
  ASSERT_EQ(changed.graphs[0].changes.size(), 1u);
  EXPECT_EQ(changed.graphs[0].changes[0].op, "coreai.reshape");
}

namespace {
/// `main` invoking one composite that invokes another, all named `names`.
std::string nested(const std::string &outer, const std::string &inner,
                   const std::string &op = "coreai.tanh") {
  return fill(R"mlir("builtin.module"() ({
  "coreai.graph"() <{sym_name = "main"}> ({
  ^bb0(%x: tensor<4xf32>):
    %0 = "coreai.invoke"(%x) {callee = @{O}} : (tensor<4xf32>) -> tensor<4xf32>
    "coreai.return"(%0) : (tensor<4xf32>) -> ()
  }) : () -> ()
  "coreai.graph"() <{sym_name = "{O}"}> ({
  ^bb0(%x: tensor<4xf32>):
    %0 = "coreai.invoke"(%x) {callee = @{I}} : (tensor<4xf32>) -> tensor<4xf32>
    %1 = "coreai.relu"(%0) : (tensor<4xf32>) -> tensor<4xf32>
    "coreai.return"(%1) : (tensor<4xf32>) -> ()
  }) : () -> ()
  "coreai.graph"() <{sym_name = "{I}"}> ({
  ^bb0(%x: tensor<4xf32>):
    %0 = "{OP}"(%x) : (tensor<4xf32>) -> tensor<4xf32>
    "coreai.return"(%0) : (tensor<4xf32>) -> ()
  }) : () -> ()
}) : () -> ()
)mlir",
              {{"O", outer}, {"I", inner}, {"OP", op}});
}
} // namespace

TEST_F(GraphDiffTest, CompositesPairThroughCallSitesAtAnyDepth) {
  // Renamed composites: only their call sites tell which is which.
  DiffResult result =
      diff(nested("block_aaaaaaaa", "act_bbbbbbbb"), nested("layer", "fn"));
  EXPECT_TRUE(result.identical()) << describe(result);
  ASSERT_EQ(result.graphs.size(), 3u);
  EXPECT_EQ(graphNamed(result, "block_aaaaaaaa")->target, "layer");
  EXPECT_EQ(graphNamed(result, "act_bbbbbbbb")->target, "fn");

  DiffResult changed = diff(nested("block_aaaaaaaa", "act_bbbbbbbb"),
                            nested("layer", "fn", "coreai.sigmoid"));
  EXPECT_FALSE(changed.identical());
  const GraphComparison *act = graphNamed(changed, "act_bbbbbbbb");
  ASSERT_TRUE(act) << describe(changed);
  EXPECT_EQ(act->target, "fn");
  EXPECT_EQ(act->counts.added, 1u);
  EXPECT_EQ(act->counts.removed, 1u);
  EXPECT_EQ(graphNamed(changed, "main")->status, GraphStatus::Identical);
}

TEST_F(GraphDiffTest, LookAlikeCompositeNamesPairByContent) {
  // Two `norm_*` composites on each side, re-suffixed: their bodies tell
  // them apart.
  const char *text = R"mlir("builtin.module"() ({
  "coreai.graph"() <{sym_name = "norm_{A}"}> ({
  ^bb0(%x: tensor<4xf32>):
    %0 = "coreai.relu"(%x) : (tensor<4xf32>) -> tensor<4xf32>
    "coreai.return"(%0) : (tensor<4xf32>) -> ()
  }) : () -> ()
  "coreai.graph"() <{sym_name = "norm_{B}"}> ({
  ^bb0(%x: tensor<4xf32>):
    %0 = "coreai.tanh"(%x) : (tensor<4xf32>) -> tensor<4xf32>
    "coreai.return"(%0) : (tensor<4xf32>) -> ()
  }) : () -> ()
}) : () -> ()
)mlir";
  DiffResult result = diff(fill(text, {{"A", "aaaaaaaa"}, {"B", "bbbbbbbb"}}),
                           fill(text, {{"A", "cccccccc"}, {"B", "dddddddd"}}));
  EXPECT_TRUE(result.identical()) << describe(result);
  EXPECT_EQ(graphNamed(result, "norm_aaaaaaaa")->target, "norm_cccccccc");
}

TEST_F(GraphDiffTest, GraphsOnOneSideOnlyAreAddedOrRemoved) {
  std::string extra = model();
  extra.insert(extra.rfind("}) : () -> ()"),
               "  \"coreai.graph\"() <{sym_name = \"extra\"}> ({\n"
               "    \"coreai.return\"() : () -> ()\n  }) : () -> ()\n");
  DiffResult result = diff(model(), extra);
  EXPECT_FALSE(result.identical());
  ASSERT_EQ(result.graphs.size(), 5u);
  EXPECT_EQ(result.graphs.back().target, "extra");
  EXPECT_EQ(result.graphs.back().source, "");
  EXPECT_EQ(result.graphs.back().status, GraphStatus::Added);
  EXPECT_EQ(result.graphs.back().counts.added, 2u);
  DiffResult back = diff(extra, model());
  EXPECT_EQ(back.graphs.back().status, GraphStatus::Removed);
  EXPECT_EQ(back.graphs.back().source, "extra");
}

TEST_F(GraphDiffTest, EntryPointComparesOneGraph) {
  DiffOptions options;
  options.entryPoint = "rms_norm"; // uniquifier-normalised
  DiffResult result =
      diff(model(), model(kModel, "p0zz81m2", "a1b2c3d4", "zz11yy22"), options);
  ASSERT_EQ(result.graphs.size(), 1u);
  EXPECT_EQ(result.graphs[0].source, "rms_norm_k3j9x0qa");
  EXPECT_EQ(result.graphs[0].target, "rms_norm_p0zz81m2");
  EXPECT_TRUE(result.identical());

  auto a = load(model()), b = load(model());
  ASSERT_TRUE(a && b);
  options.entryPoint = "nope";
  llvm::Expected<DiffResult> missing = diffFiles(*a, *b, options);
  ASSERT_FALSE(bool(missing));
  // The graphs there are, so a typo is one look away.
  EXPECT_EQ(llvm::toString(missing.takeError()),
            "no graph named nope (golden has main, rms_norm_k3j9x0qa, "
            "mlp_a1b2c3d4, gelu_zz11yy22; new has main, rms_norm_k3j9x0qa, "
            "mlp_a1b2c3d4, gelu_zz11yy22)");
}

TEST_F(GraphDiffTest, UpstreamFunctionsAreKnownByTheirNames) {
  // func.func is registered in mlir-opt: its sym_name is in natively
  // encoded properties, which ODS writes in a known layout.
  const char *text = R"mlir("builtin.module"() ({
  "func.func"() <{function_type = (f32) -> f32, sym_name = "f"}> ({
  ^bb0(%x: f32):
    %0 = "coreai.neg"(%x) : (f32) -> f32
    "func.return"(%0) : (f32) -> ()
  }) : () -> ()
}) : () -> ()
)mlir";
  DiffResult result = diff(text, text);
  EXPECT_TRUE(result.identical()) << describe(result);
  ASSERT_EQ(result.graphs.size(), 1u);
  EXPECT_EQ(result.graphs[0].source, "f");
  EXPECT_EQ(result.graphs[0].counts.identical, 3u);
}

TEST_F(GraphDiffTest, OpsInNestedRegionsAreMatched) {
  const char *text = R"mlir("builtin.module"() ({
  "coreai.graph"() <{sym_name = "main"}> ({
  ^bb0(%x: tensor<4xf32>):
    %0 = "coreai.group"(%x) ({
    ^bb0(%y: tensor<4xf32>):
      %1 = "{A}"(%y) : (tensor<4xf32>) -> tensor<4xf32>
      %2 = "coreai.relu"(%1) : (tensor<4xf32>) -> tensor<4xf32>
      "coreai.yield"(%2) : (tensor<4xf32>) -> ()
    }) : (tensor<4xf32>) -> tensor<4xf32>
    "coreai.return"(%0) : (tensor<4xf32>) -> ()
  }) : () -> ()
}) : () -> ()
)mlir";
  std::string tanh = fill(text, {{"A", "coreai.tanh"}});
  DiffResult same = diff(tanh, tanh);
  EXPECT_TRUE(same.identical()) << describe(same);
  EXPECT_EQ(totals(same).identical, 6u);
  DiffResult result = diff(tanh, fill(text, {{"A", "coreai.exp"}}));
  Counts counts = totals(result);
  EXPECT_EQ(counts.added, 1u) << describe(result);
  EXPECT_EQ(counts.removed, 1u);
  EXPECT_EQ(counts.modified, 0u);
}

TEST_F(GraphDiffTest, LookAlikeCompositesPairThroughTheirCallSites) {
  // Two composites with one body and one base name on each side, all
  // re-suffixed: neither names nor content tell them apart; call sites do.
  const char *text = R"mlir("builtin.module"() ({
  "coreai.graph"() <{sym_name = "main"}> ({
  ^bb0(%x: tensor<4xf32>):
    %0 = "coreai.invoke"(%x) {callee = @norm_{A}} : (tensor<4xf32>) -> tensor<4xf32>
    %1 = "coreai.relu"(%0) : (tensor<4xf32>) -> tensor<4xf32>
    %2 = "coreai.invoke"(%1) {callee = @norm_{B}} : (tensor<4xf32>) -> tensor<4xf32>
    "coreai.return"(%2) : (tensor<4xf32>) -> ()
  }) : () -> ()
  "coreai.graph"() <{sym_name = "norm_{A}"}> ({
  ^bb0(%x: tensor<4xf32>):
    %0 = "coreai.tanh"(%x) : (tensor<4xf32>) -> tensor<4xf32>
    "coreai.return"(%0) : (tensor<4xf32>) -> ()
  }) : () -> ()
  "coreai.graph"() <{sym_name = "norm_{B}"}> ({
  ^bb0(%x: tensor<4xf32>):
    %0 = "coreai.tanh"(%x) : (tensor<4xf32>) -> tensor<4xf32>
    "coreai.return"(%0) : (tensor<4xf32>) -> ()
  }) : () -> ()
}) : () -> ()
)mlir";
  DiffResult result = diff(fill(text, {{"A", "aaaaaaaa"}, {"B", "bbbbbbbb"}}),
                           fill(text, {{"A", "cccccccc"}, {"B", "dddddddd"}}));
  EXPECT_TRUE(result.identical()) << describe(result);
  EXPECT_EQ(graphNamed(result, "norm_aaaaaaaa")->target, "norm_cccccccc");
  EXPECT_EQ(graphNamed(result, "norm_bbbbbbbb")->target, "norm_dddddddd");
}

TEST_F(GraphDiffTest, GraphRegionCyclesAndBranchesAreMatched) {
  const char *cycle = R"mlir("builtin.module"() ({
  "coreai.graph"() <{sym_name = "main"}> ({
  ^bb0(%x: tensor<4xf32>):
    %0 = "coreai.add"(%x, %1) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %1 = "{OP}"(%0) : (tensor<4xf32>) -> tensor<4xf32>
    "coreai.return"(%1) : (tensor<4xf32>) -> ()
  }) : () -> ()
  "coreai.graph"() <{sym_name = "branches"}> ({
  ^bb0(%x: tensor<4xf32>):
    "coreai.br"(%x)[^bb1] : (tensor<4xf32>) -> ()
  ^bb1(%y: tensor<4xf32>):
    %2 = "coreai.neg"(%y) : (tensor<4xf32>) -> tensor<4xf32>
    "coreai.cond_br"(%2)[^bb1, ^bb2] : (tensor<4xf32>) -> ()
  ^bb2:
    "coreai.return"(%2) : (tensor<4xf32>) -> ()
  }) : () -> ()
}) : () -> ()
)mlir";
  std::string relu = fill(cycle, {{"OP", "coreai.relu"}});
  DiffResult same = diff(relu, relu);
  EXPECT_TRUE(same.identical()) << describe(same);
  EXPECT_EQ(totals(same).identical, 9u);
  DiffResult changed = diff(relu, fill(cycle, {{"OP", "coreai.exp"}}));
  Counts counts = totals(changed);
  EXPECT_EQ(counts.added, 1u) << describe(changed);
  EXPECT_EQ(counts.removed, 1u);
  EXPECT_EQ(counts.modified, 0u);
}
