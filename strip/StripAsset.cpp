//===- StripAsset.cpp - One .aimodel, stripped ----------------------------===//

#include "strip/StripAsset.h"

#include "bundle/StripRecord.h"

#include "bundle/Metadata.h"
#include "strip/OutputTree.h"
#include "support/FileSystem.h"
#include "support/PathText.h"

#include <algorithm>
#include <cerrno>
#include <unistd.h>

using namespace aimodel;
using namespace aimodel::strip;
using bundle::DirEntry;
using support::printablePath;
using support::Symlinks;
using support::UniqueFd;

std::pair<llvm::StringRef, llvm::StringRef>
aimodel::strip::splitRel(llvm::StringRef rel) {
  auto [folder, base] = rel.rsplit('/');
  return base.empty() ? std::make_pair(llvm::StringRef(), folder)
                      : std::make_pair(folder, base);
}

llvm::Expected<UniqueFd> aimodel::strip::openBelow(int rootFd,
                                                   llvm::StringRef rel) {
  return support::openDirectory(rootFd, rel.empty() ? "." : rel,
                                Symlinks::Refuse);
}

llvm::Error
aimodel::strip::takeUnusableReason(llvm::Error error, const std::string &path,
                                   std::optional<std::string> &reason) {
  return llvm::handleErrors(std::move(error), [&](const UnusableInput &e) {
    // "<path>: <reason>" would say the path twice in "skipped <path>: ...".
    llvm::StringRef text(e.message);
    text.consume_front(printablePath(path) + ": ");
    reason = text.str();
  });
}

namespace {

/// Said of a defect strip leaves to the user: it writes no metadata.
constexpr const char *kNotRepaired =
    ": strip does not repair it; fix it or re-export the asset";

/// metadata.json is read by the audit's own reader (AIM005), so an asset
/// the audit would refuse is never stripped and "verified". Unreadable is an
/// UnusableInput error; refused sets `scan.skip`; accepted records its state
/// (it must not change until the copy is complete).
llvm::Error checkMetadata(int assetFd, const std::string &name,
                          const std::string &path, AssetScan &scan) {
  std::string shown = bundle::joinPath(path, name);
  llvm::Expected<std::optional<support::FileState>> before =
      support::stateAt(assetFd, name);
  bundle::MetadataResult parsed = bundle::loadMetadata(assetFd, name);
  if (!parsed.object && parsed.problem == bundle::MetadataProblem::Unreadable) {
    llvm::consumeError(before.takeError());
    return unusableInput(shown, llvm::createStringError(parsed.message));
  }
  if (!parsed.object) {
    llvm::consumeError(before.takeError());
    scan.skip = name + " " + parsed.message + kNotRepaired;
    return llvm::Error::success();
  }
  llvm::Expected<std::optional<support::FileState>> after =
      support::stateAt(assetFd, name);
  if (!before || !after || !*before || !*after || **before != **after) {
    llvm::consumeError(before.takeError());
    llvm::consumeError(after.takeError());
    return changedWhileStripped(path);
  }
  scan.metadataName = name;
  scan.metadataText = std::move(parsed.text);
  scan.metadataState = **after;
  return llvm::Error::success();
}

/// A record is written when this strip changed the asset: new IR bytes or
/// a new main.hash. A copy of an asset it left as it was keeps its
/// metadata.json byte for byte, and so keeps an earlier strip's record.
bool recordWanted(const TreeOptions &options, const AssetOutcome &outcome) {
  return options.record &&
         (outcome.result.outputSha256 != outcome.result.inputSha256 ||
          outcome.rehashed);
}

/// The copy's metadata.json: the source's text with the strip record.
llvm::Error writeRecordedMetadata(int assetFd, const AssetScan &scan, int outFd,
                                  const std::string &shown,
                                  const TreeOptions &options,
                                  const AssetOutcome &outcome) {
  bundle::StripRecord record;
  record.tool = "aimodel strip";
  record.version = options.toolVersion;
  record.date = bundle::recordDateNow();
  record.from = {outcome.result.bytesBefore, outcome.result.inputSha256};
  record.to = {outcome.result.bytesAfter, outcome.result.outputSha256};
  record.opLocations = outcome.result.opLocations;
  record.blockArgumentLocations = outcome.result.blockArgumentLocations;
  record.entries = outcome.result.entriesRemoved;
  record.strings = outcome.result.stringsRemoved;
  record.rehashed = outcome.rehashed;
  if (options.file.locations == LocationMode::OpId)
    record.locations = "op-id";
  llvm::Expected<std::string> text =
      bundle::withStripRecord(scan.metadataText, record);
  if (!text)
    return fileError(shown, text.takeError());
  llvm::Expected<support::RegularFile> source =
      support::openRegularFile(assetFd, scan.metadataName, Symlinks::Refuse);
  llvm::Expected<mode_t> mode =
      source ? permissionsOf(source->fd.get()) : source.takeError();
  if (!mode)
    return unusableInput(shown, mode.takeError());
  llvm::Expected<UniqueFd> file = createFile(outFd, scan.metadataName, *mode);
  if (!file)
    return fileError(shown, file.takeError());
  if (llvm::Error err = support::writeAll(file->get(), *text))
    return fileError(shown, std::move(err));
  return llvm::Error::success();
}

} // namespace

