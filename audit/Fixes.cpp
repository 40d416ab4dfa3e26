//===- Fixes.cpp - What to do about a finding, for the bundle in hand -----===//

#include "audit/Fixes.h"
#include "audit/RepairPlan.h"

#include "support/GitLfsPointer.h"
#include "support/PathText.h"

using namespace aimodel;
using namespace aimodel::audit;

bool aimodel::audit::isCurrentProducer(llvm::StringRef producer) {
  // coreai-build stamps every asset it writes, whatever converter made the
  // IR; coreai-core stamps from 1.0.0b2 on (b1 wrote no producer at all).
  if (producer.starts_with("coreai-build"))
    return true;
  llvm::StringRef version = producer;
  return version.consume_front("coreai-core ") && version != "1.0.0b1";
}

std::string aimodel::audit::fixFor(const Finding &finding,
                                   const BundleReport &bundle) {
  const Rule &rule = *finding.rule;
  bool compiled = bundle.kind == bundle::BundleKind::CompiledAsset;
  // An unfetched git-LFS object: rewriting the hash would "fix" the wrong
  // thing (the message names the pointer; support/GitLfsPointer.h).
  if ((&rule == &rules::HashMismatch || &rule == &rules::UnreadableIR) &&
      llvm::StringRef(finding.message).ends_with(support::kGitLfsFetchHint))
    return "Fetch the file with `git lfs pull`: the repository holds a "
           "pointer to it, not the file.";
  if (&rule == &rules::HashMismatch &&
      (bundle.kind == bundle::BundleKind::Asset || compiled)) {
    // Commands to paste, with the bundle's own path.
    std::string ir = "main.mlirb";
    if (compiled) {
      llvm::StringRef stem = llvm::StringRef(bundle.path).rsplit('/').second;
      if (stem.empty())
        stem = bundle.path;
      stem.consume_back(".aimodelc");
      ir = "main-" + stem.rsplit('.').second.str() + ".mlirb";
    }
    std::string path = support::shellArgument(bundle.path);
    std::string fix = "If the mlirb is right, rewrite the hash: `openssl dgst "
                      "-sha256 -binary " +
                      support::shellArgument(bundle.path + "/" + ir) + " > " +
                      support::shellArgument(bundle.path + "/main.hash") + "`";
    // Strip checks the IR it hashes; it cannot where something else is
    // wrong too.
    if (repairClassOf(bundle) == RepairClass::Rehash)
      fix += ", or let strip verify and rewrite it in place: `aimodel strip "
             "--in-place --rehash " +
             path + "`";
    return fix + "; else re-save the asset.";
  }
  // IR outside any asset has no asset to strip: the file is stripped alone
  // (or as part of its tree).
  if (bundle.kind == bundle::BundleKind::IRFile &&
      (&rule == &rules::LegacyDebugLocation || &rule == &rules::DebugPayload ||
       &rule == &rules::UnverifiedLocation))
    return "An IR file outside any asset: `aimodel strip --file FILE -o OUT` "
           "writes a copy without debug payload (`aimodel strip` of its tree "
           "strips it too); or remove it if nothing loads it.";
  if (&rule == &rules::DebugPayload && compiled)
    return "Compiled bundles cannot be stripped: recompile from a source "
           ".aimodel without debug payload (a copy made with `aimodel strip`, "
           "or a RELEASE-mode export).";
  if (&rule == &rules::UnverifiedLocation && bundle.producer &&
      isCurrentProducer(*bundle.producer))
    return "Written by " + support::printableText(*bundle.producer) +
           ", so re-exporting with a newer coreai-torch may give the same "
           "form; whether current compilers accept it is not known. "
           "`aimodel strip` writes loc(unknown), the form with the most "
           "evidence of loading.";
  return rule.help.str();
}
