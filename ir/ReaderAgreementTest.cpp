//===- ReaderAgreementTest.cpp - Decoder and import accept the same files -===//
//
// `stats` reads a file with the decoder alone, `show` with the decoder and
// the MLIR import: a file must be readable by both or by neither. The import
// only ever sees files the decoder accepted, so the property is: whatever
// the decoder accepts, the import accepts too. Checked on stock bytecode
// (mlir-opt-22 on fixtures/ir/*.mlir and on synthetic IR covering every
// builtin attribute kind), the real Core AI files and the fixture-dialect
// files, each damaged at every byte with several masks, truncated at every
// offset of the attribute/type sections, and with every entry of the
// attribute/type table cut short.
//
// One refusal is the import's alone: text MLIR's parser rejects (a textual
// entry), which the decoder cannot judge without MLIR.
//
//===----------------------------------------------------------------------===//

#include "ir/IRImport.h"
#include "testing/BytecodeTestSupport.h"

#include "mlir/IR/Operation.h"

#include <gtest/gtest.h>

#include <chrono>

using namespace aimodel;
using namespace aimodel::bytecode;
namespace bctest = aimodel::bytecode::testing;

namespace {

/// Builtin attributes of every kind, every location kind, and the types
/// MLIR's builtin reader decodes.
const char *const kSyntheticInputs[] = {
    R"(module @m attributes {t.sym = @m, t.nested = @m::@f::@g} {
  "t.op"() {a = [1 : i32, "s", unit, i64, @f], d = {x = 1 : i8, y = "t" : i32},
      e = 7 : index, f = 1.5 : f16, g = 2.5 : bf16, h = 1.0e10 : f64,
      i = 123456789012345678901234567890 : i128, j = 1.0 : f80, k = 3.0 : f128,
      l = 0.5 : f8E4M3FN, m = 2.0 : tf32, n = true, o = 200 : ui8,
      p = 5 : si32, q = 30000 : i16, r = distinct[0]<"x">,
      s = -1 : i32, t = -1.5 : f16, u = -2 : i64} : () -> () loc(unknown)
  "t.op"() ({
  ^bb0(%a: i32 loc("arg.py":1:2), %b: f32 loc(callsite("c"("a.py":1:0) at "b.py":2:0))):
    "t.use"(%a, %b) : (i32, f32) -> () loc(fused["x.py":1:1, "y.py":2:2])
  }) : () -> () loc(fused<{call_stack = ["A$1"], identifiers = ["v"]}>["/Users/x/a.py":1:0, "coreai"("op_id":3:0)])
  "t.op"() : () -> () loc("r.py":1:2 to 3:4)
  "t.op"() : () -> () loc("r.py":5:6 to :9)
  "t.op"() : () -> () loc(fused<"meta">["a.py":1:0, "b.py":2:0])
  "t.op"() : () -> () loc("named"("inner"(unknown)))
}
)",
    R"("t.dense"() {a = dense<[1, 2, 3]> : tensor<3xi32>, b = dense<1.5> : tensor<2x2xf32>,
    c = dense<[true, false, true]> : tensor<3xi1>, d = dense<(1.0, 2.0)> : tensor<2xcomplex<f32>>,
    e = array<i32: 1, 2, 3>, f = array<i1: true, false>, g = dense<["a", "bc"]> : tensor<2x!t.str>,
    h = sparse<[[0, 1], [1, 0]], [5, 6]> : tensor<2x2xi64>, i = dense<"z"> : tensor<3x!t.str>,
    j = dense<[[1, 2], [3, 4]]> : vector<2x2xi8>, k = dense<7> : tensor<index>,
    l = array<f64: 1.0>, m = sparse<[1], [2.0]> : tensor<4xf32>,
    n = dense<[(1, 2)]> : tensor<1xcomplex<i16>>} : () -> ()
