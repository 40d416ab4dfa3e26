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
  // An unknown code is refused: MLIR 22's builtin reader cannot decode it,
  // so the import would not read the file either.
  EXPECT_EQ(errorOf(patched(bytes, i3.offset, (60 << 1) | 1)),
            at(i3.offset) + "unknown builtin type code 60 in type entry " +
                std::to_string(type["i3"]));

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
      g = dense<"a"> : tensor<3x!t.str>, h = 1.0 : f8E4M3FN,
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
  // g is a splat; not a splat, it would need 3 strings.
  Span gEntry = file->attributes()[attrs["g"]].encoding;
  EXPECT_EQ(errorOf(patched(bytes, gEntry.offset + 2, 0x01)),
            at(gEntry.offset + 3) +
                "DenseStringElements needs 3 strings but only 1 bytes remain");
  // The importer refuses more elements than the entry has bytes, even for
  // a splat (whose single string MLIR would read).
  std::string huge = emitBytecode(
      mlirOpt,
      R"("t.op"() {g = dense<"a"> : tensor<1000000000000x!t.str>} : () -> ())");
  EXPECT_NE(errorOf(huge).find("DenseStringElements type has 1000000000000 "
                               "elements, more than the entry's 4 bytes"),
            std::string::npos)
      << errorOf(huge);
}

//===----------------------------------------------------------------------===//
// One validation: what the MLIR import refuses, open() refuses
//===----------------------------------------------------------------------===//

/// A one-byte varint holding `value` (< 128).
uint8_t varint1(uint64_t value) {
  EXPECT_LT(value, 128u);
  return uint8_t(value << 1 | 1);
}

class ImportAgreementTest : public RegressionTest {
protected:
  /// Expects `bytes` with byte `offset` set to `value` to fail to open with
  /// exactly `at(errorOffset) + message`.
  void expectRefused(uint64_t offset, uint8_t value, uint64_t errorOffset,
                     const std::string &message) {
    EXPECT_EQ(errorOf(patched(bytes, offset, value)),
              at(errorOffset) + message);
  }
  Span entry(uint64_t attr) { return file->attributes()[attr].encoding; }
  std::string idx(uint64_t value) { return std::to_string(value); }

  std::string bytes;
  std::unique_ptr<BytecodeFile> file;
};

TEST_F(ImportAgreementTest, LocationsReferToLocations) {
  file = load(R"("t.n"() {s = "str"} : () -> () loc("n"("a.py":1:2))
"t.c"() : () -> () loc(callsite("c"("a.py":1:0) at "b.py":2:0))
"t.f"() : () -> () loc(fused["x.py":1:1, "y.py":2:2])
"t.m"() : () -> () loc(fused<"meta">["x.py":1:1, "z.py":3:3])
"t.r"() : () -> () loc("r.py":1000:2000 to 3000:4000))",
              bytes);
  ASSERT_TRUE(file);
  auto locOf = [&](const char *name) {
    for (const Operation &op : file->operations())
      if (file->fullOpName(op.name) == name)
        return op.location;
    return kNone;
  };
  uint64_t str = attrsOf(*file, "t.n")["s"];
  ASSERT_EQ(file->attrKind(str), AttrKind::String);
  // NameLoc: code, name, child.
  uint64_t name = locOf("t.n"), child = file->decodedAttr(name).childLoc;
  expectRefused(entry(name).offset + 2, varint1(str), entry(name).offset,
                "NameLoc attribute " + idx(name) +
                    ": child location (attribute " + idx(str) +
                    ") is not a location attribute");
  expectRefused(entry(name).offset + 1, varint1(child), entry(name).offset,
                "NameLoc attribute " + idx(name) + ": name (attribute " +
                    idx(child) + ") is not a string attribute");
  // FileLineColLoc: code, filename, line, column.
  expectRefused(entry(child).offset + 1, varint1(name), entry(child).offset,
                "FileLineColLoc attribute " + idx(child) +
                    ": filename (attribute " + idx(name) +
                    ") is not a string attribute");
  // CallSiteLoc: code, callee, caller.
  uint64_t call = locOf("t.c");
  for (auto [at, role] : {std::pair(1, "callee"), std::pair(2, "caller")})
    expectRefused(entry(call).offset + at, varint1(str), entry(call).offset,
                  "CallSiteLoc attribute " + idx(call) + ": " + role +
                      " (attribute " + idx(str) +
                      ") is not a location attribute");
  // FusedLoc: code, count, locations; with metadata, then the metadata,
  // which may be any attribute.
  for (const char *op : {"t.f", "t.m"}) {
    uint64_t fused = locOf(op);
    expectRefused(entry(fused).offset + 2, varint1(str), entry(fused).offset,
                  attrKindName(file->attrKind(fused)).str() + " attribute " +
                      idx(fused) + ": fused location (attribute " + idx(str) +
                      ") is not a location attribute");
  }
  uint64_t meta = locOf("t.m");
  ASSERT_EQ(file->attrKind(meta), AttrKind::FusedLocWithMetadata);
  EXPECT_EQ(errorOf(patched(bytes, entry(meta).offset + 4, varint1(str))), "");
  // FileLineColRange: MLIR builds no range of more than 4 values.
  uint64_t range = locOf("t.r");
  ASSERT_EQ(file->decodedAttr(range).elements.size(), 4u);
  expectRefused(entry(range).offset + 2, varint1(5), entry(range).offset + 2,
                "5 line/column values in a FileLineColRange (at most 4)");
}

