//===- BytecodeValidationTest.cpp - Decoder regressions on damaged input --===//
//
// Each test pins a way a damaged or hostile file once got past the decoder:
// FIFOs and devices, error text, properties of unregistered ops, builtin
// types and dense payloads that MLIR's own code would trust.
//
//===----------------------------------------------------------------------===//

#include "support/SafeFile.h"
#include "testing/BytecodeTestSupport.h"

#include <set>
#include <sys/stat.h>

using namespace aimodel::bytecode;
using namespace aimodel::bytecode::testing;

namespace {

//===----------------------------------------------------------------------===//
// Regressions: file mapping, error text, properties, builtin types, dense
// payloads
//===----------------------------------------------------------------------===//

TEST(MapRegularFile, NeverBlocksOnFifosDevicesOrFolders) {
  llvm::SmallString<128> dir;
  ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("bcmap", dir));
  std::string fifo = (dir + "/ff").str(), regular = (dir + "/f.mlirb").str();
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  // MemoryBuffer::getFile blocks forever in open(2) on a FIFO.
  auto fromFifo = aimodel::support::mapRegularFile(fifo);
  ASSERT_FALSE(bool(fromFifo));
  EXPECT_EQ(llvm::toString(fromFifo.takeError()), "is not a regular file");
  auto openFifo = BytecodeFile::open(fifo);
  ASSERT_FALSE(bool(openFifo));
  EXPECT_EQ(llvm::toString(openFifo.takeError()), "is not a regular file");
  auto folder = aimodel::support::mapRegularFile(dir);
  ASSERT_FALSE(bool(folder));
  EXPECT_EQ(llvm::toString(folder.takeError()), "is a directory");
  if (llvm::sys::fs::exists("/dev/zero")) { // would be read forever
    auto zero = BytecodeFile::open("/dev/zero");
    ASSERT_FALSE(bool(zero));
    EXPECT_EQ(llvm::toString(zero.takeError()), "is not a regular file");
  }
  auto missing = aimodel::support::mapRegularFile((dir + "/missing").str());
  ASSERT_FALSE(bool(missing));
  EXPECT_EQ(llvm::toString(missing.takeError()).rfind("cannot open: ", 0), 0u);
  {
    std::ofstream os(regular, std::ios::binary);
    os << "ML\xEFR";
  }
  auto mapped = aimodel::support::mapRegularFile(regular);
  ASSERT_TRUE(bool(mapped)) << llvm::toString(mapped.takeError());
  EXPECT_EQ((*mapped)->getBuffer(), "ML\xEFR");
  // Paths are followed: whether a symlink is acceptable is the caller's call.
  std::string link = (dir + "/link").str();
  ASSERT_FALSE(llvm::sys::fs::create_link(regular, link));
  auto viaLink = aimodel::support::mapRegularFile(link);
  ASSERT_TRUE(bool(viaLink)) << llvm::toString(viaLink.takeError());
  EXPECT_EQ((*viaLink)->getBuffer().size(), 4u);
  for (const std::string &path : {fifo, regular, link})
    llvm::sys::fs::remove(path);
  llvm::sys::fs::remove(dir);
}

class RegressionTest : public ::testing::Test {
protected:
  void SetUp() override {
    mlirOpt = findMlirOpt();
    if (mlirOpt.empty())
      GTEST_SKIP() << "mlir-opt-22 not found (set AIMODEL_MLIR_OPT)";
  }
  /// Bytecode of `text` and its decoded file (test fails if it does not
  /// decode).
  std::unique_ptr<BytecodeFile> load(const char *text, std::string &bytes) {
    bytes = emitBytecode(mlirOpt, text);
    auto decoded = decode(bytes);
    EXPECT_TRUE(bool(decoded)) << llvm::toString(decoded.takeError());
    if (!decoded)
      return nullptr;
    checkInvariants(**decoded);
    return std::move(*decoded);
  }
  std::string mlirOpt;
};

