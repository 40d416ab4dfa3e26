//===- BundleChecks.cpp - Checks on one bundle directory ------------------===//
//
// What metadata and hashes can show about a bundle. The bundle's folder is
// opened once and every member is opened relative to it through the one
// no-follow open (support/SafeFile.h), so path length never matters and
// what was judged is what is read. Problems become findings; nothing here
// can fail the run, and nothing that cannot be read is skipped in silence.
//
//===----------------------------------------------------------------------===//

#include "audit/Audit.h"
#include "audit/IRChecks.h"
#include "audit/Provenance.h"
#include "audit/ReportFiles.h"
#include "audit/RuntimeContract.h"
#include "audit/Shard.h"
#include "audit/ThirdPartyFacts.h"

#include "bundle/Bundle.h"
#include "bundle/BundleFolder.h"
#include "bundle/FileReading.h"
#include "bundle/Metadata.h"
#include "bundle/StripRecord.h"
#include "mlir-passes/GraphTraps.h"
#include "mlir-passes/RuleRunner.h"
#include "support/GitLfsPointer.h"
#include "support/SafeFile.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <memory>
#include <set>
#include <thread>
#include <unordered_map>

#include <fcntl.h>
#include <unistd.h>

using namespace aimodel;
using namespace aimodel::audit;
using bundle::BundleKind;
using bundle::DirEntry;
using support::Symlinks;

namespace {

/// From this size on, hashing the mlirb and decoding it run side by side.
constexpr uint64_t kOverlapBytes = 16 << 20;
/// Below this size the mlirb is read once, hashed and decoded from the
/// same bytes: cheaper than a read to hash and a mapping to decode.
constexpr uint64_t kReadWholeBytes = 1 << 20;

/// The runtime-contract rules run, except in the baseline scripts/bench-audit
/// measures their cost against (a CMake option no shipped build sets).
#ifdef AIMODEL_BENCH_WITHOUT_RUNTIME_CONTRACT
constexpr bool kRuntimeContract = false;
#else
constexpr bool kRuntimeContract = true;
#endif

/// "permission denied", without the "cannot open: " an open puts first.
std::string reasonOf(const std::string &message) {
  llvm::StringRef text(message);
  if (!text.consume_front("cannot open: "))
    text.consume_front("cannot read directory: ");
  return text.str();
}

/// "main.mlirb is not a regular file", "main.mlirb cannot be read: ...".
std::string memberProblem(const std::string &name, llvm::Error error) {
  std::string message = llvm::toString(std::move(error));
  if (llvm::StringRef(message).starts_with("is "))
    return name + " " + message;
  return name + " cannot be read: " + reasonOf(message);
}

/// The git-LFS pointer `file` is, if it is one (read with pread: the
/// descriptor's offset is not moved).
std::optional<support::GitLfsPointer>
gitLfsPointer(const support::RegularFile &file) {
  if (file.size() > support::kGitLfsPointerMaxSize)
    return std::nullopt;
  char bytes[support::kGitLfsPointerMaxSize];
  ssize_t got = ::pread(file.fd.get(), bytes, file.size(), 0);
  if (got != ssize_t(file.size()))
    return std::nullopt;
  return support::parseGitLfsPointer(llvm::StringRef(bytes, file.size()));
}

llvm::Expected<bundle::Sha256Digest> sha256Of(llvm::StringRef bytes) {
  bundle::Sha256 hash;
  hash.update(bytes);
  return hash.finish();
}

/// "an array", "a string", ... for a JSON value in a message.
std::string jsonKindName(const nlohmann::json &value) {
  switch (value.type()) {
  case nlohmann::json::value_t::array:
    return "an array";
  case nlohmann::json::value_t::string:
    return "a string";
  case nlohmann::json::value_t::null:
    return "null";
  case nlohmann::json::value_t::boolean:
    return "a boolean";
  default:
    return "a number";
  }
}

/// A folder's listing with hashed lookups, read once however many asset
/// entries name it.
struct Listing {
  std::vector<DirEntry> entries;
  llvm::StringMap<size_t> byName;
  std::string error; ///< why the folder cannot be read, if it cannot
  /// For each X with a compiled "X.<...>.aimodelc" here: true when one is a
  /// real folder, false when all are symlinks. Built on first use.
  std::optional<llvm::StringMap<bool>> stems;

