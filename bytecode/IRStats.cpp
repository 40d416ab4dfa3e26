//===- IRStats.cpp - Facts about one bytecode file ------------------------===//

#include "bytecode/IRStats.h"

#include <algorithm>
#include <set>

using namespace aimodel;
using namespace aimodel::bytecode;

const std::vector<std::string> &aimodel::bytecode::locationKinds() {
  static const std::vector<std::string> kinds = {
      "call_site", "file_line_col", "fused",  "fused_with_metadata",
      "name",      "opaque",        "unknown"};
  return kinds;
}

static const char *locationKindName(AttrKind kind) {
  switch (kind) {
  case AttrKind::CallSiteLoc:
    return "call_site";
  case AttrKind::FileLineColLoc:
  case AttrKind::FileLineColRange:
    return "file_line_col";
  case AttrKind::FusedLoc:
    return "fused";
  case AttrKind::FusedLocWithMetadata:
    return "fused_with_metadata";
  case AttrKind::NameLoc:
    return "name";
  case AttrKind::UnknownLoc:
    return "unknown";
  default:
    return nullptr;
  }
}

IRStats aimodel::bytecode::computeStats(const BytecodeFile &file) {
  IRStats stats;
  stats.bytecodeVersion = file.version();
  stats.producer = file.producer().str();
  for (llvm::StringRef name : file.dialectNames())
    stats.dialects.push_back(name.str());
  std::sort(stats.dialects.begin(), stats.dialects.end());
  stats.ops = file.opCounts();
  stats.totalOps = file.totalOps();
  for (const std::string &kind : locationKinds())
    stats.locations[kind] = 0;

  for (uint64_t i = 0, e = file.attributes().size(); i < e; ++i)
    if (const char *kind = locationKindName(file.attrKind(i)))
      ++stats.locations[kind];
  // Private-dialect attributes count as locations only where used as one.
  std::set<uint64_t> opaque;
  auto noteUse = [&](uint64_t index) {
    if (index != kNone && index < file.attributes().size() &&
        !locationKindName(file.attrKind(index)))
      opaque.insert(index);
  };
  for (const Operation &op : file.operations())
    noteUse(op.location);
  for (const Block &block : file.blocks())
    for (const BlockArgument &arg : block.arguments)
      noteUse(arg.location);
  stats.locations["opaque"] = opaque.size();
  return stats;
}
