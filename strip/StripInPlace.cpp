//===- StripInPlace.cpp - `aimodel strip --in-place` ----------------------===//
//
// Each asset is repaired on its own, beside itself: its stripped copy is
// built in a temporary sibling (OutputTree.h), verified like any copy, and
// swapped with it in one rename (Linux: RENAME_EXCHANGE; the POSIX fallback
// moves the old asset aside into the temporary first, and a later run puts
// it back if a kill came between). So a kill at any moment leaves each
// asset whole, old or new, and a second run finishes the job: a stripped
// asset has nothing left to remove and is left as it is.
//
// --backup DIR keeps each original at DIR/<its path below PATH>, made of
// hard links before the swap (no data is copied, so DIR must be on PATH's
// file system and outside it); a backup that is already this asset's
// (the same files, by inode) is kept, so an interrupted run can repeat.
//
//===----------------------------------------------------------------------===//

#include "strip/StripTree.h"

#include "bundle/Bundle.h"
#include "bundle/TreeWalk.h"
#include "strip/LooseFile.h"
#include "strip/OutputTree.h"
#include "strip/StripAsset.h"
#include "strip/TreePlan.h"
#include "support/PathText.h"

#include "support/FileSystem.h"

#include "llvm/ADT/ScopeExit.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <algorithm>
#include <atomic>
#include <set>

#include <cerrno>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

using namespace aimodel;
using namespace aimodel::strip;
using bundle::DirEntry;
using support::printablePath;
using support::Symlinks;
using support::UniqueFd;

