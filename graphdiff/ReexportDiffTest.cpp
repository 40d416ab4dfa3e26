//===- ReexportDiffTest.cpp - Another conversion of the same model -------===//
//
// What a re-export changes without changing the model (every composite's
// uniquifier, the order of definitions and of independent ops) is never a
// difference; one edit among look-alike layers blames that edit only; the
// entry graph's interface, op order that effects need, and dead ops are
// reported as users read them.
//
//===----------------------------------------------------------------------===//

#include "graphdiff/GraphDiffTestSupport.h"

using namespace aimodel::graphdiff;
using namespace aimodel::graphdiff::testing;

namespace {

/// One decoder layer as a composite: RMS-like norm, a sub of two look-alike
/// muls (RoPE's halves), a divide. {S} is its uniquifier; {SUB} the sub's
/// operands, {DIV} the divide's.
const char *kLayer = R"mlir(
  "coreai.graph"() <{sym_name = "layer_{S}"}> ({
  ^bb0(%x: tensor<4x8xf32>, %c: tensor<4x8xf32>, %s: tensor<4x8xf32>):
    %0 = "coreai.mul"(%x, %x) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
    %1 = "coreai.rsqrt"(%0) : (tensor<4x8xf32>) -> tensor<4x8xf32>
    %2 = "coreai.mul"(%x, %1) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
    %3 = "coreai.mul"(%2, %c) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
    %4 = "coreai.mul"(%2, %s) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
    %5 = "coreai.sub"({SUB}) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
    %6 = "coreai.div"({DIV}) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
    %7 = "coreai.add"(%x, %6) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
    "coreai.return"(%7) : (tensor<4x8xf32>) -> ()
  }) : () -> ()
)mlir";

/// A fresh 8-character uniquifier, as another conversion draws it.
std::string suffix(unsigned seed, int layer) {
  std::string out;
  uint64_t x = (uint64_t(seed) * 0x9E3779B97F4A7C15ull) ^ uint64_t(layer + 1);
  for (int i = 0; i < 8; ++i) {
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    out += char('a' + (x >> 59) % 26);
  }
  return out;
}

/// `layers` look-alike layers, one composite per call; layer `edited` has
/// its sub's operands swapped. `seed` draws the uniquifiers; `reversed`
/// writes the definitions last to first.
std::string decoder(int layers, unsigned seed, int edited = -1,
                    bool reversed = false) {
  std::string body, definitions[64];
  std::string x = "%x";
  for (int i = 0; i < layers; ++i) {
    std::string s = suffix(seed, i), n = std::to_string(i);
    body += "    %h" + n + " = \"coreai.invoke\"(" + x +
            ", %c, %s) {callee = @layer_" + s +
            "} : (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>) -> "
            "tensor<4x8xf32>\n";
    x = "%h" + n;
    definitions[i] = fill(kLayer, {{"S", s},
                                   {"SUB", i == edited ? "%4, %3" : "%3, %4"},
                                   {"DIV", "%5, %1"}});
  }
  std::string text =
      "\"builtin.module\"() ({\n  \"coreai.graph\"() <{sym_name = "
      "\"main\"}> ({\n  ^bb0(%x: tensor<4x8xf32>, %c: tensor<4x8xf32>, %s: "
      "tensor<4x8xf32>):\n" +
      body + "    \"coreai.return\"(" + x +
      ") : (tensor<4x8xf32>) -> ()\n  }) : () -> ()\n";
  for (int i = 0; i < layers; ++i)
    text += definitions[reversed ? layers - 1 - i : i];
  return text + "}) : () -> ()\n";
}

} // namespace

TEST_F(GraphDiffTest, ReexportOfLookAlikeLayersIsIdentical) {
  for (unsigned seed : {2u, 3u, 4u}) {
    DiffResult result = diff(decoder(8, 1), decoder(8, seed, -1, true));
    EXPECT_TRUE(result.identical()) << describe(result);
  }
}

TEST_F(GraphDiffTest, SwapInOneOfEightReexportedLayersBlamesThatOp) {
  for (int edited : {0, 2, 5, 7}) {
    DiffResult result = diff(decoder(8, 1), decoder(8, 9, edited, true));
    Counts counts = totals(result);
    EXPECT_EQ(counts.modified, 1u) << "layer " << edited << "\n"
                                   << describe(result);
    EXPECT_EQ(counts.added + counts.removed, 0u);
    // The layer called edited-th pairs with the edited one.
    const GraphComparison *layer =
        graphNamed(result, "layer_" + suffix(1, edited));
    ASSERT_TRUE(layer);
    EXPECT_EQ(layer->target, "layer_" + suffix(9, edited));
    ASSERT_EQ(layer->changes.size(), 1u) << describe(result);
    EXPECT_EQ(layer->changes[0].op, "coreai.sub");
    EXPECT_FALSE(layer->changes[0].ambiguous);
  }
}