TEST_F(ImportAgreementTest, NamesAreStringsAndNestedSymbolsFlat) {
  file = load(R"(module @m attributes {t.sym = @m, t.nested = @m::@f::@g} {
  "t.op"() {d = {x = 1 : i8}, n = 7 : i32} : () -> ()
})",
              bytes);
  ASSERT_TRUE(file);
  auto moduleAttrs = attrsOf(*file, "builtin.module");
  auto opAttrs = attrsOf(*file, "t.op");
  uint64_t n = opAttrs["n"], d = opAttrs["d"];
  // Dictionary: code, count, then name/value pairs.
  expectRefused(entry(d).offset + 2, varint1(n), entry(d).offset,
                "Dictionary attribute " + idx(d) + ": member name (attribute " +
                    idx(n) + ") is not a string attribute");
  uint64_t flat = moduleAttrs["t.sym"], nested = moduleAttrs["t.nested"];
  expectRefused(entry(flat).offset + 1, varint1(n), entry(flat).offset,
                "FlatSymbolRef attribute " + idx(flat) +
                    ": root reference (attribute " + idx(n) +
                    ") is not a string attribute");
  // SymbolRef: code, root, count, nested references.
  uint64_t leaf = file->decodedAttr(nested).elements[0];
  expectRefused(entry(nested).offset + 3, varint1(n), entry(nested).offset,
                "SymbolRef attribute " + idx(nested) +
                    ": nested reference (attribute " + idx(n) +
                    ") is not a flat symbol reference");
  EXPECT_EQ(file->attrKind(leaf), AttrKind::FlatSymbolRef);
  // builtin.module's properties: sym_name, sym_visibility (optional, flag in
  // the low bit), which MLIR's own code reads as StringAttrs.
  const Operation &module = file->operations()[0];
  ASSERT_EQ(module.propertiesForm, PropertiesForm::Native);
  uint64_t props = module.propertiesBlob.offset;
  expectRefused(props, varint1(n << 1 | 1), props,
                "builtin.module property sym_name (attribute " + idx(n) +
                    ") is not a string attribute");
}