  explicit Listing(std::vector<DirEntry> listed) : entries(std::move(listed)) {
    for (size_t i = 0; i < entries.size(); ++i)
      byName[entries[i].name] = i;
  }
  const DirEntry *find(llvm::StringRef name) const {
    auto it = byName.find(name);
    return it == byName.end() ? nullptr : &entries[it->second];
  }
  const llvm::StringMap<bool> &compiledStems() {
    if (stems)
      return *stems;
    stems.emplace();
    for (const DirEntry &e : entries) {
      llvm::StringRef name(e.name);
      if ((e.type != DirEntry::Type::Directory &&
           e.type != DirEntry::Type::Symlink) ||
          !name.ends_with(".aimodelc") || !bundle::assetKindFromName(name))
        continue;
      // Every "X." the name starts with: "m.h18p.aimodelc" serves "m" and
      // "m.h18p". Names are short, so this stays linear in the listing.
      for (size_t dot = name.find('.'); dot != llvm::StringRef::npos;
           dot = name.find('.', dot + 1)) {
        auto [it, inserted] = stems->try_emplace(name.take_front(dot), false);
        it->second |= e.type == DirEntry::Type::Directory;
      }
    }
    return *stems;
  }
};

/// Collects the findings of one bundle.
class BundleAuditor {
public:
  BundleAuditor(const bundle::FoundBundle &found, const AuditOptions &options)
      : found(found), options(options) {
    report.path = found.path;
    report.kind = found.kind;
  }

  BundleReport run();

private:
  void add(const Rule &rule, std::string message, std::string file = "") {
    report.findings.push_back(
        {&rule, rule.severity, std::move(message), std::move(file)});
  }

  void scanAsset(const bundle::AssetLayout &layout);
  /// A regular member opened by the scan: its size, and what a compiled
  /// asset's delegates hold (graphs, MPSGraph manifests).
  void noteMember(const support::RegularFile &file, int folderFd,
                  const std::string &entryName, const std::string &name);
  void scanBundleDirSymlinks();
  void checkAsset();
  void checkBundleDir();
  std::optional<nlohmann::json> checkMetadata(const std::string &name);
  void checkAssetVersion(const nlohmann::json &metadata);
  /// `bytes`: the mlirb already read whole, if it was.
  void checkHash(const bundle::AssetLayout &layout,
                 std::optional<support::RegularFile> &ir,
                 const llvm::MemoryBuffer *bytes = nullptr);
  void checkUnexpected(const std::set<std::string> &known);
  /// AIM015 from a compiled bundle's stats.json.
  void checkStatsTraps();
  /// AIM016: the strip record against the IR as found.
  void checkStripRecord(const bundle::StripRecord &record,
                        const bundle::AssetLayout &layout);
  void checkAssetPath(const std::string &role, const std::string &relative,
                      unsigned repeats);
  Listing &listing(const std::string &folder);

  /// The runtime-contract rules, once the asset's own checks are done.
  void checkContract(const bundle::AssetLayout &layout);
  /// Whether a compiled X.<arch>.aimodelc sits beside this X.aimodel.
  bool compiledBeside() const;

  void checkIR(const bundle::AssetLayout &layout,
               std::optional<support::RegularFile> &ir,
               const std::string &compiledSummary);

  const bundle::FoundBundle &found;
  const AuditOptions &options;
  /// Delegate graphs (*.mpsgraph) met below a compiled asset.
  std::vector<std::string> delegates;
  /// What the runtime-contract rules read of the asset, gathered on the way.
  contract::AssetFacts facts;
  contract::Outcome contractOutcome;
  support::UniqueFd dir; ///< the bundle's folder: members open below it
  std::unique_ptr<Listing> top;
  /// Listings of folders below a bundle folder, by relative path.
  std::unordered_map<std::string, std::unique_ptr<Listing>> listings;
  BundleReport report;
};

} // namespace

BundleReport BundleAuditor::run() {
  if (found.entryType == DirEntry::Type::Symlink) {
    add(rules::Symlink,
        llvm::formatv("bundle is a symlink to '{0}'; not followed",
                      found.symlinkTarget));
    return std::move(report);
  }
  if (found.entryType != DirEntry::Type::Directory) {
    add(rules::MissingFile, "bundle path is not a directory");
    return std::move(report);
  }
  // Only a path the user named may be a symlink to follow.
  llvm::Expected<bundle::OpenedBundle> opened =
      bundle::openBundle(found, options.folders.get());
  if (!opened) {
    add(rules::MissingFile, "bundle directory cannot be read: " +
                                reasonOf(llvm::toString(opened.takeError())));
    return std::move(report);
  }
  dir = std::move(opened->fd);
  top = std::make_unique<Listing>(std::move(opened->entries));
  if (found.kind == BundleKind::BundleDir) {
    scanBundleDirSymlinks();
    checkBundleDir();
  } else {
    checkAsset();
  }
  for (Finding &finding : contractOutcome.findings)
    report.findings.push_back(std::move(finding));
  report.rulesRun = std::move(contractOutcome.ran);
  llvm::sort(report.rulesRun,
             [](const Rule *a, const Rule *b) { return a->id < b->id; });
  sortFindings(report.findings);
  // The run's tree digest reads the listing read here, not its own.
  report.treeRecord = treeRecord(found, dir.get(), top->entries);
  return std::move(report);
}

