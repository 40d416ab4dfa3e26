//===- GraphModel.cpp - One Boost graph per function of a file ------------===//

#include "graphdiff/GraphModel.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/Support/xxhash.h"

#include <map>
#include <set>

using namespace aimodel;
using namespace aimodel::graphdiff;
using bytecode::AttrKind;
using bytecode::BytecodeFile;
using bytecode::kNoIndex;
using bytecode::kNone;
using bytecode::Operation;

llvm::StringRef graphdiff::normaliseSymbol(llvm::StringRef name) {
  constexpr size_t kSuffix = 9; // '_' + 8 characters
  if (name.size() <= kSuffix || name[name.size() - kSuffix] != '_')
    return name;
  for (char c : name.take_back(kSuffix - 1))
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')))
      return name;
  return name.drop_back(kSuffix);
}

static bool holdsOps(const BytecodeFile &file, const Operation &op) {
  for (uint32_t region : file.opRegions(op))
    for (uint32_t block : file.regions()[region].blocks)
      if (!file.blocks()[block].operations.empty())
        return true;
  return false;
}

namespace {

/// Builds the vertices and edges of every graph of a file.
class Builder {
public:
  explicit Builder(const BytecodeFile &file) : file(file) {}
  FileGraphs build();

private:
  void assignGraphs();
  void addVertices(uint32_t opIndex);
  void addEdges(uint32_t opIndex);
  Slot producerOf(uint32_t graph, const bytecode::ValueRef &ref);

  const BytecodeFile &file;
  FileGraphs out;
  std::vector<uint32_t> blockPosition; ///< per block: index in its region
  std::vector<uint32_t> argBase;       ///< per block: first arg vertex
  /// Per graph: external values by (kind, owner, number).
  std::vector<llvm::DenseMap<uint64_t, uint32_t>> externals;
  std::vector<uint64_t> nameHashes;
  std::vector<uint32_t> nextVertex; ///< per graph
  /// The graphs before their sizes are known (a Boost graph cannot be
  /// resized, nor moved or swapped without copying every vertex).
  std::vector<FunctionGraph> pending;
  /// Symbol names more than one function has.
  std::set<std::string> ambiguous;
};

} // namespace

void Builder::assignGraphs() {
  auto ops = file.operations();
  std::map<std::string, unsigned> standIns;
  uint32_t topLevel = kNoGraph;
  // Per op: the symbol path of the tables enclosing its children ("" at
  // the top). A nested op with regions is a table: named by its symbol,
  // or by a stand-in when it has none.
  std::vector<std::string> scope(ops.size());
  // The same with every stand-in's number dropped ("builtin.module#"):
  // what a stand-in is, whatever its position.
  // A scope holds a stand-in exactly when the two differ.
  std::vector<std::string> shape(ops.size());
  std::map<std::pair<std::string, std::string>, unsigned> unnamedTables;
  auto scopeOf = [&](uint32_t parent) -> const std::string & {
    static const std::string top;
    return parent == kNoIndex ? top : scope[parent];
  };
  // Containers (the top-level op, builtin.module) are ops like any other:
  // their names, attributes and properties count. They and the ops outside
  // every function form the "(top level)" graph.
  std::vector<char> isContainer(ops.size(), 0);
  bool looseOps = false;
  auto topLevelGraph = [&] {
    if (topLevel == kNoGraph) {
      topLevel = uint32_t(pending.size());
      FunctionGraph graph;
      graph.name = graph.path = graph.shape = "(top level)";
      graph.synthetic = graph.topLevel = true;
      out.byPath.try_emplace(graph.path, topLevel);
      pending.push_back(std::move(graph));
    }
    return topLevel;
  };
  for (uint32_t i = 0; i < ops.size(); ++i) {
    const Operation &op = ops[i];
    uint32_t parent = parentOp(file, op);
    // The graph an op joins when it is not a function itself: its
    // parent's, unless the parent is a container.
    uint32_t parentGraph = parent == kNoIndex || isContainer[parent]
                               ? kNoGraph
                               : out.graphOfOp[parent];
    const bytecode::OpName &name = file.opNames()[op.name];
    bool container =
        op.depth == 0 || (name.name == "module" &&
                          file.dialects()[name.dialect].name == "builtin");
    isContainer[i] = container;
    bool holds = !container && holdsOps(file, op);
    std::optional<llvm::StringRef> symbol;
    if (holds || (container && op.depth > 0))
      symbol = symbolName(file, op);
    const std::string &outer = scopeOf(parent);
    const std::string &outerShape = parent == kNoIndex ? outer : shape[parent];
    auto within = [&](llvm::StringRef name) {
      return outer.empty() ? name.str() : outer + "::" + name.str();
    };
    auto shapeWithin = [&](llvm::StringRef name) {
      return outerShape.empty() ? name.str() : outerShape + "::" + name.str();
    };
    if (op.depth > 0 && !file.opRegions(op).empty()) {
      std::string own, ownShape;
      if (symbol) {
        own = ownShape = symbol->str();
      } else {
        std::string opName = file.fullOpName(op.name);
        own = opName + "#" + std::to_string(unnamedTables[{outer, opName}]++);
        ownShape = opName + "#";
      }
      scope[i] = within(own);
      shape[i] = shapeWithin(ownShape);
    }
    if (holds && (symbol || parentGraph == kNoGraph)) {
      FunctionGraph graph;
      if (symbol) {
        graph.name = symbol->str();
      } else {
        std::string opName = file.fullOpName(op.name);
        graph.name = opName + "#" + std::to_string(standIns[opName]++);
        graph.synthetic = true;
      }
      graph.path = symbol ? within(graph.name) : graph.name;
      graph.shape =
          symbol ? shapeWithin(graph.name) : file.fullOpName(op.name) + "#";
      graph.rootOp = i;
      out.graphOfOp[i] = uint32_t(pending.size());
      if (symbol) {
        auto [it, fresh] =
            out.bySymbol.try_emplace(graph.name, out.graphOfOp[i]);
        if (!fresh)
          ambiguous.insert(graph.name);
      }
      out.byPath.try_emplace(graph.path, out.graphOfOp[i]);
      pending.push_back(std::move(graph));
    } else if (parentGraph != kNoGraph) {
      out.graphOfOp[i] = parentGraph;
    } else {
      out.graphOfOp[i] = topLevelGraph();
      if (!container)
        looseOps = true;
    }
  }
  if (topLevel != kNoGraph)
    pending[topLevel].onlyContainers = !looseOps;
}

