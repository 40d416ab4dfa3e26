//===- GraphDiffCorpusTest.cpp - The matcher on real, large, odd inputs ---===//
//
// Real Core AI delegates (skipped without ../shared/corpus): every
// .mpsgraph is identical to itself, and a package's original and
// specialised models differ without error. A generated ~100k-op pair
// checks that matching stays fast and exact at scale; mutated files that
// still decode are compared without crashing.
//
//===----------------------------------------------------------------------===//

#include "graphdiff/GraphDiffTestSupport.h"

#include <ctime>

using namespace aimodel;
using namespace aimodel::graphdiff;
using namespace aimodel::graphdiff::testing;
using bytecode::testing::corpusPath;
using bytecode::testing::haveCorpus;

namespace {

std::vector<std::string> corpusFiles(llvm::StringRef extension) {
  std::vector<std::string> files;
  std::error_code ec;
  for (llvm::sys::fs::recursive_directory_iterator it(corpusPath(""), ec), end;
       it != end && !ec; it.increment(ec))
    if (llvm::sys::path::extension(it->path()) == extension)
      files.push_back(it->path());
  std::sort(files.begin(), files.end());
  return files;
}

std::unique_ptr<BytecodeFile> open(const std::string &path) {
  auto file = BytecodeFile::open(path);
  if (!file) {
    ADD_FAILURE() << path << ": " << llvm::toString(file.takeError());
    return nullptr;
  }
  return std::move(*file);
}

} // namespace

TEST(GraphDiffCorpusTest, EveryDelegateIsIdenticalToItself) {
  if (!haveCorpus())
    GTEST_SKIP() << "no corpus at " << corpusPath("");
  std::vector<std::string> files = corpusFiles(".mpsgraph");
  for (const std::string &path : corpusFiles(".mlirb"))
    files.push_back(path);
  ASSERT_FALSE(files.empty());
  for (const std::string &path : files) {
    auto a = open(path), b = open(path);
    ASSERT_TRUE(a && b);
    for (WeightsMode weights : {WeightsMode::Ignore, WeightsMode::Digest}) {
      DiffOptions options;
      options.weights = weights;
      llvm::Expected<DiffResult> result = diffFiles(*a, *b, options);
      ASSERT_TRUE(bool(result)) << path << llvm::toString(result.takeError());
      EXPECT_TRUE(result->identical()) << path << "\n" << describe(*result);
      EXPECT_FALSE(result->graphs.empty()) << path;
    }
  }
}

TEST(GraphDiffCorpusTest, OriginalAndSpecializedModelsDiffer) {
  if (!haveCorpus())
    GTEST_SKIP() << "no corpus at " << corpusPath("");
  unsigned packages = 0;
  for (const std::string &original : corpusFiles(".mpsgraph")) {
    if (llvm::sys::path::filename(original) != "original_model_0.mpsgraph")
      continue;
    llvm::SmallString<256> specialized(original);
    llvm::sys::path::remove_filename(specialized);
    llvm::sys::path::append(specialized, "specialized_model_1.mpsgraph");
    if (!llvm::sys::fs::exists(specialized))
      continue;
    ++packages;
    auto a = open(original), b = open(std::string(specialized));
    ASSERT_TRUE(a && b);
    llvm::Expected<DiffResult> result = diffFiles(*a, *b, {});
    ASSERT_TRUE(bool(result)) << llvm::toString(result.takeError());
    EXPECT_FALSE(result->identical()) << original;
  }
  EXPECT_GT(packages, 0u);
}