void BundleAuditor::scanAsset(const bundle::AssetLayout &layout) {
  // Members with checks of their own are opened (and reported) by those.
  std::set<std::string> checkedElsewhere{layout.metadata, layout.hash,
                                         layout.ir};
  std::vector<bundle::WalkError> unreadable = bundle::walkFolders(
      dir.get(),
      [&](int fd, const std::string &rel,
          const std::vector<DirEntry> &entries) {
        for (const DirEntry &e : entries) {
          std::string name = bundle::joinPath(rel, e.name);
          if (!layout.delegates.empty() &&
              llvm::StringRef(name).starts_with(layout.delegates + "/"))
            facts.delegateEntries.push_back(name);
          if (e.type == DirEntry::Type::Symlink)
            add(rules::Symlink,
                llvm::formatv("symlink to '{0}'; not followed",
                              e.symlinkTarget),
                name);
          else if (e.type == DirEntry::Type::File &&
                   !(rel.empty() && checkedElsewhere.count(e.name))) {
            if (llvm::Expected<support::RegularFile> file =
                    support::openRegularFile(fd, e.name, Symlinks::Refuse);
                !file)
              add(rules::MissingFile, memberProblem(name, file.takeError()),
                  name);
            else
              noteMember(*file, fd, e.name, name);
          }
        }
      },
      [](const DirEntry &) { return true; }, &top->entries);
  for (const bundle::WalkError &folder : unreadable) {
    add(rules::MissingFile, folder.name + " cannot be read: " + folder.reason,
        folder.name);
    if (!layout.delegates.empty() &&
        (folder.name == layout.delegates ||
         llvm::StringRef(folder.name).starts_with(layout.delegates + "/")))
      facts.delegatesListed = false;
  }
  // A delegates folder that is a symlink is AIM010's, and unread.
  if (const DirEntry *e = top->find(layout.delegates);
      !layout.delegates.empty() && e && e->type != DirEntry::Type::Directory)
    facts.delegatesListed = false;
}

void BundleAuditor::noteMember(const support::RegularFile &file, int folderFd,
                               const std::string &entryName,
                               const std::string &name) {
  facts.bytes += file.size();
  if (found.kind != BundleKind::CompiledAsset || !kRuntimeContract)
    return;
  llvm::StringRef base(entryName);
  if (base.ends_with(".mpsgraph"))
    delegates.push_back(name);
  else if (base == "manifest.plist")
    if (llvm::Expected<std::string> text =
            bundle::readSmallFile(folderFd, entryName, 16 << 20))
      for (std::string &hash : contract::aneRegionHashes(*text))
        facts.aneRegionHashes.push_back(std::move(hash));
    else
      llvm::consumeError(text.takeError()); // a plist, not a finding
}

void BundleAuditor::scanBundleDirSymlinks() {
  // A bundle folder holds whole assets, and may hold further bundle folders;
  // the walk audits each on its own, symlinks inside included. Everything
  // else below this folder is this folder's to report, at any depth. A
  // folder here that cannot be read is not reported again: the tree walk
  // meets it too, and fails the run naming it.
  std::set<std::string> nested;
  std::vector<bundle::WalkError> ignored = bundle::walkFolders(
      dir.get(),
      [&](int fd, const std::string &rel,
          const std::vector<DirEntry> &entries) {
        if (!rel.empty() && bundle::isBundleDir(fd, entries)) {
          nested.insert(rel);
          return;
        }
        for (const DirEntry &e : entries)
          // A link named like an asset is a bundle of its own (reported by
          // the walk as "bundle is a symlink"); reporting it here would
          // double it.
          if (e.type == DirEntry::Type::Symlink &&
              !bundle::assetKindFromName(e.name))
            add(rules::Symlink,
                llvm::formatv("symlink to '{0}'; not followed",
                              e.symlinkTarget),
                bundle::joinPath(rel, e.name));
      },
      [&](const DirEntry &folder) {
        llvm::StringRef name(folder.name);
        size_t slash = name.rfind('/');
        llvm::StringRef parent =
            slash == llvm::StringRef::npos ? "" : name.take_front(slash);
        return !bundle::assetKindFromName(name) && !nested.count(parent.str());
      },
      &top->entries);
  (void)ignored;
}