llvm::Expected<AssetScan> aimodel::strip::scanAsset(int assetFd,
                                                    llvm::StringRef kindName,
                                                    const std::string &path) {
  AssetScan scan;
  std::vector<bundle::WalkError> errors = bundle::forEachEntryBelow(
      assetFd, [&](const DirEntry &e) { scan.below.push_back(e); });
  if (!errors.empty())
    return unusableInput(bundle::joinPath(path, errors.front().name),
                         llvm::createStringError("cannot read directory: " +
                                                 errors.front().reason));
  for (const DirEntry &e : scan.below) {
    if (e.type == DirEntry::Type::Symlink) {
      scan.skip = "holds a symlink, " + printablePath(e.name) +
                  ": not followed or copied, so neither is the asset";
      return scan;
    }
    if (e.type == DirEntry::Type::Other) {
      scan.skip = "holds " + printablePath(e.name) +
                  ", which is not a regular file or folder";
      return scan;
    }
  }
  std::vector<DirEntry> top;
  for (const DirEntry &e : scan.below)
    if (!llvm::StringRef(e.name).contains('/'))
      top.push_back(e);
  bundle::AssetLayout layout =
      bundle::resolveAssetLayout(bundle::BundleKind::Asset, kindName, top);
  scan.ir = layout.ir;
  auto find = [&](const std::string &name) -> const DirEntry * {
    for (const DirEntry &e : top)
      if (e.name == name)
        return &e;
    return nullptr;
  };
  const DirEntry *ir = find(scan.ir);
  const DirEntry *hash = find(layout.hash);
  const DirEntry *metadata = find(layout.metadata);
  if (!ir)
    scan.skip = scan.ir + " is missing: nothing to strip";
  else if (ir->type != DirEntry::Type::File)
    scan.skip = scan.ir + " is not a regular file";
  else if (!metadata)
    scan.skip = layout.metadata + " is missing" + kNotRepaired;
  else if (metadata->type != DirEntry::Type::File)
    scan.skip = layout.metadata + " is not a regular file" + kNotRepaired;
  else if (hash && hash->type != DirEntry::Type::File)
    scan.skip = layout.hash + " is not a regular file";
  if (scan.skip)
    return scan;
  if (llvm::Error err = checkMetadata(assetFd, layout.metadata, path, scan))
    return err;
  if (scan.skip || !hash)
    return scan;
  // main.hash is read now: it is checked against the mlirb's SHA-256.
  llvm::Expected<support::RegularFile> file =
      support::openRegularFile(assetFd, layout.hash, Symlinks::Refuse);
  if (!file) {
    scan.skip = layout.hash + ": " + llvm::toString(file.takeError());
    return scan;
  }
  scan.hashState = file->state;
  llvm::Expected<std::string> bytes = support::readPrefix(*file, 4096);
  if (!bytes) {
    scan.skip = layout.hash + ": " + llvm::toString(bytes.takeError());
    return scan;
  }
  scan.hash = std::move(*bytes);
  return scan;
}