TEST_F(ImportAgreementTest, ValuesFitTheirTypes) {
  file = load(R"("t.op"() {a = 5 : i3, b = 300 : i10,
      c = 123456789012345678901234567890 : i128, d = -1 : i16, e = 1.5 : f32,
      f = -1.0 : f16, s = "x" : !t.str, u = 65535 : ui16} : () -> ())",
              bytes);
  ASSERT_TRUE(file);
  auto attrs = attrsOf(*file, "t.op");
  // Integer/Float: code, type, value.
  Span a = entry(attrs["a"]), b = entry(attrs["b"]), c = entry(attrs["c"]);
  expectRefused(a.offset + 2, 9, a.offset + 2,
                "value 9 does not fit its 3-bit type");
  // 300 : i10 is a two-byte varint (zigzag 600); 0xFF high byte: 8172.
  expectRefused(b.offset + 3, 0xFF, b.offset + 2,
                "value 8172 does not fit its 10-bit type");
  expectRefused(c.offset + 2, varint1(3), c.offset + 2,
                "3 APInt words for a value of 128 bits");
  // MLIR writes the zero-extended bits; both spellings read as one value.
  EXPECT_EQ(file->decodedAttr(attrs["d"]).bits, std::optional<uint64_t>(~0ull));
  EXPECT_EQ(file->decodedAttr(attrs["u"]).bits, std::optional<uint64_t>(~0ull));
  EXPECT_EQ(file->decodedAttr(attrs["f"]).bits,
            std::optional<uint64_t>(0xBC00));
  uint64_t text = file->decodedAttr(attrs["s"]).typeIndex;
  Span e = entry(attrs["e"]);
  expectRefused(e.offset + 1, varint1(text), e.offset + 1,
                "type of a Float attribute is not a float type");
  std::string zero =
      emitBytecode(mlirOpt, R"("t.op"() {z = 0 : i0} : () -> ())");
  EXPECT_NE(errorOf(zero).find("value of a 0-bit type"), std::string::npos);
}

TEST_F(ImportAgreementTest, DenseAndResourceTypesFit) {
  file = load(R"("t.op"() {a = dense<[1, 2]> : tensor<2xi32>,
      e = array<i32: 1, 2>, s = "x" : !t.str, g = dense<["a", "b"]> : tensor<2x!t.str>,
      h = sparse<[[0, 1]], [5]> : tensor<2x2xi64>, i = 1 : i32,
      m = memref<2xf32>, r = dense_resource<blob1> : tensor<1xi32>} : () -> ()
{-# dialect_resources: { builtin: { blob1: "0x040000002A000000" } } #-})",
              bytes);
  ASSERT_TRUE(file);
  auto attrs = attrsOf(*file, "t.op");
  auto typeOf = [&](const char *name) {
    return file->decodedAttr(attrs[name]).typeIndex;
  };
  uint64_t a = attrs["a"], e = attrs["e"], r = attrs["r"], h = attrs["h"];
  expectRefused(entry(a).offset + 1, varint1(typeOf("s")), entry(a).offset,
                "DenseIntOrFPElements attribute " + idx(a) +
                    ": type of the elements is not a ranked shaped type");
  expectRefused(entry(a).offset + 1, varint1(typeOf("g")), entry(a).offset,
                "DenseIntOrFPElements attribute " + idx(a) +
                    ": element type is not an integer, index, float or "
                    "complex type");
  expectRefused(entry(e).offset + 1, varint1(typeOf("s")), entry(e).offset,
                "DenseArray attribute " + idx(e) +
                    ": element type is not an integer or float type");
  expectRefused(entry(r).offset + 1, varint1(typeOf("i")), entry(r).offset,
                "DenseResourceElements attribute " + idx(r) +
                    ": type is not a builtin shaped type");
  // Sparse indices (i64, row-major) must lie in the shape: [[0, 1]] -> [[0,
  // 7]].
  DecodedAttr indices = file->decodedAttr(file->decodedAttr(h).elements[0]);
  expectRefused(indices.payload.offset + 8, 7, entry(h).offset,
                "SparseElements attribute " + idx(h) +
                    ": sparse index 0 out of the shape");
  // memref<2xf32>: code, rank, dim, element type, layout (an affine map).
  Span memref = file->types()[typeOf("m")].encoding;
  expectRefused(memref.end() - 1, varint1(attrs["s"]), memref.end() - 1,
                "memref layout (attribute " + idx(attrs["s"]) +
                    ") is not an affine map or strided layout");
  std::string big = emitBytecode(
      mlirOpt,
      R"("t.op"() {b = dense<0> : tensor<1000000000x1000000xi8>} : () -> ())");
  EXPECT_NE(errorOf(big).find(": type of the elements has a dynamic shape or "
                              "more than 2^48 elements"),
            std::string::npos)
      << errorOf(big);
}