std::optional<nlohmann::json>
BundleAuditor::checkMetadata(const std::string &name) {
  const DirEntry *e = top->find(name);
  if (!e) {
    add(rules::MissingFile, name + " is missing", name);
    return std::nullopt;
  }
  if (e->type == DirEntry::Type::Symlink)
    return std::nullopt; // reported as AIM010
  bundle::MetadataResult parsed = bundle::loadMetadata(dir.get(), name);
  facts.bytes += parsed.text.size();
  if (!parsed.object) {
    add(rules::UnreadableMetadata,
        parsed.problem == bundle::MetadataProblem::Unreadable
            ? memberProblem(name, llvm::createStringError(parsed.message))
            : name + " " + parsed.message,
        name);
    return std::nullopt;
  }
  return std::move(parsed.object);
}

void BundleAuditor::checkAssetVersion(const nlohmann::json &metadata) {
  auto it = metadata.find("assetVersion");
  if (it == metadata.end())
    add(rules::UnknownAssetVersion, "metadata.json has no assetVersion",
        "metadata.json");
  else if (!it->is_string() || it->get<std::string>() != "2.0")
    add(rules::UnknownAssetVersion,
        "assetVersion is " +
            it->dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) +
            ", expected \"2.0\"",
        "metadata.json");
}

void BundleAuditor::checkHash(const bundle::AssetLayout &layout,
                              std::optional<support::RegularFile> &ir,
                              const llvm::MemoryBuffer *bytes) {
  const DirEntry *hashEntry = top->find(layout.hash);
  if (!hashEntry) {
    add(rules::HashMismatch, layout.hash + " is missing", layout.hash);
    return;
  }
  if (hashEntry->type == DirEntry::Type::Symlink)
    return; // reported as AIM010
  llvm::Expected<std::string> stored =
      bundle::readSmallFile(dir.get(), layout.hash, 4096);
  if (!stored) {
    add(rules::HashMismatch, memberProblem(layout.hash, stored.takeError()),
        layout.hash);
    return;
  }
  facts.bytes += stored->size();
  if (stored->size() == 32 && found.kind == BundleKind::Asset)
    report.mainHash = llvm::toHex(*stored, /*LowerCase=*/true);
  if (stored->size() != 32) {
    add(rules::HashMismatch,
        llvm::formatv("{0} is {1} bytes, expected 32 raw bytes of SHA-256",
                      layout.hash, stored->size()),
        layout.hash);
    return;
  }
  if (!ir)
    return; // nothing to compare against: reported as AIM004 / AIM010
  llvm::Expected<bundle::Sha256Digest> actual =
      bytes ? sha256Of(bytes->getBuffer()) : bundle::sha256File(*ir, layout.ir);
  if (!actual) {
    add(rules::MissingFile, memberProblem(layout.ir, actual.takeError()),
        layout.ir);
    return;
  }
  if (found.kind == BundleKind::Asset)
    report.computedHash = bundle::toHex(*actual);
  llvm::ArrayRef<uint8_t> storedBytes(
      reinterpret_cast<const uint8_t *>(stored->data()), stored->size());
  if (storedBytes == llvm::ArrayRef<uint8_t>(*actual))
    return;
  std::string message =
      llvm::formatv("{0} does not match {1}: it holds {2}, "
                    "the file's SHA-256 is {3}",
                    layout.hash, layout.ir, bundle::toHex(storedBytes),
                    bundle::toHex(*actual));
  // An unfetched git-LFS object: the hash is usually right, of the object
  // the pointer names. Say that, so nobody "fixes" the hash.
  if (std::optional<support::GitLfsPointer> pointer = gitLfsPointer(*ir)) {
    if (pointer->oidSha256 == bundle::toHex(storedBytes))
      message =
          llvm::formatv("{0} is the SHA-256 of the git-LFS object {1} "
                        "points to (its oid), not of the pointer file: "
                        "{2}",
                        layout.hash, layout.ir, support::kGitLfsFetchHint);
    else
      message += llvm::formatv("; {0} is {1}", layout.ir,
                               support::describeGitLfsPointer(*pointer));
  }
  add(rules::HashMismatch, message, layout.hash);
}

