//===- GraphTraps.cpp - AIM015: op kinds reported to misbehave ------------===//

#include "mlir-passes/GraphTraps.h"

using namespace aimodel;
using namespace aimodel::passes;

namespace {
constexpr llvm::StringLiteral kIdentity[] = {"floor", "trunc", "truncate",
                                             "ceil"};
constexpr llvm::StringLiteral kRound[] = {"round"};
constexpr llvm::StringLiteral kMetal[] = {"metal4_kernel"};

// Community-reported, not verified here (no device): docs/rules.md's rule
// table says so, and so does every finding.
constexpr GraphTrapEntry kTraps[] = {
    {kIdentity,
     "floor, trunc and ceil execute as the identity on the GPU "
     "delegate",
     "apple/coreai-torch#10"},
    {kRound,
     "round rounds ties away from zero on the GPU delegate, unlike "
     "torch (half to even)",
     "apple/coreai-torch#10"},
    {kMetal, "a custom Metal kernel runs on the GPU only",
     "john-rocky/coreai-model-zoo GRAPH-CUSTOM-METAL-KERNEL; coreai-torch "
     "writes such kernels as coreai.metal4_kernel"},
};
} // namespace

const GraphTrapEntry *aimodel::passes::graphTrapOf(llvm::StringRef opName,
                                                   llvm::StringRef &kind) {
  kind = opName.rsplit('.').second;
  if (kind.empty())
    kind = opName;
  for (const GraphTrapEntry &trap : kTraps)
    for (llvm::StringRef candidate : trap.kinds)
      if (kind == candidate)
        return &trap;
  return nullptr;
}

void GraphTrapRule::visit(llvm::StringRef opName, llvm::StringRef function,
                          uint64_t count) {
  llvm::StringRef kind;
  const GraphTrapEntry *trap = count ? graphTrapOf(opName, kind) : nullptr;
  if (!trap)
    return;
  present.insert(trap);
  // Saturating: counts from a stats.json may be anything up to 2^64-1.
  auto add = [count](uint64_t &total) {
    total = total > UINT64_MAX - count ? UINT64_MAX : total + count;
  };
  add(byKind[kind.str()]);
  add(ops);
  if (!function.empty())
    add(perFunction[function.str()]);
}

std::optional<IRFinding> GraphTrapRule::finish() const {
  if (!ops)
    return std::nullopt;
  IRFinding finding;
  finding.ruleId = "AIM015";
  finding.ops = ops;
  std::string kinds;
  for (const auto &[kind, count] : byKind)
    kinds += (kinds.empty() ? "" : ", ") + kind + " " + std::to_string(count);
  finding.message = countPhrase(ops, 0) +
                    " of kinds public reports say misbehave on some compute "
                    "units (" +
                    kinds + ")";
  if (!perFunction.empty())
    finding.message += "; by function: " + perFunctionPhrase(perFunction);
  // What each trap present is reported to do, and where, in table order.
  for (const GraphTrapEntry &trap : kTraps)
    if (present.count(&trap))
      finding.message +=
          "; " + trap.what.str() + " (" + trap.source.str() + ")";
  finding.message += "; community-reported, not verified here";
  return finding;
}