TEST_F(RegressionTest, SectionIdsPrintAsNumbers) {
  std::string bytes;
  auto file = load(R"("t.op"() : () -> ())", bytes);
  ASSERT_TRUE(file);
  uint64_t header = file->sections()[0].headerOffset;
  // Twine(uint8_t) printed the id as a character: 0x0a split the message.
  for (uint8_t id : {0x0a, 0x1b, 0x7f})
    EXPECT_EQ(errorOf(patched(bytes, header, id)),
              at(header) + "invalid section id " + std::to_string(id));
  // Two unaligned sections: give the second the first one's id.
  std::vector<const SectionInfo *> plain;
  for (const SectionInfo &section : file->sections())
    if (!(uint8_t(bytes[section.headerOffset]) & 0x80))
      plain.push_back(&section);
  ASSERT_GE(plain.size(), 2u);
  EXPECT_EQ(errorOf(patched(bytes, plain[1]->headerOffset, plain[0]->id)),
            at(plain[1]->headerOffset) + "duplicate top-level section " +
                std::to_string(plain[0]->id));
}

TEST_F(RegressionTest, UnregisteredOpPropertiesAreAnAttribute) {
  std::string bytes;
  auto file = load(
      R"(%0 = "t.op"() <{p = 1 : i32, q = "s"}> {d = 2} : () -> i32)", bytes);
  ASSERT_TRUE(file);
  const Operation *op = nullptr;
  for (const Operation &candidate : file->operations())
    if (file->fullOpName(candidate.name) == "t.op")
      op = &candidate;
  ASSERT_NE(op, nullptr);
  EXPECT_FALSE(file->opNames()[op->name].isRegistered);
  ASSERT_EQ(op->propertiesForm, PropertiesForm::Attribute);
  // The op's index names a Properties entry; the entry holds the attribute.
  ASSERT_LT(op->propertiesIndex, file->properties().size());
  EXPECT_EQ(op->propertiesBlob, file->properties()[op->propertiesIndex]);
  ASSERT_LT(op->propertiesAttr, file->attributes().size());
  ASSERT_EQ(file->attrKind(op->propertiesAttr), AttrKind::Dictionary);
  auto props = dictionaryMembers(*file, op->propertiesAttr);
  ASSERT_EQ(props.size(), 2u);
  EXPECT_EQ(file->decodedAttr(props["q"]).str, "s");
  EXPECT_EQ(file->decodedAttr(props["p"]).bits, std::optional<uint64_t>(1));
  EXPECT_EQ(attrsOf(*file, "t.op").count("d"), 1u);

  uint64_t numAttrs = file->attributes().size();
  ASSERT_LT(numAttrs, 127u);
  uint64_t entry = op->propertiesBlob.offset;
  EXPECT_EQ(errorOf(patched(bytes, entry, 0xFF)), // varint 127
            at(entry) +
                "properties attribute index 127 out of range (table "
                "has " +
                std::to_string(numAttrs) + " entries)");
}