void BundleAuditor::checkStatsTraps() {
  // stats.json: the source's op distribution, Apple-written, by bare op
  // name ({"operationDistribution": [{"name": "floor", "count": 2}]}). It
  // may hold a trap count, so it is read exactly as strictly as
  // metadata.json (one reader): what cannot be read is a finding, never
  // silence. One without an operationDistribution says nothing here.
  const DirEntry *entry = top->find("stats.json");
  if (!entry || entry->type == DirEntry::Type::Symlink)
    return; // a symlink is reported as AIM010
  bundle::MetadataLimits limits;
  limits.maxBytes = 16 << 20; // an op per line of a large graph
  bundle::MetadataResult parsed =
      bundle::loadMetadata(dir.get(), "stats.json", limits);
  if (!parsed.object) {
    // A regular file that cannot be read is the member scan's AIM004.
    if (parsed.problem == bundle::MetadataProblem::Unreadable &&
        entry->type == DirEntry::Type::File)
      return;
    add(rules::UnreadableMetadata,
        parsed.problem == bundle::MetadataProblem::Unreadable
            ? memberProblem("stats.json",
                            llvm::createStringError(parsed.message))
            : "stats.json " + parsed.message +
                  ", so the trap counts it may "
                  "hold were not read",
        "stats.json");
    return;
  }
  const nlohmann::json &stats = *parsed.object;
  auto ops = stats.find("operationDistribution");
  if (ops == stats.end() || !ops->is_array())
    return;
  passes::GraphTrapRule rule;
  for (const nlohmann::json &op : *ops) {
    if (!op.is_object())
      continue;
    auto name = op.find("name"), count = op.find("count");
    if (name != op.end() && name->is_string() && count != op.end() &&
        count->is_number_unsigned())
      rule.visit(name->get<std::string>(), "", count->get<uint64_t>());
  }
  if (std::optional<passes::IRFinding> finding = rule.finish()) {
    add(rules::GraphTrap, finding->message, "stats.json");
    report.findings.back().ops = finding->ops;
  }
}

void BundleAuditor::checkUnexpected(const std::set<std::string> &known) {
  for (const DirEntry &e : top->entries) {
    if (known.count(e.name) || e.type == DirEntry::Type::Symlink)
      continue;
    add(rules::UnexpectedFile,
        llvm::formatv("unexpected {0} '{1}' in a .{2}",
                      e.type == DirEntry::Type::Directory ? "folder" : "file",
                      e.name, bundle::bundleKindName(found.kind)),
        e.name);
  }
}

void BundleAuditor::checkAsset() {
  bundle::AssetLayout layout =
      bundle::resolveAssetLayout(found.kind, found.kindName(), top->entries);
  // The mlirb is opened once: the open judges it (a FIFO is opened
  // non-blocking, then refused) and the hash reads that descriptor.
  std::optional<support::RegularFile> ir;
  const DirEntry *irEntry = layout.ir.empty() ? nullptr : top->find(layout.ir);
  if (layout.ir.empty())
    add(rules::MissingFile, layout.problem);
  else if (!irEntry)
    add(rules::MissingFile, layout.ir + " is missing", layout.ir);
  else if (irEntry->type != DirEntry::Type::Symlink) { // else AIM010
    llvm::Expected<support::RegularFile> opened =
        support::openRegularFile(dir.get(), layout.ir, Symlinks::Refuse);
    if (opened) {
      ir = std::move(*opened);
      facts.bytes += ir->size();
    } else
      add(rules::MissingFile, memberProblem(layout.ir, opened.takeError()),
          layout.ir);
  }

  std::string compiledSummary = "compiled asset";
  if (std::optional<nlohmann::json> metadata = checkMetadata(layout.metadata)) {
    checkAssetVersion(*metadata);
    auto producer = metadata->find("producer");
    bundle::ReadRecord record;
    if (found.kind == BundleKind::Asset) {
      record = bundle::readStripRecord(*metadata);
      report.stripRecord = record.record;
      if (record.problem)
        add(rules::StripRecordMismatch, "metadata.json: " + *record.problem,
            "metadata.json");
    }
    if (producer != metadata->end() && producer->is_string())
      report.producer = producer->get<std::string>();
    // A stripped copy is known by its record: no producer is expected of it
    // (its IR is checked as always, and checked against the record).
    else if (found.kind == BundleKind::Asset && !record.record)
      add(rules::MissingProducer,
          producer == metadata->end()
              ? "metadata.json has no producer: saved by coreai-core 1.0.0b1 "
                "(coreai-torch 0.4.0) or a tool that never sets it; check the "
                "IR for legacy debug locations"
              : "metadata.json producer is not a string",
          "metadata.json");
    std::optional<std::string> sourceHash =
        bundle::stringField(*metadata, "sourceHash");
    if (found.kind == BundleKind::CompiledAsset) {
      report.sourceHash = sourceHash;
      if (report.producer)
        if (std::optional<std::string> stale =
                staleCompilerMessage(*report.producer, options.compilerFloor))
          add(rules::StaleCompiler, *stale, "metadata.json");
    }
    compiledSummary = llvm::formatv(
        "compiled by {0}, from source {1}",
        report.producer ? *report.producer
                        : std::string("an unnamed compiler (no producer)"),
        sourceHash ? "hash " + *sourceHash
                   : std::string("of unknown hash (no sourceHash)"));
  }
  scanAsset(layout);
  checkIR(layout, ir, compiledSummary);
  if (found.kind == BundleKind::CompiledAsset)
    checkStatsTraps();
  if (report.stripRecord)
    checkStripRecord(*report.stripRecord, layout);
  checkContract(layout);

  std::set<std::string> known{layout.metadata, layout.hash};
  if (!layout.ir.empty())
    known.insert(layout.ir);
  known.insert(layout.optionalMembers.begin(), layout.optionalMembers.end());
  checkUnexpected(known);
}

