//===- RepairPlan.cpp - What `aimodel strip --in-place` will do -----------===//

#include "audit/RepairPlan.h"

#include "audit/PeopleReports.h"

#include "support/GitLfsPointer.h"
#include "support/PathText.h"

#include <map>

using namespace aimodel;
using namespace aimodel::audit;

RepairClass aimodel::audit::repairClassOf(const BundleReport &bundle) {
  bool payload = false, hash = false, broken = false, link = false, lfs = false;
  for (const Finding &f : bundle.findings) {
    const Rule *rule = f.rule;
    bool lfsHint =
        llvm::StringRef(f.message).ends_with(support::kGitLfsFetchHint);
    if (rule == &rules::LegacyDebugLocation || rule == &rules::DebugPayload ||
        rule == &rules::UnverifiedLocation)
      payload = true;
    // A compiled bundle's call stacks are counted on its AIM008 note.
    else if (rule == &rules::CompiledBundle)
      payload |= f.ops + f.blockArguments > 0;
    else if (rule == &rules::HashMismatch)
      (lfsHint ? lfs : hash) = true;
    else if (rule == &rules::MissingFile)
      (f.file == "main.hash" ? hash : broken) = true;
    else if (rule == &rules::UnreadableIR)
      (lfsHint ? lfs : broken) = true;
    else if (rule == &rules::UnreadableMetadata)
      broken = true;
    else if (rule == &rules::Symlink)
      link = true;
  }
  switch (bundle.kind) {
  case bundle::BundleKind::IRFile:
    return payload ? RepairClass::LooseIR : RepairClass::Nothing;
  case bundle::BundleKind::CompiledAsset:
    return payload ? RepairClass::Compiled : RepairClass::Nothing;
  case bundle::BundleKind::Asset:
    // In the order strip refuses: it never reads past the first of these.
    if (lfs)
      return RepairClass::LfsPointer;
    if (broken)
      return RepairClass::Broken;
    if (link)
      return RepairClass::Symlink;
    if (hash)
      return RepairClass::Rehash;
    return payload ? RepairClass::Strip : RepairClass::Nothing;
  case bundle::BundleKind::BundleDir:
    return RepairClass::Nothing;
  }
  return RepairClass::Nothing;
}

/// The audit inputs that hold `paths` (as strip walks them: an input that
/// is one of them or a folder above it); each path itself where an input
/// holds none (--pre-commit's member files). Shell-quoted, in input order.
static std::vector<std::string>
rootsHolding(const std::vector<std::string> &inputs,
             const std::vector<llvm::StringRef> &paths) {
  std::vector<std::string> roots;
  std::vector<bool> held(paths.size());
  for (const std::string &input : inputs) {
    llvm::StringRef root = llvm::StringRef(input).rtrim('/');
    if (root.empty())
      root = input; // "/"
    bool holds = false;
    for (size_t i = 0; i < paths.size(); ++i)
      if (paths[i] == input || paths[i] == root ||
          (paths[i].starts_with(root) &&
           paths[i].substr(root.size()).starts_with("/")) ||
          (root == "/" && paths[i].starts_with("/"))) {
        held[i] = true;
        holds = true;
      }
    if (holds)
      roots.push_back(support::shellArgument(root));
  }
  for (size_t i = 0; i < paths.size(); ++i)
    if (!held[i])
      roots.push_back(support::shellArgument(paths[i]));
  return roots;
}

static std::string joinCommand(llvm::StringRef head,
                               const std::vector<std::string> &arguments) {
  std::string command = head.str();
  for (const std::string &argument : arguments)
    command += " " + argument;
  return command;
}

/// Up to this many assets are named one by one after --rehash.
static constexpr size_t kRehashByName = 20;

RepairPlan aimodel::audit::planRepair(const AuditReport &report) {
  RepairPlan plan;
  std::vector<llvm::StringRef> strip, rehash;
  std::map<RepairClass, unsigned> skipped;
  for (const BundleReport &bundle : report.bundles) {
    switch (RepairClass why = repairClassOf(bundle)) {
    case RepairClass::Nothing:
      break;
    case RepairClass::Strip:
      strip.push_back(bundle.path);
      break;
    case RepairClass::Rehash:
      rehash.push_back(bundle.path);
      break;
    default:
      ++skipped[why];
    }
  }
  plan.stripped = strip.size();
  plan.rehashed = rehash.size();
  if (!strip.empty())
    plan.command = joinCommand("aimodel strip --in-place",
                               rootsHolding(report.run.inputs, strip));
  if (!rehash.empty()) {
    std::vector<std::string> named;
    if (rehash.size() <= kRehashByName)
      for (llvm::StringRef path : rehash)
        named.push_back(support::shellArgument(path));
    else
      named = rootsHolding(report.run.inputs, rehash);
    plan.rehashCommand =
        joinCommand("aimodel strip --in-place --rehash", named);
  }
  for (auto [why, bundles] : skipped)
    plan.skipped.push_back({why, bundles});
  return plan;
}

std::string aimodel::audit::skipNoun(const RepairPlan::Skip &skip) {
  switch (skip.why) {
  case RepairClass::Compiled:
    return plural(skip.bundles, "compiled bundle") + " with debug payload";
  case RepairClass::Broken:
    return plural(skip.bundles, "unreadable or incomplete asset");
  case RepairClass::Symlink:
    return plural(skip.bundles, "asset") + " holding a symlink";
  case RepairClass::LfsPointer:
    return plural(skip.bundles, "asset") + " whose files are git-LFS pointers";
  case RepairClass::LooseIR:
    return plural(skip.bundles, "IR file") + " outside any asset";
  default:
    return plural(skip.bundles, "bundle");
  }
}

llvm::StringRef aimodel::audit::skipRemedy(RepairClass why) {
  switch (why) {
  case RepairClass::Compiled:
    return "recompile from the repaired sources";
  case RepairClass::Broken:
    return "re-export";
  case RepairClass::Symlink:
    return "replace each link with its target";
  case RepairClass::LfsPointer:
    return "fetch with git lfs pull first";
  case RepairClass::LooseIR:
    return "copy with aimodel strip --file FILE -o OUT, or remove";
  default:
    return "";
  }
}

std::string aimodel::audit::strippedSentence(const RepairPlan &plan) {
  return "repairs " + plural(plan.stripped, "asset") +
         ": each is replaced by its verified stripped copy (--dry-run shows "
         "the plan first, --backup DIR keeps the originals)";
}

std::string aimodel::audit::rehashSentence(const RepairPlan &plan) {
  return "repairs " + plural(plan.rehashed, "asset") +
         " whose main.hash is wrong or missing, and writes new hashes: run "
         "it only if their mlirb is right";
}

std::string aimodel::audit::skippedSentence(const RepairPlan &plan) {
  std::string text = "not repaired by strip: ";
  for (size_t i = 0; i < plan.skipped.size(); ++i)
    text += (i ? "; " : "") + skipNoun(plan.skipped[i]) + " (" +
            skipRemedy(plan.skipped[i].why).str() + ")";
  return text;
}
