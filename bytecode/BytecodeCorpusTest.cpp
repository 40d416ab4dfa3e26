//===- BytecodeCorpusTest.cpp - Decoder tests on real Core AI files -------===//
//
// Pins what the decoder finds in the six real bytecode files of
// ../shared/corpus (skipped when the corpus is absent) and checks that
// truncated or corrupted copies fail cleanly.
//
//===----------------------------------------------------------------------===//

#include "testing/BytecodeTestSupport.h"

#include <map>

using namespace aimodel::bytecode;
using namespace aimodel::bytecode::testing;

namespace {

//===----------------------------------------------------------------------===//
// Real Core AI files
//===----------------------------------------------------------------------===//

struct CorpusExpectation {
  const char *path;
  uint64_t totalOps;
  std::map<std::string, uint64_t> opCounts;
  std::vector<std::string> dialects;
  std::vector<std::string> versionedDialects;
  uint64_t fusedLocWithMetadata;
};

const char *const kConnector = "vibevoice_connector_fp16.h18p.aimodelc/";
const char *const kDiffusion = "vibevoice_diffusion_head_fp16.h18p.aimodelc/";
const char *const kPackage =
    "main-h18p-delegates/MPSGraph/mpsExecutable.mpsgraphpackage/";

// How these numbers were cross-checked independently of this decoder:
//  * main-h18p.mlirb (connector): decoded by hand from `xxd` of the 79-byte
//    IR section at file offset 388: root block `05` (1 op); op `01` (name 0,
//    serialization.asset) mask `50` (properties|regions) loc `4d` props `01`
//    regions `07` (1, isolated) nested section `04 8f` (71 bytes): region
//    `03 01`, block `09` (2 ops): target_spec_v1 (`03 40 4d 03`), graph_v1
//    (`05 50 43 05 07`, nested section `04 73`): region `03 09` (4 values),
//    block `13` (4 ops, args: 1 arg type 2 loc 41, no use-lists):
//    copy_with_constraints_v1, isolated_group_v1 (nested section `04 29`:
//    1 block, 2 ops: delegate_v2, yield_v1), copy_discarding_constraints_v1,
//    output_v1 => 9 ops, one of each name.
//  * all six files: a separate, minimal Python decoder written only for this
//    check (not part of the project) gave the same totals, per-name counts
//    and FusedLocWithMetadata entry counts (builtin entries with code 13).
const std::vector<CorpusExpectation> &corpusExpectations() {
  static const std::vector<CorpusExpectation> expectations = {
      {"main-h18p.mlirb",
       9,
       {{"aicode.ax.copy_discarding_constraints_v1", 1},
        {"aicode.ax.copy_with_constraints_v1", 1},
        {"aicode.dataflow.graph_v1", 1},
        {"aicode.dataflow.isolated_group_v1", 1},
        {"aicode.dataflow.output_v1", 1},
        {"aicode.dataflow.yield_v1", 1},
        {"aicode.execution.delegate_v2", 1},
        {"aicode.execution.target_spec_v1", 1},
        {"aicode.serialization.asset", 1}},
       {"aicode", "builtin"},
       {"aicode"},
       3},
      {"original_model_0.mpsgraph",
       20,
       {{"mps.add", 3},
        {"mps.constant", 7},
        {"mps.func", 1},
        {"mps.matmul", 2},
        {"mps.module", 1},
        {"mps.multiply", 2},
        {"mps.reciprocal_square_root", 1},
        {"mps.reduction_mean", 1},
        {"mps.return", 1},
        {"mps.square", 1}},
       {"mps", "builtin"},
       {"mps"},
       14},
      {"specialized_model_1.mpsgraph",
       38,
       {{"arith.constant", 2},
        {"builtin.module", 1},
        {"func.func", 1},
        {"func.return", 1},
        {"memref.alloc", 1},
        {"memref.dealloc", 2},
        {"memref.view", 2},
        {"mps.add", 2},
        {"mps.constant", 7},
        {"mps.matmul", 2},
        {"mps.multiply", 1},
        {"mps_spi.rms_norm", 1},
        {"mpsx.gpu", 1},
        {"mpsx.memref_backed", 2},
        {"mpsx.region_return", 1},
        {"mpsx.stitched", 3},
        {"mpsx.stitched_return", 3},
        {"mpsx.use_memref", 2},
        {"placement.memref_to_tensor", 2},
        {"placement.region_call", 1}},
       {"builtin", "mpsx", "func", "placement", "arith", "mps", "memref",
        "mps_spi"},
       {"mpsx", "mps", "mps_spi"},
       18},
      {"main-h18p.mlirb",
       11,
       {{"aicode.ax.copy_discarding_constraints_v1", 1},
        {"aicode.ax.copy_with_constraints_v1", 3},
        {"aicode.dataflow.graph_v1", 1},
        {"aicode.dataflow.isolated_group_v1", 1},
        {"aicode.dataflow.output_v1", 1},
        {"aicode.dataflow.yield_v1", 1},
        {"aicode.execution.delegate_v2", 1},
        {"aicode.execution.target_spec_v1", 1},
        {"aicode.serialization.asset", 1}},
       {"aicode", "builtin"},
       {"aicode"},
       3},
      {"original_model_0.mpsgraph",
       134,
       {{"mps.add", 20},
        {"mps.cast", 2},
        {"mps.concat", 1},
        {"mps.constant", 34},
        {"mps.cos", 1},
        {"mps.func", 1},
        {"mps.matmul", 22},
        {"mps.module", 1},
        {"mps.multiply", 23},
        {"mps.reciprocal_square_root", 5},
        {"mps.reduction_mean", 5},
        {"mps.reshape", 1},
        {"mps.return", 1},
        {"mps.sin", 1},
        {"mps.split", 5},
        {"mps.square", 5},
        {"mps.swish", 6}},
       {"mps", "builtin"},
       {"mps"},
       100},
      {"specialized_model_1.mpsgraph",
       371,
       {{"arith.constant", 11},
        {"builtin.module", 1},
        {"func.func", 1},
        {"func.return", 1},
        {"memref.alloc", 1},
        {"memref.dealloc", 28},
        {"memref.view", 29},
        {"mps.add", 21},
        {"mps.cast", 3},
        {"mps.constant", 52},
        {"mps.cos", 1},
        {"mps.exponent", 6},
        {"mps.identity", 3},
        {"mps.matmul", 22},
        {"mps.multiply", 25},
        {"mps.negative", 6},
        {"mps.reciprocal", 6},
        {"mps.reshape", 1},
        {"mps.sin", 1},
        {"mps.split", 5},
        {"mps_spi.rms_norm", 5},
        {"mps_spi.strided_array_view", 2},
        {"mpsx.gpu", 1},
        {"mpsx.memref_backed", 30},
        {"mpsx.region_return", 1},
        {"mpsx.stitched", 24},
        {"mpsx.stitched_return", 24},
        {"mpsx.use_memref", 30},
        {"placement.memref_to_tensor", 29},
        {"placement.region_call", 1}},
       {"builtin", "mpsx", "func", "placement", "arith", "mps", "memref",
        "mps_spi"},
       {"mpsx", "mps", "mps_spi"},
       382},
  };
  return expectations;
}

std::string corpusFile(size_t index) {
  std::string bundle = index < 3 ? kConnector : kDiffusion;
  const char *name = corpusExpectations()[index].path;
  if (llvm::StringRef(name).ends_with(".mpsgraph"))
    return corpusPath(bundle + kPackage + name);
  return corpusPath(bundle + name);
}

class CorpusTest : public ::testing::TestWithParam<size_t> {
protected:
  void SetUp() override {
    if (!haveCorpus())
      GTEST_SKIP() << "corpus not found under " << sharedDir();
  }
};

TEST_P(CorpusTest, PinnedCounts) {
  const CorpusExpectation &expected = corpusExpectations()[GetParam()];
  auto decoded = BytecodeFile::open(corpusFile(GetParam()));
  ASSERT_TRUE(bool(decoded)) << llvm::toString(decoded.takeError());
  const BytecodeFile &file = **decoded;
  EXPECT_EQ(file.version(), 6u);
  EXPECT_EQ(file.producer(), "MLIR22.0.0git");
  EXPECT_EQ(file.totalOps(), expected.totalOps);
  EXPECT_EQ(file.opCounts(), expected.opCounts);
  std::vector<std::string> dialects, versioned;
  for (const Dialect &dialect : file.dialects()) {
    dialects.push_back(dialect.name.str());
    if (dialect.versionBlob) {
      versioned.push_back(dialect.name.str());
      EXPECT_GT(dialect.versionBlob->size, 0u);
    }
  }
  EXPECT_EQ(dialects, expected.dialects);
  EXPECT_EQ(versioned, expected.versionedDialects);
  uint64_t fused = 0;
  for (size_t i = 0; i < file.attributes().size(); ++i)
    fused += file.attrKind(i) == AttrKind::FusedLocWithMetadata;
  EXPECT_EQ(fused, expected.fusedLocWithMetadata);
  // Every op's location is an attribute entry; all ops are registered.
  for (const OpName &name : file.opNames())
    EXPECT_TRUE(name.isRegistered);
  checkInvariants(file);
}

TEST_P(CorpusTest, TruncatedAndFlippedNeverCrash) {
  auto buffer = llvm::MemoryBuffer::getFile(corpusFile(GetParam()));
  ASSERT_TRUE(bool(buffer));
  llvm::StringRef bytes = (*buffer)->getBuffer();
  for (size_t size = 0; size < bytes.size(); ++size)
    expectDecodesOrFailsCleanly(bytes.take_front(size),
                                "truncated at " + std::to_string(size));
  // Every offset of the small files, ~1500 offsets spread over large ones.
  size_t stride = std::max<size_t>(1, bytes.size() / 1500);
  for (size_t offset = 0; offset < bytes.size(); offset += stride)
    for (uint8_t mask : {0x01, 0x04, 0x80, 0xFF}) {
      std::string flipped = bytes.str();
      flipped[offset] ^= char(mask);
      expectDecodesOrFailsCleanly(flipped,
                                  "flipped at " + std::to_string(offset));
    }
}

INSTANTIATE_TEST_SUITE_P(RealFiles, CorpusTest, ::testing::Range<size_t>(0, 6),
                         [](const ::testing::TestParamInfo<size_t> &info) {
                           std::string name =
                               std::string(info.param < 3 ? "connector_"
                                                          : "diffusion_") +
                               corpusExpectations()[info.param].path;
                           for (char &c : name)
                             if (!isalnum(static_cast<unsigned char>(c)))
                               c = '_';
                           return name;
                         });

TEST(CorpusLocations, MainHasAicodeVersionAndLegacyLocations) {
  if (!haveCorpus())
    GTEST_SKIP() << "corpus not found";
  auto decoded = BytecodeFile::open(
      corpusPath(std::string(kConnector) + "main-h18p.mlirb"));
  ASSERT_TRUE(bool(decoded)) << llvm::toString(decoded.takeError());
  const BytecodeFile &file = **decoded;
  ASSERT_EQ(file.dialects()[0].name, "aicode");
  ASSERT_TRUE(file.dialects()[0].versionBlob.has_value());
  // Each FusedLocWithMetadata carries the 0.4.0 STANDARD metadata keys.
  for (size_t i = 0; i < file.attributes().size(); ++i) {
    if (file.attrKind(i) != AttrKind::FusedLocWithMetadata)
      continue;
    const DecodedAttr &meta = file.decodedAttr(file.decodedAttr(i).metadata);
    ASSERT_EQ(meta.kind, AttrKind::Dictionary);
    std::vector<llvm::StringRef> keys;
    for (const NamedAttrRef &named : meta.namedAttrs)
      keys.push_back(file.decodedAttr(named.name).str);
    EXPECT_NE(std::find(keys.begin(), keys.end(), "call_stack"), keys.end());
  }
  // Natively encoded properties of registered aicode ops are opaque spans.
  uint64_t native = 0;
  for (const Operation &op : file.operations())
    if (op.propertiesForm == PropertiesForm::Native) {
      ++native;
      EXPECT_GT(op.propertiesBlob.size, 0u);
    }
  EXPECT_GT(native, 0u);
}

} // namespace