void BundleAuditor::checkStripRecord(const bundle::StripRecord &record,
                                     const bundle::AssetLayout &layout) {
  std::string what =
      "metadata.json records a strip by " +
      (record.tool.empty() ? std::string("an unnamed tool") : record.tool);
  if (report.computedHash && *report.computedHash != record.to.sha256)
    add(rules::StripRecordMismatch,
        llvm::formatv("{0} that wrote a {1} of SHA-256 {2}; the {1} here is "
                      "{3}: changed since",
                      what, layout.ir, record.to.sha256, *report.computedHash),
        "metadata.json");
  bool payload = llvm::any_of(report.findings, [](const Finding &f) {
    return f.rule == &rules::LegacyDebugLocation ||
           f.rule == &rules::DebugPayload;
  });
  if (payload)
    add(rules::StripRecordMismatch,
        what + ", yet its IR holds debug payload (AIM002/AIM007 above)",
        "metadata.json");
}

/// The entry an asset path names, spelt one way: "a//./b" is "a/b". Paths
/// that leave the folder or name no entry are kept as written.
static std::string assetKey(llvm::StringRef relative) {
  llvm::SmallVector<llvm::StringRef, 4> parts;
  relative.split(parts, '/', -1, /*KeepEmpty=*/true);
  if (relative.starts_with("/") || llvm::is_contained(parts, "..") ||
      parts.back().empty() || parts.back() == ".")
    return relative.str();
  std::string key;
  for (llvm::StringRef part : parts)
    if (!part.empty() && part != ".")
      key += (key.empty() ? "" : "/") + part.str();
  return key;
}

void BundleAuditor::checkBundleDir() {
  std::optional<nlohmann::json> metadata = checkMetadata("metadata.json");
  if (!metadata)
    return;
  auto version = metadata->find("metadata_version");
  if (version == metadata->end() || !version->is_string() ||
      version->get<std::string>() != "0.2")
    add(rules::UnknownAssetVersion,
        "metadata_version is " +
            (version == metadata->end()
                 ? std::string("missing")
                 : version->dump(-1, ' ', false,
                                 nlohmann::json::error_handler_t::replace)) +
            ", expected \"0.2\"",
        "metadata.json");
  // A loader finds every asset through this object; without it nothing in
  // the folder can be checked against what the bundle says it holds.
  auto assets = metadata->find("assets");
  if (assets == metadata->end() || !assets->is_object()) {
    add(rules::UnreadableMetadata,
        assets == metadata->end()
            ? std::string("metadata.json has no \"assets\": a bundle folder "
                          "maps each role to its asset there")
            : "\"assets\" is " + jsonKindName(*assets) +
                  ", expected an object mapping each role to an asset path",
        "metadata.json");
    return;
  }
  // Entries naming the same path are checked, and reported, once (under the
  // first role): 45,000 entries must not mean 45,000 lookups or findings.
  struct Check {
    std::string role, relative;
    unsigned repeats = 0;
  };
  std::vector<Check> checks;
  std::unordered_map<std::string, size_t> byKey;
  for (auto &[role, value] : assets->items()) {
    if (!value.is_string()) {
      add(rules::MissingFile,
          llvm::formatv("asset '{0}' is not a relative path string", role),
          "metadata.json");
      continue;
    }
    std::string relative = value.get<std::string>();
    auto [it, inserted] = byKey.try_emplace(assetKey(relative), checks.size());
    if (inserted)
      checks.push_back({role, std::move(relative)});
    else
      ++checks[it->second].repeats;
  }
  for (const Check &check : checks)
    checkAssetPath(check.role, check.relative, check.repeats);
  if (kRuntimeContract)
    contract::checkBundleFolder(dir.get(), *metadata, top->entries,
                                contractOutcome);
}