"t.res"() {w = dense_resource<blob1> : tensor<2xi32>} : () -> ()
{-# dialect_resources: { builtin: { blob1: "0x040000000100000002000000" } } #-})",
    R"("t.types"() {m = memref<4x?xf32, strided<[?, 1], offset: ?>>, v = vector<[4]x2xf16>,
    u = tuple<i32, f64>, f = (i32, memref<*xf32>) -> tensor<*xi8>, x = complex<f64>,
    r = tensor<2x3xi8, "enc">, n = none, ix = index, a = memref<2x3xf32, affine_map<(d0, d1) -> (d1, d0)>>,
    s = memref<2xi8, 1>, um = memref<*xf32, 1>, t = !t.thing<"x">, o = #t.opaque<1>} : () -> ()
%0 = "t.def"() : () -> tensor<2xf32>
"t.ret"(%0) : (tensor<2xf32>) -> ())",
};

/// Root of the source tree (this file is ir/ReaderAgreementTest.cpp).
std::string sourceRoot() {
  llvm::SmallString<256> path(__FILE__);
  llvm::sys::path::remove_filename(path);
  llvm::sys::path::remove_filename(path);
  return std::string(path);
}

struct Input {
  std::string name, bytes;
};

std::vector<Input> inputs() {
  std::vector<Input> result;
  std::string mlirOpt = bctest::findMlirOpt();
  if (!mlirOpt.empty()) {
    for (const char *name : {"legacy-0.4.0.mlir", "modern-1.0.0b2.mlir"}) {
      auto text =
          llvm::MemoryBuffer::getFile(sourceRoot() + "/fixtures/ir/" + name);
      EXPECT_TRUE(bool(text)) << name;
      if (text)
        result.push_back(
            {name, bctest::emitBytecode(mlirOpt, (*text)->getBuffer().str())});
    }
    for (size_t i = 0; i < std::size(kSyntheticInputs); ++i)
      result.push_back({"synthetic " + std::to_string(i),
                        bctest::emitBytecode(mlirOpt, kSyntheticInputs[i])});
  }
  std::vector<std::string> files = bctest::fixtureDialectFiles();
  if (bctest::haveCorpus())
    for (const char *bundle : {"vibevoice_connector_fp16.h18p.aimodelc",
                               "vibevoice_diffusion_head_fp16.h18p.aimodelc"}) {
      std::string root = bctest::corpusPath(bundle);
      std::string graphs =
          root + "/main-h18p-delegates/MPSGraph/mpsExecutable.mpsgraphpackage/";
      for (const std::string &file :
           {root + "/main-h18p.mlirb", graphs + "original_model_0.mpsgraph",
            graphs + "specialized_model_1.mpsgraph"})
        files.push_back(file);
    }
  std::sort(files.begin(), files.end());
  for (const std::string &file : files) {
    auto buffer = llvm::MemoryBuffer::getFile(file);
    EXPECT_TRUE(bool(buffer)) << file;
    if (buffer)
      result.push_back({file, (*buffer)->getBuffer().str()});
  }
  return result;
}

//===----------------------------------------------------------------------===//
// Rebuilding a file with one attribute/type entry cut short
//===----------------------------------------------------------------------===//

/// MLIR's prefix varint.
void appendVarInt(std::string &out, uint64_t value) {
  unsigned bytes = 1;
  while (bytes < 9 && value >> (7 * bytes))
    ++bytes;
  if (bytes == 9) {
    out.push_back(0);
    for (int i = 0; i < 8; ++i)
      out.push_back(char(value >> (8 * i)));
    return;
  }
  uint64_t encoded = (value << bytes) | (uint64_t(1) << (bytes - 1));
  for (unsigned i = 0; i < bytes; ++i)
    out.push_back(char(encoded >> (8 * i)));
}

