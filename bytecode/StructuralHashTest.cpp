//===- StructuralHashTest.cpp - Attribute identity across files -----------===//
//
// The same MLIR written twice with the attribute table in another order must
// hash the same structurally (where the content hash, which covers table
// indices, differs); different values must hash differently.
//
//===----------------------------------------------------------------------===//

#include "bytecode/StructuralHash.h"
#include "testing/BytecodeTestSupport.h"

#include <set>

using namespace aimodel::bytecode;
using namespace aimodel::bytecode::testing;

namespace {

/// Every builtin attribute kind and type code, and every location kind.
const char *const kEveryKind = R"mlir(
"t.op"() {arr = [1 : i32, "s"], dict = {x = 1 : i8, y = [unit]}, str = "text",
    typed = "t" : i32, flat = @sym, nested = @sym::@inner, type = f64, unit,
    i8 = 7 : i8, i32 = -3 : i32, i128 = 123456789012345678901234567890 : i128,
    f16 = -1.5 : f16, f64 = 2.5 : f64, f8 = 1.0 : f8E4M3FN, b = true,
    dense = dense<[1, 2, 3]> : tensor<3xi32>, splat = dense<1.5> : tensor<2x2xf32>,
    bits = dense<[true, false]> : tensor<2xi1>, cplx = dense<(1.0, 2.0)> : tensor<1xcomplex<f32>>,
    darr = array<i32: 1, 2>, dstr = dense<["a", "b"]> : tensor<2x!t.str>,
    sparse = sparse<[[0, 1]], [5]> : tensor<2x2xi64>, res = dense_resource<blob1> : tensor<1xi32>,
    dist = distinct[0]<"d">, asm = #t.foo<1>, tasm = !t.bar,
    types = [index, i3, si8, ui16, bf16, f16, f32, f80, f128, tf32, none,
             complex<f32>, tuple<i1, f32>, (i32) -> f32, tensor<*xf32>,
             tensor<2x?xf32>, tensor<2xi8, "enc">, memref<2xf32>, memref<2xf32, 1>,
             memref<*xf32>, memref<*xf32, 1>, vector<2xf32>, vector<[2]xf32>,
             memref<2x3xf32, strided<[3, 1]>>]} : () -> ()
    loc(fused<{call_stack = ["A$1"]}>["/x/a.py":1:0, "coreai"("op_id":3:0)])
"t.a"() : () -> () loc(callsite("c"("a.py":1:0) at "b.py":2:0))
"t.b"() : () -> () loc(fused["x.py":1:1, "y.py":2:2])
"t.c"() : () -> () loc("r.py":1:2 to 3:4)
"t.d"() : () -> () loc(unknown)
{-# dialect_resources: { builtin: { blob1: "0x040000002A000000" } } #-}
)mlir";

/// The same attributes, after an op whose attributes come first in the
/// table, so that every index moves.
const char *const kShifted = R"mlir(
"t.first"() {p = "unrelated", q = [7 : i64, 8 : i64], r = {z = "zz"}, s = 9 : i16,
    t = dense<[4, 5]> : tensor<2xi64>, u = tensor<9xf16>} : () -> () loc("p.py":9:9)
)mlir";

class StructuralHashTest : public MlirTextTest {
protected:
  static const Operation &op(const BytecodeFile &file, llvm::StringRef name) {
    for (const Operation &candidate : file.operations())
      if (file.fullOpName(candidate.name) == name)
        return candidate;
    ADD_FAILURE() << "no " << name.str();
    return file.operations()[0];
  }
};

