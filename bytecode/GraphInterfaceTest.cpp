//===- GraphInterfaceTest.cpp - Entry graphs and their ports --------------===//
//
// What the audit's runtime-contract rules and `diff` read of an entry graph,
// checked against modules written by MLIR's own writer: which graphs are
// entries, and every port's name, shape and state-ness, for random shapes.
//
//===----------------------------------------------------------------------===//

#include "bytecode/GraphInterface.h"
#include "testing/BytecodeTestSupport.h"

#include <gtest/gtest.h>

#include <random>

using namespace aimodel;
using namespace aimodel::bytecode;

namespace {

using GraphInterfaceTest = bytecode::testing::MlirTextTest;

std::string shapeText(const Shape &shape) {
  std::string text;
  for (int64_t dim : shape)
    text += (dim == kDynamicDim ? std::string("?") : std::to_string(dim)) + "x";
  return text;
}

} // namespace

TEST_F(GraphInterfaceTest, CalledGraphsAreNotEntries) {
  auto file = load(R"("builtin.module"() ({
  "coreai.graph"() ({
  ^bb0(%x: tensor<2xf32>):
    %r = "coreai.invoke"(%x) {callee = @block_k3j9x0qa} : (tensor<2xf32>) -> tensor<2xf32>
    "coreai.output"(%r) : (tensor<2xf32>) -> ()
  }) {sym_name = "main", function_type = (tensor<2xf32>) -> tensor<2xf32>} : () -> ()
  "coreai.graph"() ({
  ^bb0(%y: tensor<2xf32>):
    "coreai.output"(%y) : (tensor<2xf32>) -> ()
  }) {sym_name = "block_k3j9x0qa", function_type = (tensor<2xf32>) -> tensor<2xf32>} : () -> ()
  "coreai.graph"() ({
  ^bb0(%z: tensor<3xf32>):
    "coreai.output"(%z) : (tensor<3xf32>) -> ()
  }) {sym_name = "extend", function_type = (tensor<3xf32>) -> tensor<3xf32>} : () -> ()
}) : () -> ()
)");
  ASSERT_TRUE(file);
  std::vector<EntryGraphFacts> graphs = entryGraphFacts(*file);
  ASSERT_EQ(graphs.size(), 2u);
  EXPECT_EQ(graphs[0].name, "main");
  EXPECT_EQ(graphs[1].name, "extend");
  EXPECT_EQ(graphs[1].inputs.at(0).shape, Shape({3}));
}

TEST_F(GraphInterfaceTest, PortsOfRandomShapesReadBack) {
  // Each graph: a ranked or unranked input, a state handle around a random
  // tensor, and outputs of random shapes, named or not.
  std::mt19937 random(24);
  struct Expected {
    std::optional<Shape> input, state, output;
    bool named;
  };
  std::vector<Expected> expected;
  std::string text = "\"builtin.module\"() ({\n";
  auto randomShape = [&] {
    Shape shape;
    for (int rank = random() % 5; rank > 0; --rank)
      shape.push_back(random() % 4 == 0 ? kDynamicDim
                                        : int64_t(random() % 70000));
    return shape;
  };
  const char *elements[] = {"f16", "f32", "i32", "i1", "bf16", "index"};
  for (int g = 0; g < 40; ++g) {
    Expected e;
    e.named = random() % 2;
    std::string element = elements[random() % 6];
    std::string input;
    if (random() % 5 == 0) {
      input = "tensor<*x" + element + ">";
    } else {
      e.input = randomShape();
      input = "tensor<" + shapeText(*e.input) + element + ">";
    }
    e.state = randomShape();
    std::string state =
        "!coreai.handle<tensor<" + shapeText(*e.state) + element + ">>";
    e.output = randomShape();
    std::string output = "tensor<" + shapeText(*e.output) + element + ">";
    std::string name = "g" + std::to_string(g);
    text += "  \"coreai.graph\"() ({\n  ^bb0(%a: " + input + ", %s: " + state +
            "):\n    %o = \"coreai.op\"(%a) : (" + input + ") -> " + output +
            "\n    \"coreai.output\"(%o) : (" + output + ") -> ()\n  }) {" +
            "sym_name = \"" + name + "\", function_type = (" + input + ", " +
            state + ") -> " + output +
            (e.named ? ", arg_attrs = [{coreai.name = \"input_ids\"}, "
                       "{coreai.name = \"k\"}], res_attrs = [{coreai.name = "
                       "\"logits\"}]"
                     : "") +
            "} : () -> ()\n";
    expected.push_back(e);
  }
  text += "}) : () -> ()\n";
  auto file = load(text);
  ASSERT_TRUE(file);
  std::vector<EntryGraphFacts> graphs = entryGraphFacts(*file);
  ASSERT_EQ(graphs.size(), expected.size());
  for (size_t g = 0; g < graphs.size(); ++g) {
    SCOPED_TRACE("graph " + std::to_string(g));
    const EntryGraphFacts &facts = graphs[g];
    const Expected &e = expected[g];
    EXPECT_EQ(facts.name, "g" + std::to_string(g));
    ASSERT_EQ(facts.inputs.size(), 2u);
    ASSERT_EQ(facts.outputs.size(), 1u);
    EXPECT_EQ(facts.inputs[0].shape, e.input);
    EXPECT_FALSE(facts.inputs[0].state);
    EXPECT_EQ(facts.inputs[1].shape, e.state);
    EXPECT_TRUE(facts.inputs[1].state);
    EXPECT_EQ(facts.outputs[0].shape, e.output);
    EXPECT_EQ(facts.states(), 1u);
    EXPECT_TRUE(facts.readable());
    EXPECT_EQ(facts.inputs[0].name, e.named ? "input_ids" : "");
    EXPECT_EQ(facts.inputs[1].name, e.named ? "k" : "");
    EXPECT_EQ(facts.outputs[0].name, e.named ? "logits" : "");
  }
}

TEST_F(GraphInterfaceTest, ShapesOnlyFromTensors) {
  auto file = load(R"("builtin.module"() ({
  "coreai.graph"() ({
  ^bb0(%a: tensor<f32>, %b: memref<2x3xf32>, %c: !coreai.token, %d: i32):
    "coreai.output"(%a) : (tensor<f32>) -> ()
  }) {sym_name = "main", function_type = (tensor<f32>, memref<2x3xf32>, !coreai.token, i32) -> tensor<f32>} : () -> ()
}) : () -> ()
)");
  ASSERT_TRUE(file);
  std::vector<EntryGraphFacts> graphs = entryGraphFacts(*file);
  ASSERT_EQ(graphs.size(), 1u);
  const auto &in = graphs[0].inputs;
  ASSERT_EQ(in.size(), 4u);
  EXPECT_EQ(in[0].shape, Shape()); // rank 0
  EXPECT_EQ(in[1].shape, std::nullopt);
  EXPECT_EQ(in[2].shape, std::nullopt);
  EXPECT_TRUE(in[2].state); // a token: a state's mutation
  EXPECT_EQ(in[3].shape, std::nullopt);
  EXPECT_EQ(in[1].type, "memref<2x3xf32>");
}