void BundleAuditor::checkContract(const bundle::AssetLayout &layout) {
  if (!kRuntimeContract)
    return;
  facts.irFile = layout.ir;
  facts.arch = layout.arch;
  facts.delegatesFolder = layout.delegates;
  facts.compiledBeside = found.kind == BundleKind::Asset &&
                         facts.bytes >= facts::kLargeGraphBytes &&
                         compiledBeside();
  std::optional<contract::BundleContext> context =
      contract::bundleContext(found);
  contract::checkAsset(found, facts, context, contractOutcome);
}

bool BundleAuditor::compiledBeside() const {
  llvm::StringRef path(found.path);
  size_t slash = path.rfind('/');
  std::string parent = slash == llvm::StringRef::npos
                           ? "."
                           : path.take_front(slash ? slash : 1).str();
  llvm::Expected<std::vector<DirEntry>> listed = bundle::listDirectory(parent);
  if (!listed) {
    llvm::consumeError(listed.takeError());
    return false;
  }
  Listing listing(std::move(*listed));
  return listing.compiledStems().lookup(assetStem(found.kindName()));
}

Listing &BundleAuditor::listing(const std::string &folder) {
  if (folder.empty())
    return *top;
  std::unique_ptr<Listing> &cached = listings[folder];
  if (!cached) {
    llvm::Expected<support::UniqueFd> fd =
        support::openDirectory(dir.get(), folder, Symlinks::Refuse);
    llvm::Expected<std::vector<DirEntry>> listed =
        fd ? bundle::listDirectory(fd->get())
           : llvm::Expected<std::vector<DirEntry>>(fd.takeError());
    if (listed) {
      cached = std::make_unique<Listing>(std::move(*listed));
    } else {
      cached = std::make_unique<Listing>(std::vector<DirEntry>());
      cached->error = reasonOf(llvm::toString(listed.takeError()));
    }
  }
  return *cached;
}

void BundleAuditor::checkAssetPath(const std::string &role,
                                   const std::string &relative,
                                   unsigned repeats) {
  std::string alsoNamed =
      repeats == 0 ? ""
                   : llvm::formatv(" (and {0} more {1} naming it)", repeats,
                                   repeats == 1 ? "entry" : "entries")
                         .str();
  auto finding = [&](std::string message, std::string file) {
    add(rules::MissingFile, message + alsoNamed, std::move(file));
  };
  // Judged by components, so "model..v2.aimodel" is an ordinary name.
  llvm::SmallVector<llvm::StringRef, 4> parts;
  llvm::StringRef(relative).split(parts, '/', -1, /*KeepEmpty=*/true);
  if (llvm::StringRef(relative).starts_with("/") ||
      llvm::is_contained(parts, "..")) {
    finding(llvm::formatv("asset '{0}' path '{1}' leaves the bundle folder",
                          role, relative),
            "metadata.json");
    return;
  }
  llvm::StringRef last = parts.back();
  if (last.empty() || last == ".") { // "", ".", "sub/", "sub/."
    finding(llvm::formatv("asset '{0}' path '{1}' does not name an entry in "
                          "the bundle folder",
                          role, relative),
            "metadata.json");
    return;
  }
  // Each component is looked up in its folder's listing (lstat's view): a
  // symlink is never a present asset nor a folder to pass through. Symlinks
  // get no AIM004 here: each is reported as AIM010 already, by this folder,
  // by the asset holding it, or as a bundle of its own.
  auto notFound = [&] {
    finding(llvm::formatv("asset '{0}' not found at '{1}'", role, relative),
            relative);
  };
  auto unreadable = [&](const std::string &folder, const std::string &why) {
    finding(llvm::formatv("asset '{0}' at '{1}' cannot be checked: '{2}' "
                          "cannot be read: {3}",
                          role, relative, folder, why),
            relative);
  };
  std::string folder;
  for (llvm::StringRef part : llvm::ArrayRef(parts).drop_back()) {
    if (part.empty() || part == ".")
      continue;
    Listing &listed = listing(folder);
    if (!listed.error.empty())
      return unreadable(folder, listed.error);
    const DirEntry *e = listed.find(part);
    if (e && e->type == DirEntry::Type::Symlink)
      return;
    if (!e || e->type != DirEntry::Type::Directory)
      return notFound();
    folder = bundle::joinPath(folder, part);
  }
  Listing &listed = listing(folder);
  if (!listed.error.empty())
    return unreadable(folder, listed.error);
  if (const DirEntry *e = listed.find(last)) {
    if (e->type == DirEntry::Type::File || e->type == DirEntry::Type::Other)
      finding(
          llvm::formatv("asset '{0}' at '{1}' is not a folder", role, relative),
          relative);
    return;
  }
  // Apple's loader accepts a compiled X.<arch>.aimodelc for a declared
  // X.aimodel, so a folder holding only the compiled form is complete; one
  // reached only through symlinks is reported as AIM010 already.
  llvm::StringRef stem = last;
  if (!stem.consume_back(".aimodel"))
    return notFound();
  const llvm::StringMap<bool> &stems = listed.compiledStems();
  if (stems.find(stem) == stems.end())
    notFound();
}

