//===- Provenance.cpp - Which compiled bundle came from which source ------===//

#include "audit/Provenance.h"

#include "audit/ReportFiles.h"
#include "bundle/Bundle.h"
#include "bundle/FileReading.h"
#include "bundle/Metadata.h"
#include "support/PathText.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <map>

using namespace aimodel;
using namespace aimodel::audit;

std::optional<std::vector<uint64_t>>
aimodel::audit::coreaiBuildVersion(llvm::StringRef producer) {
  if (!producer.consume_front("coreai-build-"))
    return std::nullopt;
  std::vector<uint64_t> parts;
  while (!producer.empty() && llvm::isDigit(producer.front())) {
    uint64_t value = 0;
    while (!producer.empty() && llvm::isDigit(producer.front())) {
      uint64_t digit = uint64_t(producer.front() - '0');
      value =
          value > (UINT64_MAX - digit) / 10 ? UINT64_MAX : value * 10 + digit;
      producer = producer.drop_front();
    }
    parts.push_back(value);
    // A part ends at a dot followed by another number; anything else ends
    // the version.
    if (producer.size() < 2 || producer[0] != '.' ||
        !llvm::isDigit(producer[1]))
      break;
    producer = producer.drop_front();
  }
  if (parts.empty())
    return std::nullopt;
  return parts;
}

std::optional<std::string>
aimodel::audit::staleCompilerMessage(llvm::StringRef producer,
                                     llvm::StringRef floor) {
  std::optional<std::vector<uint64_t>> version = coreaiBuildVersion(producer);
  std::optional<std::vector<uint64_t>> minimum = coreaiBuildVersion(floor);
  if (!minimum)
    return std::nullopt;
  if (!version) {
    if (!producer.starts_with("coreai-build"))
      return std::nullopt; // another compiler: no floor known
    return llvm::formatv(
               "compiled by {0}: version not understood (expected "
               "coreai-build-<number>.<number>...), so it cannot "
               "be told newer than the floor {1}; check the "
               "compiler that wrote it",
               nlohmann::json(support::printableText(producer)).dump(), floor)
        .str();
  }
  // Versions compare part by part; a missing part counts as 0.
  std::vector<uint64_t> a = *version, b = *minimum;
  a.resize(std::max(a.size(), b.size()), 0);
  b.resize(a.size(), 0);
  if (!(a < b))
    return std::nullopt;
  return llvm::formatv(
             "compiled by {0}, older than {1}: bundles compiled by Xcode 27 "
             "beta 2 or earlier (older than {2}) are "
             "reported to fail to specialize on beta 3 and later (Apple "
             "radar 181264112, as quoted by john-rocky/coreai-model-zoo "
             "cli/DOCTOR_RULES.md AOTC-STALE-TOOLCHAIN); community-reported, "
             "not verified here",
             support::printableText(producer), floor, kDefaultCompilerFloor)
      .str();
}

std::string aimodel::audit::assetStem(llvm::StringRef name) {
  if (name.consume_back(".aimodelc"))
    return name.rsplit('.').first.str(); // X.<arch>
  name.consume_back(".aimodel");
  return name.str();
}

namespace {

/// A source candidate: a portable asset of the run.
struct Source {
  const bundle::FoundBundle *found;
  BundleReport *audited = nullptr; ///< its report, if this run audited it
  std::optional<std::string> mainHash;
};

/// main.hash of an asset this run did not audit (another shard's), as the
/// audit would record it.
std::optional<std::string> readMainHash(const bundle::FoundBundle &found) {
  if (found.entryType != bundle::DirEntry::Type::Directory)
    return std::nullopt;
  llvm::Expected<std::string> bytes = bundle::readSmallFile(
      bundle::joinPath(found.path, "main.hash"), /*maxBytes=*/4096);
  if (!bytes) {
    llvm::consumeError(bytes.takeError());
    return std::nullopt;
  }
  if (bytes->size() != 32)
    return std::nullopt;
  return llvm::toHex(*bytes, /*LowerCase=*/true);
}

/// sourceHash of a compiled bundle this run did not audit, read as the
/// audit reads metadata.json (strictly: what it refuses, AIM005, has none).
std::optional<std::string> readSourceHash(const bundle::FoundBundle &found) {
  if (found.entryType != bundle::DirEntry::Type::Directory)
    return std::nullopt;
  bundle::MetadataResult parsed =
      bundle::loadMetadata(bundle::joinPath(found.path, "metadata.json"));
  if (!parsed.object)
    return std::nullopt;
  return bundle::stringField(*parsed.object, "sourceHash");
}

llvm::StringRef folderOf(llvm::StringRef path) {
  return llvm::sys::path::parent_path(path, llvm::sys::path::Style::posix);
}

/// "a, b, c and 7 more": a few paths of a list that may be long.
std::string somePaths(const std::vector<const bundle::FoundBundle *> &found) {
  constexpr size_t kShown = 3;
  std::string text;
  for (size_t i = 0; i < found.size() && i < kShown; ++i)
    text += (i ? ", " : "") + support::printablePath(found[i]->path);
  if (found.size() > kShown)
    text += " and " + std::to_string(found.size() - kShown) + " more";
  return text;
}

/// The SHA-256 of a source's main.mlirb, lower-case hex: as its audit
/// computed it, else read now.
std::optional<std::string> computedHash(const Source &source) {
  if (source.audited && source.audited->computedHash)
    return source.audited->computedHash;
  if (source.found->entryType != bundle::DirEntry::Type::Directory)
    return std::nullopt;
  llvm::Expected<bundle::Sha256Digest> digest =
      bundle::sha256File(bundle::joinPath(source.found->path, "main.mlirb"));
  if (!digest) {
    llvm::consumeError(digest.takeError());
    return std::nullopt;
  }
  return bundle::toHex(*digest);
}

bool hasRule(const BundleReport &report, const Rule &rule) {
  return llvm::any_of(report.findings,
                      [&](const Finding &f) { return f.rule == &rule; });
}

Finding info(const Rule &rule, std::string message) {
  return Finding{&rule, rule.severity, std::move(message), ""};
}

} // namespace

