//===- SourceInfo.cpp - Where in the PyTorch model an op came from --------===//

#include "graphdiff/SourceInfo.h"

#include "llvm/ADT/DenseSet.h"
#include "llvm/Support/Path.h"

using namespace aimodel;
using namespace aimodel::graphdiff;
using bytecode::AttrKind;
using bytecode::BytecodeFile;
using bytecode::DecodedAttr;
using bytecode::kNone;

/// "file.py:LINE" for a file location, "" for anything else or a marker
/// ("op_id" of the NameLocs Core AI writes, "-" of a file read from stdin).
static std::string fileLine(const BytecodeFile &file, uint64_t index) {
  AttrKind kind = file.attrKind(index);
  if (kind != AttrKind::FileLineColLoc && kind != AttrKind::FileLineColRange)
    return "";
  DecodedAttr attr = file.decodedAttr(index);
  if (attr.str.empty() || attr.str == "op_id" || attr.str == "-")
    return "";
  uint64_t line = attr.line;
  if (kind == AttrKind::FileLineColRange)
    line = attr.elements.empty() ? 0 : attr.elements[0];
  return llvm::sys::path::filename(attr.str).str() + ":" + std::to_string(line);
}

/// Pushes the locations nested in `attr` so they pop in pre-order.
static void pushChildren(const DecodedAttr &attr,
                         std::vector<uint64_t> &stack) {
  switch (attr.kind) {
  case AttrKind::FusedLoc:
  case AttrKind::FusedLocWithMetadata:
    stack.insert(stack.end(), attr.elements.rbegin(), attr.elements.rend());
    break;
  case AttrKind::CallSiteLoc:
    stack.push_back(attr.callerLoc);
    stack.push_back(attr.childLoc);
    break;
  case AttrKind::NameLoc:
    stack.push_back(attr.childLoc);
    break;
  default:
    break;
  }
}

/// The first file location under `root`, in pre-order.
static std::string firstFileLine(const BytecodeFile &file, uint64_t root,
                                 const DecodedAttr *call) {
  std::string found;
  llvm::DenseSet<uint64_t> seen;
  std::vector<uint64_t> stack{root};
  while (!stack.empty() && found.empty()) {
    uint64_t index = stack.back();
    stack.pop_back();
    if (index >= file.attributes().size() || !seen.insert(index).second)
      continue;
    found = fileLine(file, index);
    pushChildren(index == root && call ? *call : file.decodedAttr(index),
                 stack);
  }
  return found;
}

/// The `call_stack` strings of a FusedLoc's metadata, joined with "/", and
/// the first of its `identifiers` (the FX node).
static bool callStack(const BytecodeFile &file, const DecodedAttr &fused,
                      std::string &module, std::string &fxNode) {
  if (fused.metadata == kNone ||
      file.attrKind(fused.metadata) != AttrKind::Dictionary)
    return false;
  bool found = false;
  for (const bytecode::NamedAttrRef &named :
       file.decodedAttr(fused.metadata).namedAttrs) {
    llvm::StringRef key = file.decodedAttr(named.name).str;
    if ((key != "call_stack" && key != "identifiers") ||
        file.attrKind(named.value) != AttrKind::Array)
      continue;
    std::string joined;
    for (uint64_t element : file.decodedAttr(named.value).elements)
      if (file.attrKind(element) == AttrKind::String) {
        if (key == "identifiers") {
          joined = file.decodedAttr(element).str.str();
          break;
        }
        joined +=
            (joined.empty() ? "" : "/") + file.decodedAttr(element).str.str();
      }
    if (key == "call_stack") {
      module = std::move(joined);
      found = true;
    } else {
      fxNode = std::move(joined);
    }
  }
  return found;
}

/// N of the first `"coreai"("op_id":N:0)` under `root`, in pre-order.
static std::optional<uint64_t> opIdOf(const BytecodeFile &file, uint64_t root) {
  llvm::DenseSet<uint64_t> seen;
  std::vector<uint64_t> stack{root};
  while (!stack.empty()) {
    uint64_t index = stack.back();
    stack.pop_back();
    if (index >= file.attributes().size() || !seen.insert(index).second)
      continue;
    DecodedAttr attr = file.decodedAttr(index);
    if (attr.kind == AttrKind::NameLoc && attr.str == "coreai" &&
        attr.childLoc < file.attributes().size() &&
        file.attrKind(attr.childLoc) == AttrKind::FileLineColLoc) {
      DecodedAttr child = file.decodedAttr(attr.childLoc);
      if (child.str == "op_id")
        return child.line;
    }
    pushChildren(attr, stack);
  }
  return std::nullopt;
}

SourceInfo graphdiff::sourceInfo(const BytecodeFile &file, uint64_t location) {
  SourceInfo info;
  if (location >= file.attributes().size())
    return info;
  // Pre-order: the outermost call stack wins, as it is the op's own.
  llvm::DenseSet<uint64_t> seen;
  std::vector<uint64_t> stack{location};
  while (!stack.empty()) {
    uint64_t index = stack.back();
    stack.pop_back();
    if (index >= file.attributes().size() || !seen.insert(index).second)
      continue;
    AttrKind kind = file.attrKind(index);
    if (kind != AttrKind::FusedLoc && kind != AttrKind::FusedLocWithMetadata &&
        kind != AttrKind::CallSiteLoc && kind != AttrKind::NameLoc)
      continue;
    DecodedAttr attr = file.decodedAttr(index);
    if (kind == AttrKind::FusedLocWithMetadata &&
        callStack(file, attr, info.module, info.fxNode)) {
      info.sourceLine = firstFileLine(file, index, &attr);
      info.opId = opIdOf(file, location);
      return info;
    }
    pushChildren(attr, stack);
  }
  info.sourceLine = firstFileLine(file, location, nullptr);
  info.opId = opIdOf(file, location);
  return info;
}