TEST_F(GraphDiffTest, EqualCompositesCalledInAnotherOrderAreIdentical) {
  // Two equal composites: OLD calls a then b; NEW defines them the other
  // way round and with new names, so its first call names the composite
  // defined second.
  const char *kTwo = R"mlir(
"builtin.module"() ({
  "coreai.graph"() <{sym_name = "main"}> ({
  ^bb0(%x: tensor<4xf32>):
    %0 = "coreai.invoke"(%x) {callee = @norm_{A}} : (tensor<4xf32>) -> tensor<4xf32>
    %1 = "coreai.invoke"(%0) {callee = @norm_{B}} : (tensor<4xf32>) -> tensor<4xf32>
    "coreai.return"(%1) : (tensor<4xf32>) -> ()
  }) : () -> ()
  "coreai.graph"() <{sym_name = "norm_{FIRST}"}> ({
  ^bb0(%x: tensor<4xf32>):
    %0 = "coreai.rsqrt"(%x) : (tensor<4xf32>) -> tensor<4xf32>
    "coreai.return"(%0) : (tensor<4xf32>) -> ()
  }) : () -> ()
  "coreai.graph"() <{sym_name = "norm_{SECOND}"}> ({
  ^bb0(%x: tensor<4xf32>):
    %0 = "coreai.rsqrt"(%x) : (tensor<4xf32>) -> tensor<4xf32>
    "coreai.return"(%0) : (tensor<4xf32>) -> ()
  }) : () -> ()
}) : () -> ()
)mlir";
  std::string golden = fill(kTwo, {{"A", "aaaaaaaa"},
                                   {"B", "bbbbbbbb"},
                                   {"FIRST", "aaaaaaaa"},
                                   {"SECOND", "bbbbbbbb"}});
  std::string reexport = fill(kTwo, {{"A", "zzzzzzzz"},
                                     {"B", "yyyyyyyy"},
                                     {"FIRST", "yyyyyyyy"},
                                     {"SECOND", "zzzzzzzz"}});
  DiffResult result = diff(golden, reexport);
  EXPECT_TRUE(result.identical()) << describe(result);
  EXPECT_EQ(graphNamed(result, "norm_aaaaaaaa")->target, "norm_zzzzzzzz");
}

TEST_F(GraphDiffTest, TieThatChangesNothingReportsNothing) {
  // Two relus of one input are interchangeable: which one the add reads
  // first is no change.
  std::string add =
      R"(    %0 = "coreai.relu"(%a) : (tensor<4xf32>) -> tensor<4xf32>
    %1 = "coreai.relu"(%a) : (tensor<4xf32>) -> tensor<4xf32>
    %2 = "coreai.sub"({X}) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    "coreai.return"(%2) : (tensor<4xf32>) -> ()
)";
  auto function = [](const std::string &body) {
    return "\"builtin.module\"() ({\n  \"coreai.graph\"() <{sym_name = "
           "\"main\"}> ({\n  ^bb0(%a: tensor<4xf32>):\n" +
           body + "  }) : () -> ()\n}) : () -> ()\n";
  };
  DiffResult result = diff(function(fill(add, {{"X", "%0, %1"}})),
                           function(fill(add, {{"X", "%1, %0"}})));
  EXPECT_TRUE(result.identical()) << describe(result);
  for (const GraphComparison &graph : result.graphs)
    EXPECT_TRUE(graph.changes.empty());
}

namespace {
/// An entry graph with named inputs and outputs. {IN} {OUT}: the types;
/// {IN_NAME} {OUT_NAME}: the names; {EXTRA}: more arguments.
const char *kEntry = R"mlir(
"builtin.module"() ({
  "coreai.graph"() <{function_type = ({IN}{EXTRA_TYPE}) -> {OUT}, sym_name = "main", arg_attrs = [{coreai.name = "{IN_NAME}"}{EXTRA_ATTR}], res_attrs = [{coreai.name = "{OUT_NAME}"}]}> ({
  ^bb0(%x: {IN}{EXTRA_ARG}):
    %0 = "coreai.cast"(%x) : ({IN}) -> {OUT}
    "coreai.return"(%0) : ({OUT}) -> ()
  }) : () -> ()
}) : () -> ()
)mlir";