namespace {

/// Edits of the candidate transformer.
struct Edits {
  bool reorder = false;  ///< projections listed v, k, q in every layer
  int tanhAfter = -1;    ///< layer with one more op (a tanh in the MLP)
  int changedShape = -1; ///< layer whose k reshape has another shape
  int removedLayer = -1; ///< layer left out
  int swappedAdd = -1;   ///< layer whose residual add swaps its operands
  int reluForGelu = -1;  ///< layer whose MLP has a relu for its gelu
};

/// A transformer-like model: `layers` layers of look-alike q/k/v chains,
/// attention and an MLP, 26 ops each.
std::string transformer(int layers, const Edits &edits = {}) {
  std::string text = "\"builtin.module\"() ({\n  \"coreai.graph\"() "
                     "<{sym_name = \"main\"}> ({\n  ^bb0(%y0: "
                     "tensor<4x8xf32>):\n";
  const char *projection =
      R"(    %w{P}{N} = "coreai.constant"() {value = dense<0.5> : tensor<8x8xf32>} : () -> tensor<8x8xf32>
    %{P}0_{N} = "coreai.matmul"(%y{N}, %w{P}{N}) : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
    %{P}1_{N} = "coreai.reshape"(%{P}0_{N}) {shape = array<i64: {S}>} : (tensor<4x8xf32>) -> tensor<4x2x4xf32>
    %{P}2_{N} = "coreai.transpose"(%{P}1_{N}) {perm = array<i64: 1, 0, 2>} : (tensor<4x2x4xf32>) -> tensor<2x4x4xf32>
)";
  const char *rest =
      R"(    %s{N} = "coreai.matmul"(%q2_{N}, %k2_{N}) : (tensor<2x4x4xf32>, tensor<2x4x4xf32>) -> tensor<2x4x4xf32>
    %p{N} = "coreai.softmax"(%s{N}) : (tensor<2x4x4xf32>) -> tensor<2x4x4xf32>
    %o{N} = "coreai.matmul"(%p{N}, %v2_{N}) : (tensor<2x4x4xf32>, tensor<2x4x4xf32>) -> tensor<2x4x4xf32>
    %ot{N} = "coreai.transpose"(%o{N}) {perm = array<i64: 1, 0, 2>} : (tensor<2x4x4xf32>) -> tensor<4x2x4xf32>
    %or{N} = "coreai.reshape"(%ot{N}) {shape = array<i64: 4, 8>} : (tensor<4x2x4xf32>) -> tensor<4x8xf32>
    %wo{N} = "coreai.constant"() {value = dense<0.5> : tensor<8x8xf32>} : () -> tensor<8x8xf32>
    %op{N} = "coreai.matmul"(%or{N}, %wo{N}) : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
    %r{N} = "coreai.add"({RESIDUAL}) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
{EXTRA}    %w1{N} = "coreai.constant"() {value = dense<0.5> : tensor<8x8xf32>} : () -> tensor<8x8xf32>
    %m1{N} = "coreai.matmul"(%{IN}, %w1{N}) : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
    %g{N} = "{ACT}"(%m1{N}) : (tensor<4x8xf32>) -> tensor<4x8xf32>
    %w2{N} = "coreai.constant"() {value = dense<0.5> : tensor<8x8xf32>} : () -> tensor<8x8xf32>
    %m2{N} = "coreai.matmul"(%g{N}, %w2{N}) : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
    %y{NEXT} = "coreai.add"(%r{N}, %m2{N}) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
)";
  int written = 0;
  for (int layer = 0; layer < layers; ++layer) {
    if (layer == edits.removedLayer)
      continue;
    std::string n = std::to_string(written);
    for (char which : std::string(edits.reorder ? "vkq" : "qkv"))
      text +=
          fill(projection, {{"P", std::string(1, which)},
                            {"N", n},
                            {"S", layer == edits.changedShape && which == 'k'
                                      ? "2, 4, 4"
                                      : "4, 2, 4"}});
    bool extra = layer == edits.tanhAfter;
    text += fill(
        rest,
        {{"N", n},
         {"NEXT", std::to_string(written + 1)},
         {"EXTRA", extra ? "    %t" + n + " = \"coreai.tanh\"(%r" + n +
                               ") : (tensor<4x8xf32>) -> tensor<4x8xf32>\n"
                         : ""},
         {"IN", (extra ? "t" : "r") + n},
         {"RESIDUAL", layer == edits.swappedAdd ? "%op" + n + ", %y" + n
                                                : "%y" + n + ", %op" + n},
         {"ACT", layer == edits.reluForGelu ? "coreai.relu" : "coreai.gelu"}});
    ++written;
  }
  return text + "    \"coreai.return\"(%y" + std::to_string(written) +
         ") : (tensor<4x8xf32>) -> ()\n  }) : () -> ()\n}) : () -> ()\n";
}

} // namespace

TEST_F(GraphDiffTest, AHundredThousandOpPairDiffsExactly) {
  const int layers = 3850; // 26 ops each
  Edits edits;
  edits.reorder = true;
  edits.tanhAfter = 5;
  edits.changedShape = layers / 2;
  auto a = load(transformer(layers));
  auto b = load(transformer(layers, edits));
  ASSERT_TRUE(a && b);
  ASSERT_GT(a->totalOps(), 100000u);
  // Only exactness here: speed is scripts/bench-diff's (BENCHMARKS.md).
  llvm::Expected<DiffResult> result = diffFiles(*a, *b, {});
  ASSERT_TRUE(bool(result)) << llvm::toString(result.takeError());
  Counts counts = totals(*result);
  EXPECT_EQ(counts.added, 1u);
  EXPECT_EQ(counts.removed, 0u);
  EXPECT_EQ(counts.modified, 1u);
  ASSERT_EQ(result->graphs.size(), 1u);
  ASSERT_EQ(result->graphs[0].changes.size(), 2u)
      << describe(*result).substr(0, 4000);
  EXPECT_EQ(result->graphs[0].changes[0].op, "coreai.reshape");
  EXPECT_EQ(result->graphs[0].changes[0].detail,
            "attributes differ: shape: [4, 2, 4] \u2192 [2, 4, 4]");
  EXPECT_EQ(result->graphs[0].changes[1].op, "coreai.tanh");
}

