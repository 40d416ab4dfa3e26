//===- StripFileTest.cpp - Stripping one bytecode file --------------------===//

#include "strip/StripFile.h"
#include "strip/StripPlan.h"

#include "bytecode/BytecodeReader.h"
#include "bytecode/BytecodeWriter.h"
#include "mlir-passes/BytecodeLocationView.h"
#include "mlir-passes/DebugPayload.h"
#include "mlir-passes/PayloadScan.h"
#include "testing/BytecodeTestSupport.h"
#include "testing/TestFiles.h"

#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Program.h"

#include <fcntl.h>
#include <fstream>
#include <sstream>
#include <unistd.h>

using namespace aimodel;
using namespace aimodel::bytecode;
using namespace aimodel::testing;
using namespace aimodel::bytecode::testing;
using aimodel::strip::FileStripResult;
using aimodel::strip::LocationMode;
using aimodel::strip::StripOptions;

namespace {

std::string readText(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

/// Strips `inputPath` into `outputPath` (or a dry run without one).
llvm::Expected<FileStripResult> stripPath(const std::string &inputPath,
                                          const std::string &outputPath,
                                          StripOptions options = {}) {
  auto input = support::openRegularFile(inputPath, support::Symlinks::Refuse);
  if (!input)
    return input.takeError();
  support::UniqueFd output;
  if (!outputPath.empty())
    output = support::UniqueFd(::open(
        outputPath.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0644));
  return strip::stripFile(*input, inputPath, output ? output.get() : -1,
                          outputPath, options);
}

/// What `mlir-opt-22 ARGS FILE` prints (stdout), or "" with a failure.
std::string printWith(const std::string &mlirOpt, const std::string &file,
                      std::vector<llvm::StringRef> extra) {
  llvm::SmallString<128> out;
  if (llvm::sys::fs::createTemporaryFile("strip", "txt", out))
    return {};
  std::vector<llvm::StringRef> args = {mlirOpt, "--allow-unregistered-dialect"};
  args.insert(args.end(), extra.begin(), extra.end());
  args.push_back(file);
  std::optional<llvm::StringRef> redirects[] = {std::nullopt, out.str(),
                                                std::nullopt};
  std::string errMsg;
  int rc = llvm::sys::ExecuteAndWait(mlirOpt, args, std::nullopt, redirects, 0,
                                     0, &errMsg);
  std::string text = readText(out.c_str());
  llvm::sys::fs::remove(out);
  EXPECT_EQ(rc, 0) << file << ": " << errMsg;
  return text;
}

/// Every op and block-argument location of `file` (kNone when elided).
std::vector<uint64_t> locationsOf(const BytecodeFile &file) {
  std::vector<uint64_t> out;
  for (const Operation &op : file.operations())
    out.push_back(op.location);
  for (const Block &block : file.blocks())
    for (const BlockArgument &arg : block.arguments)
      out.push_back(arg.location);
  return out;
}

class StripFileTest : public ::testing::Test {
protected:
  void SetUp() override {
    mlirOpt = findMlirOpt();
    if (mlirOpt.empty())
      GTEST_SKIP() << "mlir-opt-22 not found";
  }
  /// Stock bytecode of the strip fixture, written to the scratch dir.
  std::string legacyInput() {
    std::string text = readText(std::string(AIMODEL_SOURCE_DIR) +
                                "/fixtures/strip/legacy-composite.mlir");
    return scratch.write("in.mlirb", emitBytecode(mlirOpt, text));
  }

  std::string mlirOpt;
  ScratchDir scratch;
};

TEST_F(StripFileTest, LegacyLocationsBecomeUnknown) {
  std::string in = legacyInput();
  std::string before = readText(in);
  auto result = stripPath(in, scratch.path("out.mlirb"));
  ASSERT_TRUE(bool(result)) << llvm::toString(result.takeError());
  EXPECT_FALSE(result->refused);
  EXPECT_TRUE(result->verified);
  EXPECT_EQ(readText(in), before) << "the input changed";
  // 11 ops carry payload (only the two graphs and the module are unknown);
  // 3 block arguments do (the composite's input, the scan body's two).
  EXPECT_EQ(result->opLocations, 11u);
  EXPECT_EQ(result->blockArgumentLocations, 3u);
  EXPECT_EQ(result->kept.count, 0u);
  EXPECT_GT(result->stringsRemoved, 0u);
  EXPECT_GT(result->entriesRemoved, 0u);

  std::string out = readText(scratch.path("out.mlirb"));
  EXPECT_EQ(out.size(), result->bytesAfter);
  for (const char *gone :
       {"/Users/", "/home/bob", "call_stack", ".py", "Linear$1", "op_id"})
    EXPECT_EQ(out.find(gone), std::string::npos) << gone;
  auto file = decode(out);
  ASSERT_TRUE(bool(file)) << llvm::toString(file.takeError());
  for (uint64_t loc : locationsOf(**file))
    EXPECT_TRUE(loc == kNone || (*file)->attrKind(loc) == AttrKind::UnknownLoc)
        << "location " << loc;
  // MLIR reads the copy as the same program, and sees no payload in it.
  EXPECT_EQ(
      printWith(mlirOpt, in, {"--strip-debuginfo"}),
      printWith(mlirOpt, scratch.path("out.mlirb"), {"--strip-debuginfo"}));
  std::string shown =
      printWith(mlirOpt, scratch.path("out.mlirb"), {"--mlir-print-debuginfo"});
  EXPECT_NE(shown.find("coreai.scan"), std::string::npos);
  for (const char *gone : {"fused<", "call_stack", ".py\"", "/Users/"})
    EXPECT_EQ(shown.find(gone), std::string::npos) << gone << "\n" << shown;
  // Stripping again finds nothing to do.
  auto again =
      stripPath(scratch.path("out.mlirb"), scratch.path("again.mlirb"));
  ASSERT_TRUE(bool(again)) << llvm::toString(again.takeError());
  EXPECT_EQ(again->opLocations + again->blockArgumentLocations, 0u);
  EXPECT_EQ(readText(scratch.path("again.mlirb")), out);
}

TEST_F(StripFileTest, DryRunWritesNothingAndKnowsTheSize) {
  std::string in = legacyInput();
  auto dry = stripPath(in, "");
  ASSERT_TRUE(bool(dry)) << llvm::toString(dry.takeError());
  auto real = stripPath(in, scratch.path("out.mlirb"));
  ASSERT_TRUE(bool(real)) << llvm::toString(real.takeError());
  EXPECT_EQ(dry->bytesAfter, real->bytesAfter);
  EXPECT_EQ(dry->opLocations, real->opLocations);
  EXPECT_FALSE(dry->verified);
  EXPECT_TRUE(dry->outputSha256.empty());
}

TEST_F(StripFileTest, OpIdModeKeepsEachOpsOwnId) {
  std::string in = legacyInput();
  auto result = stripPath(in, scratch.path("out.mlirb"),
                          StripOptions{LocationMode::OpId});
  ASSERT_TRUE(bool(result)) << llvm::toString(result.takeError());
  EXPECT_TRUE(result->verified);
  auto before = BytecodeFile::open(in);
  auto after = BytecodeFile::open(scratch.path("out.mlirb"));
  ASSERT_TRUE(bool(before) && bool(after));
  passes::BytecodeLocationView view(**after);
  std::map<std::string, std::string> idOf; // op name -> "coreai" id
  auto opId = [&](const BytecodeFile &file, uint64_t loc) -> std::string {
    std::string id;
    file.forEachNestedLocation(loc, [&](uint64_t inner) {
      DecodedAttr attr = file.decodedAttr(inner);
      if (attr.kind == AttrKind::NameLoc && attr.str == "coreai" && id.empty())
        id = std::to_string(file.decodedAttr(attr.childLoc).line);
    });
    return id;
  };
  for (size_t i = 0; i < (*before)->operations().size(); ++i) {
    const Operation &a = (*before)->operations()[i];
    const Operation &b = (*after)->operations()[i];
    std::string want = opId(**before, a.location);
    if (want.empty()) {
      EXPECT_EQ((*after)->attrKind(b.location), AttrKind::UnknownLoc);
      continue;
    }
    EXPECT_EQ((*after)->attrKind(b.location), AttrKind::NameLoc);
    EXPECT_EQ(view.nameOf(b.location), "coreai");
    EXPECT_EQ(opId(**after, b.location), want) << (*before)->fullOpName(a.name);
  }
  EXPECT_GT(result->opIdLocations, 0u);
}

TEST_F(StripFileTest, ResourcesKeepTheirAlignment) {
  std::string in = legacyInput();
  auto result = stripPath(in, scratch.path("out.mlirb"));
  ASSERT_TRUE(bool(result)) << llvm::toString(result.takeError());
  auto file = BytecodeFile::open(scratch.path("out.mlirb"));
  ASSERT_TRUE(bool(file)) << llvm::toString(file.takeError());
  ASSERT_EQ((*file)->resourceGroups().size(), 1u);
  auto blob = (*file)->blobData(0, 0);
  ASSERT_TRUE(bool(blob)) << llvm::toString(blob.takeError());
  EXPECT_EQ(blob->alignment, 64u);
  EXPECT_EQ(blob->data.offset % 64, 0u);
  EXPECT_EQ((*file)->bytesOf(blob->data).size(), 16u);
}

// Wherever the resource section lands after the rewrite, every blob keeps
// its alignment from the file's start, whatever the section's alignment was
// in the input (MLIR's writer may place it at any offset and pad inside).
TEST_F(StripFileTest, BlobsStayAlignedWhereverTheSectionLands) {
  size_t checked = 0;
  for (const char *alignment : {"04000000", "08000000", "10000000", "40000000"})
    for (size_t shift = 0; shift < 70; shift += 3) {
      std::string text =
          "\"builtin.module\"() ({\n"
          "  %w = \"coreai.constant\"() {note = \"" +
          std::string(shift, 'x') +
          "\", value = dense_resource<w> : tensor<2xf32>} : () -> "
          "tensor<2xf32> loc(\"/Users/alice/" +
          std::string(shift % 7, 'y') +
          "model.py\":1:2)\n"
          "}) : () -> () loc(unknown)\n"
          "{-#\n  dialect_resources: {\n    builtin: {\n      w: \"0x" +
          alignment + "0000803F00000040\"\n    }\n  }\n#-}\n";
      std::string in =
          scratch.write("aligned.mlirb", emitBytecode(mlirOpt, text));
      std::string out = scratch.path("aligned.out");
      ::unlink(out.c_str());
      auto result = stripPath(in, out);
      ASSERT_TRUE(bool(result)) << alignment << " shift " << shift << ": "
                                << llvm::toString(result.takeError());
      EXPECT_TRUE(result->verified);
      auto file = BytecodeFile::open(out);
      ASSERT_TRUE(bool(file)) << llvm::toString(file.takeError());
      auto blob = (*file)->blobData(0, 0);
      ASSERT_TRUE(bool(blob)) << llvm::toString(blob.takeError());
      EXPECT_EQ(blob->data.offset % blob->alignment, 0u);
      EXPECT_EQ((*file)->bytesOf(blob->data),
                llvm::StringRef("\0\0\x80\x3f\0\0\0\x40", 8));
      ++checked;
    }
  EXPECT_EQ(checked, 4u * 24u);
}

TEST_F(StripFileTest, StringsOnlyAttributesUseAreKeptAndReported) {
  std::string text =
      "\"builtin.module\"() ({\n"
      "  \"coreai.op\"() {note = \"/Users/alice/model.py\"} : () -> () "
      "loc(\"/Users/alice/other.py\":1:2)\n"
      "}) : () -> () loc(unknown)\n";
  std::string in = scratch.write("attr.mlirb", emitBytecode(mlirOpt, text));
  auto result = stripPath(in, scratch.path("out.mlirb"));
  ASSERT_TRUE(bool(result)) << llvm::toString(result.takeError());
  EXPECT_TRUE(result->verified);
  EXPECT_EQ(result->opLocations, 1u);
  EXPECT_EQ(result->kept.count, 1u);
  ASSERT_EQ(result->kept.examples.size(), 1u);
  EXPECT_EQ(result->kept.examples[0], "/Users/alice/model.py");
  EXPECT_NE(result->kept.reason.find("op attributes"), std::string::npos);
  std::string out = readText(scratch.path("out.mlirb"));
  EXPECT_EQ(out.find("other.py"), std::string::npos);
}

/// `bytes` with the dialect of the location of the first "coreai.op" made
/// `coreai`: a private-dialect location, as versioned assets have, built by
/// rewriting the attribute offset section.
std::string withPrivateLocation(const std::string &bytes) {
  auto file = decode(bytes);
  EXPECT_TRUE(bool(file));
  if (!file) {
    llvm::consumeError(file.takeError());
    return {};
  }
  const BytecodeFile &f = **file;
  uint64_t loc = kNone, coreai = kNone;
  for (const Operation &op : f.operations())
    if (f.fullOpName(op.name) == "coreai.op")
      loc = op.location;
  for (uint64_t i = 0; i < f.dialects().size(); ++i)
    if (f.dialects()[i].name == "coreai")
      coreai = i;
  std::string offsets;
  appendVarInt(offsets, f.attributes().size());
  appendVarInt(offsets, f.types().size());
  for (bool types : {false, true}) {
    llvm::ArrayRef<AttrTypeEntry> table = types ? f.types() : f.attributes();
    for (uint64_t i = 0; i < table.size(); ++i) {
      appendVarInt(offsets, !types && i == loc ? coreai : table[i].dialect);
      appendVarInt(offsets, 1);
      appendVarInt(offsets, (table[i].encoding.size << 1) |
                                uint64_t(table[i].hasCustomEncoding));
    }
  }
  const SectionInfo *section = f.section(kAttrTypeOffsetSection);
  std::string out = bytes.substr(0, section->headerOffset);
  out.push_back(char(kAttrTypeOffsetSection));
  appendVarInt(out, offsets.size());
  out += offsets + bytes.substr(section->data.end());
  return out;
}

TEST_F(StripFileTest, PrivateLocationsWithPayloadAreRefused) {
  std::string text = "\"builtin.module\"() ({\n"
                     "  \"coreai.op\"() : () -> () "
                     "loc(\"/Users/alice/model.py\":3:4)\n"
                     "}) : () -> () loc(unknown)\n";
  std::string in = scratch.write(
      "private.mlirb", withPrivateLocation(emitBytecode(mlirOpt, text)));
  auto result = stripPath(in, scratch.path("out.mlirb"));
  ASSERT_TRUE(bool(result)) << llvm::toString(result.takeError());
  ASSERT_TRUE(result->refused.has_value());
  EXPECT_NE(result->refused->find("private-dialect attributes ('coreai')"),
            std::string::npos)
      << *result->refused;
  EXPECT_NE(result->refused->find("RELEASE mode"), std::string::npos);
  EXPECT_FALSE(llvm::sys::fs::exists(scratch.path("out.mlirb.written")));
}

TEST_F(StripFileTest, PrivateLocationsWithoutPayloadStay) {
  std::string text =
      "\"builtin.module\"() ({\n"
      "  \"coreai.op\"() : () -> () loc(\"a\":3:4)\n"
      "  \"coreai.other\"() : () -> () loc(\"/Users/al/m.py\":1:2)\n"
      "}) : () -> () loc(unknown)\n";
  std::string bytes = withPrivateLocation(emitBytecode(mlirOpt, text));
  std::string in = scratch.write("private.mlirb", bytes);
  auto result = stripPath(in, scratch.path("out.mlirb"));
  ASSERT_TRUE(bool(result)) << llvm::toString(result.takeError());
  ASSERT_TRUE(result->refused.has_value()) << "a path is still in the file";
  // Without any payload string, the private location is simply kept.
  text = "\"builtin.module\"() ({\n"
         "  \"coreai.op\"() : () -> () loc(\"a\":3:4)\n"
         "  \"coreai.other\"() : () -> () loc(\"b\"(\"c\":1:2))\n"
         "}) : () -> () loc(unknown)\n";
  in = scratch.write("clean.mlirb",
                     withPrivateLocation(emitBytecode(mlirOpt, text)));
  result = stripPath(in, scratch.path("clean.out"));
  ASSERT_TRUE(bool(result)) << llvm::toString(result.takeError());
  EXPECT_FALSE(result->refused);
  EXPECT_TRUE(result->verified);
  EXPECT_EQ(result->opLocations, 1u) << "the builtin NameLoc goes";
}

TEST_F(StripFileTest, AppendsUnknownLocWhenTheFileHasNone) {
  std::string text = "\"builtin.module\"() ({\n"
                     "  \"coreai.op\"() : () -> () loc(\"/b/x.py\":1:2)\n"
                     "}) : () -> () loc(\"/b/y.py\":3:4)\n";
  std::string in = scratch.write("none.mlirb", emitBytecode(mlirOpt, text));
  auto before = BytecodeFile::open(in);
  ASSERT_TRUE(bool(before));
  for (uint64_t i = 0; i < (*before)->attributes().size(); ++i)
    ASSERT_NE((*before)->attrKind(i), AttrKind::UnknownLoc);
  auto result = stripPath(in, scratch.path("out.mlirb"));
  ASSERT_TRUE(bool(result)) << llvm::toString(result.takeError());
  EXPECT_TRUE(result->verified);
  EXPECT_EQ(result->opLocations, 2u);
  EXPECT_EQ(
      printWith(mlirOpt, in, {"--strip-debuginfo"}),
      printWith(mlirOpt, scratch.path("out.mlirb"), {"--strip-debuginfo"}));
}

// Verification is what stands between a writer bug and a shipped asset: it
// must notice a location left alone, and any other change.
TEST_F(StripFileTest, VerificationNoticesWhatDiffers) {
  auto input = BytecodeFile::open(legacyInput());
  ASSERT_TRUE(bool(input)) << llvm::toString(input.takeError());
  strip::StripPlan plan = strip::planStrip(**input, {});
  // What writing the plan learns of the input, written nowhere.
  struct NullSink : bytecode::ByteSink {
    explicit NullSink(const BytecodeFile &file) : file(file) {}
    llvm::Error write(llvm::StringRef bytes) override {
      count += bytes.size();
      return llvm::Error::success();
    }
    llvm::Error copyRange(bytecode::Span range) override {
      count += range.size;
      return llvm::Error::success();
    }
    uint64_t written() const override { return count; }
    llvm::Expected<std::string> readInput(bytecode::Span range) override {
      return file.bytesOf(range).str();
    }
    const BytecodeFile &file;
    uint64_t count = 0;
  } sink(**input);
  bytecode::WriteResult written;
  ASSERT_FALSE(
      bool(bytecode::writeBytecode(**input, plan.edits, sink, &written)));
  strip::StripExpectation expected =
      strip::StripExpectation::record(**input, plan, written);
  llvm::Error unstripped = expected.check(**input, {});
  ASSERT_TRUE(bool(unstripped));
  EXPECT_NE(llvm::toString(std::move(unstripped)).find("verification failed"),
            std::string::npos);

  std::string text = readText(std::string(AIMODEL_SOURCE_DIR) +
                              "/fixtures/strip/legacy-composite.mlir");
  size_t at = text.find("dense_resource<weights_0> : tensor<4xf32>");
  ASSERT_NE(at, std::string::npos);
  text.replace(at, 41, "dense_resource<weights_0> : tensor<4xi32>");
  std::string changed =
      scratch.write("changed.mlirb", emitBytecode(mlirOpt, text));
  auto other = BytecodeFile::open(changed);
  ASSERT_TRUE(bool(other)) << llvm::toString(other.takeError());
  std::string out = scratch.path("changed.out");
  ASSERT_TRUE(bool(stripPath(changed, out)));
  auto output = BytecodeFile::open(out);
  ASSERT_TRUE(bool(output));
  llvm::Error mismatch = expected.check(**output, {});
  ASSERT_TRUE(bool(mismatch)) << "a changed attribute went unnoticed";
  EXPECT_NE(llvm::toString(std::move(mismatch)).find("changed"),
            std::string::npos);
}

TEST_F(StripFileTest, UnreadableInputIsAnError) {
  std::string in = scratch.write("bad.mlirb", "ML\xEFR\x06garbage");
  auto result = stripPath(in, scratch.path("out.mlirb"));
  ASSERT_FALSE(bool(result));
  EXPECT_NE(llvm::toString(result.takeError()).find("byte "),
            std::string::npos);
}

// Whatever the decoder accepts, strip either writes a verified copy, refuses
// with a reason, or fails with a message: no crash, no unverified output.
TEST_F(StripFileTest, EveryMutantDecodedIsStrippedOrRefusedCleanly) {
  // The fixture without its large blob: every byte of it is weight data,
  // and flipping 18 KiB of weights finds nothing the rest does not.
  std::string text = readText(std::string(AIMODEL_SOURCE_DIR) +
                              "/fixtures/strip/legacy-composite.mlir");
  std::string small;
  for (llvm::StringRef line : llvm::split(text, '\n'))
    if (!line.contains("weights_1"))
      small += line.str() + "\n";
  // weights_0 is now the last resource: no comma after it.
  std::string last = "\"0x4000000000000000000080400000004000004040\",";
  size_t at = small.find(last);
  ASSERT_NE(at, std::string::npos);
  small.erase(at + last.size() - 1, 1);
  std::string original = emitBytecode(mlirOpt, small);
  ASSERT_LT(original.size(), 2048u);
  std::string out = scratch.path("mutant.out");
  size_t stripped = 0;
  for (size_t offset = 0; offset < original.size(); ++offset)
    for (uint8_t mask : {0x01, 0x80, 0xFF}) {
      std::string bytes = original;
      bytes[offset] = char(uint8_t(bytes[offset]) ^ mask);
      if (auto decoded = decode(bytes); !decoded) {
        llvm::consumeError(decoded.takeError());
        continue;
      }
      std::string in = scratch.write("mutant.mlirb", bytes);
      ::unlink(out.c_str());
      auto result = stripPath(in, out);
      if (!result) {
        EXPECT_FALSE(llvm::toString(result.takeError()).empty());
        continue;
      }
      if (result->refused) {
        EXPECT_FALSE(result->refused->empty());
        continue;
      }
      EXPECT_TRUE(result->verified) << "offset " << offset;
      // A strip that removes payload never grows the file.
      if (result->entriesRemoved || result->stringsRemoved) {
        EXPECT_LE(result->bytesAfter, result->bytesBefore)
            << "offset " << offset;
      }
      ++stripped;
    }
  EXPECT_GT(stripped, 0u);
}

TEST(StripFixtureDialect, PrivateEntriesStayByteIdentical) {
  std::vector<std::string> files = fixtureDialectFiles();
  if (files.empty())
    GTEST_SKIP() << "fixtures not written";
  ScratchDir scratch;
  for (const std::string &in : files) {
    std::string out = scratch.path(llvm::sys::path::filename(in).str());
    auto result = stripPath(in, out);
    ASSERT_TRUE(bool(result))
        << in << ": " << llvm::toString(result.takeError());
    EXPECT_FALSE(result->refused) << in << ": " << *result->refused;
    // verifyStripped compares every kept entry's bytes at its index.
    EXPECT_TRUE(result->verified) << in;
    auto before = BytecodeFile::open(in);
    auto after = BytecodeFile::open(out);
    ASSERT_TRUE(bool(before) && bool(after)) << in;
    for (uint64_t i = 0; i < (*before)->attributes().size(); ++i)
      if ((*before)->attrDialectName(i) != "builtin") {
        EXPECT_EQ((*before)->bytesOf((*before)->attributes()[i].encoding),
                  (*after)->bytesOf((*after)->attributes()[i].encoding))
            << in << ": attribute " << i;
      }
    for (uint64_t i = 0; i < (*before)->types().size(); ++i)
      EXPECT_EQ((*before)->bytesOf((*before)->types()[i].encoding),
                (*after)->bytesOf((*after)->types()[i].encoding))
          << in << ": type " << i;
  }
}

TEST(StripCorpus, MpsGraphsStripWithTheirStructure) {
  if (!haveCorpus())
    GTEST_SKIP() << "no ../shared/corpus";
  ScratchDir scratch;
  int seen = 0;
  for (const char *bundle : {"vibevoice_connector_fp16.h18p.aimodelc",
                             "vibevoice_diffusion_head_fp16.h18p.aimodelc"})
    for (const char *model :
         {"original_model_0.mpsgraph", "specialized_model_1.mpsgraph"}) {
      std::string in = corpusPath(
          std::string(bundle) +
          "/main-h18p-delegates/MPSGraph/mpsExecutable.mpsgraphpackage/" +
          model);
      std::string out = scratch.path(std::to_string(seen++) + ".mpsgraph");
      auto result = stripPath(in, out);
      ASSERT_TRUE(bool(result))
          << in << ": " << llvm::toString(result.takeError());
      ASSERT_FALSE(result->refused) << in << ": " << *result->refused;
      EXPECT_TRUE(result->verified);
      EXPECT_GT(result->opLocations, 0u) << in;
      auto before = BytecodeFile::open(in);
      auto after = BytecodeFile::open(out);
      ASSERT_TRUE(bool(before) && bool(after));
      EXPECT_EQ((*before)->opCounts(), (*after)->opCounts());
      // Smaller, and what stays is what the dry run planned and what the
      // audit's scan finds in the written bytes.
      EXPECT_LT(result->bytesAfter, result->bytesBefore) << in;
      auto planned = stripPath(in, "");
      ASSERT_TRUE(bool(planned)) << llvm::toString(planned.takeError());
      EXPECT_EQ(planned->kept.count, result->kept.count) << in;
      EXPECT_EQ(planned->bytesAfter, result->bytesAfter) << in;
      passes::PayloadScan left = passes::scanPayload(**after);
      EXPECT_EQ(left.pieces.size(), result->kept.count) << in;
      // Every home folder still in the bytes is one the report names.
      std::string bytes = readText(out);
      for (size_t at = bytes.find("/Users/"); at != std::string::npos;
           at = bytes.find("/Users/", at + 1)) {
        EXPECT_GT(result->kept.count, 0u) << in << ": /Users/ at " << at;
        bool named = false;
        for (const std::string &piece : left.pieces)
          named |= bytes.compare(at, piece.size(), piece) == 0 ||
                   piece.find("/Users/") != std::string::npos;
        EXPECT_TRUE(named) << in << ": /Users/ at " << at;
      }
      passes::BytecodeLocationView view(**after);
      passes::LocationPredicates<passes::BytecodeLocationView> predicates(view);
      for (uint64_t loc : locationsOf(**after)) {
        if (loc == kNone)
          continue;
        EXPECT_FALSE(predicates.findLegacyCallStack(loc)) << in;
        (*after)->forEachNestedLocation(loc, [&](uint64_t inner) {
          EXPECT_FALSE(passes::isAbsolutePath(view.fileOf(inner))) << in;
        });
      }
    }
  EXPECT_EQ(seen, 4);
}

} // namespace
