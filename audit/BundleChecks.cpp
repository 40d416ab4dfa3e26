//===- BundleChecks.cpp - Checks on one bundle directory ------------------===//
//
// What metadata and hashes can show about a bundle. Each check reads what it
// needs through bundle/ (never following symlinks) and turns problems into
// findings; nothing here can fail the run.
//
//===----------------------------------------------------------------------===//

#include "audit/Audit.h"

#include "bundle/Bundle.h"
#include "bundle/FileReading.h"
#include "bundle/Metadata.h"

#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <map>
#include <set>

using namespace aimodel;
using namespace aimodel::audit;
using bundle::BundleKind;
using bundle::DirEntry;

namespace {

/// Collects the findings of one bundle.
class BundleAuditor {
public:
  BundleAuditor(const bundle::FoundBundle &found) : found(found) {
    report.path = found.path;
    report.kind = found.kind;
  }

  BundleReport run();

private:
  void add(const Rule &rule, std::string message, std::string file = "") {
    report.findings.push_back(
        {&rule, rule.severity, std::move(message), std::move(file)});
  }

  const DirEntry *entry(llvm::StringRef name) const {
    for (const DirEntry &e : entries)
      if (e.name == name)
        return &e;
    return nullptr;
  }

  std::string member(llvm::StringRef name) const {
    return bundle::joinPath(found.path, name);
  }

  void checkSymlinks();
  void checkAsset();
  void checkBundleDir();
  std::optional<nlohmann::json> checkMetadata(const std::string &name);
  void checkAssetVersion(const nlohmann::json &metadata);
  void checkHash(const bundle::AssetLayout &layout);
  void checkUnexpected(const std::set<std::string> &known);
  void checkAssetPath(const std::string &role, const std::string &relative);
  const std::vector<DirEntry> *listing(const std::string &folder);

