//===- IRModuleTest.cpp - What the import gives passes, strip and diff ----===//
//
// The imported file is a builtin.module a PassManager runs on, with the MLIR
// object behind every decoded op, entry and block; private locations stay
// recognisable; errors MLIR's builtin reader raises keep their words.
//
//===----------------------------------------------------------------------===//

#include "ir/IRImporter.h"
#include "testing/BytecodeTestSupport.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/Passes.h"

#include <gtest/gtest.h>

using namespace aimodel;
using namespace aimodel::bytecode;
namespace bctest = aimodel::bytecode::testing;

namespace {

std::string print(mlir::Attribute attr) {
  std::string text;
  llvm::raw_string_ostream os(text);
  attr.print(os);
  return text;
}

/// Counts the ops it runs over: a pass that needs nothing registered.
struct CountOps
    : mlir::PassWrapper<CountOps, mlir::OperationPass<mlir::ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(CountOps)
  explicit CountOps(unsigned &count) : count(count) {}
  void runOnOperation() override {
    getOperation()->walk([&](mlir::Operation *) { ++count; });
  }
  unsigned &count;
};

/// Every decoded op, entry and block maps to what the import built.
void expectMaps(const BytecodeFile &file, ir::ImportedModule &imported) {
  ASSERT_EQ(imported.ops.size(), file.operations().size());
  ASSERT_EQ(imported.attributes.size(), file.attributes().size());
  ASSERT_EQ(imported.types.size(), file.types().size());
  ASSERT_EQ(imported.blocks.size(), file.blocks().size());
  for (size_t i = 0; i < file.operations().size(); ++i) {
    const Operation &op = file.operations()[i];
    mlir::Operation *built = imported.ops[i];
    ASSERT_NE(built, nullptr) << i;
    EXPECT_EQ(built->getName().getStringRef(), file.fullOpName(op.name));
    EXPECT_EQ(built->getBlock(), imported.blocks[op.parentBlock]) << i;
    for (auto [r, type] : llvm::enumerate(file.resultTypes(op)))
      EXPECT_EQ(built->getResult(r).getType(), imported.types[type]);
    if (op.location != kNone && !ir::isPrivateLocation(built->getLoc())) {
      EXPECT_EQ(mlir::Attribute(built->getLoc()),
                imported.attributes[op.location]);
    }
    if (op.attrDict != kNone) {
      EXPECT_EQ(built->getDiscardableAttrDictionary(),
                imported.attributes[op.attrDict]);
    }
  }
  for (size_t b = 1; b < file.blocks().size(); ++b) {
    const Region &region = file.regions()[file.blocks()[b].parentRegion];
    EXPECT_EQ(imported.blocks[b]->getParentOp(), imported.ops[region.parentOp]);
  }
}

std::unique_ptr<BytecodeFile> openFile(const std::string &path) {
  auto file = BytecodeFile::open(path);
  EXPECT_TRUE(bool(file)) << path;
  if (!file) {
    llvm::consumeError(file.takeError());
    return nullptr;
  }
  return std::move(*file);
}

} // namespace

TEST(IRModule, StockModuleIsKeptAndMapped) {
  std::string mlirOpt = bctest::findMlirOpt();
  if (mlirOpt.empty())
    GTEST_SKIP() << "no mlir-opt";
  std::string bytes = bctest::emitBytecode(mlirOpt, R"(module {
  "t.a"() ({
  ^bb0(%x: i32):
    "t.b"(%x) {k = 1 : i8} : (i32) -> ()
  }) : () -> () loc("a.py":1:2)
})");
  auto file = bctest::decode(bytes);
  ASSERT_TRUE(bool(file)) << llvm::toString(file.takeError());
  auto context = ir::makeImportContext();
  auto imported = ir::importBytecode(**file, *context);
  ASSERT_TRUE(bool(imported)) << llvm::toString(imported.takeError());
  // The file's own module: nothing added around it.
  EXPECT_FALSE(imported->addedModule);
  EXPECT_EQ(imported->root(), imported->module->getOperation());
  EXPECT_EQ(imported->ops[0], imported->module->getOperation());
  EXPECT_EQ(imported->blocks[0], nullptr);
  expectMaps(**file, *imported);
}