void Builder::addVertices(uint32_t opIndex) {
  uint32_t g = out.graphOfOp[opIndex];
  FunctionGraph &graph = out.graphs[g];
  const Operation &op = file.operations()[opIndex];
  VertexInfo info;
  info.kind = VertexKind::Op;
  info.op = opIndex;
  uint32_t parent = parentOp(file, op);
  if (parent != kNoIndex && out.graphOfOp[parent] == g &&
      opIndex != graph.rootOp) {
    info.parent = out.vertexOfOp[parent];
    info.region = file.regions()[file.blocks()[op.parentBlock].parentRegion]
                      .indexInParent;
  }
  if (nameHashes[op.name] == 0)
    nameHashes[op.name] = llvm::xxh3_64bits(file.fullOpName(op.name)) | 1;
  info.opName = nameHashes[op.name];
  uint32_t v = nextVertex[g]++;
  graph.graph[v] = info;
  out.vertexOfOp[opIndex] = v;
  ++graph.numOps;
  uint32_t numArgs = 0;
  for (uint32_t region : file.opRegions(op))
    for (uint32_t block : file.regions()[region].blocks) {
      argBase[block] = nextVertex[g];
      auto args = file.blocks()[block].arguments;
      for (uint32_t n = 0; n < args.size(); ++n) {
        VertexInfo arg;
        arg.kind = VertexKind::Argument;
        arg.op = opIndex;
        arg.parent = v;
        arg.region = file.regions()[region].indexInParent;
        arg.block = blockPosition[block];
        arg.number = n;
        graph.graph[nextVertex[g]++] = arg;
        ++numArgs;
      }
    }
  graph.graph[v].firstArg = v + 1;
  graph.graph[v].numArgs = numArgs;
}

Slot Builder::producerOf(uint32_t g, const bytecode::ValueRef &ref) {
  FunctionGraph &graph = out.graphs[g];
  if (!ref.isBlockArgument) {
    if (ref.owner < out.graphOfOp.size() && out.graphOfOp[ref.owner] == g)
      return {out.vertexOfOp[ref.owner], ref.number};
  } else if (ref.owner < file.blocks().size()) {
    uint32_t region = file.blocks()[ref.owner].parentRegion;
    uint32_t owner =
        region == kNoIndex ? kNoIndex : file.regions()[region].parentOp;
    if (owner != kNoIndex && out.graphOfOp[owner] == g)
      return {argBase[ref.owner] + ref.number, 0};
  }
  // Defined outside the graph: one vertex per distinct value.
  uint64_t key = (uint64_t(ref.isBlockArgument) << 63) ^
                 (uint64_t(ref.owner) << 24) ^ ref.number;
  auto [it, fresh] = externals[g].try_emplace(key, 0);
  if (fresh) {
    VertexInfo info;
    info.kind = VertexKind::External;
    info.op = ref.isBlockArgument ? kNoIndex : ref.owner;
    info.block = ref.isBlockArgument ? ref.owner : 0;
    info.number = ref.number;
    it->second = uint32_t(boost::add_vertex(info, graph.graph));
  }
  return {it->second, 0};
}