  const bundle::FoundBundle &found;
  std::vector<DirEntry> entries;
  /// Listings of folders below a bundle folder, by relative path, so each
  /// is read once however many assets it holds (read per asset, 3000 assets
  /// took seconds).
  std::map<std::string, std::optional<std::vector<DirEntry>>> listings;
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
  llvm::Expected<std::vector<DirEntry>> listed =
      bundle::listDirectory(found.path);
  if (!listed) {
    add(rules::MissingFile, "bundle directory cannot be read: " +
                                llvm::toString(listed.takeError()));
    return std::move(report);
  }
  entries = std::move(*listed);
  checkSymlinks();
  if (found.kind == BundleKind::BundleDir)
    checkBundleDir();
  else
    checkAsset();
  std::stable_sort(report.findings.begin(), report.findings.end(),
                   [](const Finding &a, const Finding &b) {
                     return std::tie(a.rule->id, a.file, a.message) <
                            std::tie(b.rule->id, b.file, b.message);
                   });
  return std::move(report);
}

void BundleAuditor::checkSymlinks() {
  if (found.kind != BundleKind::BundleDir) {
    for (const DirEntry &link : bundle::findSymlinksBelow(found.path))
      add(rules::Symlink,
          llvm::formatv("symlink to '{0}'; not followed", link.symlinkTarget),
          link.name);
    return;
  }
  // A bundle folder holds whole assets, and may hold further bundle folders;
  // the walk audits each on its own, symlinks inside included. Everything
  // else below this folder is this folder's to report, at any depth.
  auto ownsInside = [&](const DirEntry &dir) {
    if (bundle::assetKindFromName(dir.name))
      return false;
    std::string path = member(dir.name);
    llvm::Expected<std::vector<DirEntry>> listed = bundle::listDirectory(path);
    if (!listed) {
      llvm::consumeError(listed.takeError());
      return true; // unreadable: nothing will be found inside anyway
    }
    return !bundle::isBundleDir(path, *listed);
  };
  for (const DirEntry &link : bundle::findSymlinksBelow(found.path, ownsInside))
    // A link named like an asset is a bundle of its own (reported by the
    // walk as "bundle is a symlink"); reporting it here too would double it.
    if (!bundle::assetKindFromName(link.name))
      add(rules::Symlink,
          llvm::formatv("symlink to '{0}'; not followed", link.symlinkTarget),
          link.name);
}

std::optional<nlohmann::json>
BundleAuditor::checkMetadata(const std::string &name) {
  const DirEntry *e = entry(name);
  if (!e) {
    add(rules::MissingFile, name + " is missing", name);
    return std::nullopt;
  }
  if (e->type == DirEntry::Type::Symlink)
    return std::nullopt; // reported as AIM010
  bundle::MetadataResult parsed = bundle::loadMetadata(member(name));
  if (!parsed.object) {
    add(rules::UnreadableMetadata, name + " " + parsed.message, name);
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

void BundleAuditor::checkHash(const bundle::AssetLayout &layout) {
  const DirEntry *hashEntry = entry(layout.hash);
  const DirEntry *irEntry = layout.ir.empty() ? nullptr : entry(layout.ir);
  if (!hashEntry) {
    add(rules::HashMismatch, layout.hash + " is missing", layout.hash);
    return;
  }
  if (hashEntry->type == DirEntry::Type::Symlink)
    return; // reported as AIM010
  llvm::Expected<std::string> stored =
      bundle::readSmallFile(member(layout.hash), 4096);
  if (!stored) {
    add(rules::HashMismatch,
        layout.hash + " " + llvm::toString(stored.takeError()), layout.hash);
    return;
  }
  if (stored->size() != 32) {
    add(rules::HashMismatch,
        llvm::formatv("{0} is {1} bytes, expected 32 raw bytes of SHA-256",
                      layout.hash, stored->size()),
        layout.hash);
    return;
  }
  if (!irEntry || irEntry->type != DirEntry::Type::File)
    return; // nothing to compare against: reported as AIM004 / AIM010
  llvm::Expected<bundle::Sha256Digest> actual =
      bundle::sha256File(member(layout.ir));
  if (!actual) {
    add(rules::MissingFile,
        layout.ir + " " + llvm::toString(actual.takeError()), layout.ir);
    return;
  }
  llvm::ArrayRef<uint8_t> storedBytes(
      reinterpret_cast<const uint8_t *>(stored->data()), stored->size());
  if (storedBytes != llvm::ArrayRef<uint8_t>(*actual))
    add(rules::HashMismatch,
        llvm::formatv("{0} does not match {1}: it holds {2}, the file's "
                      "SHA-256 is {3}",
                      layout.hash, layout.ir, bundle::toHex(storedBytes),
                      bundle::toHex(*actual)),
        layout.hash);
}

void BundleAuditor::checkUnexpected(const std::set<std::string> &known) {
  for (const DirEntry &e : entries) {
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
      bundle::resolveAssetLayout(found.kind, found.kindName(), entries);
  if (layout.ir.empty())
    add(rules::MissingFile, layout.problem);
  else if (!entry(layout.ir))
    add(rules::MissingFile, layout.ir + " is missing", layout.ir);
  else if (const DirEntry *ir = entry(layout.ir);
           ir->type != DirEntry::Type::File &&
           ir->type != DirEntry::Type::Symlink)
    add(rules::MissingFile, layout.ir + " is not a regular file", layout.ir);

  if (std::optional<nlohmann::json> metadata = checkMetadata(layout.metadata)) {
    checkAssetVersion(*metadata);
    auto producer = metadata->find("producer");
    if (producer != metadata->end() && producer->is_string())
      report.producer = producer->get<std::string>();
    else if (found.kind == BundleKind::Asset)
      add(rules::MissingProducer,
          producer == metadata->end()
              ? "metadata.json has no producer: saved by coreai-core 1.0.0b1 "
                "(coreai-torch 0.4.0) or a tool that never sets it; check the "
                "IR for legacy debug locations"
              : "metadata.json producer is not a string",
          "metadata.json");
  }
  checkHash(layout);

  std::set<std::string> known{layout.metadata, layout.hash};
  if (!layout.ir.empty())
    known.insert(layout.ir);
  known.insert(layout.optionalMembers.begin(), layout.optionalMembers.end());
  checkUnexpected(known);
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
  auto assets = metadata->find("assets");
  if (assets == metadata->end() || !assets->is_object())
    return;
  for (auto &[role, value] : assets->items()) {
    if (!value.is_string())
      add(rules::MissingFile,
          llvm::formatv("asset '{0}' is not a relative path string", role),
          "metadata.json");
    else
      checkAssetPath(role, value.get<std::string>());
  }
}

const std::vector<DirEntry> *BundleAuditor::listing(const std::string &folder) {
  if (folder.empty())
    return &entries;
  auto [it, inserted] = listings.try_emplace(folder);
  if (inserted) {
    llvm::Expected<std::vector<DirEntry>> listed =
        bundle::listDirectory(member(folder));
    if (listed)
      it->second = std::move(*listed);
    else
      llvm::consumeError(listed.takeError()); // stays nullopt: unreadable
  }
  return it->second ? &*it->second : nullptr;
}

/// The entry called `name` in a listing sorted by name, if any.
static const DirEntry *findEntry(const std::vector<DirEntry> &listing,
                                 llvm::StringRef name) {
  auto it = std::lower_bound(
      listing.begin(), listing.end(), name,
      [](const DirEntry &e, llvm::StringRef n) { return e.name < n; });
  return it != listing.end() && it->name == name ? &*it : nullptr;
}

void BundleAuditor::checkAssetPath(const std::string &role,
                                   const std::string &relative) {
  // Judged by components, so "model..v2.aimodel" is an ordinary name.
  llvm::SmallVector<llvm::StringRef, 4> parts;
  llvm::StringRef(relative).split(parts, '/', -1, /*KeepEmpty=*/true);
  if (llvm::StringRef(relative).starts_with("/") ||
      llvm::is_contained(parts, "..")) {
    add(rules::MissingFile,
        llvm::formatv("asset '{0}' path '{1}' leaves the bundle folder", role,
                      relative),
        "metadata.json");
    return;
  }
  llvm::StringRef last = parts.back();
  if (last.empty() || last == ".") { // "", ".", "sub/", "sub/."
    add(rules::MissingFile,
        llvm::formatv("asset '{0}' path '{1}' does not name an entry in the "
                      "bundle folder",
                      role, relative),
        "metadata.json");
    return;
  }
  // Each component is looked up in its folder's listing (lstat's view): a
  // symlink is never a present asset nor a folder to pass through. Symlinks
  // get no AIM004 here: each is reported as AIM010 already, by this folder,
  // by the asset holding it, or as a bundle of its own.
  auto notFound = [&] {
    add(rules::MissingFile,
        llvm::formatv("asset '{0}' not found at '{1}'", role, relative),
        relative);
  };
  std::string folder;
  for (llvm::StringRef part : llvm::ArrayRef(parts).drop_back()) {
    if (part.empty() || part == ".")
      continue;
    const std::vector<DirEntry> *listed = listing(folder);
    const DirEntry *e = listed ? findEntry(*listed, part) : nullptr;
    if (e && e->type == DirEntry::Type::Symlink)
      return;
    if (!e || e->type != DirEntry::Type::Directory)
      return notFound();
    folder = bundle::joinPath(folder, part);
  }
  const std::vector<DirEntry> *listed = listing(folder);
  if (!listed)
    return notFound();
  if (const DirEntry *e = findEntry(*listed, last)) {
    if (e->type == DirEntry::Type::File || e->type == DirEntry::Type::Other)
      add(rules::MissingFile,
          llvm::formatv("asset '{0}' at '{1}' is not a folder", role, relative),
          relative);
    return;
  }
  // Apple's loader accepts a compiled X.<arch>.aimodelc for a declared
  // X.aimodel, so a folder holding only the compiled form is complete. The
  // listing is sorted: candidates sit together from "X." on.
  llvm::StringRef stem = last;
  if (!stem.consume_back(".aimodel"))
    return notFound();
  std::string prefix = (stem + ".").str();
  bool linked = false;
  for (auto it = std::lower_bound(
           listed->begin(), listed->end(), prefix,
           [](const DirEntry &e, const std::string &p) { return e.name < p; });
       it != listed->end() && llvm::StringRef(it->name).starts_with(prefix);
       ++it) {
    if (!bundle::assetKindFromName(it->name) ||
        !llvm::StringRef(it->name).ends_with(".aimodelc"))
      continue;
    if (it->type == DirEntry::Type::Directory)
      return;
    linked |= it->type == DirEntry::Type::Symlink;
  }
  if (!linked)
    notFound();
}

BundleReport aimodel::audit::auditBundle(const bundle::FoundBundle &bundle) {
  return BundleAuditor(bundle).run();
}