void aimodel::audit::linkSources(AuditReport &report,
                                 const std::vector<bundle::FoundBundle> &all,
                                 const AuditOptions &options) {
  std::map<std::string, BundleReport *> audited;
  for (BundleReport &bundle : report.bundles)
    audited[bundle.path] = &bundle;
  // Every portable asset of the run, by identity and by stem; and every
  // compiled bundle with its sourceHash. The identity is the main.hash as
  // stored, read alike whoever audits the bundle (this run, another shard,
  // --metadata-only), so every shard links alike.
  std::vector<Source> sources;
  struct Compiled {
    const bundle::FoundBundle *found;
    BundleReport *audited = nullptr;
    std::optional<std::string> sourceHash;
  };
  std::vector<Compiled> compiled;
  // A source's identity only serves to link a compiled bundle: with none in
  // the run, no main.hash is read here.
  bool anyCompiled = llvm::any_of(all, [](const bundle::FoundBundle &found) {
    return found.kind == bundle::BundleKind::CompiledAsset;
  });
  for (const bundle::FoundBundle &found : all) {
    auto it = audited.find(found.path);
    BundleReport *report = it == audited.end() ? nullptr : it->second;
    // What this run's audit read, unless it did not read it (another
    // shard's bundle; main.hash under --metadata-only).
    if (found.kind == bundle::BundleKind::Asset)
      sources.push_back({&found, report,
                         report && !options.metadataOnly ? report->mainHash
                         : anyCompiled                   ? readMainHash(found)
                                                         : std::nullopt});
    else if (found.kind == bundle::BundleKind::CompiledAsset)
      compiled.push_back({&found, report,
                          report ? report->sourceHash : readSourceHash(found)});
  }
  // Candidates by (hash, stem) and by hash, in path order; by stem.
  std::map<std::pair<std::string, std::string>, std::vector<Source *>>
      byHashAndStem;
  std::map<std::string, std::vector<Source *>> byHash;
  std::map<std::string, std::vector<const bundle::FoundBundle *>> byStem;
  for (Source &source : sources) {
    std::string stem = assetStem(source.found->kindName());
    if (source.mainHash) {
      byHashAndStem[{*source.mainHash, stem}].push_back(&source);
      byHash[*source.mainHash].push_back(&source);
    }
    byStem[stem].push_back(source.found);
  }
  // Of several candidates (copies of one asset), the one beside the
  // compiled bundle, else the first by path.
  auto pick = [](const std::vector<Source *> &candidates,
                 llvm::StringRef folder) {
    for (Source *candidate : candidates)
      if (folderOf(candidate->found->path) == folder)
        return candidate;
    return candidates.front();
  };
  std::vector<Source *> linkOf(compiled.size(), nullptr);
  std::vector<size_t> unmatched;
  for (size_t i = 0; i < compiled.size(); ++i) {
    const Compiled &bundle = compiled[i];
    if (!bundle.sourceHash)
      continue;
    std::string stem = assetStem(bundle.found->kindName());
    std::string folder = folderOf(bundle.found->path).str();
    std::string hash = llvm::StringRef(*bundle.sourceHash).lower();
    if (auto it = byHashAndStem.find({hash, stem}); it != byHashAndStem.end())
      linkOf[i] = pick(it->second, folder);
    else if (auto any = byHash.find(hash); any != byHash.end())
      linkOf[i] = pick(any->second, folder);
    else
      unmatched.push_back(i);
  }
  // A sourceHash no stored main.hash matches may be the real SHA-256 of a
  // source whose main.hash is wrong (AIM003). Only then are the sources'
  // IR files hashed (by this run's audit where it did; read here else),
  // alike in every shard.
  std::vector<char> byComputedHash(compiled.size(), 0);
  if (!unmatched.empty() && !options.metadataOnly) {
    std::map<std::string, std::vector<Source *>> byComputed;
    for (Source &source : sources)
      if (std::optional<std::string> hash = computedHash(source))
        byComputed[*hash].push_back(&source);
    for (size_t i : unmatched) {
      std::string hash = llvm::StringRef(*compiled[i].sourceHash).lower();
      if (auto it = byComputed.find(hash); it != byComputed.end()) {
        linkOf[i] = pick(it->second, folderOf(compiled[i].found->path));
        byComputedHash[i] = 1;
      }
    }
  }

  // A linked source another shard audits is audited here, once and in
  // parallel like the run's own bundles, for what its audit says of it
  // (AIM002, AIM003).
  std::map<const Source *, size_t> auditedHere;
  std::vector<bundle::FoundBundle> toAudit;
  if (!options.metadataOnly)
    for (size_t i = 0; i < compiled.size(); ++i)
      if (compiled[i].audited && linkOf[i] && !linkOf[i]->audited &&
          auditedHere.try_emplace(linkOf[i], toAudit.size()).second)
        toAudit.push_back(*linkOf[i]->found);
  AuditOptions quiet = options;
  quiet.progress = nullptr;
  AuditReport sourceAudits = auditBundles(toAudit, quiet);
  auto reportOf = [&](const Source &source) -> const BundleReport * {
    if (source.audited)
      return source.audited;
    auto it = auditedHere.find(&source);
    return it == auditedHere.end() ? nullptr
                                   : &sourceAudits.bundles[it->second];
  };

  for (size_t i = 0; i < compiled.size(); ++i) {
    const Compiled &bundle = compiled[i];
    Source *linked = linkOf[i];
    std::string stem = assetStem(bundle.found->kindName());
    if (linked && linked->audited)
      linked->audited->compiled.push_back(bundle.found->path);
    if (!bundle.audited)
      continue; // another shard reports on it
    std::vector<Finding> &findings = bundle.audited->findings;
    std::string sourceName =
        support::printablePath(linked ? linked->found->path : std::string());
    if (linked) {
      bundle.audited->source = SourceLink{
          linked->found->path, byComputedHash[i] ? "main.mlirb" : "main.hash"};
      // What the source's own audit says of it.
      if (const BundleReport *source = reportOf(*linked)) {
        if (hasRule(*source, rules::LegacyDebugLocation))
          findings.push_back(
              info(rules::CompiledBundle,
                   "compiled from a legacy source: " + sourceName +
                       " has coreai-torch 0.4.0 call-stack locations (AIM002); "
                       "recompile from a stripped copy of it"));
        if (hasRule(*source, rules::HashMismatch))
          findings.push_back(info(
              rules::CompiledBundle,
              byComputedHash[i]
                  ? "linked by the SHA-256 of " + sourceName +
                        "'s main.mlirb, which its main.hash does not hold "
                        "(AIM003): the source's hash is wrong; `aimodel "
                        "strip --rehash` rewrites it"
                  : "linked by the main.hash of " + sourceName +
                        ", which is not the SHA-256 of its main.mlirb "
                        "(AIM003): the source changed since, or its hash is "
                        "wrong"));
      }
      continue;
    }
    auto sameStem = byStem.find(stem);
    if (sameStem != byStem.end()) {
      findings.push_back(info(
          rules::CompiledBundle,
          (bundle.sourceHash
               ? "sourceHash matches no main.hash of " +
                     somePaths(sameStem->second) +
                     "; what sourceHash covers is not known, so this is no "
                     "sign that the source changed"
               : "metadata.json has no sourceHash: " +
                     somePaths(sameStem->second) +
                     " may be its source, but nothing links them")));
      continue;
    }
    findings.push_back(info(
        rules::CompiledWithoutSource,
        "no source .aimodel in the audited paths (" +
            std::string(bundle.sourceHash
                            ? "none whose main.hash is its sourceHash, "
                            : "no sourceHash, ") +
            "none named " + stem +
            ".aimodel): strip cannot repair a compiled bundle; a fix needs "
            "the source and a recompile"));
  }
  // Findings keep their order and the counts follow them.
  for (BundleReport &bundle : report.bundles) {
    sortFindings(bundle.findings);
    std::sort(bundle.compiled.begin(), bundle.compiled.end());
  }
  recountSeverities(report);
}