TEST_F(RegressionTest, BuiltinTypesAreDecodedAndValidated) {
  std::string bytes;
  auto file =
      load(R"("t.types"() {m = memref<4x?xf32, strided<[?, 1], offset: ?>>,
      v = vector<[4]x2xf16>, u = tuple<i32, f64>, f = (i32, memref<*xf32>) -> tensor<*xi8>,
      x = complex<f64>, r = tensor<2x3xi8, "enc">, s = tensor<5x7xi16>, n = none,
      ix = index, w = vector<3xi1>, um = memref<*xf32, 1>, m2 = memref<2xi8, 1>,
      i3 = i3} : () -> ())",
           bytes);
  ASSERT_TRUE(file);
  std::map<std::string, uint64_t> type;
  for (const auto &[name, attr] : attrsOf(*file, "t.types"))
    type[name] = file->decodedAttr(attr).typeIndex;
  std::pair<const char *, TypeCode> codes[] = {
      {"m", TypeCode::MemRef},
      {"v", TypeCode::VectorWithScalableDims},
      {"u", TypeCode::Tuple},
      {"f", TypeCode::Function},
      {"x", TypeCode::Complex},
      {"r", TypeCode::RankedTensorWithEncoding},
      {"s", TypeCode::RankedTensor},
      {"n", TypeCode::None},
      {"ix", TypeCode::Index},
      {"w", TypeCode::Vector},
      {"i3", TypeCode::Integer},
      {"um", TypeCode::UnrankedMemRefWithMemSpace},
      {"m2", TypeCode::MemRefWithMemSpace}};
  for (const auto &[name, code] : codes)
    EXPECT_EQ(file->typeCode(type[name]), code) << name;
  EXPECT_EQ(file->builtinType(type["i3"])->width, 3u);
  EXPECT_EQ(file->staticElementCount(type["s"]), std::optional<uint64_t>(35));
  EXPECT_EQ(file->staticElementCount(type["r"]), std::optional<uint64_t>(6));
  EXPECT_EQ(file->staticElementCount(type["v"]), std::optional<uint64_t>(8));
  EXPECT_EQ(file->staticElementCount(type["m"]), std::nullopt);
  EXPECT_EQ(file->builtinType(type["m"])->rank, 2u);
  EXPECT_EQ(file->staticElementCount(type["ix"]), std::nullopt);
  uint64_t i16 = file->builtinType(type["s"])->elementType;
  EXPECT_EQ(file->denseElementBitWidth(i16), std::optional<uint64_t>(16));
  uint64_t i1 = file->builtinType(type["w"])->elementType;
  EXPECT_EQ(file->denseElementBitWidth(i1), std::optional<uint64_t>(1));
  EXPECT_EQ(file->denseArrayElementBytes(i1), std::optional<uint64_t>(1));
  EXPECT_EQ(file->denseElementBitWidth(type["x"]),
            std::optional<uint64_t>(128));
  EXPECT_EQ(file->denseElementBitWidth(type["ix"]),
            std::optional<uint64_t>(64));

  // tensor<5x7xi16>: code, rank, zigzag dims, element type (1 byte each).
  Span s = file->types()[type["s"]].encoding;
  ASSERT_EQ(s.size, 5u);
  // A corrupt count used to reach MLIR's reader and abort in SmallVector.
  EXPECT_EQ(errorOf(patched(bytes, s.offset + 1, 0x7F))
                .rfind(at(s.offset + 1) +
                           "shape dimension count 63 exceeds the 3 bytes",
                       0),
            0u);
  EXPECT_EQ(errorOf(patched(bytes, s.offset + 2, 0x07)), // zigzag -2
            at(s.offset + 2) + "invalid dimension -2 in a builtin shaped type");
  ASSERT_LT(file->types().size(), 63u);
  EXPECT_EQ(errorOf(patched(bytes, s.offset + 4, 0x7F))
                .rfind(at(s.offset + 4) + "type index 63 out of range", 0),
            0u);
  Span i3 = file->types()[type["i3"]].encoding; // code 0, (3 << 2 | sign)
  ASSERT_EQ(i3.size, 2u);
  EXPECT_EQ(errorOf(patched(bytes, i3.offset + 1, (15 << 1) | 1)),
            at(i3.offset + 1) + "invalid integer type signedness 3");
  // An unknown code is not an error: MLIR decides.
  auto other = decode(patched(bytes, i3.offset, (60 << 1) | 1));
  ASSERT_TRUE(bool(other)) << llvm::toString(other.takeError());
  EXPECT_EQ((*other)->typeCode(type["i3"]), TypeCode::OtherBuiltin);
  EXPECT_EQ((*other)->builtinTypeCode(type["i3"]), std::optional<uint64_t>(60));

  std::string huge;
  huge = emitBytecode(
      mlirOpt, R"("t.op"() {t = tensor<3037000500x3037000500xi8>} : () -> ())");
  EXPECT_NE(errorOf(huge).find("static element count of a builtin shaped type "
                               "overflows int64"),
            std::string::npos);
}

