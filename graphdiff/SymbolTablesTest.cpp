//===- SymbolTablesTest.cpp - Names, nested tables and containers ---------===//
//
// Ground truth for what decides which graph is which: a graph's name may
// live in natively encoded properties (func.func, builtin.module in stock
// bytecode), its symbol table may be named or not, and the containers
// themselves carry attributes. Each case has a known answer: a swap of
// names that changes what a caller computes is a difference; a reorder that
// changes nothing is not.
//
//===----------------------------------------------------------------------===//

#include "graphdiff/GraphDiffTestSupport.h"

using namespace aimodel::graphdiff;
using namespace aimodel::graphdiff::testing;

namespace {

/// Two functions, sigmoid and relu, named `first` and `second`, and @main
/// calling @f: which one @main computes depends on the names.
std::string funcs(const char *first, const char *second, bool swapOrder) {
  std::string f = std::string("  func.func private @") + first +
                  "(%x: f32) -> f32 {\n    %0 = \"coreai.sigmoid\"(%x) : "
                  "(f32) -> f32\n    return %0 : f32\n  }\n";
  std::string g = std::string("  func.func private @") + second +
                  "(%x: f32) -> f32 {\n    %0 = \"coreai.relu\"(%x) : (f32) "
                  "-> f32\n    return %0 : f32\n  }\n";
  return "module {\n" + (swapOrder ? g + f : f + g) +
         "  func.func @main(%x: f32) -> f32 {\n    %0 = func.call @f(%x) : "
         "(f32) -> f32\n    return %0 : f32\n  }\n}\n";
}

/// Named nested modules, each with its @main; @entry invokes @a::@main.
std::string modules(const char *first, const char *second) {
  auto module = [](const char *name, const char *op) {
    return std::string("  module @") + name +
           " {\n    func.func @main(%x: f32) -> f32 {\n      %0 = \"" + op +
           "\"(%x) : (f32) -> f32\n      return %0 : f32\n    }\n  }\n";
  };
  return "module {\n" + module(first, "coreai.sigmoid") +
         module(second, "coreai.relu") +
         "  func.func @entry(%x: f32) -> f32 {\n    %0 = \"coreai.invoke\"(%x) "
         "{callee = @a::@main} : (f32) -> f32\n    return %0 : f32\n  }\n}\n";
}

} // namespace

TEST_F(GraphDiffTest, SwappedFunctionNamesInPropertiesAreADifference) {
  // @main calls @f: sigmoid before, relu after. Same bytes at the same
  // table positions must not hide it.
  DiffResult swapped = diff(funcs("f", "g", false), funcs("g", "f", false));
  EXPECT_FALSE(swapped.identical()) << describe(swapped);
  // Only the order of the definitions changes: identical.
  DiffResult reordered = diff(funcs("f", "g", false), funcs("f", "g", true));
  EXPECT_TRUE(reordered.identical()) << describe(reordered);
}

TEST_F(GraphDiffTest, NamedNestedModulesAreKnownByTheirNames) {
  // @entry calls @a::@main: sigmoid before, relu after the swap.
  DiffResult swapped = diff(modules("a", "b"), modules("b", "a"));
  EXPECT_FALSE(swapped.identical()) << describe(swapped);
  for (const GraphComparison &graph : swapped.graphs)
    EXPECT_TRUE(graph.source.empty() ||
                llvm::StringRef(graph.source).find("builtin.module#") ==
                    llvm::StringRef::npos)
        << graph.source;
  EXPECT_TRUE(graphNamed(swapped, "a::main")) << describe(swapped);
  // The same two modules in the other order: identical.
  std::string reordered = modules("a", "b");
  size_t a = reordered.find("  module @a"), b = reordered.find("  module @b");
  size_t end = reordered.find("  func.func @entry");
  std::string moved = reordered.substr(0, a) + reordered.substr(b, end - b) +
                      reordered.substr(a, b - a) + reordered.substr(end);
  DiffResult same = diff(reordered, moved);
  EXPECT_TRUE(same.identical()) << describe(same);
}

TEST_F(GraphDiffTest, UnnamedTablesPairByContentNotPosition) {
  const char *one = R"(module {
  module { func.func @main(%x: f32) -> f32 { %0 = "coreai.relu"(%x) : (f32) -> f32
    return %0 : f32 } }
  module { func.func @main(%x: f32) -> f32 { %0 = "coreai.tanh"(%x) : (f32) -> f32
    return %0 : f32 } }
})";
  const char *other = R"(module {
  module { func.func @main(%x: f32) -> f32 { %0 = "coreai.tanh"(%x) : (f32) -> f32
    return %0 : f32 } }
  module { func.func @main(%x: f32) -> f32 { %0 = "coreai.relu"(%x) : (f32) -> f32
    return %0 : f32 } }
})";
  DiffResult result = diff(one, other);
  EXPECT_TRUE(result.identical()) << describe(result);
  // A real change in one of them is still one.
  std::string changed = other;
  changed.replace(changed.find("coreai.relu"), 11, "coreai.gelu");
  DiffResult different = diff(one, changed);
  EXPECT_FALSE(different.identical()) << describe(different);
}

TEST_F(GraphDiffTest, ContainerAttributesAndPropertiesCount) {
  const char *base = R"(module attributes {mps.optimizationLevel = 1 : i32} {
  module attributes {coreai.precision = "fp16"} {
    func.func @main(%x: f32) -> f32 { return %x : f32 }
  }
})";
  std::string top = base, nested = base, name = base;
  top.replace(top.find("= 1 : i32"), 9, "= 2 : i32");
  nested.replace(nested.find("fp16"), 4, "fp32");
  name.replace(name.find("module attributes {coreai"), 6, "module @renamed");
  for (const std::string &changed : {top, nested}) {
    DiffResult result = diff(base, changed);
    EXPECT_FALSE(result.identical()) << changed << describe(result);
    const GraphComparison *graph = graphNamed(result, "(top level)");
    ASSERT_TRUE(graph) << describe(result);
    EXPECT_EQ(graph->counts.modified, 1u) << describe(result);
  }
  // Unchanged containers are compared but not listed.
  DiffResult same = diff(base, base);
  EXPECT_TRUE(same.identical());
  EXPECT_FALSE(graphNamed(same, "(top level)"));
}
