//===- BytecodeReaderTest.cpp - Decoder tests on stock MLIR bytecode ------===//
//
// Bytecode written at test time by mlir-opt-22 from MLIR text, so every
// expectation can be checked against the source. Real files: see
// BytecodeCorpusTest.cpp.
//
//===----------------------------------------------------------------------===//

#include "testing/BytecodeTestSupport.h"

#include <set>
#include <sys/stat.h>

using namespace aimodel::bytecode;
using namespace aimodel::bytecode::testing;

namespace {

//===----------------------------------------------------------------------===//
// Stock bytecode written by mlir-opt
//===----------------------------------------------------------------------===//

// `xt` is unregistered in mlir-opt (unlike `test`). xt.outer captures %c, so
// its two regions are inline; xt.iso captures nothing, so MLIR stores both of
// its regions in ONE nested IR section.
const char *const kStockMlir = R"mlir(
%c = "xt.const"() : () -> i32 loc("const.py":7:1)
"xt.outer"() ({
^bb0(%arg0: i32 loc("argloc.py":3:4)):
  %0 = "xt.add"(%arg0, %c) : (i32, i32) -> i32 loc(callsite("callee"("a.py":1:2) at "b.py":3:4))
  "xt.br"(%0)[^bb1] : (i32) -> () loc("named"(unknown))
^bb1(%1: i32):
  "xt.use"(%1) : (i32) -> () loc(unknown)
}, {
  "xt.term"() : () -> () loc(fused<{call_stack = ["Linear$1"], identifiers = ["view"]}>["/Users/x/a.py":1:0, "coreai"("op_id":3:0)])
}) : () -> () loc("r.py":1:2 to 3:4)
"xt.iso"() ({
  %2 = "xt.inner"() : () -> i64 loc(fused["f1.py":1:1, "f2.py":2:2])
  "xt.yield"(%2) : (i64) -> () loc(unknown)
}, {
^bb0(%arg1: f32):
  "xt.yield"(%arg1) : (f32) -> () loc(unknown)
}) : () -> () loc(unknown)
%r = "xt.res"() {value = dense_resource<blob1> : tensor<1xi32>} : () -> tensor<1xi32> loc(unknown)
{-#
  dialect_resources: {
    builtin: {
      blob1: "0x040000002A000000"
    }
  }
#-}
)mlir";

class StockBytecodeTest : public ::testing::Test {
protected:
  void SetUp() override {
    mlirOpt = findMlirOpt();
    if (mlirOpt.empty())
      GTEST_SKIP() << "mlir-opt-22 not found (set AIMODEL_MLIR_OPT)";
    bytes = emitBytecode(mlirOpt, kStockMlir);
    ASSERT_FALSE(bytes.empty());
    auto decoded = decode(bytes);
    ASSERT_TRUE(bool(decoded)) << llvm::toString(decoded.takeError());
    file = std::move(*decoded);
  }

  /// The single op named `name` (fails the test when not unique).
  const Operation &op(llvm::StringRef name) {
    const Operation *found = nullptr;
    for (const Operation &candidate : file->operations())
      if (file->fullOpName(candidate.name) == name) {
        EXPECT_EQ(found, nullptr) << name.str() << " is not unique";
        found = &candidate;
      }
    EXPECT_NE(found, nullptr) << name.str();
    static Operation none;
    return found ? *found : none;
  }
  uint32_t indexOf(const Operation &o) {
    return uint32_t(&o - file->operations().data());
  }
  llvm::StringRef str(uint64_t attr) { return file->decodedAttr(attr).str; }