void Builder::addEdges(uint32_t opIndex) {
  uint32_t g = out.graphOfOp[opIndex];
  FunctionGraph &graph = out.graphs[g];
  uint32_t v = out.vertexOfOp[opIndex];
  const Operation &op = file.operations()[opIndex];
  auto operands = file.operands(op);
  for (uint32_t slot = 0; slot < operands.size(); ++slot) {
    Slot producer = producerOf(g, operands[slot]);
    graph.operandSlots.push_back(producer);
    boost::add_edge(producer.producer, v,
                    EdgeInfo{EdgeKind::Operand, slot, producer.result},
                    graph.graph);
  }
  const VertexInfo &info = graph.graph[v];
  if (info.parent != kNoVertex)
    boost::add_edge(v, info.parent, EdgeInfo{EdgeKind::Nested, info.region, 0},
                    graph.graph);
}

FileGraphs Builder::build() {
  auto ops = file.operations();
  out.graphOfOp.assign(ops.size(), kNoGraph);
  out.vertexOfOp.assign(ops.size(), kNoVertex);
  blockPosition.assign(file.blocks().size(), 0);
  argBase.assign(file.blocks().size(), kNoVertex);
  nameHashes.assign(file.opNames().size(), 0);
  for (const bytecode::Region &region : file.regions())
    for (uint32_t k = 0; k < region.blocks.size(); ++k)
      blockPosition[region.blocks[k]] = k;
  assignGraphs();
  for (const std::string &name : ambiguous)
    out.bySymbol.erase(name);
  // Every op and block argument is a vertex: size the graphs once. Every
  // op is in a graph (assignGraphs: a function's, or "(top level)").
  std::vector<size_t> sizes(pending.size(), 0);
  for (uint32_t i = 0; i < ops.size(); ++i) {
    size_t &size = sizes[out.graphOfOp[i]];
    ++size;
    for (uint32_t region : file.opRegions(ops[i]))
      for (uint32_t block : file.regions()[region].blocks)
        size += file.blocks()[block].arguments.size();
  }
  out.graphs.reserve(pending.size());
  for (uint32_t g = 0; g < pending.size(); ++g) {
    out.graphs.emplace_back(sizes[g]);
    out.graphs[g].name = std::move(pending[g].name);
    out.graphs[g].path = std::move(pending[g].path);
    out.graphs[g].synthetic = pending[g].synthetic;
    out.graphs[g].onlyContainers = pending[g].onlyContainers;
    out.graphs[g].topLevel = pending[g].topLevel;
    out.graphs[g].shape = std::move(pending[g].shape);
    out.graphs[g].rootOp = pending[g].rootOp;
  }
  nextVertex.assign(out.graphs.size(), 0);
  for (uint32_t i = 0; i < ops.size(); ++i)
    addVertices(i);
  externals.resize(out.graphs.size());
  for (uint32_t i = 0; i < ops.size(); ++i)
    addEdges(i);
  // Slots were appended op by op in vertex order: turn the starts into
  // ranges (arguments and external values have none).
  for (uint32_t g = 0; g < out.graphs.size(); ++g) {
    FunctionGraph &graph = out.graphs[g];
    size_t n = graph.numVertices();
    graph.operandBegin.assign(n + 1, 0);
    uint32_t cursor = 0;
    for (uint32_t v = 0; v < n; ++v) {
      graph.operandBegin[v] = cursor;
      if (graph.graph[v].kind == VertexKind::Op)
        cursor += uint32_t(
            file.operands(file.operations()[graph.graph[v].op]).size());
    }
    graph.operandBegin[n] = cursor;
  }
  return std::move(out);
}

FileGraphs graphdiff::buildGraphs(const BytecodeFile &file) {
  return Builder(file).build();
}

std::vector<char> graphdiff::usedVertices(const FunctionGraph &graph,
                                          const BytecodeFile &file) {
  size_t n = graph.numVertices();
  std::vector<char> used(n, 0);
  std::vector<uint32_t> work;
  auto use = [&](uint32_t v) {
    if (v < n && !used[v]) {
      used[v] = 1;
      work.push_back(v);
    }
  };
  auto endsBlock = [&](uint32_t op) {
    const auto &ops =
        file.blocks()[file.operations()[op].parentBlock].operations;
    return !ops.empty() && ops.back() == op;
  };
  // Terminators by the op whose region they end.
  std::vector<std::vector<uint32_t>> terminators(n);
  for (uint32_t v = 0; v < n; ++v) {
    const VertexInfo &info = graph[v];
    if (info.kind != VertexKind::Op || v == 0)
      continue;
    const bytecode::Operation &op = file.operations()[info.op];
    if (!file.resultTypes(op).empty())
      continue;
    if (endsBlock(info.op) && info.parent != kNoVertex)
      terminators[info.parent].push_back(v);
    else
      use(v);
  }
  use(0);
  while (!work.empty()) {
    uint32_t v = work.back();
    work.pop_back();
    for (const Slot &slot : graph.operands(v))
      use(slot.producer);
    for (uint32_t t : terminators[v])
      use(t);
    if (graph[v].kind == VertexKind::Op && graph[v].parent != kNoVertex)
      use(graph[v].parent);
  }
  return used;
}