namespace {

std::string under(const std::string &root, llvm::StringRef rel) {
  return rel.empty() ? root : bundle::joinPath(root, rel);
}

bool changesNothing(const AssetOutcome &a) {
  const FileStripResult &r = a.result;
  return !a.rehashed && r.opLocations + r.blockArgumentLocations +
                                r.entriesRemoved + r.stringsRemoved ==
                            0;
}

/// Where originals go (--backup), checked once for a PATH.
struct BackupPlace {
  std::string root; ///< DIR as given
};

/// Whether the folder at `path` holds the asset's files themselves (hard
/// links of every file of `scan`, by device and inode).
bool isBackupOf(int assetFd, const AssetScan &scan, const std::string &path) {
  llvm::Expected<UniqueFd> backup =
      support::openDirectory(path, Symlinks::Refuse);
  if (!backup) {
    llvm::consumeError(backup.takeError());
    return false;
  }
  for (const DirEntry &e : scan.below) {
    if (e.type != DirEntry::Type::File)
      continue;
    struct stat a, b;
    if (::fstatat(assetFd, e.name.c_str(), &a, AT_SYMLINK_NOFOLLOW) != 0 ||
        ::fstatat(backup->get(), e.name.c_str(), &b, AT_SYMLINK_NOFOLLOW) !=
            0 ||
        a.st_dev != b.st_dev || a.st_ino != b.st_ino)
      return false;
  }
  return true;
}

/// Keeps the original asset at BACKUP/rel as hard links, published
/// atomically; sets `skip` when that place holds something else.
llvm::Error backUp(int assetFd, const AssetScan &scan, const BackupPlace &place,
                   llvm::StringRef rel, std::string &where,
                   std::optional<std::string> &skip) {
  where = bundle::joinPath(place.root, rel);
  if (std::error_code ec = llvm::sys::fs::create_directories(
          llvm::sys::path::parent_path(where)))
    return fileError(where, "cannot create its folder: " + ec.message());
  // Not the tree's guard: its identities go stale as old assets are
  // removed (a new backup folder may get a removed one's inode). The
  // backup place was checked to lie outside PATH before anything started.
  llvm::Expected<InputGuard> guard = InputGuard::foldersAbove(assetFd);
  if (!guard)
    return fileError(where, guard.takeError());
  {
    // An interrupted backup's temporaries go first, whatever happens next.
    llvm::Expected<UniqueFd> folder = support::openDirectory(
        llvm::sys::path::parent_path(where), Symlinks::Follow);
    llvm::Expected<OutputSlot> old =
        folder ? OutputSlot::replacing(folder->get(),
                                       llvm::sys::path::filename(where), where,
                                       *guard)
               : folder.takeError();
    if (!old)
      return fileError(where, old.takeError());
    std::vector<std::string> failures;
    old->removeStale(failures);
  }
  if (llvm::sys::fs::exists(where)) {
    if (isBackupOf(assetFd, scan, where))
      return llvm::Error::success(); // an interrupted run's: kept
    skip = "the backup " + printablePath(where) +
           " already exists and is not this asset; not replaced";
    return llvm::Error::success();
  }
  llvm::Expected<OutputSlot> slot =
      OutputSlot::prepare(where, *guard, /*force=*/false);
  if (!slot)
    return slot.takeError();
  llvm::Expected<UniqueFd> out = slot->createTempFolder();
  if (!out)
    return fileError(where, out.takeError());
  std::vector<std::pair<std::string, mode_t>> folders;
  for (const DirEntry &e : scan.below) {
    std::string shown = bundle::joinPath(where, e.name);
    if (e.type == DirEntry::Type::Directory) {
      auto [parent, base] = splitRel(e.name);
      llvm::Expected<UniqueFd> source = openBelow(assetFd, e.name);
      llvm::Expected<mode_t> mode =
          source ? permissionsOf(source->get()) : source.takeError();
      llvm::Expected<UniqueFd> target =
          mode ? openBelow(out->get(), parent) : mode.takeError();
      llvm::Expected<UniqueFd> made =
          target ? makeFolder(target->get(), base) : target.takeError();
      if (!made)
        return fileError(shown, made.takeError());
      folders.emplace_back(e.name, *mode);
    } else if (::linkat(assetFd, e.name.c_str(), out->get(), e.name.c_str(),
                        0) != 0) {
      return fileError(shown, support::ioError("cannot link", errno));
    }
  }
  for (auto it = folders.rbegin(); it != folders.rend(); ++it)
    if (llvm::Error err = finishFolder(out->get(), it->first, it->second))
      return fileError(bundle::joinPath(where, it->first), std::move(err));
  llvm::Expected<mode_t> mode = permissionsOf(assetFd);
  if (!mode)
    return fileError(where, mode.takeError());
  std::string warning;
  return slot->publish(warning, *mode);
}

/// True when the folder `name` in `parentFd` is no longer `assetFd`: another
/// run (or anything else) replaced the asset while it was read, so what
/// went missing in it is a change, not an unreadable asset.
static bool replacedMeanwhile(int parentFd, llvm::StringRef name, int assetFd) {
  struct stat held, now;
  if (::fstat(assetFd, &held) != 0)
    return false;
  if (::fstatat(parentFd, name.str().c_str(), &now, AT_SYMLINK_NOFOLLOW) != 0)
    return errno == ENOENT;
  return held.st_dev != now.st_dev || held.st_ino != now.st_ino;
}

/// Repairs the asset `rel` below `rootFd` (shown as `shown`).
llvm::Error repairAsset(int rootFd, uint64_t rootMount, llvm::StringRef rel,
                        const std::string &shown, const TreeOptions &options,
                        const BackupPlace *backup, AssetOutcome &outcome,
                        std::vector<std::string> &notes) {
  auto [parentRel, name] = splitRel(rel);
  llvm::Expected<UniqueFd> parent = openBelow(rootFd, parentRel);
  llvm::Expected<UniqueFd> asset =
      parent ? support::openDirectory(parent->get(), name, Symlinks::Refuse)
             : parent.takeError();
  if (!asset)
    return takeUnusableReason(unusableInput(shown, asset.takeError()), shown,
                              outcome.skipped);
  llvm::Expected<uint64_t> mount = support::mountOf(asset->get());
  if (!mount)
    return fileError(shown, mount.takeError());
  if (*mount != rootMount) {
    outcome.skipped = "on another mount than PATH: an in-place repair "
                      "never crosses a mount point";
    return llvm::Error::success();
  }
  llvm::Expected<AssetScan> scan = scanAsset(asset->get(), name, shown);
  if (!scan)
    if (llvm::Error err =
            takeUnusableReason(scan.takeError(), shown, outcome.skipped))
      return err;
  if (scan && scan->skip)
    outcome.skipped = *scan->skip;
  if (outcome.skipped && replacedMeanwhile(parent->get(), name, asset->get()))
    return changedWhileStripped(shown);
  if (outcome.skipped)
    return llvm::Error::success();
  llvm::Expected<InputGuard> guard = InputGuard::foldersAbove(parent->get());
  if (!guard)
    return fileError(shown, guard.takeError());
  llvm::Expected<OutputSlot> slot =
      OutputSlot::replacing(parent->get(), name, shown, *guard);
  if (!slot)
    return fileError(shown, slot.takeError());
  if (options.dryRun) {
    if (llvm::Error err = takeUnusableReason(
            stripAsset(asset->get(), *scan, -1, options, outcome), shown,
            outcome.skipped))
      return err;
    outcome.unchanged = !outcome.skipped && changesNothing(outcome);
    return llvm::Error::success();
  }
  std::vector<std::string> failures;
  for (const std::string &stale : slot->removeStale(failures))
    notes.push_back("removed " + printablePath(under(shown, "../" + stale)) +
                    ", left by an interrupted run");
  for (const std::string &failure : failures)
    notes.push_back("cannot remove a stale temporary: " + failure);
  llvm::Expected<UniqueFd> out = slot->createTempFolder();
  if (!out)
    return fileError(shown, out.takeError());
  mode_t folderMode = 0700;
  if (llvm::Error err =
          takeUnusableReason(stripAsset(asset->get(), *scan, out->get(),
                                        options, outcome, &folderMode),
                             shown, outcome.skipped))
    return err;
  if (outcome.skipped && replacedMeanwhile(parent->get(), name, asset->get())) {
    slot->discard();
    return changedWhileStripped(shown);
  }
  if (outcome.skipped || changesNothing(outcome)) {
    outcome.unchanged = !outcome.skipped;
    outcome.recorded = false;
    slot->discard();
    return llvm::Error::success();
  }
  if (backup) {
    std::string where;
    if (llvm::Error err =
            backUp(asset->get(), *scan, *backup, rel, where, outcome.skipped))
      return err;
    if (outcome.skipped) {
      slot->discard();
      return llvm::Error::success();
    }
    outcome.backup = where;
  }
  std::string warning;
  if (llvm::Error err = slot->publish(warning, folderMode))
    return err;
  if (!warning.empty())
    notes.push_back(warning);
  return llvm::Error::success();
}

/// Puts back, as the next repair of it would, every asset a killed swap
/// without RENAME_EXCHANGE (the POSIX fallback) left aside in one of its
/// temporaries (`temporaries`, paths below `rootFd`, shown under `path`):
/// a walk does not see a missing asset, so it is found by them. True when
/// one was put back.
bool restoreSetAside(int rootFd, const std::string &path,
                     const std::vector<std::string> &temporaries,
                     std::vector<std::string> &notes) {
  bool restored = false;
  std::set<std::string> tried;
  for (const std::string &rel : temporaries) {
    auto [parentRel, tempName] = splitRel(rel);
    std::optional<std::string> owner = temporaryOwner(tempName);
    std::string assetRel =
        owner ? bundle::joinPath(parentRel, *owner) : std::string();
    if (!owner || !tried.insert(assetRel).second)
      continue;
    llvm::Expected<UniqueFd> parent = openBelow(rootFd, parentRel);
    if (!parent) {
      llvm::consumeError(parent.takeError());
      continue;
    }
    auto present = [&] {
      struct stat st;
      return ::fstatat(parent->get(), owner->c_str(), &st,
                       AT_SYMLINK_NOFOLLOW) == 0 ||
             errno != ENOENT;
    };
    if (present())
      continue; // its own repair cleans up after it
    llvm::Expected<InputGuard> guard = InputGuard::foldersAbove(parent->get());
    std::string shown = under(path, assetRel);
    llvm::Expected<OutputSlot> slot =
        guard ? OutputSlot::replacing(parent->get(), *owner, shown, *guard)
              : guard.takeError();
    if (!slot) {
      notes.push_back("cannot put back " + printablePath(shown) + ": " +
                      llvm::toString(slot.takeError()));
      continue;
    }
    std::vector<std::string> failures;
    for (const std::string &stale : slot->removeStale(failures))
      notes.push_back("removed " + printablePath(under(shown, "../" + stale)) +
                      ", left by an interrupted run");
    for (const std::string &failure : failures)
      notes.push_back("cannot remove a stale temporary: " + failure);
    restored |= present();
  }
  return restored;
}

/// The strip temporaries of the asset `name` in the open folder `parentFd`.
std::vector<std::string> temporariesOf(int parentFd, llvm::StringRef name) {
  std::vector<std::string> found;
  llvm::Expected<std::vector<DirEntry>> entries =
      bundle::listDirectory(parentFd);
  if (!entries) {
    llvm::consumeError(entries.takeError());
    return found;
  }
  for (const DirEntry &e : *entries)
    if (temporaryOwner(e.name) == name.str())
      found.push_back(e.name);
  return found;
}

} // namespace