/// `file`'s bytes with entry `entry` (attributes first, then types) of the
/// attribute/type table shortened by `cut` bytes; sections re-laid out.
std::string withEntryCut(const BytecodeFile &file, uint64_t entry,
                         uint64_t cut) {
  uint64_t numAttrs = file.attributes().size();
  const AttrTypeEntry &victim = entry < numAttrs
                                    ? file.attributes()[entry]
                                    : file.types()[entry - numAttrs];
  llvm::StringRef bytes = file.bytes();
  // The offset section again, with the victim's size reduced.
  std::string offsets;
  appendVarInt(offsets, numAttrs);
  appendVarInt(offsets, file.types().size());
  for (llvm::ArrayRef<AttrTypeEntry> table : {file.attributes(), file.types()})
    for (size_t i = 0; i < table.size();) {
      size_t groupEnd = i;
      while (groupEnd < table.size() &&
             table[groupEnd].dialect == table[i].dialect)
        ++groupEnd;
      appendVarInt(offsets, table[i].dialect);
      appendVarInt(offsets, groupEnd - i);
      for (; i < groupEnd; ++i) {
        uint64_t size = table[i].encoding.size;
        if (&table[i] == &victim)
          size -= cut;
        appendVarInt(offsets, size << 1 | table[i].hasCustomEncoding);
      }
    }
  std::string out = bytes.substr(0, file.sections()[0].headerOffset).str();
  for (const SectionInfo &section : file.sections()) {
    std::string data = file.bytesOf(section.data).str();
    if (section.id == kAttrTypeOffsetSection)
      data = offsets;
    if (section.id == kAttrTypeSection)
      data.erase(victim.encoding.end() - cut - section.data.offset, cut);
    bool aligned = uint8_t(bytes[section.headerOffset]) & 0x80;
    out.push_back(char(section.id | (aligned ? 0x80 : 0)));
    appendVarInt(out, data.size());
    if (aligned) {
      appendVarInt(out, section.alignment);
      while (out.size() % section.alignment)
        out.push_back(char(0xCB));
    }
    out += data;
  }
  return out;
}

//===----------------------------------------------------------------------===//
// Verdicts
//===----------------------------------------------------------------------===//

/// Why the import refused what the decoder accepted, or "" when it did not.
std::string disagreement(mlir::MLIRContext &context, llvm::StringRef bytes,
                         unsigned &textual) {
  auto decoded = BytecodeFile::fromBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(bytes, "agreement.mlirb"));
  if (!decoded) {
    llvm::consumeError(decoded.takeError());
    return "";
  }
  // As `show` reads files: without attaching resource blobs.
  auto imported = ir::importBytecode(
      **decoded, context, ir::ImportOptions{/*withResourceData=*/false});
  if (imported)
    return "";
  std::string message = llvm::toString(imported.takeError());
  // MLIR's parser judges textual entries; the decoder cannot.
  if (message.find(": cannot parse '") != std::string::npos) {
    ++textual;
    return "";
  }
  return message;
}

/// Every n-th of `count` candidates so that about `budget` remain.
uint64_t stride(uint64_t count, uint64_t budget) {
  return std::max<uint64_t>(1, llvm::divideCeil(count, budget));
}

struct Tally {
  unsigned mutants = 0, textual = 0, failures = 0;
  void check(mlir::MLIRContext &context, const std::string &name,
             const std::string &what, llvm::StringRef bytes) {
    ++mutants;
    std::string why = disagreement(context, bytes, textual);
    if (why.empty())
      return;
    // The first few are enough to see what went wrong.
    if (++failures <= 10)
      ADD_FAILURE() << name << " " << what
                    << ": the decoder accepts it, the import refuses: " << why;
  }
};

} // namespace

TEST(ReaderAgreement, IntactInputsAreReadByBoth) {
  auto files = inputs();
  if (files.empty())
    GTEST_SKIP() << "no mlir-opt, fixture or corpus bytecode";
  auto context = ir::makeImportContext();
  for (const Input &input : files) {
    auto decoded = bctest::decode(input.bytes);
    ASSERT_TRUE(bool(decoded))
        << input.name << ": " << llvm::toString(decoded.takeError());
    unsigned textual = 0;
    EXPECT_EQ(disagreement(*context, input.bytes, textual), "") << input.name;
    EXPECT_EQ(textual, 0u) << input.name;
  }
}

