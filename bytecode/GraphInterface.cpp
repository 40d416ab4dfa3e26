//===- GraphInterface.cpp - An entry graph's inputs and outputs -----------===//

#include "bytecode/GraphInterface.h"
#include "bytecode/Symbols.h"
#include "bytecode/TypeText.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringSet.h"

#include <algorithm>
#include <cctype>
#include <cstring>

using namespace aimodel;
using namespace aimodel::bytecode;

namespace {
/// The members naming an input or output, first found wins (INFERRED:
/// coreai-torch writes `coreai.name`).
constexpr llvm::StringLiteral kNameMembers[] = {"coreai.name"};
/// The words of a private type's name that make it a state (INFERRED:
/// `!coreai.handle<...>` inputs, `!coreai.token` results).
constexpr llvm::StringLiteral kStateTypeWords[] = {"handle", "state", "token"};
} // namespace

size_t GraphInterface::states() const {
  auto count = [](const std::vector<Port> &ports) {
    return size_t(std::count_if(ports.begin(), ports.end(),
                                [](const Port &p) { return p.state; }));
  };
  return count(inputs) + count(outputs);
}

bool bytecode::isStateType(const BytecodeFile &file, uint64_t type) {
  if (type == kNone || type >= file.types().size() ||
      file.typeCode(type) != TypeCode::NotBuiltin)
    return false;
  // `!coreai.handle<tensor<...>>`: the name right after the dialect's.
  llvm::StringRef text = file.typeAsmText(type);
  llvm::StringRef name =
      text.drop_while([](char c) { return c != '.'; }).drop_front();
  name = name.take_while([](char c) { return std::isalnum(c) || c == '_'; });
  for (llvm::StringRef word : kStateTypeWords)
    if (name == word)
      return true;
  return false;
}

uint64_t bytecode::valueType(const BytecodeFile &file, const ValueRef &value) {
  if (value.isBlockArgument) {
    if (value.owner >= file.blocks().size() ||
        value.number >= file.blocks()[value.owner].arguments.size())
      return kNone;
    return file.blocks()[value.owner].arguments[value.number].type;
  }
  if (value.owner >= file.operations().size())
    return kNone;
  auto types = file.resultTypes(file.operations()[value.owner]);
  return value.number < types.size() ? types[value.number] : kNone;
}

/// The display names in `list` (an array of dictionaries, one per port),
/// by position; empty where there is none.
static std::vector<std::string> portNames(const BytecodeFile &file,
                                          std::optional<uint64_t> list,
                                          size_t count) {
  std::vector<std::string> names(count);
  if (!list || file.attrKind(*list) != AttrKind::Array)
    return names;
  DecodedAttr array = file.decodedAttr(*list);
  for (size_t i = 0; i < std::min(count, array.elements.size()); ++i) {
    uint64_t dict = array.elements[i];
    if (file.attrKind(dict) != AttrKind::Dictionary)
      continue;
    for (llvm::StringRef key : kNameMembers) {
      for (const NamedAttrRef &named : file.decodedAttr(dict).namedAttrs)
        if (file.decodedAttr(named.name).str == key &&
            file.attrKind(named.value) == AttrKind::String) {
          names[i] = file.decodedAttr(named.value).str.str();
          break;
        }
      if (!names[i].empty())
        break;
    }
  }
  return names;
}

GraphInterface bytecode::graphInterface(const BytecodeFile &file,
                                        uint32_t opIndex) {
  GraphInterface out;
  const Operation &op = file.operations()[opIndex];
  auto regions = file.opRegions(op);
  if (regions.empty() || file.regions()[regions[0]].blocks.empty())
    return out;
  const Block &entry = file.blocks()[file.regions()[regions[0]].blocks[0]];
  std::vector<std::string> inputNames =
      portNames(file, opMember(file, op, "arg_attrs"), entry.arguments.size());
  for (size_t i = 0; i < entry.arguments.size(); ++i) {
    uint64_t type = entry.arguments[i].type;
    out.inputs.push_back({inputNames[i], type, isStateType(file, type)});
  }
  if (entry.operations.empty())
    return out;
  auto results = file.operands(file.operations()[entry.operations.back()]);
  std::vector<std::string> outputNames =
      portNames(file, opMember(file, op, "res_attrs"), results.size());
  for (size_t i = 0; i < results.size(); ++i) {
    uint64_t type = valueType(file, results[i]);
    out.outputs.push_back({outputNames[i], type, isStateType(file, type)});
  }
  return out;
}

