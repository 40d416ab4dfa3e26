//===- InterfaceDiff.cpp - Entry graphs' interfaces, compared -------------===//

#include "graphdiff/InterfaceDiff.h"
#include "bytecode/GraphInterface.h"
#include "bytecode/TypeText.h"

using namespace aimodel;
using namespace aimodel::graphdiff;
using bytecode::BytecodeFile;
using bytecode::GraphInterface;
using bytecode::Port;

static PortText portText(const BytecodeFile &file, const Port &port) {
  return {port.name, bytecode::typeText(file, port.type), port.state};
}

static InterfaceText textOf(const BytecodeFile &file,
                            const GraphInterface &ports) {
  InterfaceText out;
  for (const Port &port : ports.inputs)
    out.inputs.push_back(portText(file, port));
  for (const Port &port : ports.outputs)
    out.outputs.push_back(portText(file, port));
  return out;
}

InterfaceText graphdiff::interfaceText(const BytecodeFile &file, uint32_t op) {
  return textOf(file, bytecode::graphInterface(file, op));
}

/// "input 0 `input_ids`", "output 1" (no name).
static std::string portLabel(const char *what, size_t i,
                             const std::string &name) {
  std::string text = std::string(what) + " " + std::to_string(i);
  if (!name.empty())
    text += " `" + name + "`";
  return text;
}

static void comparePorts(const char *what, llvm::ArrayRef<Port> a,
                         OpLabeler &golden, llvm::ArrayRef<Port> b,
                         OpLabeler &candidate,
                         std::vector<InterfaceChange> &out) {
  const char *arrow = " \u2192 ";
  std::string plural = std::string(what) + "s";
  if (a.size() != b.size())
    out.push_back({plural + ": " + std::to_string(a.size()) + arrow +
                       std::to_string(b.size()),
                   false});
  for (size_t i = 0; i < std::max(a.size(), b.size()); ++i) {
    if (i >= b.size()) {
      out.push_back({portLabel(what, i, a[i].name) + " " +
                         golden.typeText(a[i].type) + " removed",
                     false});
      continue;
    }
    if (i >= a.size()) {
      out.push_back({portLabel(what, i, b[i].name) + " " +
                         candidate.typeText(b[i].type) + " added",
                     false});
      continue;
    }
    bool sameType = golden.typeHash(a[i].type) == candidate.typeHash(b[i].type);
    bool sameName = a[i].name == b[i].name;
    if (sameType && sameName)
      continue;
    std::string text = portLabel(what, i, a[i].name) + ": ";
    if (!sameType)
      text +=
          golden.typeText(a[i].type) + arrow + candidate.typeText(b[i].type);
    if (!sameName)
      text += std::string(sameType ? "" : "; ") + "name `" + a[i].name + "`" +
              arrow + "`" + b[i].name + "`";
    out.push_back({text, sameType});
  }
}

InterfaceComparison graphdiff::compareInterfaces(OpLabeler &golden, uint32_t a,
                                                 OpLabeler &candidate,
                                                 uint32_t b) {
  GraphInterface ia = bytecode::graphInterface(golden.file, a);
  GraphInterface ib = bytecode::graphInterface(candidate.file, b);
  InterfaceComparison out;
  out.golden = textOf(golden.file, ia);
  out.candidate = textOf(candidate.file, ib);
  comparePorts("input", ia.inputs, golden, ib.inputs, candidate, out.changes);
  comparePorts("output", ia.outputs, golden, ib.outputs, candidate,
               out.changes);
  if (ia.states() != ib.states())
    out.changes.push_back({"states: " + std::to_string(ia.states()) +
                               " \u2192 " + std::to_string(ib.states()),
                           false});
  return out;
}