TEST(IRModule, PassesRunOnUnregisteredRoots) {
  if (!bctest::haveCorpus())
    GTEST_SKIP() << "no corpus";
  const std::string bundle = "vibevoice_connector_fp16.h18p.aimodelc/";
  for (auto [path, rootName] :
       {std::pair<std::string, std::string>{
            bundle + "main-h18p-delegates/MPSGraph/"
                     "mpsExecutable.mpsgraphpackage/original_model_0.mpsgraph",
            "mps.module"},
        {bundle + "main-h18p.mlirb", "aicode.serialization.asset"}}) {
    auto file = openFile(bctest::corpusPath(path));
    ASSERT_TRUE(file);
    auto context = ir::makeImportContext();
    auto imported = ir::importBytecode(*file, *context);
    ASSERT_TRUE(bool(imported)) << llvm::toString(imported.takeError());
    ASSERT_TRUE(imported->addedModule) << path;
    EXPECT_EQ(imported->root()->getName().getStringRef(), rootName);
    EXPECT_EQ(imported->root(), imported->ops[0]);
    EXPECT_EQ(imported->blocks[0], imported->module->getBody());
    expectMaps(*file, *imported);

    unsigned count = 0;
    mlir::PassManager pm(context.get());
    pm.addPass(std::make_unique<CountOps>(count));
    pm.addPass(mlir::createStripDebugInfoPass());
    ASSERT_TRUE(mlir::succeeded(pm.run(*imported->module))) << path;
    // Every op of the file, and the module around them.
    EXPECT_EQ(count, file->operations().size() + 1) << path;
    imported->module->walk([&](mlir::Operation *op) {
      EXPECT_TRUE(llvm::isa<mlir::UnknownLoc>(op->getLoc())) << path;
    });
  }
}

TEST(IRModule, PrivateLocationsAreRecognisable) {
  std::string mlirOpt = bctest::findMlirOpt();
  if (mlirOpt.empty())
    GTEST_SKIP() << "no mlir-opt";
  std::string bytes = bctest::emitBytecode(
      mlirOpt, R"("t.op"() {p = #t.priv<"x">} : () -> () loc("zzz"))");
  auto file = bctest::decode(bytes);
  ASSERT_TRUE(bool(file)) << llvm::toString(file.takeError());
  // Make the op's location the private attribute, as Core AI files do: the
  // location varint follows the op name and the encoding mask.
  uint64_t priv = kNone;
  for (uint64_t i = 0; i < (*file)->attributes().size(); ++i)
    if ((*file)->attrDialectName(i) == "t")
      priv = i;
  ASSERT_LT(priv, 64u);
  const Operation &op = (*file)->operations()[1];
  uint64_t at = op.offset + 2;
  ASSERT_EQ(uint8_t(bytes[at]), (op.location << 1) | 1);
  auto patched = bctest::decode(bctest::patched(bytes, at, (priv << 1) | 1));
  ASSERT_TRUE(bool(patched)) << llvm::toString(patched.takeError());

  auto context = ir::makeImportContext();
  auto imported = ir::importBytecode(**patched, *context);
  ASSERT_TRUE(bool(imported)) << llvm::toString(imported.takeError());
  mlir::Location loc = imported->ops[1]->getLoc();
  // Not a NameLoc a pass would take for a real one...
  EXPECT_FALSE(llvm::isa<mlir::NameLoc>(loc));
  ASSERT_TRUE(ir::isPrivateLocation(loc));
  auto attr = llvm::dyn_cast<mlir::OpaqueAttr>(ir::privateLocationAttr(loc));
  ASSERT_TRUE(attr);
  EXPECT_EQ(attr, imported->attributes[priv]);
  EXPECT_EQ(attr.getDialectNamespace().getValue(), "t");
  // ...yet printed as before: a NameLoc of the attribute's text.
  std::string text = print(mlir::Attribute(loc));
  EXPECT_EQ(text, print(mlir::NameLoc::get(
                      mlir::StringAttr::get(context.get(), print(attr)))));
  EXPECT_EQ(text, "loc(\"#t.priv<\\22x\\22>\")");
  EXPECT_FALSE(ir::isPrivateLocation(imported->ops[0]->getLoc()));

  ir::privateLocationsToNameLocs(imported->module->getOperation());
  mlir::Location lowered = imported->ops[1]->getLoc();
  EXPECT_TRUE(llvm::isa<mlir::NameLoc>(lowered));
  EXPECT_EQ(print(mlir::Attribute(lowered)), text);
}