llvm::Expected<StripReport>
aimodel::strip::stripInPlace(const std::string &path,
                             const TreeOptions &options) {
  StripReport report;
  report.input = report.output = path;
  report.inPlace = true;
  report.dryRun = options.dryRun;
  report.locations = options.file.locations;
  // An asset named as PATH that a killed swap left aside is put back
  // first, from its folder.
  std::string named = llvm::StringRef(path).rtrim('/').str();
  if (struct stat st; !options.dryRun && ::lstat(named.c_str(), &st) != 0 &&
                      errno == ENOENT &&
                      bundle::assetKindFromName(bundle::baseName(named))) {
    std::string folder = llvm::sys::path::parent_path(named).str();
    if (llvm::Expected<UniqueFd> parent = support::openDirectory(
            folder.empty() ? "." : folder, Symlinks::Follow)) {
      std::string name = bundle::baseName(named).str();
      restoreSetAside(parent->get(), folder.empty() ? "." : folder,
                      temporariesOf(parent->get(), name), report.notes);
    } else {
      llvm::consumeError(parent.takeError());
    }
  }
  llvm::Expected<RootFolder> root =
      openRootFolder(path, "--in-place repairs an .aimodel or a folder");
  if (!root)
    return root.takeError();
  UniqueFd *pathFd = &root->fd;
  const std::string &kindName = root->kindName;
  std::optional<bundle::BundleKind> kind = root->kind;
  llvm::Expected<uint64_t> rootMount = support::mountOf(pathFd->get());
  if (!rootMount)
    return fileError(path, rootMount.takeError());

  // A PATH that is one asset is repaired from its folder; a tree from PATH.
  UniqueFd rootFd;
  TreePlan plan;
  if (kind) {
    report.mode = StripReport::Mode::Asset;
    // Its name is what is swapped: a symlink's would be the link's.
    struct stat st;
    if (::lstat(llvm::StringRef(path).rtrim('/').str().c_str(), &st) == 0 &&
        S_ISLNK(st.st_mode))
      return fileError(path, "is a symlink: --in-place never follows one; "
                             "name the asset itself");
    llvm::Expected<UniqueFd> above = support::openParentFolder(pathFd->get());
    llvm::Expected<UniqueFd> readable =
        above ? support::openDirectory(above->get(), ".", Symlinks::Refuse)
              : above.takeError();
    if (!readable)
      return fileError(path, readable.takeError());
    rootFd = std::move(*readable);
    plan.work.push_back({Item::Asset, kindName});
  } else {
    llvm::Expected<TreePlan> walked = planTree(pathFd->get(), path);
    if (walked && !options.dryRun &&
        restoreSetAside(pathFd->get(), path, walked->temporaries, report.notes))
      walked = planTree(pathFd->get(), path); // with what was put back
    if (!walked)
      return walked.takeError();
    plan = std::move(*walked);
    rootFd = std::move(*pathFd);
  }

  std::optional<InputGuard> treeGuard;
  std::optional<BackupPlace> backup;
  if (!options.backup.empty()) {
    llvm::Expected<InputGuard> guard = InputGuard::of(rootFd.get(), path);
    if (!guard)
      return guard.takeError();
    treeGuard = std::move(*guard);
    // Checked where DIR is, or would be made, before anything is made:
    // never a folder in the input tree, not even an empty one.
    std::string existing = options.backup;
    while (!llvm::sys::fs::exists(existing) &&
           llvm::sys::path::has_parent_path(existing))
      existing = llvm::sys::path::parent_path(existing).str();
    if (!llvm::sys::fs::exists(existing))
      existing = "."; // a relative DIR whose first folder is not there yet
    llvm::Expected<UniqueFd> dir =
        support::openDirectory(existing, Symlinks::Follow);
    if (!dir)
      return fileError(existing, dir.takeError());
    llvm::Expected<support::FileIdentity> id = support::identityOf(dir->get());
    if (!id)
      return fileError(options.backup, id.takeError());
    if (treeGuard->holdsFolder(*id))
      return fileError(options.backup,
                       "is inside " + printablePath(path) +
                           ": the originals would be audited and repaired "
                           "as part of the tree; keep them elsewhere");
    // Hard links cross neither file systems nor mounts (bind mounts of one
    // file system included).
    llvm::Expected<uint64_t> backupMount = support::mountOf(dir->get());
    llvm::Expected<uint64_t> treeMount = support::mountOf(rootFd.get());
    if (!backupMount || !treeMount) {
      llvm::consumeError(backupMount.takeError());
      llvm::consumeError(treeMount.takeError());
    }
    if (id->device != treeGuard->source().device ||
        (backupMount && treeMount && *backupMount != *treeMount))
      return fileError(options.backup,
                       "is on another file system or mount than " +
                           printablePath(path) +
                           ": backups are hard links of the originals");
    if (std::error_code ec = llvm::sys::fs::create_directories(options.backup))
      return fileError(options.backup, "cannot create: " + ec.message());
    backup = BackupPlace{options.backup};
  }

  const std::vector<Item> &work = plan.work;
  std::vector<AssetOutcome> outcomes(work.size());
  std::vector<std::optional<std::string>> fileSkips(work.size());
  std::vector<std::vector<std::string>> notes(work.size());
  std::atomic<size_t> assetsDone{0};
  size_t totalAssets =
      size_t(std::count_if(work.begin(), work.end(), [](const Item &i) {
        return i.kind == Item::Asset;
      }));
  auto job = [&](size_t i) -> llvm::Error {
    const Item &item = work[i];
    std::string shown = kind ? path : under(path, item.rel);
    if (item.kind == Item::File) {
      // IR outside any asset is not replaced in place: it belongs to no
      // asset the swap keeps whole. What carries payload is said.
      llvm::Expected<LooseFileOutcome> seen = copyOrStripLooseFile(
          rootFd.get(), item.rel, -1, shown, shown, options.file);
      if (!seen)
        return takeUnusableReason(seen.takeError(), shown, fileSkips[i]);
      if (seen->kind == LooseFileOutcome::Kind::Stripped)
        fileSkips[i] = "MLIR bytecode outside any asset, with debug payload: "
                       "not repaired in place (`aimodel strip --file " +
                       support::shellArgument(shown) +
                       " -o NEW` makes a "
                       "stripped copy)";
      else if (seen->kind == LooseFileOutcome::Kind::Skipped)
        fileSkips[i] = seen->reason;
      return llvm::Error::success();
    }
    if (item.kind != Item::Asset)
      return llvm::Error::success();
    AssetOutcome &outcome = outcomes[i];
    llvm::scope_exit done([&] {
      if (options.progress)
        options.progress(++assetsDone, totalAssets);
    });
    if (!beginAsset(item, shown, shown, outcome))
      return llvm::Error::success();
    return repairAsset(rootFd.get(), *rootMount, item.rel, shown, options,
                       backup ? &*backup : nullptr, outcome, notes[i]);
  };
  std::vector<std::string> errors;
  runJobs(work.size(), options.jobs, job, errors);
  for (std::vector<std::string> &some : notes)
    report.notes.insert(report.notes.end(), some.begin(), some.end());
  if (llvm::Error err = firstError(errors))
    return err;
  for (size_t i = 0; i < work.size(); ++i) {
    if (work[i].kind == Item::Asset) {
      report.written |=
          !outcomes[i].skipped && !outcomes[i].unchanged && !options.dryRun;
      report.assets.push_back(std::move(outcomes[i]));
    } else if (work[i].kind == Item::File && fileSkips[i]) {
      report.skipped.push_back({under(path, work[i].rel), *fileSkips[i]});
    } else if (work[i].kind == Item::Skip &&
               bundle::assetKindFromName(bundle::baseName(work[i].rel))) {
      // Other symlinks and FIFOs are left as they are: nothing to repair.
      report.skipped.push_back({under(path, work[i].rel), work[i].reason});
    }
  }
  return report;
}