std::optional<std::string>
aimodel::strip::hashProblem(const std::optional<std::string> &hash,
                            const std::array<uint8_t, 32> &digest,
                            llvm::StringRef irName) {
  if (!hash)
    return std::string("main.hash is missing");
  if (hash->size() != digest.size())
    return "main.hash holds " + std::to_string(hash->size()) +
           " bytes, not the 32 of a SHA-256";
  if (!std::equal(digest.begin(), digest.end(),
                  reinterpret_cast<const uint8_t *>(hash->data())))
    return "main.hash is not the SHA-256 of " + irName.str();
  return std::nullopt;
}

llvm::Error aimodel::strip::stripAsset(int assetFd, const AssetScan &scan,
                                       int outFd, const TreeOptions &options,
                                       AssetOutcome &outcome,
                                       mode_t *outputMode) {
  std::string irPath = bundle::joinPath(outcome.input, scan.ir);
  std::string irOutPath = bundle::joinPath(outcome.output, scan.ir);
  llvm::Expected<support::RegularFile> ir =
      support::openRegularFile(assetFd, scan.ir, Symlinks::Refuse);
  if (!ir)
    return unusableInput(irPath, ir.takeError());
  outcome.irFile = scan.ir;
  auto isMember = [&](const DirEntry &e) {
    return e.type == DirEntry::Type::File && e.name != scan.ir &&
           e.name != "main.hash";
  };
  outcome.membersCopied =
      uint64_t(std::count_if(scan.below.begin(), scan.below.end(), isMember));

  UniqueFd irOut;
  if (outFd >= 0) {
    llvm::Expected<mode_t> mode = permissionsOf(ir->fd.get());
    if (!mode)
      return unusableInput(irPath, mode.takeError());
    llvm::Expected<UniqueFd> created = createFile(outFd, scan.ir, *mode);
    if (!created)
      return fileError(irOutPath, created.takeError());
    irOut = std::move(*created);
  }
  StripOptions withHash = options.file;
  withHash.hashInput = true; // main.hash is checked against it
  llvm::Expected<FileStripResult> result =
      stripFile(*ir, irPath, irOut ? irOut.get() : -1, irOutPath, withHash);
  if (!result)
    return result.takeError();
  outcome.result = std::move(*result);
  if (outcome.result.refused) {
    outcome.skipped = scan.ir + ": " + printablePath(*outcome.result.refused);
    return llvm::Error::success();
  }
  // No laundering: a hash that does not verify is not replaced by a good
  // one unless asked.
  if (std::optional<std::string> problem =
          hashProblem(scan.hash, outcome.result.inputDigest, scan.ir)) {
    if (!options.rehash) {
      outcome.needsRehash = true;
      outcome.skipped = *problem +
                        ": the asset is corrupt or was changed after it was "
                        "exported; not stripped (--rehash strips it and "
                        "writes a new hash)";
      return llvm::Error::success();
    }
    outcome.rehashed = *problem;
  }
  if (outFd < 0)
    return llvm::Error::success();
  if (!outcome.result.verified)
    return fileError(irOutPath, "verification failed: the written file was "
                                "not verified");

  // main.hash: the raw SHA-256 of the new mlirb as written, with the old
  // one's bits.
  mode_t hashMode = 0644;
  if (llvm::Expected<support::RegularFile> oldHash =
          support::openRegularFile(assetFd, "main.hash", Symlinks::Refuse)) {
    if (llvm::Expected<mode_t> mode = permissionsOf(oldHash->fd.get()))
      hashMode = *mode;
    else
      llvm::consumeError(mode.takeError());
  } else {
    llvm::consumeError(oldHash.takeError());
  }
  std::string hashPath = bundle::joinPath(outcome.output, "main.hash");
  llvm::Expected<UniqueFd> hash = createFile(outFd, "main.hash", hashMode);
  if (!hash)
    return fileError(hashPath, hash.takeError());
  const auto &digest = outcome.result.outputDigest;
  if (llvm::Error err = support::writeAll(
          hash->get(),
          llvm::StringRef(reinterpret_cast<const char *>(digest.data()),
                          digest.size())))
    return fileError(hashPath, std::move(err));

  // Every other member, byte for byte; folders in walk order (parents
  // first), their permission bits once filled (deepest first).
  std::vector<std::pair<std::string, mode_t>> folders;
  for (const DirEntry &e : scan.below) {
    std::string in = bundle::joinPath(outcome.input, e.name);
    std::string out = bundle::joinPath(outcome.output, e.name);
    if (e.type == DirEntry::Type::Directory) {
      auto [parent, base] = splitRel(e.name);
      llvm::Expected<UniqueFd> source = openBelow(assetFd, e.name);
      llvm::Expected<mode_t> mode =
          source ? permissionsOf(source->get()) : source.takeError();
      if (!mode)
        return fileError(in, mode.takeError());
      llvm::Expected<UniqueFd> target = openBelow(outFd, parent);
      llvm::Expected<UniqueFd> made =
          target ? makeFolder(target->get(), base) : target.takeError();
      if (!made)
        return fileError(out, made.takeError());
      folders.emplace_back(e.name, *mode);
    } else if (e.name == scan.metadataName &&
               (outcome.recorded = recordWanted(options, outcome))) {
      if (llvm::Error err = writeRecordedMetadata(assetFd, scan, outFd, out,
                                                  options, outcome))
        return err;
    } else if (isMember(e)) {
      llvm::Expected<uint64_t> copied =
          copyFile(assetFd, e.name, outFd, in, out);
      if (!copied)
        return copied.takeError();
    }
  }
  for (auto it = folders.rbegin(); it != folders.rend(); ++it)
    if (llvm::Error err = finishFolder(outFd, it->first, it->second))
      return fileError(bundle::joinPath(outcome.output, it->first),
                       std::move(err));
  llvm::Expected<mode_t> assetMode = permissionsOf(assetFd);
  if (!assetMode)
    return fileError(outcome.input, assetMode.takeError());
  if (outputMode)
    *outputMode = *assetMode;
  else if (llvm::Error err = finishFolder(outFd, "", *assetMode))
    return fileError(outcome.output, std::move(err));

  // The asset is as it was read: its mlirb is still the file stripped, and
  // main.hash did not change.
  llvm::Expected<std::optional<support::FileState>> irNow =
      support::stateAt(assetFd, scan.ir);
  llvm::Expected<support::FileState> irRead = support::stateOf(ir->fd.get());
  llvm::Expected<std::optional<support::FileState>> hashNow =
      support::stateAt(assetFd, "main.hash");
  llvm::Expected<std::optional<support::FileState>> metadataNow =
      support::stateAt(assetFd, "metadata.json");
  if (!irNow || !irRead || !hashNow || !metadataNow) {
    llvm::consumeError(irNow.takeError());
    llvm::consumeError(irRead.takeError());
    llvm::consumeError(hashNow.takeError());
    llvm::consumeError(metadataNow.takeError());
    return fileError(outcome.input, "cannot be examined again");
  }
  bool same = *irNow && (*irNow)->identity == irRead->identity &&
              bool(*hashNow) == bool(scan.hash) &&
              (!scan.hash || **hashNow == scan.hashState) && *metadataNow &&
              **metadataNow == scan.metadataState;
  if (!same)
    return changedWhileStripped(outcome.input);
  return llvm::Error::success();
}