TEST_F(ImportAgreementTest, NoCyclesUnknownCodesOrDeepChains) {
  file = load(R"("t.op"() {a = [[1 : i32]], u = unit} : () -> ())", bytes);
  ASSERT_TRUE(file);
  auto attrs = attrsOf(*file, "t.op");
  uint64_t outer = attrs["a"], unit = attrs["u"];
  // Array: code, count, elements. The outer array made to contain itself.
  expectRefused(entry(outer).offset + 2, varint1(outer), entry(outer).offset,
                "attribute " + idx(outer) +
                    " refers to itself through its references");
  expectRefused(entry(unit).offset, varint1(23), entry(unit).offset,
                "unknown builtin attribute code 23 in attribute entry " +
                    idx(unit));
  // The importer materialises referents first, at most 256 deep.
  auto nested = [&](int depth) {
    return emitBytecode(mlirOpt, "\"t.op\"() {a = " + std::string(depth, '[') +
                                     "1" + std::string(depth, ']') +
                                     "} : () -> ()");
  };
  EXPECT_EQ(errorOf(nested(250)), "");
  EXPECT_NE(errorOf(nested(300))
                .find("starts a chain of references deeper than 256 entries"),
            std::string::npos);
}

TEST_F(ImportAgreementTest, OpsHaveDictionariesLocationsAndText) {
  file = load(R"("t.op"() {s = "x", o = #t.foo<"abc">} : () -> ()
"t.r"() ({
^bb0(%a: i32 loc("a.py":1:1)):
  "t.y"() : () -> ()
}) : () -> ())",
              bytes);
  ASSERT_TRUE(file);
  auto attrs = attrsOf(*file, "t.op");
  uint64_t str = attrs["s"];
  const Operation *op = nullptr;
  for (const Operation &candidate : file->operations())
    if (file->fullOpName(candidate.name) == "t.op")
      op = &candidate;
  ASSERT_NE(op, nullptr);
  // An op: name, mask, location, attribute dictionary, ...
  expectRefused(op->offset + 2, varint1(str), op->offset,
                "location (attribute " + idx(str) +
                    ") is not a location attribute");
  expectRefused(op->offset + 3, varint1(str), op->offset,
                "attribute dictionary (attribute " + idx(str) +
                    ") is not a dictionary");
  // The block argument's location index, found by trying every candidate.
  uint64_t argLoc = file->blocks().back().arguments.at(0).location;
  Span ir = file->section(kIRSection)->data;
  unsigned refused = 0;
  for (uint64_t at = ir.offset; at < ir.end(); ++at)
    if (uint8_t(bytes[at]) == varint1(argLoc) &&
        errorOf(patched(bytes, at, varint1(str)))
                .find("block argument location (attribute " + idx(str) +
                      ") is not a location attribute") != std::string::npos)
      ++refused;
  EXPECT_EQ(refused, 1u);
  // Textual entries: MLIR's lexer stops at a NUL.
  Span text = entry(attrs["o"]);
  ASSERT_EQ(file->attrAsmText(attrs["o"]), "#t.foo<\"abc\">");
  expectRefused(text.offset + 3, 0, text.offset + 3,
                "NUL byte inside a textual attribute/type entry");
  std::string deep =
      emitBytecode(mlirOpt, "\"t.op\"() {a = #t<" + std::string(1001, '[') +
                                std::string(1001, ']') + ">} : () -> ()");
  EXPECT_NE(errorOf(deep).find("textual entry nests deeper than 1000 "
                               "brackets"),
            std::string::npos);
  // The root block holding no operation: (numOps << 1 | hasArgs) = 0.
  uint64_t root = file->section(kIRSection)->data.offset;
  EXPECT_EQ(errorOf(patched(bytes, root, varint1(0))),
            at(root) + "the file holds no operation");
}

} // namespace
