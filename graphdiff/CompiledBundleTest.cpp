//===- CompiledBundleTest.cpp - Compiled bundles compared whole -----------===//
//
// A compiled bundle stands for its whole model: its mlirb and every
// delegate graph, files paired by their paths in the bundle (the real
// bundles of ../shared/corpus; skipped without it).
//
//===----------------------------------------------------------------------===//

#include "graphdiff/GraphDiffTestSupport.h"

#include "bundle/IRFiles.h"
#include "testing/TestFiles.h"

#include <cstdlib>
#include <fstream>
#include <set>
#include <unistd.h>

using namespace aimodel;
using namespace aimodel::graphdiff;
using namespace aimodel::graphdiff::testing;
using bytecode::testing::corpusPath;
using bytecode::testing::haveCorpus;

namespace {

const char *kConnector = "vibevoice_connector_fp16.h18p.aimodelc";
const char *kDiffusion = "vibevoice_diffusion_head_fp16.h18p.aimodelc";
const char *kDelegate = "main-h18p-delegates/MPSGraph/mpsExecutable."
                        "mpsgraphpackage/specialized_model_1.mpsgraph";

/// A bundle's IR files, decoded, as the diff command reads them.
struct Loaded {
  std::vector<std::unique_ptr<BytecodeFile>> owned;
  ModelFiles files;
};

Loaded load(const std::string &path) {
  Loaded out;
  auto inputs = bundle::IRFiles::open(path, /*withDelegates=*/true);
  if (!inputs) {
    ADD_FAILURE() << path << ": " << llvm::toString(inputs.takeError());
    return out;
  }
  for (size_t i = 0; i < inputs->paths().size(); ++i) {
    auto buffer = inputs->map(i);
    auto file =
        buffer
            ? BytecodeFile::fromBuffer(std::move(*buffer))
            : llvm::Expected<std::unique_ptr<BytecodeFile>>(buffer.takeError());
    if (!file) {
      ADD_FAILURE() << inputs->paths()[i] << ": "
                    << llvm::toString(file.takeError());
      return out;
    }
    out.files.names.push_back(inputs->names()[i]);
    out.files.files.push_back(file->get());
    out.owned.push_back(std::move(*file));
  }
  return out;
}

DiffResult compare(const std::string &a, const std::string &b) {
  Loaded golden = load(a), candidate = load(b);
  auto result = diffModels(pairModelFiles(golden.files, candidate.files), {});
  if (!result) {
    ADD_FAILURE() << llvm::toString(result.takeError());
    return {};
  }
  return std::move(*result);
}

/// Copies a corpus bundle into `scratch` (writable) and returns its path.
std::string copyBundle(aimodel::testing::ScratchDir &scratch,
                       const char *bundle) {
  std::string to = scratch.path(bundle);
  std::string command = "cp -r '" + corpusPath(bundle) + "' '" + to +
                        "' && chmod -R u+w '" + to + "'";
  EXPECT_EQ(std::system(command.c_str()), 0);
  return to;
}

} // namespace

TEST(CompiledBundle, ItselfIsIdenticalAndDelegatesAreCompared) {
  if (!haveCorpus())
    GTEST_SKIP() << "no corpus";
  for (const char *bundle : {kConnector, kDiffusion}) {
    DiffResult result = compare(corpusPath(bundle), corpusPath(bundle));
    EXPECT_TRUE(result.identical()) << describe(result);
    // The stub and both delegates.
    std::set<std::string> files;
    for (const GraphComparison &graph : result.graphs)
      files.insert(graph.file);
    EXPECT_EQ(files.size(), 3u) << bundle;
  }
  DiffResult different =
      compare(corpusPath(kConnector), corpusPath(kDiffusion));
  EXPECT_FALSE(different.identical());
  bool delegateDiffers = false;
  for (const GraphComparison &graph : different.graphs)
    delegateDiffers |=
        graph.file == kDelegate && graph.status == GraphStatus::Different;
  EXPECT_TRUE(delegateDiffers) << describe(different);
}

TEST(CompiledBundle, OneChangedDelegateOpIsNamedWithItsFile) {
  if (!haveCorpus())
    GTEST_SKIP() << "no corpus";
  aimodel::testing::ScratchDir scratch;
  std::string copy = copyBundle(scratch, kConnector);
  std::string delegate = copy + "/" + kDelegate;
  // One mps.constant made to refer to another constant: it takes the
  // natively encoded properties (attribute indices) of another of the same
  // size.
  auto file = BytecodeFile::open(delegate);
  ASSERT_TRUE(bool(file)) << llvm::toString(file.takeError());
  uint64_t at = bytecode::kNone, index = bytecode::kNone;
  std::string bytes;
  {
    std::ifstream in(delegate, std::ios::binary);
    bytes.assign(std::istreambuf_iterator<char>(in), {});
  }
  std::vector<uint64_t> constants;
  for (uint64_t i = 0; i < (*file)->operations().size(); ++i) {
    const bytecode::Operation &op = (*file)->operations()[i];
    if ((*file)->fullOpName(op.name) == "mps.constant")
      constants.push_back(i);
  }
  ASSERT_GE(constants.size(), 2u);
  const bytecode::Operation &first = (*file)->operations()[constants[0]];
  const bytecode::Operation &second = (*file)->operations()[constants[1]];
  ASSERT_EQ(first.propertiesBlob.size, second.propertiesBlob.size);
  at = first.propertiesBlob.offset;
  index = constants[0];
  std::string theirs =
      bytes.substr(second.propertiesBlob.offset, second.propertiesBlob.size);
  ASSERT_NE(bytes.substr(at, theirs.size()), theirs);
  bytes.replace(at, theirs.size(), theirs);
  file->reset();
  {
    std::ofstream out(delegate, std::ios::binary | std::ios::trunc);
    out << bytes;
  }
  DiffResult result = compare(corpusPath(kConnector), copy);
  ASSERT_FALSE(result.identical());
  uint64_t changes = 0;
  for (const GraphComparison &graph : result.graphs) {
    if (graph.status == GraphStatus::Identical)
      continue;
    EXPECT_EQ(graph.file, kDelegate) << describe(result);
    for (const Change &change : graph.changes) {
      ++changes;
      EXPECT_EQ(change.kind, ChangeKind::Modified);
      EXPECT_EQ(change.op, "mps.constant");
      EXPECT_EQ(change.sourceIndex, index);
      EXPECT_EQ(change.targetIndex, index);
    }
  }
  EXPECT_EQ(changes, 1u) << describe(result);
}

TEST(CompiledBundle, ADelegateOnOneSideIsADifference) {
  if (!haveCorpus())
    GTEST_SKIP() << "no corpus";
  aimodel::testing::ScratchDir scratch;
  std::string copy = copyBundle(scratch, kConnector);
  ASSERT_EQ(::unlink((copy + "/" + kDelegate).c_str()), 0);
  DiffResult result = compare(corpusPath(kConnector), copy);
  EXPECT_FALSE(result.identical());
  bool removed = false;
  for (const GraphComparison &graph : result.graphs) {
    if (graph.file == kDelegate) {
      EXPECT_EQ(graph.status, GraphStatus::Removed);
      removed = true;
    } else {
      EXPECT_EQ(graph.status, GraphStatus::Identical) << describe(result);
    }
  }
  EXPECT_TRUE(removed) << describe(result);
  DiffResult back = compare(copy, corpusPath(kConnector));
  bool added = false;
  for (const GraphComparison &graph : back.graphs)
    added |= graph.file == kDelegate && graph.status == GraphStatus::Added;
  EXPECT_TRUE(added) << describe(back);
}