  std::string mlirOpt, bytes;
  std::unique_ptr<BytecodeFile> file;
};

TEST_F(StockBytecodeTest, HeaderDialectsAndCounts) {
  EXPECT_EQ(file->version(), 6u);
  EXPECT_TRUE(file->producer().starts_with("MLIR22"));
  EXPECT_TRUE(looksLikeBytecode(bytes));
  std::vector<llvm::StringRef> dialects = file->dialectNames();
  EXPECT_NE(std::find(dialects.begin(), dialects.end(), "builtin"),
            dialects.end());
  EXPECT_NE(std::find(dialects.begin(), dialects.end(), "xt"), dialects.end());
  EXPECT_EQ(file->totalOps(), 12u);
  std::map<std::string, uint64_t> expected = {
      {"builtin.module", 1}, {"xt.const", 1}, {"xt.outer", 1}, {"xt.add", 1},
      {"xt.br", 1},          {"xt.use", 1},   {"xt.term", 1},  {"xt.iso", 1},
      {"xt.inner", 1},       {"xt.yield", 2}, {"xt.res", 1}};
  EXPECT_EQ(file->opCounts(), expected);
  for (const OpName &name : file->opNames())
    EXPECT_EQ(name.isRegistered,
              file->dialects()[name.dialect].name == "builtin");
  checkInvariants(*file);
}

TEST_F(StockBytecodeTest, NestingAndIsolatedSections) {
  const Operation &module = op("builtin.module");
  EXPECT_EQ(module.depth, 0u);
  EXPECT_EQ(module.parentBlock, 0u);
  EXPECT_TRUE(module.regionsIsolated);
  ASSERT_TRUE(module.nestedSection.has_value());
  EXPECT_EQ(module.propertiesForm, PropertiesForm::Native);
  EXPECT_EQ(file->blocks()[0].operations,
            std::vector<uint32_t>{indexOf(module)});

  // Pre-order: the module comes first, then everything inside it.
  EXPECT_EQ(indexOf(module), 0u);

  const Operation &outer = op("xt.outer");
  EXPECT_EQ(outer.depth, 1u);
  EXPECT_FALSE(outer.regionsIsolated); // captures %c
  EXPECT_FALSE(outer.nestedSection.has_value());
  ASSERT_EQ(file->opRegions(outer).size(), 2u);
  const Region &first = file->regions()[file->opRegions(outer)[0]];
  const Region &second = file->regions()[file->opRegions(outer)[1]];
  EXPECT_EQ(first.parentOp, indexOf(outer));
  EXPECT_EQ(second.indexInParent, 1u);
  ASSERT_EQ(first.blocks.size(), 2u);
  ASSERT_EQ(second.blocks.size(), 1u);
  const Block &bb0 = file->blocks()[first.blocks[0]];
  const Block &bb1 = file->blocks()[first.blocks[1]];
  ASSERT_EQ(bb0.arguments.size(), 1u);
  ASSERT_EQ(bb1.arguments.size(), 1u);
  EXPECT_EQ(bb0.operations.size(), 2u);
  EXPECT_EQ(bb1.operations.size(), 1u);

  const Operation &iso = op("xt.iso");
  EXPECT_TRUE(iso.regionsIsolated);
  ASSERT_TRUE(iso.nestedSection.has_value());
  // Both regions come from one nested section.
  ASSERT_EQ(file->opRegions(iso).size(), 2u);
  const Region &isoSecond = file->regions()[file->opRegions(iso)[1]];
  ASSERT_EQ(isoSecond.blocks.size(), 1u);
  EXPECT_EQ(file->blocks()[isoSecond.blocks[0]].arguments.size(), 1u);
  EXPECT_EQ(op("xt.inner").depth, 2u);
  // Nested-section ops lie inside the nested section's bytes.
  const Operation &inner = op("xt.inner");
  EXPECT_GE(inner.offset, iso.nestedSection->offset);
  EXPECT_LT(inner.offset, iso.nestedSection->end());
}

TEST_F(StockBytecodeTest, OperandsSuccessorsAndValueIds) {
  const Operation &outer = op("xt.outer");
  const Operation &constant = op("xt.const");
  const Region &first = file->regions()[file->opRegions(outer)[0]];
  uint32_t bb0 = first.blocks[0], bb1 = first.blocks[1];

  const Operation &add = op("xt.add");
  ASSERT_EQ(file->operands(add).size(), 2u);
  EXPECT_TRUE(file->operands(add)[0].isBlockArgument);
  EXPECT_EQ(file->operands(add)[0].owner, bb0);
  EXPECT_EQ(file->operands(add)[0].number, 0u);
  // %c is defined in the module body and used inside a non-isolated region.
  EXPECT_FALSE(file->operands(add)[1].isBlockArgument);
  EXPECT_EQ(file->operands(add)[1].owner, indexOf(constant));
  // Ids: module body values first (%c = 0, %r = 1), then the region's own
  // values continue after them (bb0 arg = 2, %0 = 3, bb1 arg = 4).
  EXPECT_EQ(constant.firstResultValueId, 0u);
  EXPECT_EQ(op("xt.res").firstResultValueId, 1u);
  EXPECT_EQ(file->operands(add)[1].id, 0u);
  EXPECT_EQ(file->operands(add)[0].id, 2u);
  EXPECT_EQ(add.firstResultValueId, 3u);
  EXPECT_EQ(file->blocks()[bb1].firstArgumentValueId, 4u);

  const Operation &br = op("xt.br");
  EXPECT_EQ(file->successors(br).vec(), std::vector<uint32_t>{bb1});
  ASSERT_EQ(file->operands(br).size(), 1u);
  EXPECT_EQ(file->operands(br)[0].owner, indexOf(add));
  const Operation &use = op("xt.use");
  ASSERT_EQ(file->operands(use).size(), 1u);
  EXPECT_TRUE(file->operands(use)[0].isBlockArgument);
  EXPECT_EQ(file->operands(use)[0].owner, bb1);

  // The isolated op's regions start a new id scope at 0.
  EXPECT_EQ(op("xt.inner").firstResultValueId, 0u);
}

TEST_F(StockBytecodeTest, LocationKinds) {
  const Operation &add = op("xt.add");
  ASSERT_EQ(file->attrKind(add.location), AttrKind::CallSiteLoc);
  const DecodedAttr &callSite = file->decodedAttr(add.location);
  ASSERT_EQ(file->attrKind(callSite.childLoc), AttrKind::NameLoc);
  EXPECT_EQ(str(callSite.childLoc), "callee");
  const DecodedAttr &caller = file->decodedAttr(callSite.callerLoc);
  ASSERT_EQ(caller.kind, AttrKind::FileLineColLoc);
  EXPECT_EQ(caller.str, "b.py");
  EXPECT_EQ(caller.line, 3u);
  EXPECT_EQ(caller.column, 4u);

  const DecodedAttr &named = file->decodedAttr(op("xt.br").location);
  ASSERT_EQ(named.kind, AttrKind::NameLoc);
  EXPECT_EQ(named.str, "named");
  EXPECT_EQ(file->attrKind(named.childLoc), AttrKind::UnknownLoc);
  EXPECT_EQ(file->attrKind(op("xt.use").location), AttrKind::UnknownLoc);

  // The 0.4.0 "STANDARD" debug location.
  const DecodedAttr &fused = file->decodedAttr(op("xt.term").location);
  ASSERT_EQ(fused.kind, AttrKind::FusedLocWithMetadata);
  ASSERT_EQ(fused.elements.size(), 2u);
  const DecodedAttr &path = file->decodedAttr(fused.elements[0]);
  EXPECT_EQ(path.kind, AttrKind::FileLineColLoc);
  EXPECT_EQ(path.str, "/Users/x/a.py");
  EXPECT_EQ(path.line, 1u);
  const DecodedAttr &coreai = file->decodedAttr(fused.elements[1]);
  ASSERT_EQ(coreai.kind, AttrKind::NameLoc);
  EXPECT_EQ(coreai.str, "coreai");
  EXPECT_EQ(str(coreai.childLoc), "op_id");
  EXPECT_EQ(file->decodedAttr(coreai.childLoc).line, 3u);
  const DecodedAttr &metadata = file->decodedAttr(fused.metadata);
  ASSERT_EQ(metadata.kind, AttrKind::Dictionary);
  ASSERT_EQ(metadata.namedAttrs.size(), 2u);
  EXPECT_EQ(str(metadata.namedAttrs[0].name), "call_stack");
  EXPECT_EQ(str(metadata.namedAttrs[1].name), "identifiers");
  const DecodedAttr &stack = file->decodedAttr(metadata.namedAttrs[0].value);
  ASSERT_EQ(stack.kind, AttrKind::Array);
  ASSERT_EQ(stack.elements.size(), 1u);
  EXPECT_EQ(str(stack.elements[0]), "Linear$1");
  std::vector<uint64_t> nested;
  file->forEachNestedLocation(op("xt.term").location,
                              [&](uint64_t loc) { nested.push_back(loc); });
  EXPECT_EQ(nested.size(), 4u); // fused, file:line:col, name, op_id

  const DecodedAttr &plainFused = file->decodedAttr(op("xt.inner").location);
  EXPECT_EQ(plainFused.kind, AttrKind::FusedLoc);
  EXPECT_EQ(plainFused.elements.size(), 2u);

  // MLIR 22 writes non-point ranges with code 22 (FileLineColRange).
  const DecodedAttr &range = file->decodedAttr(op("xt.outer").location);
  ASSERT_EQ(range.kind, AttrKind::FileLineColRange);
  EXPECT_EQ(range.str, "r.py");

  // Block argument location and elided (unknown) block-argument locations.
  const Region &first = file->regions()[file->opRegions(op("xt.outer"))[0]];
  const BlockArgument &arg = file->blocks()[first.blocks[0]].arguments[0];
  ASSERT_NE(arg.location, kNone);
  EXPECT_EQ(file->decodedAttr(arg.location).str, "argloc.py");
  EXPECT_TRUE(file->isLocation(arg.location));
  EXPECT_FALSE(file->isLocation(fused.metadata));
}

TEST_F(StockBytecodeTest, DenseResourceSpanPointsAtBlob) {
  const Operation &res = op("xt.res");
  ASSERT_NE(res.attrDict, kNone);
  const DecodedAttr &dict = file->decodedAttr(res.attrDict);
  ASSERT_EQ(dict.namedAttrs.size(), 1u);
  EXPECT_EQ(str(dict.namedAttrs[0].name), "value");
  const DecodedAttr &dense = file->decodedAttr(dict.namedAttrs[0].value);
  ASSERT_EQ(dense.kind, AttrKind::DenseResourceElements);
  ASSERT_LT(dense.resourceHandle, file->dialectResourceHandles().size());
  auto [groupIndex, entryIndex] =
      file->dialectResourceHandles()[dense.resourceHandle];
  const ResourceGroup &group = file->resourceGroups()[groupIndex];
  EXPECT_EQ(group.name, "builtin");
  EXPECT_FALSE(group.isExternal);
  const ResourceEntry &entry = group.entries[entryIndex];
  EXPECT_EQ(entry.key, "blob1");
  EXPECT_EQ(entry.kind, ResourceKind::Blob);
  llvm::Expected<BlobData> blob = file->blobData(groupIndex, entryIndex);
  ASSERT_TRUE(bool(blob)) << llvm::toString(blob.takeError());
  EXPECT_EQ(blob->alignment, 4u);
  EXPECT_EQ(blob->data.offset % 4, 0u);
  EXPECT_EQ(file->bytesOf(blob->data), llvm::StringRef("\x2A\0\0\0", 4));
  // The span is a view into the file buffer: nothing was copied.
  EXPECT_EQ(file->bytesOf(blob->data).data(),
            file->bytes().data() + blob->data.offset);
  EXPECT_GE(blob->data.offset, entry.entry.offset);
  EXPECT_LE(blob->data.end(), entry.entry.end());

  // Opening never reads a blob's header, so a corrupt header only shows when
  // the blob is asked for.
  std::string corrupt = bytes;
  corrupt[entry.entry.offset] = char(3 << 1 | 1); // alignment 3
  auto reopened = decode(corrupt);
  ASSERT_TRUE(bool(reopened)) << llvm::toString(reopened.takeError());
  llvm::Expected<BlobData> bad = (*reopened)->blobData(groupIndex, entryIndex);
  ASSERT_FALSE(bool(bad));
  EXPECT_EQ(llvm::toString(bad.takeError()),
            "byte " + std::to_string(entry.entry.offset) +
                ": alignment 3 is not a power of two");

  // Entries must still tile the Resource section exactly: shrink the entry's
  // size in the ResourceOffset section (a one-byte varint, then kind 0).
  ASSERT_LT(entry.entry.size, 64u);
  Span offsets = file->section(kResourceOffsetSection)->data;
  std::string sizeAndKind = {char((entry.entry.size << 1) | 1), '\0'};
  size_t at = llvm::StringRef(bytes)
                  .substr(0, offsets.end())
                  .find(sizeAndKind, offsets.offset);
  ASSERT_NE(at, llvm::StringRef::npos);
  std::string shorter = bytes;
  shorter[at] = char(((entry.entry.size - 1) << 1) | 1);
  auto untiled = decode(shorter);
  ASSERT_FALSE(bool(untiled));
  EXPECT_NE(llvm::toString(untiled.takeError())
                .find("resource entries end 1 bytes before the end"),
            std::string::npos);
  ASSERT_NE(file->section(kResourceOffsetSection), nullptr);
}

TEST_F(StockBytecodeTest, ContentHashesAndAsmEntries) {
  // Same input twice: identical hashes; entries are distinct within a file.
  auto again = decode(emitBytecode(mlirOpt, kStockMlir));
  ASSERT_TRUE(bool(again)) << llvm::toString(again.takeError());
  ASSERT_EQ((*again)->attributes().size(), file->attributes().size());
  std::set<uint64_t> hashes;
  for (size_t i = 0; i < file->attributes().size(); ++i) {
    EXPECT_EQ(file->attrContentHash(i), (*again)->attrContentHash(i));
    hashes.insert(file->attrContentHash(i));
  }
  EXPECT_EQ(hashes.size(), file->attributes().size());
  // Unregistered dialect types are stored as text.
  auto text =
      decode(emitBytecode(mlirOpt, R"(%0 = "xt.a"() : () -> !xt.thing<3>)"));
  ASSERT_TRUE(bool(text)) << llvm::toString(text.takeError());
  bool sawAsm = false;
  for (size_t i = 0; i < (*text)->types().size(); ++i)
    if ((*text)->typeAsmText(i) == "!xt.thing<3>")
      sawAsm = true;
  EXPECT_TRUE(sawAsm);
}

TEST_F(StockBytecodeTest, VersionsAndTruncation) {
  auto v5 =
      decode(emitBytecode(mlirOpt, kStockMlir, {"--emit-bytecode-version=5"}));
  ASSERT_TRUE(bool(v5)) << llvm::toString(v5.takeError());
  EXPECT_EQ((*v5)->version(), 5u);
  EXPECT_EQ((*v5)->totalOps(), 12u);

  std::string newer = bytes;
  newer[4] = char(7 << 1 | 1); // version varint 7
  auto err = decode(newer);
  ASSERT_FALSE(bool(err));
  EXPECT_EQ(llvm::toString(err.takeError()),
            "byte 4: bytecode version 7 is newer than supported version 6");
  std::string older = bytes;
  older[4] = char(4 << 1 | 1);
  auto old = decode(older);
  ASSERT_FALSE(bool(old));
  EXPECT_NE(llvm::toString(old.takeError()).find("older than"),
            std::string::npos);

  auto notBytecode = decode("hello");
  ASSERT_FALSE(bool(notBytecode));
  EXPECT_EQ(llvm::toString(notBytecode.takeError()).rfind("byte 0: ", 0), 0u);

  for (size_t size = 0; size < bytes.size(); ++size)
    expectDecodesOrFailsCleanly(llvm::StringRef(bytes).take_front(size),
                                "truncated at " + std::to_string(size));
  for (size_t offset = 0; offset < bytes.size(); ++offset)
    for (uint8_t mask : {0x01, 0x02, 0x80, 0xFF}) {
      std::string flipped = bytes;
      flipped[offset] ^= char(mask);
      expectDecodesOrFailsCleanly(flipped,
                                  "flipped at " + std::to_string(offset));
    }
}

TEST_F(StockBytecodeTest, RegionDepthLimit) {
  // Unregistered ops that capture nothing are isolated: each level is a
  // nested IR section. The module adds one level.
  auto nest = [](int depth) {
    std::string text;
    for (int i = 0; i < depth; ++i)
      text += "\"xt.n\"() ({\n";
    text += "\"xt.leaf\"() : () -> ()\n";
    for (int i = 0; i < depth; ++i)
      text += "}) : () -> ()\n";
    return text;
  };
  auto ok =
      decode(emitBytecode(mlirOpt, nest(BytecodeFile::kMaxRegionDepth - 1)));
  ASSERT_TRUE(bool(ok)) << llvm::toString(ok.takeError());
  EXPECT_EQ((*ok)->totalOps(), uint64_t(BytecodeFile::kMaxRegionDepth) + 1);
  EXPECT_EQ((*ok)->operations().back().depth, BytecodeFile::kMaxRegionDepth);

  auto tooDeep =
      decode(emitBytecode(mlirOpt, nest(BytecodeFile::kMaxRegionDepth)));
  ASSERT_FALSE(bool(tooDeep));
  std::string message = llvm::toString(tooDeep.takeError());
  EXPECT_EQ(message.rfind("byte ", 0), 0u) << message;
  EXPECT_NE(message.find("nested deeper than 1000"), std::string::npos)
      << message;
}

} // namespace
