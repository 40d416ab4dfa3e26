//===- Provenance.cpp - Which compiled bundle came from which source ------===//

#include "audit/Provenance.h"

#include "audit/ReportFiles.h"
#include "bundle/Bundle.h"
#include "bundle/FileReading.h"
#include "bundle/Metadata.h"
#include "support/PathText.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <map>

using namespace aimodel;
using namespace aimodel::audit;

std::optional<std::vector<uint64_t>>
aimodel::audit::coreaiBuildVersion(llvm::StringRef producer) {
  if (!producer.consume_front("coreai-build-") || producer.empty())
    return std::nullopt;
  std::vector<uint64_t> parts;
  while (!producer.empty()) {
    auto [part, rest] = producer.split('.');
    uint64_t value = 0;
    if (part.empty() || !llvm::all_of(part, llvm::isDigit) ||
        part.getAsInteger(10, value))
      return std::nullopt;
    parts.push_back(value);
    if (rest.empty() && producer.ends_with("."))
      return std::nullopt; // "3600."
    producer = rest;
  }
  return parts;
}

std::optional<std::string>
aimodel::audit::staleCompilerMessage(llvm::StringRef producer,
                                     llvm::StringRef floor) {
  std::optional<std::vector<uint64_t>> version = coreaiBuildVersion(producer);
  std::optional<std::vector<uint64_t>> minimum = coreaiBuildVersion(floor);
  // Versions compare part by part; a missing part counts as 0.
  if (!version || !minimum)
    return std::nullopt;
  std::vector<uint64_t> a = *version, b = *minimum;
  a.resize(std::max(a.size(), b.size()), 0);
  b.resize(a.size(), 0);
  if (!(a < b))
    return std::nullopt;
  return llvm::formatv(
             "compiled by {0}, older than {1}: reported to fail to specialize "
             "on Xcode 27 beta 3 and later (Apple radar 181264112, as quoted "
             "by john-rocky/coreai-model-zoo cli/DOCTOR_RULES.md "
             "AOTC-STALE-TOOLCHAIN); community-reported, not verified here",
             support::printableText(producer), floor)
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

/// sourceHash of a compiled bundle this run did not audit.
std::optional<std::string> readSourceHash(const bundle::FoundBundle &found) {
  if (found.entryType != bundle::DirEntry::Type::Directory)
    return std::nullopt;
  llvm::Expected<std::string> text = bundle::readSmallFile(
      bundle::joinPath(found.path, "metadata.json"), /*maxBytes=*/1 << 20);
  if (!text) {
    llvm::consumeError(text.takeError());
    return std::nullopt;
  }
  nlohmann::json metadata = nlohmann::json::parse(*text, nullptr, false);
  if (!metadata.is_object())
    return std::nullopt;
  return bundle::stringField(metadata, "sourceHash");
}

bool hasLegacyLocations(const BundleReport &report) {
  return llvm::any_of(report.findings, [](const Finding &f) {
    return f.rule == &rules::LegacyDebugLocation;
  });
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
  // compiled bundle with its sourceHash. Bundles another shard audits are
  // read here (a main.hash, a metadata.json), so every shard links alike.
  std::vector<Source> sources;
  struct Compiled {
    const bundle::FoundBundle *found;
    BundleReport *audited = nullptr;
    std::optional<std::string> sourceHash;
  };
  std::vector<Compiled> compiled;
  for (const bundle::FoundBundle &found : all) {
    auto it = audited.find(found.path);
    BundleReport *report = it == audited.end() ? nullptr : it->second;
    if (found.kind == bundle::BundleKind::Asset)
      sources.push_back(
          {&found, report, report ? report->mainHash : readMainHash(found)});
    else if (found.kind == bundle::BundleKind::CompiledAsset)
      compiled.push_back({&found, report,
                          report ? report->sourceHash : readSourceHash(found)});
  }
  // By hash: the first source by path, and the one of each stem (copies
  // of one asset share a hash; a tree may hold thousands).
  std::map<std::string, Source *> byHash;
  std::map<std::pair<std::string, std::string>, Source *> byHashAndStem;
  std::multimap<std::string, Source *> byStem;
  for (Source &source : sources) {
    std::string stem = assetStem(source.found->kindName());
    if (source.mainHash) {
      byHash.try_emplace(*source.mainHash, &source);
      byHashAndStem.try_emplace({*source.mainHash, stem}, &source);
    }
    byStem.emplace(stem, &source);
  }

  for (const Compiled &bundle : compiled) {
    std::string stem = assetStem(bundle.found->kindName());
    Source *linked = nullptr;
    if (bundle.sourceHash) {
      // Several sources with one hash (copies): the one of the same stem,
      // else the first by path.
      std::string hash = llvm::StringRef(*bundle.sourceHash).lower();
      if (auto it = byHashAndStem.find({hash, stem});
          it != byHashAndStem.end())
        linked = it->second;
      else if (auto first = byHash.find(hash); first != byHash.end())
        linked = first->second;
    }
    if (linked && linked->audited)
      linked->audited->compiled.push_back(bundle.found->path);
    if (!bundle.audited)
      continue; // another shard reports on it
    std::vector<Finding> &findings = bundle.audited->findings;
    if (linked) {
      bundle.audited->source = SourceLink{linked->found->path, "main.hash"};
      // Whether the source carries 0.4.0 locations: its audit says so; a
      // source another shard audits is audited here for it.
      bool legacy = false;
      if (linked->audited)
        legacy = hasLegacyLocations(*linked->audited);
      else if (!options.metadataOnly)
        legacy = hasLegacyLocations(auditBundle(*linked->found, options));
      if (legacy)
        findings.push_back(
            info(rules::CompiledBundle,
                 "compiled from a legacy source: " +
                     support::printablePath(linked->found->path) +
                     " has coreai-torch 0.4.0 call-stack locations (AIM002); "
                     "recompile from a stripped copy of it"));
      continue;
    }
    auto [first, last] = byStem.equal_range(stem);
    if (first != last) {
      std::string names;
      for (auto it = first; it != last; ++it)
        names += (names.empty() ? "" : ", ") +
                 support::printablePath(it->second->found->path);
      findings.push_back(
          info(rules::CompiledBundle,
               "sourceHash matches no hash of " + names +
                   "; what sourceHash covers is not known, so this is no sign "
                   "that the source changed"));
      continue;
    }
    findings.push_back(info(
        rules::CompiledWithoutSource,
        "no source .aimodel in the audited paths (none whose main.hash is "
        "its sourceHash, none named " +
            stem +
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