TEST_F(GraphDiffTest, EditsAmongLookAlikeLayersStayLocal) {
  const int layers = 40;
  std::string golden = transformer(layers);
  auto expect = [&](const Edits &edits, uint64_t modified, uint64_t added,
                    uint64_t removed) {
    DiffResult result = diff(golden, transformer(layers, edits));
    Counts counts = totals(result);
    EXPECT_EQ(counts.modified, modified) << describe(result);
    EXPECT_EQ(counts.added, added) << describe(result);
    EXPECT_EQ(counts.removed, removed) << describe(result);
  };
  Edits middle;
  middle.removedLayer = 20;
  expect(middle, 0, 0, 26);
  Edits first;
  first.removedLayer = 0;
  first.reorder = true;
  expect(first, 0, 0, 26);
  Edits swap;
  swap.swappedAdd = 17;
  swap.reorder = true;
  expect(swap, 1, 0, 0);
  Edits relu;
  relu.reluForGelu = 30;
  expect(relu, 0, 1, 1);
  Edits several;
  several.reorder = true;
  several.tanhAfter = 3;
  several.changedShape = 12;
  several.swappedAdd = 25;
  several.reluForGelu = 35;
  expect(several, 2, 2, 1);
}

TEST_F(GraphDiffTest, MutatedFilesThatDecodeCompareWithoutCrashing) {
  const char *text = R"mlir("builtin.module"() ({
  "coreai.graph"() <{sym_name = "main_abcdefgh"}> ({
  ^bb0(%x: tensor<4xf32>):
    %w = "coreai.constant"() {value = dense_resource<w> : tensor<4xf32>} : () -> tensor<4xf32>
    %0 = "coreai.add"(%x, %w) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %1 = "coreai.invoke"(%0) {callee = @f_12345678} : (tensor<4xf32>) -> tensor<4xf32>
    "coreai.br"(%1)[^bb1] : (tensor<4xf32>) -> ()
  ^bb1(%y: tensor<4xf32>):
    "coreai.return"(%y) : (tensor<4xf32>) -> ()
  }) : () -> () loc(fused<{call_stack = ["A$1"]}>["/a/b.py":3:1])
  "coreai.graph"() ({
  ^bb0(%x: tensor<4xf32>):
    %0 = "coreai.relu"(%x) : (tensor<4xf32>) -> tensor<4xf32>
    "coreai.return"(%0) : (tensor<4xf32>) -> ()
  }) {sym_name = "f_12345678"} : () -> ()
}) : () -> ()
{-# dialect_resources: { builtin: { w: "0x040000000000803F0000803F0000803F0000803F" } } #-}
)mlir";
  std::string bytes = bytecode::testing::emitBytecode(mlirOpt, text);
  auto original = bytecode::testing::decode(bytes);
  ASSERT_TRUE(bool(original)) << llvm::toString(original.takeError());
  unsigned decoded = 0;
  for (uint64_t offset = 0; offset < bytes.size(); ++offset)
    for (uint8_t value : {uint8_t(0), uint8_t(1), uint8_t(0x80)}) {
      auto mutant = bytecode::testing::decode(
          bytecode::testing::patched(bytes, offset, value));
      if (!mutant) {
        llvm::consumeError(mutant.takeError());
        continue;
      }
      ++decoded;
      DiffOptions options;
      options.weights = WeightsMode::Digest;
      for (auto [a, b] : {std::pair{original->get(), mutant->get()},
                          std::pair{mutant->get(), original->get()}}) {
        llvm::Expected<DiffResult> result = diffFiles(*a, *b, options);
        ASSERT_TRUE(bool(result))
            << "byte " << offset << ": " << llvm::toString(result.takeError());
      }
    }
  EXPECT_GT(decoded, 0u);
  std::printf("[ mutants ] %u of %zu decode\n", decoded, bytes.size() * 3);
}