TEST_F(StructuralHashTest, EqualAcrossTableOrders) {
  auto a = load(kEveryKind), b = load(std::string(kShifted) + kEveryKind);
  ASSERT_TRUE(a && b);
  StructuralHasher ha(*a), hb(*b);
  auto attrsA = attrsOf(*a, "t.op"), attrsB = attrsOf(*b, "t.op");
  ASSERT_EQ(attrsA.size(), attrsB.size());
  unsigned contentDiffers = 0;
  for (const auto &[name, index] : attrsA) {
    uint64_t other = attrsB.at(name);
    EXPECT_EQ(ha.attribute(index), hb.attribute(other)) << name;
    contentDiffers +=
        a->attrContentHash(index) != b->attrContentHash(other) ? 1 : 0;
  }
  // Indices did move: most entries that refer to others changed bytes.
  EXPECT_GT(contentDiffers, attrsA.size() / 2);
  EXPECT_NE(a->attrContentHash(op(*a, "t.op").attrDict),
            b->attrContentHash(op(*b, "t.op").attrDict));
  EXPECT_EQ(ha.attribute(op(*a, "t.op").attrDict),
            hb.attribute(op(*b, "t.op").attrDict));
  for (const char *name : {"t.op", "t.a", "t.b", "t.c", "t.d"})
    EXPECT_EQ(ha.attribute(op(*a, name).location),
              hb.attribute(op(*b, name).location))
        << name;

  // Every attribute kind and type code took part.
  std::set<AttrKind> kinds;
  std::set<TypeCode> codes;
  for (uint64_t i = 0; i < a->attributes().size(); ++i)
    kinds.insert(a->attrKind(i));
  for (uint64_t i = 0; i < a->types().size(); ++i)
    codes.insert(a->typeCode(i));
  for (unsigned kind = 0; kind <= unsigned(AttrKind::FileLineColRange); ++kind)
    EXPECT_TRUE(kinds.count(AttrKind(kind)))
        << attrKindName(AttrKind(kind)).str();
  EXPECT_TRUE(kinds.count(AttrKind::Asm));
  for (unsigned code = 0; code <= unsigned(TypeCode::VectorWithScalableDims);
       ++code)
    EXPECT_TRUE(codes.count(TypeCode(code))) << code;
  EXPECT_TRUE(codes.count(TypeCode::NotBuiltin));
}

TEST_F(StructuralHashTest, DifferentValuesDiffer) {
  auto file = load(R"("t.op"() {i1 = 1 : i32, i2 = 2 : i32, i3 = 1 : i64,
      s1 = "x", s2 = "y", s3 = "x" : i32, t1 = tensor<2xf32>, t2 = tensor<3xf32>,
      t3 = tensor<2xf16>, d1 = dense<[1, 2]> : tensor<2xi32>,
      d2 = dense<[1, 3]> : tensor<2xi32>, d3 = dense<[1, 2]> : vector<2xi32>,
      a1 = [1 : i32], a2 = [1 : i32, 1 : i32], a3 = [], n1 = {k = 1}, n2 = {j = 1},
      r1 = @a, r2 = @b, r3 = @a::@b, f1 = 1.0 : f32, f2 = -1.0 : f32,
      w1 = 123456789012345678901234567890 : i128, w2 = 123456789012345678901234567891 : i128,
      x1 = #t.foo<1>, x2 = #t.foo<2>, u1 = unit, m1 = memref<2xf32>,
      m2 = memref<2xf32, strided<[2]>>} : () -> ()
"t.l1"() : () -> () loc("a.py":1:2)
"t.l2"() : () -> () loc("a.py":1:3)
"t.l3"() : () -> () loc("b.py":1:2)
"t.l4"() : () -> () loc("n"("a.py":1:2))
"t.l5"() : () -> () loc(fused["a.py":1:2, "b.py":1:2])
"t.l6"() : () -> () loc(fused["b.py":1:2, "a.py":1:2]))");
  ASSERT_TRUE(file);
  StructuralHasher hasher(*file);
  auto attrs = attrsOf(*file, "t.op");
  std::map<uint64_t, std::string> seen;
  for (const auto &[name, index] : attrs) {
    auto [it, inserted] = seen.emplace(hasher.attribute(index), name);
    EXPECT_TRUE(inserted) << name << " hashes like " << it->second;
  }
  for (const char *name : {"t.l1", "t.l2", "t.l3", "t.l4", "t.l5", "t.l6"}) {
    auto [it, inserted] =
        seen.emplace(hasher.attribute(op(*file, name).location), name);
    EXPECT_TRUE(inserted) << name << " hashes like " << it->second;
  }
  // Memoised and deterministic: a second hasher agrees.
  StructuralHasher again(*file);
  for (uint64_t i = 0; i < file->attributes().size(); ++i)
    EXPECT_EQ(hasher.attribute(i), again.attribute(i));
  for (uint64_t i = 0; i < file->types().size(); ++i)
    EXPECT_EQ(hasher.type(i), again.type(i));
}