struct Entry {
  std::string in = "tensor<1x512xi32>", out = "tensor<1x512x8xf16>",
              inName = "input_ids", outName = "logits";
  std::string extraType, extraAttr, extraArg;
};

std::string entry(const Entry &e) {
  return fill(kEntry, {{"IN", e.in},
                       {"OUT", e.out},
                       {"IN_NAME", e.inName},
                       {"OUT_NAME", e.outName},
                       {"EXTRA_TYPE", e.extraType},
                       {"EXTRA_ATTR", e.extraAttr},
                       {"EXTRA_ARG", e.extraArg}});
}
} // namespace

TEST_F(GraphDiffTest, EveryInterfaceChangeIsReported) {
  struct Case {
    const char *what;
    Entry candidate;
    std::string change;
    bool nameOnly;
  };
  Entry type, shape, name, count, state;
  type.out = "tensor<1x512x8xf32>";
  shape.in = "tensor<1x1024xi32>";
  name.outName = "scores";
  count.extraType = ", tensor<1x512xi32>";
  count.extraAttr = ", {coreai.name = \"mask\"}";
  count.extraArg = ", %m: tensor<1x512xi32>";
  state.extraType = ", !coreai.handle<tensor<1x8xf16>>";
  state.extraAttr = ", {coreai.name = \"kv\"}";
  state.extraArg = ", %kv: !coreai.handle<tensor<1x8xf16>>";
  std::vector<Case> cases = {
      {"type", type,
       "output 0 `logits`: tensor<1x512x8xf16> \u2192 tensor<1x512x8xf32>",
       false},
      {"shape", shape,
       "input 0 `input_ids`: tensor<1x512xi32> \u2192 tensor<1x1024xi32>",
       false},
      {"name", name, "output 0 `logits`: name `logits` \u2192 `scores`", true},
      {"count", count, "inputs: 1 \u2192 2", false},
      {"state", state, "inputs: 1 \u2192 2", false},
  };
  for (const Case &c : cases) {
    DiffResult result = diff(entry({}), entry(c.candidate));
    ASSERT_EQ(result.graphs.size(), 1u) << c.what;
    const GraphComparison &main = result.graphs[0];
    EXPECT_EQ(main.status, GraphStatus::Different) << c.what;
    ASSERT_TRUE(main.interface) << c.what;
    ASSERT_FALSE(main.interface->changes.empty()) << c.what;
    EXPECT_EQ(main.interface->changes[0].text, c.change) << c.what;
    EXPECT_EQ(main.interface->changes[0].nameOnly, c.nameOnly) << c.what;
    ASSERT_TRUE(main.interface->golden && main.interface->candidate);
    EXPECT_EQ(main.interface->golden->inputs[0].name, "input_ids");
  }
  // A state is counted as one.
  DiffResult withState = diff(entry({}), entry(state));
  const auto &changes = withState.graphs[0].interface->changes;
  EXPECT_EQ(changes.back().text, "states: 0 \u2192 1");
  EXPECT_TRUE(withState.graphs[0].interface->candidate->inputs[1].state);
  EXPECT_TRUE(diff(entry({}), entry({})).identical());
}

TEST_F(GraphDiffTest, DeadAddedOpIsToldFromAnInsertedOne) {
  const char *kChain = R"mlir(
"builtin.module"() ({
  "coreai.graph"() <{sym_name = "main"}> ({
  ^bb0(%a: tensor<4xf32>):
    %0 = "coreai.relu"(%a) : (tensor<4xf32>) -> tensor<4xf32>
{NEW}    %1 = "coreai.exp"({IN}) : (tensor<4xf32>) -> tensor<4xf32>
    "coreai.return"(%1) : (tensor<4xf32>) -> ()
  }) : () -> ()
}) : () -> ()
)mlir";
  std::string tanh =
      "    %t = \"coreai.tanh\"(%0) : (tensor<4xf32>) -> tensor<4xf32>\n";
  std::string golden = fill(kChain, {{"NEW", ""}, {"IN", "%0"}});
  for (bool inserted : {false, true}) {
    DiffResult result = diff(
        golden, fill(kChain, {{"NEW", tanh}, {"IN", inserted ? "%t" : "%0"}}));
    ASSERT_EQ(result.graphs.size(), 1u);
    ASSERT_EQ(result.graphs[0].changes.size(), 1u) << describe(result);
    const Change &change = result.graphs[0].changes[0];
    EXPECT_EQ(change.kind, ChangeKind::Added);
    EXPECT_EQ(change.op, "coreai.tanh");
    EXPECT_EQ(change.unused, !inserted);
    if (inserted) {
      ASSERT_EQ(change.readers.size(), 1u);
      EXPECT_EQ(change.readers[0].op, "coreai.exp");
      EXPECT_EQ(change.readers[0].operand, 0u);
      EXPECT_EQ(change.detail, "read by coreai.exp [4] operand 0");
    } else {
      EXPECT_TRUE(change.readers.empty());
      EXPECT_EQ(change.detail, "unused: nothing reads it");
    }
  }
}