/// The dims of the first `tensor<...>` in `text` (a type written as text).
static std::optional<Shape> shapeInText(llvm::StringRef text) {
  size_t at = text.find("tensor<");
  if (at == llvm::StringRef::npos)
    return std::nullopt;
  llvm::StringRef rest = text.drop_front(at + strlen("tensor<"));
  Shape shape;
  while (true) {
    size_t x = rest.find('x');
    if (x == llvm::StringRef::npos)
      return shape; // the element type: "f16>"
    llvm::StringRef dim = rest.take_front(x);
    int64_t value = 0;
    if (dim == "?")
      shape.push_back(kDynamicDim);
    else if (!dim.getAsInteger(10, value) && value >= 0)
      shape.push_back(value);
    else
      return dim.empty() || dim.front() == '*' ? std::nullopt
                                               : std::optional<Shape>(shape);
    rest = rest.drop_front(x + 1);
  }
}

std::optional<Shape> bytecode::tensorShape(const BytecodeFile &file,
                                           uint64_t type) {
  if (type == kNone || type >= file.types().size())
    return std::nullopt;
  switch (file.typeCode(type)) {
  case TypeCode::RankedTensor:
  case TypeCode::RankedTensorWithEncoding:
    if (std::optional<BuiltinTypeInfo> info = file.builtinType(type))
      return Shape(info->shape.begin(), info->shape.end());
    return std::nullopt;
  case TypeCode::NotBuiltin:
    return shapeInText(file.typeAsmText(type));
  default:
    return std::nullopt;
  }
}

std::vector<uint32_t> bytecode::entryGraphs(const BytecodeFile &file) {
  // Every symbol any attribute of the file names: an op that invokes a
  // composite or calls a function names it by a symbol reference.
  llvm::StringSet<> referenced;
  for (uint64_t i = 0; i < file.attributes().size(); ++i)
    if (AttrKind kind = file.attrKind(i);
        kind == AttrKind::FlatSymbolRef || kind == AttrKind::SymbolRef)
      referenced.insert(file.decodedAttr(i).str);
  std::vector<uint32_t> out;
  llvm::ArrayRef<Operation> ops = file.operations();
  for (uint32_t i = 0; i < ops.size(); ++i) {
    const Operation &op = ops[i];
    if (op.depth != 1)
      continue;
    auto regions = file.opRegions(op);
    if (regions.empty() || file.regions()[regions[0]].blocks.empty())
      continue;
    std::optional<llvm::StringRef> name = symbolName(file, op);
    if (name && referenced.contains(*name))
      continue;
    out.push_back(i);
  }
  return out;
}

size_t EntryGraphFacts::states() const {
  auto count = [](const std::vector<PortFacts> &ports) {
    return size_t(std::count_if(ports.begin(), ports.end(),
                                [](const PortFacts &p) { return p.state; }));
  };
  size_t in = count(inputs);
  return in ? in : count(outputs);
}

bool EntryGraphFacts::readable() const {
  auto opaque = [](const PortFacts &p) { return p.opaque; };
  return llvm::none_of(inputs, opaque) && llvm::none_of(outputs, opaque);
}

static PortFacts factsOf(const BytecodeFile &file, const Port &port) {
  PortFacts out;
  out.name = port.name;
  out.type = typeText(file, port.type);
  out.shape = tensorShape(file, port.type);
  out.state = port.state;
  out.opaque = port.type == kNone || port.type >= file.types().size() ||
               (file.typeCode(port.type) == TypeCode::NotBuiltin &&
                file.typeAsmText(port.type).empty());
  return out;
}

std::vector<EntryGraphFacts>
bytecode::entryGraphFacts(const BytecodeFile &file) {
  std::vector<EntryGraphFacts> out;
  for (uint32_t op : entryGraphs(file)) {
    GraphInterface ports = graphInterface(file, op);
    EntryGraphFacts facts;
    if (std::optional<llvm::StringRef> name =
            symbolName(file, file.operations()[op]))
      facts.name = name->str();
    for (const Port &port : ports.inputs)
      facts.inputs.push_back(factsOf(file, port));
    for (const Port &port : ports.outputs)
      facts.outputs.push_back(factsOf(file, port));
    out.push_back(std::move(facts));
  }
  return out;
}