TEST(ReaderAgreement, DamagedInputsAreReadByBothOrNeither) {
  auto files = inputs();
  if (files.empty())
    GTEST_SKIP() << "no mlir-opt, fixture or corpus bytecode";
  auto started = std::chrono::steady_clock::now();
  for (const Input &input : files) {
    auto decoded = bctest::decode(input.bytes);
    ASSERT_TRUE(bool(decoded)) << llvm::toString(decoded.takeError());
    const BytecodeFile &file = **decoded;
    // One context per file keeps uniqued garbage from piling up.
    auto context = ir::makeImportContext();
    Tally tally;
    const std::string &original = input.bytes;

    // Every byte of the tables (attribute/type entries, their offsets) with
    // every mask, and every byte elsewhere; large files are sampled,
    // deterministically, each byte with one of the masks.
    Span table = file.section(kAttrTypeSection)->data;
    Span offsets = file.section(kAttrTypeOffsetSection)->data;
    auto inTables = [&](uint64_t at) {
      return (at >= table.offset && at < table.end()) ||
             (at >= offsets.offset && at < offsets.end());
    };
    const uint8_t masks[] = {0xFF, 0x01, 0x02, 0x80};
    uint64_t tableBytes = table.size + offsets.size;
    uint64_t tableStride = stride(tableBytes * std::size(masks), 12000);
    uint64_t otherStride =
        stride((original.size() - tableBytes) * std::size(masks), 4000);
    for (uint64_t at = 0, tableSeen = 0, otherSeen = 0; at < original.size();
         ++at) {
      bool tables = inTables(at);
      uint64_t &seen = tables ? tableSeen : otherSeen;
      for (uint8_t mask : masks)
        if (seen++ % (tables ? tableStride : otherStride) == 0) {
          std::string damaged = original;
          damaged[at] = char(uint8_t(damaged[at]) ^ mask);
          tally.check(*context, input.name,
                      "byte " + std::to_string(at) + " ^ " +
                          std::to_string(mask),
                      damaged);
        }
    }
    // The file cut anywhere in the attribute/type sections.
    uint64_t first = std::min(table.offset, offsets.offset);
    uint64_t last = std::max(table.end(), offsets.end());
    for (uint64_t cut = first; cut < last; ++cut)
      tally.check(*context, input.name, "cut at " + std::to_string(cut),
                  llvm::StringRef(original).take_front(cut));
    // Each entry shortened by every length (long entries: by up to 16 and
    // the last 16), the rest of the file intact; sampled in large files.
    uint64_t numAttrs = file.attributes().size();
    uint64_t numEntries = numAttrs + file.types().size();
    std::vector<std::pair<uint64_t, uint64_t>> cuts;
    for (uint64_t entry = 0; entry < numEntries; ++entry) {
      uint64_t size = entry < numAttrs
                          ? file.attributes()[entry].encoding.size
                          : file.types()[entry - numAttrs].encoding.size;
      for (uint64_t cut = 1; cut <= size; ++cut)
        if (cut <= 16 || cut + 16 >= size)
          cuts.emplace_back(entry, cut);
    }
    uint64_t cutStride = stride(cuts.size(), 4000);
    for (size_t i = 0; i < cuts.size(); i += cutStride)
      tally.check(*context, input.name,
                  "entry " + std::to_string(cuts[i].first) + " cut by " +
                      std::to_string(cuts[i].second),
                  withEntryCut(file, cuts[i].first, cuts[i].second));
    EXPECT_EQ(tally.failures, 0u)
        << input.name << ": " << tally.failures << " of " << tally.mutants
        << " damaged files are read by `stats` but refused by `show`";
    // The entry rebuild must be faithful: cut by nothing, same file.
    if (numEntries) {
      EXPECT_EQ(withEntryCut(file, 0, 0), original) << input.name;
    }
    std::cout << input.name << ": " << tally.mutants << " damaged files, "
              << tally.textual << " refused for their text by MLIR's parser\n";
  }
  double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started)
          .count();
  EXPECT_LT(seconds, 60.0) << "sample fewer bytes";
}