void BundleAuditor::checkIR(const bundle::AssetLayout &layout,
                            std::optional<support::RegularFile> &ir,
                            const std::string &compiledSummary) {
  bool compiled = found.kind == BundleKind::CompiledAsset;
  std::vector<detail::IRFileVerdict> verdicts;
  if (!options.metadataOnly) {
    unsigned rules =
        passes::kLegacyDebugLocationRule | passes::kDebugPayloadRule |
        passes::kGraphTrapRule |
        (compiled ? 0u : unsigned(passes::kUnverifiedLocationRule));
    // A small mlirb is read once; if that read fails, the hash and the
    // decode below meet (and report) whatever stopped it.
    std::unique_ptr<llvm::MemoryBuffer> whole;
    if (ir && ir->size() < kReadWholeBytes && !options.forceImport) {
      llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>> read =
          bundle::readWholeFile(*ir, layout.ir);
      if (read)
        whole = std::move(*read);
      else
        llvm::consumeError(read.takeError());
    }
    // The hash reads the mlirb through its descriptor while the IR work
    // maps it: on a large asset the two overlap, and hashing is the floor.
    std::optional<support::RegularFile> forIR;
    if (ir && !whole)
      if (int copy = ::fcntl(ir->fd.get(), F_DUPFD_CLOEXEC, 0); copy >= 0)
        forIR = support::RegularFile{support::UniqueFd(copy), ir->state};
    std::optional<detail::IRFileVerdict> mlirb;
    auto decodeMlirb = [&] {
      if (forIR)
        mlirb = detail::checkIRFile(std::move(*forIR), layout.ir, rules,
                                    options, /*withGraphs=*/kRuntimeContract);
    };
    if (whole) {
      checkHash(layout, ir, whole.get());
      mlirb = detail::checkIRBytes(std::move(whole), layout.ir, rules,
                                   /*withGraphs=*/kRuntimeContract);
    } else if (ir && ir->size() >= kOverlapBytes) {
      std::thread worker(decodeMlirb);
      checkHash(layout, ir);
      worker.join();
    } else {
      checkHash(layout, ir);
      decodeMlirb();
    }
    if (mlirb) {
      facts.graphs = std::move(mlirb->graphs);
      verdicts.push_back(std::move(*mlirb));
    }
    for (const std::string &name : delegates) {
      llvm::Expected<support::RegularFile> file =
          support::openRegularFile(dir.get(), name, Symlinks::Refuse);
      if (!file) {
        add(rules::MissingFile, memberProblem(name, file.takeError()), name);
        continue;
      }
      verdicts.push_back(
          detail::checkIRFile(std::move(*file), name, rules, options));
    }
  }
  if (found.kind == BundleKind::BundleDir)
    return;
  for (Finding &finding :
       detail::irFindings(found.kind, verdicts, compiledSummary))
    report.findings.push_back(std::move(finding));
}

BundleReport aimodel::audit::auditBundle(const bundle::FoundBundle &bundle,
                                         const AuditOptions &options) {
  if (bundle.kind == BundleKind::IRFile)
    return detail::auditIRFile(bundle, options);
  return BundleAuditor(bundle, options).run();
}