namespace {
/// A read and a write of one variable, in the order given by {FIRST}
/// {SECOND}; and two more writes {W1} {W2}.
const char *kState = R"mlir(
"builtin.module"() ({
  "coreai.graph"() <{sym_name = "main"}> ({
  ^bb0(%a: tensor<4xf32>, %b: tensor<4xf32>):
{FIRST}{SECOND}{W1}{W2}    %s = "coreai.add"(%r, %a) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    "coreai.return"(%s) : (tensor<4xf32>) -> ()
  }) : () -> ()
}) : () -> ()
)mlir";
const char *kRead =
    "    %r = \"coreai.read_variable\"() {variable = @kv} : () -> "
    "tensor<4xf32>\n";
const char *kWrite = "    \"coreai.write_variable\"(%a) {variable = @kv} : "
                     "(tensor<4xf32>) -> ()\n";
std::string write(const char *value, const char *variable) {
  return std::string("    \"coreai.write_variable\"(") + value +
         ") {variable = @" + variable + "} : (tensor<4xf32>) -> ()\n";
}
std::string state(const std::string &first, const std::string &second,
                  const std::string &w1, const std::string &w2) {
  return fill(kState,
              {{"FIRST", first}, {"SECOND", second}, {"W1", w1}, {"W2", w2}});
}
} // namespace

TEST_F(GraphDiffTest, OpsWithEffectsKeepTheirOrder) {
  std::string a = write("%a", "other"), b = write("%b", "other");
  std::string golden = state(kRead, kWrite, a, b);
  EXPECT_TRUE(diff(golden, golden).identical());
  // The read after the write reads another value.
  DiffResult swapped = diff(golden, state(kWrite, kRead, a, b));
  EXPECT_FALSE(swapped.identical()) << describe(swapped);
  ASSERT_EQ(swapped.graphs.size(), 1u);
  EXPECT_EQ(swapped.graphs[0].counts.added + swapped.graphs[0].counts.removed,
            0u)
      << describe(swapped);
  // Two writes of one variable swapped leave another value in it.
  DiffResult writes = diff(golden, state(kRead, kWrite, b, a));
  EXPECT_FALSE(writes.identical()) << describe(writes);
  // Ops of different variables stay free to move.
  std::string c = write("%b", "third");
  EXPECT_TRUE(
      diff(state(kRead, kWrite, a, c), state(kRead, kWrite, a, c)).identical());
}

TEST_F(GraphDiffTest, DuplicatedStandInsPairInOrder) {
  // Unnamed modules are known by their place: relu, relu, tanh against
  // tanh, relu, relu is one tanh moved, two relus kept.
  auto modules = [](std::initializer_list<const char *> ops) {
    std::string text = "\"builtin.module\"() ({\n";
    for (const char *op : ops)
      text += std::string("  \"builtin.module\"() ({\n    \"coreai.graph\"() "
                          "<{sym_name = \"main\"}> ({\n    ^bb0(%x: "
                          "tensor<4xf32>):\n      %0 = \"") +
              op +
              "\"(%x) : (tensor<4xf32>) -> tensor<4xf32>\n      "
              "\"coreai.return\"(%0) : (tensor<4xf32>) -> ()\n    }) : () -> "
              "()\n  }) : () -> ()\n";
    return text + "}) : () -> ()\n";
  };
  DiffResult result =
      diff(modules({"coreai.relu", "coreai.relu", "coreai.tanh"}),
           modules({"coreai.tanh", "coreai.relu", "coreai.relu"}));
  EXPECT_TRUE(result.identical()) << describe(result);
  EXPECT_EQ(result.graphs.size(), 3u) << describe(result);
  Counts counts = totals(result);
  EXPECT_EQ(counts.added + counts.removed + counts.modified, 0u)
      << describe(result);
}