TEST(IRModule, ReaderDiagnosticsKeepTheirWords) {
  std::string mlirOpt = bctest::findMlirOpt();
  if (mlirOpt.empty())
    GTEST_SKIP() << "no mlir-opt";
  std::string bytes =
      bctest::emitBytecode(mlirOpt, R"("t.op"() {k = 7 : i64} : () -> ())");
  auto file = bctest::decode(bytes);
  ASSERT_TRUE(bool(file)) << llvm::toString(file.takeError());
  uint64_t integer = kNone;
  for (uint64_t i = 0; i < (*file)->attributes().size(); ++i)
    if ((*file)->attrKind(i) == AttrKind::Integer)
      integer = i;
  ASSERT_LT(integer, 64u);
  // A byte holding that index as a varint, for MLIR's reader to read as the
  // StringAttr it expects (as it does for dictionary names and NameLocs):
  // MLIR raises the error and streams its text in after emitError returns.
  size_t at = llvm::StringRef(bytes).find(char((integer << 1) | 1));
  ASSERT_NE(at, llvm::StringRef::npos);
  auto context = ir::makeImportContext();
  ir::ImportOptions options;
  ir::detail::Importer importer(**file, *context, options);
  ir::detail::SpanReader spanReader(importer, Span{at, 1});
  // As MLIR's builtin code calls it.
  mlir::DialectBytecodeReader &reader = spanReader;
  mlir::StringAttr name;
  EXPECT_TRUE(mlir::failed(reader.readAttribute(name)));
  EXPECT_EQ(importer.firstError(),
            "byte " + std::to_string(at + 1) +
                ": expected mlir::StringAttr, but got: 7 : i64");
}

TEST(IRPrint, DeepOrSharedAttributesAreRefused) {
  auto context = ir::makeImportContext();
  mlir::MLIRContext *ctx = context.get();
  auto opWith = [&](mlir::Attribute value) {
    mlir::OperationState state(mlir::UnknownLoc::get(ctx), "t.op");
    state.addAttribute("v", value);
    return mlir::OwningOpRef<mlir::Operation *>(mlir::Operation::create(state));
  };
  auto messageOf = [](llvm::Error error) {
    return error ? llvm::toString(std::move(error)) : std::string();
  };
  mlir::Attribute leaf = mlir::StringAttr::get(ctx, "x");
  mlir::Attribute deep = leaf, shared = leaf;
  for (int i = 0; i < 2000; ++i)
    deep = mlir::ArrayAttr::get(ctx, {deep});
  for (int i = 0; i < 40; ++i)
    shared = mlir::ArrayAttr::get(ctx, {shared, shared});
  EXPECT_EQ(messageOf(ir::checkPrintable(opWith(leaf).get(), true, 1 << 20)),
            "");
  EXPECT_EQ(messageOf(ir::checkPrintable(opWith(deep).get(), false, 1 << 30)),
            "attributes, types or locations nest deeper than 1500 levels, "
            "more than MLIR's printer can take; not printed");
  EXPECT_EQ(
      messageOf(ir::checkPrintable(opWith(shared).get(), false, 64 << 20)),
      "would print more than 64 MiB of text: attributes, types or locations "
      "it shares are written out at every use; not printed");
  // Locations count only when printed.
  mlir::Location loc = mlir::NameLoc::get(mlir::StringAttr::get(ctx, "n"));
  for (int i = 0; i < 40; ++i)
    loc = mlir::CallSiteLoc::get(loc, loc);
  mlir::OperationState state(loc, "t.op");
  mlir::OwningOpRef<mlir::Operation *> located = mlir::Operation::create(state);
  EXPECT_EQ(messageOf(ir::checkPrintable(located.get(), false, 64 << 20)), "");
  EXPECT_NE(messageOf(ir::checkPrintable(located.get(), true, 64 << 20)), "");
}