TEST_F(RegressionTest, DensePayloadsMatchTheirTypes) {
  std::string bytes;
  auto file = load(R"("t.op"() {a = dense<[1, 2, 3]> : tensor<3xi32>,
      b = dense<7> : tensor<4x4xi32>, s = dense<true> : tensor<9xi1>,
      c = dense<[true, false, true, true, false, false, true, true, true]> : tensor<9xi1>,
      d = dense<(1.0, 2.0)> : tensor<2xcomplex<f32>>, e = array<i32: 1, 2, 3>,
      f = array<i1: true, false>, t = tensor<5xi32>,
      g = dense<"a"> : tensor<1000000000000x!t.str>, h = 1.0 : f8E4M3FN,
      i = 2.0 : tf32, j = 123456789012345678901234567890 : i128,
      k = 1.0 : f80, l = dense<[1.0, 2.0, 4.0]> : tensor<3xtf32>} : () -> ())",
                   bytes);
  ASSERT_TRUE(file);
  auto attrs = attrsOf(*file, "t.op");
  auto dense = [&](const char *name) { return file->decodedAttr(attrs[name]); };
  // Payload sizes as MLIR 22 stores them: splats hold one element, i1 is
  // bit-packed in dense elements and a byte per element in dense arrays.
  std::pair<const char *, uint64_t> sizes[] = {
      {"a", 12}, {"b", 4}, {"s", 1},
      {"c", 2},  {"d", 8}, {"l", 9}}; // tf32: 3 bytes
  for (const auto &[name, size] : sizes) {
    DecodedAttr attr = dense(name);
    EXPECT_EQ(attr.kind, AttrKind::DenseIntOrFPElements) << name;
    EXPECT_EQ(file->typeCode(attr.typeIndex), TypeCode::RankedTensor) << name;
    EXPECT_EQ(attr.payload.size, size) << name;
  }
  EXPECT_EQ(file->bytesOf(dense("a").payload),
            llvm::StringRef("\1\0\0\0\2\0\0\0\3\0\0\0", 12));
  EXPECT_EQ(dense("e").kind, AttrKind::DenseArray);
  EXPECT_EQ(dense("e").denseArraySize, 3u);
  EXPECT_EQ(dense("e").payload.size, 12u);
  EXPECT_EQ(dense("f").payload.size, 2u);

  // Float values of the float types stored as text are validated as well
  // (MLIR's FloatAttr reader ignores a failed value read); wide values are
  // validated but not kept.
  EXPECT_EQ(dense("h").bits, std::optional<uint64_t>(0x38));
  EXPECT_EQ(dense("i").bits, std::optional<uint64_t>(0x20000));
  EXPECT_EQ(dense("j").kind, AttrKind::Integer);
  EXPECT_EQ(dense("k").kind, AttrKind::Float);
  EXPECT_EQ(dense("j").bits, std::nullopt);

  // a's type index replaced by tensor<5xi32>'s: 12 bytes for 5 elements.
  uint64_t t5 = file->decodedAttr(attrs["t"]).typeIndex;
  ASSERT_LT(t5, 64u);
  DecodedAttr a = dense("a");
  Span aEntry = file->attributes()[attrs["a"]].encoding;
  EXPECT_EQ(
      errorOf(patched(bytes, aEntry.offset + 1, uint8_t(t5 << 1 | 1))),
      at(a.payload.offset) +
          "dense payload of 12 bytes does not match 5 elements of 32 bits");
  // e's element count 3 -> 4.
  DecodedAttr e = dense("e");
  Span eEntry = file->attributes()[attrs["e"]].encoding;
  EXPECT_EQ(errorOf(patched(bytes, eEntry.offset + 2, 4 << 1 | 1)),
            at(e.payload.offset) + "dense array payload of 12 bytes does not "
                                   "match 4 elements of 4 bytes");
  // g is a splat; not a splat, it would need 10^12 strings.
  Span gEntry = file->attributes()[attrs["g"]].encoding;
  EXPECT_NE(errorOf(patched(bytes, gEntry.offset + 2, 0x01))
                .find("DenseStringElements needs 1000000000000 strings"),
            std::string::npos);
}

} // namespace