TEST_F(StructuralHashTest, ResourceBlobsAreNotHashed) {
  // Same key and type, other weights: a weights policy decides separately.
  const char *text =
      R"("t.op"() {w = dense_resource<blob1> : tensor<1xi32>} : () -> ()
{-# dialect_resources: { builtin: { blob1: "0x04000000%s" } } #-})";
  char one[512], two[512];
  std::snprintf(one, sizeof(one), text, "2A000000");
  std::snprintf(two, sizeof(two), text, "2B000000");
  auto a = load(one), b = load(two);
  ASSERT_TRUE(a && b);
  EXPECT_EQ(StructuralHasher(*a).attribute(attrsOf(*a, "t.op")["w"]),
            StructuralHasher(*b).attribute(attrsOf(*b, "t.op")["w"]));
}

TEST(StructuralHashCorpus, DeterministicAndSharedAcrossFiles) {
  if (!haveCorpus())
    GTEST_SKIP() << "corpus not found under " << sharedDir();
  std::string graphs = corpusPath(
      "vibevoice_diffusion_head_fp16.h18p.aimodelc/main-h18p-delegates/"
      "MPSGraph/mpsExecutable.mpsgraphpackage/");
  std::vector<std::unique_ptr<BytecodeFile>> files;
  for (const char *name :
       {"original_model_0.mpsgraph", "specialized_model_1.mpsgraph"}) {
    auto file = BytecodeFile::open(graphs + name);
    ASSERT_TRUE(bool(file)) << llvm::toString(file.takeError());
    files.push_back(std::move(*file));
  }
  // Structural hash of every builtin string, by its text, per file; and
  // both hashes of every other attribute.
  std::vector<std::map<std::string, uint64_t>> strings(2);
  std::vector<std::set<uint64_t>> structural(2), content(2);
  for (size_t f = 0; f < 2; ++f) {
    const BytecodeFile &file = *files[f];
    StructuralHasher first(file), second(file);
    for (uint64_t i = 0; i < file.attributes().size(); ++i) {
      uint64_t hash = first.attribute(i);
      ASSERT_EQ(hash, second.attribute(i)) << i;
      if (file.attrKind(i) == AttrKind::String) {
        strings[f][file.decodedAttr(i).str.str()] = hash;
      } else {
        structural[f].insert(hash);
        content[f].insert(file.attrContentHash(i));
      }
    }
    for (uint64_t i = 0; i < file.types().size(); ++i)
      ASSERT_EQ(first.type(i), second.type(i)) << i;
  }
  unsigned shared = 0;
  for (const auto &[text, hash] : strings[0])
    if (auto it = strings[1].find(text); it != strings[1].end()) {
      EXPECT_EQ(hash, it->second) << text;
      ++shared;
    }
  EXPECT_GT(shared, 10u);
  // Attributes that refer to others (locations, dictionaries, ...) are found
  // in both files by meaning where their bytes differ.
  auto count = [](const std::set<uint64_t> &a, const std::set<uint64_t> &b) {
    unsigned n = 0;
    for (uint64_t hash : a)
      n += b.count(hash) ? 1 : 0;
    return n;
  };
  EXPECT_GT(count(structural[0], structural[1]), count(content[0], content[1]));
}

} // namespace
