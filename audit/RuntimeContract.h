//===- RuntimeContract.h - What the runtime needs of an asset --*- C++ -*-===//
//
// The rules that judge an asset against what the engine and loader that run
// it require (AIM017-AIM032), after the community's `coreai doctor`
// (john-rocky/coreai-model-zoo cli/DOCTOR_RULES.md): its entry graphs'
// interfaces against its bundle folder's metadata and tokenizer, its size,
// how it was reached, and what a compiled bundle holds. The graph facts are
// the ones the audit's one decode of the IR already read
// (bytecode/GraphInterface.h, which `diff` shares); the third-party numbers
// and lists are in ThirdPartyFacts.h.
//
// A rule whose input an asset lacks (no bundle folder names it, no
// tokenizer, an interface the IR does not show) neither fires nor counts as
// run on it: each check records the rules it could run.
//
//===----------------------------------------------------------------------===//
#ifndef AIMODEL_AUDIT_RUNTIMECONTRACT_H
#define AIMODEL_AUDIT_RUNTIMECONTRACT_H

#include "audit/Audit.h"
#include "bundle/LanguageBundle.h"
#include "bytecode/GraphInterface.h"
#include "support/SafeFile.h"

#include <optional>
#include <string>
#include <vector>

namespace aimodel::audit::contract {

/// Findings of one bundle, and the rules that could run on it.
struct Outcome {
  std::vector<Finding> findings;
  std::vector<const Rule *> ran;

  /// A finding of a runtime-contract rule, which therefore ran.
  void add(const Rule &rule, std::string message, std::string file = "");
  void ranRule(const Rule &rule);
  /// A finding of another rule met on the way (an unreadable file).
  void report(const Rule &rule, std::string message, std::string file = "");
};

/// A bundle folder's own rules (AIM022-AIM026): `dirFd` is the folder,
/// `metadata` its parsed metadata.json, `entries` its listing.
void checkBundleFolder(int dirFd, const nlohmann::json &metadata,
                       const std::vector<bundle::DirEntry> &entries,
                       Outcome &out);

/// Where an asset stands in the bundle folder that names it.
struct BundleContext {
  std::string folder; ///< the bundle folder, as reported
  std::string role;   ///< the role naming the asset ("main", ...)
  bundle::BundleFolderFacts facts;
  support::UniqueFd dir; ///< the bundle folder, for its tokenizer
};

/// The bundle folder `found.bundleFolder` when its metadata.json names the
/// asset (exactly, or a compiled X.<arch>.aimodelc for a declared
/// X.aimodel, as Apple's loader falls back); nullopt otherwise.
std::optional<BundleContext> bundleContext(const bundle::FoundBundle &found);

/// What the asset itself showed, for the rules below.
struct AssetFacts {
  /// The interfaces of its main IR file's entry graphs, when it was decoded.
  std::optional<std::vector<bytecode::EntryGraphFacts>> graphs;
  std::string irFile; ///< that file, relative to the asset
  /// The bytes of every regular file it holds that the audit opened.
  uint64_t bytes = 0;
  /// A compiled bundle: its architecture ("" when unknown), and the entries
  /// below its delegates folder (relative to the asset), files and folders.
  std::string arch;
  std::string delegatesFolder;
  std::vector<std::string> delegateEntries;
  /// Whether all of the delegates folder could be listed (it is absent, or
  /// a real folder every part of which was read): otherwise whether it
  /// holds an ANE region is not known.
  bool delegatesListed = true;
  /// ANERegionsHash values of its MPSGraph manifests, as written.
  std::vector<std::string> aneRegionHashes;
  /// A portable asset: whether a compiled X.<arch>.aimodelc sits beside it.
  bool compiledBeside = false;
};

/// The asset's rules (AIM017-AIM021, AIM027-AIM032).
void checkAsset(const bundle::FoundBundle &found, const AssetFacts &asset,
                std::optional<BundleContext> &context, Outcome &out);

namespace detail {
/// " (WHAT; 3P, not verified here)": where a message's fact comes from.
std::string cite(llvm::StringRef what);
/// 'text'.
std::string inQuotes(llvm::StringRef text);
} // namespace detail

/// The values of the ANERegionsHash dictionaries of an MPSGraph package
/// manifest (an XML property list), in order.
std::vector<std::string> aneRegionHashes(llvm::StringRef manifest);

} // namespace aimodel::audit::contract

#endif // AIMODEL_AUDIT_RUNTIMECONTRACT_H
