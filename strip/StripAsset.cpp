//===- StripAsset.cpp - One .aimodel, stripped ----------------------------===//

#include "strip/StripAsset.h"

#include "strip/OutputTree.h"
#include "support/PathText.h"

#include <algorithm>

using namespace aimodel;
using namespace aimodel::strip;
using bundle::DirEntry;
using support::printablePath;
using support::Symlinks;
using support::UniqueFd;

llvm::Error aimodel::strip::fileError(const std::string &path,
                                      llvm::Error error) {
  return llvm::createStringError(printablePath(path) + ": " +
                                 llvm::toString(std::move(error)));
}

llvm::Error aimodel::strip::fileError(const std::string &path,
                                      const llvm::Twine &message) {
  return llvm::createStringError(printablePath(path) + ": " + message);
}

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

llvm::Expected<AssetScan> aimodel::strip::scanAsset(int assetFd,
                                                    llvm::StringRef kindName,
                                                    const std::string &path) {
  AssetScan scan;
  std::vector<bundle::WalkError> errors = bundle::forEachEntryBelow(
      assetFd, [&](const DirEntry &e) { scan.below.push_back(e); });
  if (!errors.empty())
    return fileError(bundle::joinPath(path, errors.front().name),
                     "cannot read directory: " + errors.front().reason);
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
  if (!ir)
    scan.skip = scan.ir + " is missing: nothing to strip";
  else if (ir->type != DirEntry::Type::File)
    scan.skip = scan.ir + " is not a regular file";
  else if (const DirEntry *hash = find(layout.hash);
           hash && hash->type != DirEntry::Type::File)
    scan.skip = layout.hash + " is not a regular file";
  return scan;
}

llvm::Error aimodel::strip::stripAsset(int assetFd, const AssetScan &scan,
                                       int outFd, const StripOptions &options,
                                       AssetOutcome &outcome) {
  std::string irPath = bundle::joinPath(outcome.input, scan.ir);
  llvm::Expected<support::RegularFile> ir =
      support::openRegularFile(assetFd, scan.ir, Symlinks::Refuse);
  if (!ir)
    return fileError(irPath, ir.takeError());
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
    llvm::Expected<UniqueFd> created =
        mode ? createFile(outFd, scan.ir, *mode) : mode.takeError();
    if (!created)
      return fileError(bundle::joinPath(outcome.output, scan.ir),
                       created.takeError());
    irOut = std::move(*created);
  }
  llvm::Expected<FileStripResult> result =
      stripFile(*ir, irPath, irOut ? irOut.get() : -1, options);
  if (!result)
    return fileError(irPath, result.takeError());
  outcome.result = std::move(*result);
  if (outcome.result.refused) {
    outcome.skipped = scan.ir + ": " + printablePath(*outcome.result.refused);
    return llvm::Error::success();
  }
  if (outFd < 0)
    return llvm::Error::success();
  if (!outcome.result.verified)
    return fileError(irPath, "verification failed: the written file was "
                             "not verified");

  // main.hash: the raw SHA-256 of the new mlirb, with the old one's bits.
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
    if (e.type == DirEntry::Type::Directory) {
      auto [parent, base] = splitRel(e.name);
      llvm::Expected<UniqueFd> source = openBelow(assetFd, e.name);
      llvm::Expected<mode_t> mode =
          source ? permissionsOf(source->get()) : source.takeError();
      if (!mode)
        return fileError(bundle::joinPath(outcome.input, e.name),
                         mode.takeError());
      llvm::Expected<UniqueFd> target = openBelow(outFd, parent);
      llvm::Expected<UniqueFd> made =
          target ? makeFolder(target->get(), base) : target.takeError();
      if (!made)
        return fileError(bundle::joinPath(outcome.output, e.name),
                         made.takeError());
      folders.emplace_back(e.name, *mode);
    } else if (isMember(e)) {
      llvm::Expected<uint64_t> copied = copyFile(assetFd, e.name, outFd);
      if (!copied)
        return fileError(bundle::joinPath(outcome.input, e.name),
                         copied.takeError());
    }
  }
  for (auto it = folders.rbegin(); it != folders.rend(); ++it)
    if (llvm::Error err = finishFolder(outFd, it->first, it->second))
      return fileError(bundle::joinPath(outcome.output, it->first),
                       std::move(err));
  llvm::Expected<mode_t> assetMode = permissionsOf(assetFd);
  if (!assetMode)
    return fileError(outcome.input, assetMode.takeError());
  if (llvm::Error err = finishFolder(outFd, "", *assetMode))
    return fileError(outcome.output, std::move(err));
  return llvm::Error::success();
}
