//===- OutputTree.cpp - Where `aimodel strip` writes, and how -------------===//

#include "strip/OutputTree.h"

#include "bundle/Bundle.h"
#include "support/PathText.h"

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <ctime>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

using namespace aimodel;
using namespace aimodel::strip;
using support::printablePath;
using support::UniqueFd;

namespace {

llvm::Error failure(int errorNumber, const llvm::Twine &message) {
  return llvm::createStringError(
      std::error_code(errorNumber, std::generic_category()), message);
}

llvm::Error ioFailure(const char *what, int errorNumber) {
  return support::ioError(what, errorNumber);
}

int errnoOf(llvm::Error error) {
  return llvm::errorToErrorCode(std::move(error)).value();
}

/// Adds `dirFd` and every folder above it to `out`, climbing "..".
llvm::Error addFoldersAbove(int dirFd, std::set<FileIdentity> &out) {
  UniqueFd current(::fcntl(dirFd, F_DUPFD_CLOEXEC, 0));
  if (!current)
    return ioFailure("cannot duplicate a descriptor", errno);
  while (true) {
    llvm::Expected<FileIdentity> here = support::identityOf(current.get());
    if (!here)
      return here.takeError();
    out.insert(*here);
    llvm::Expected<UniqueFd> parent = support::openParentFolder(current.get());
    if (!parent) {
      // A folder above that cannot be opened cannot be entered by a
      // removal either: the climb ends there.
      llvm::consumeError(parent.takeError());
      return llvm::Error::success();
    }
    llvm::Expected<FileIdentity> up = support::identityOf(parent->get());
    if (!up)
      return up.takeError();
    if (*up == *here)
      return llvm::Error::success(); // the root
    current = std::move(*parent);
  }
}

/// The folder a regular file really sits in: that of its canonical path
/// when that still names the file, else that of the path as given.
llvm::Expected<UniqueFd> folderOfFile(const std::string &path,
                                      const FileIdentity &file) {
  char resolved[PATH_MAX];
  if (::realpath(path.c_str(), resolved)) {
    llvm::StringRef real(resolved);
    auto [folder, base] = real.rsplit('/');
    llvm::Expected<UniqueFd> fd = support::openDirectory(
        folder.empty() ? "/" : folder, support::Symlinks::Follow);
    if (fd) {
      llvm::Expected<std::optional<support::FileState>> state =
          support::stateAt(fd->get(), base);
      if (state && *state && (*state)->identity == file)
        return std::move(*fd);
      if (!state)
        llvm::consumeError(state.takeError());
    } else {
      llvm::consumeError(fd.takeError());
    }
  }
  llvm::StringRef given(path);
  size_t slash = given.rfind('/');
  std::string folder = slash == llvm::StringRef::npos ? "."
                       : slash == 0 ? "/"
                                    : given.take_front(slash).str();
  return support::openDirectory(folder, support::Symlinks::Follow);
}

} // namespace

char UnusableInput::ID = 0;

llvm::Error aimodel::strip::fileError(const std::string &path,
                                      llvm::Error error) {
  std::error_code code;
  std::string text;
  bool unusable = false;
  llvm::handleAllErrors(std::move(error), [&](const llvm::ErrorInfoBase &e) {
    code = e.convertToErrorCode();
    unusable |= e.isA<UnusableInput>();
    text += (text.empty() ? "" : "; ") + e.message();
  });
  std::string message = printablePath(path) + ": " + text;
  if (unusable)
    return llvm::make_error<UnusableInput>(std::move(message));
  return llvm::createStringError(code, message);
}

llvm::Error aimodel::strip::fileError(const std::string &path,
                                      const llvm::Twine &message) {
  return llvm::createStringError(printablePath(path) + ": " + message);
}

llvm::Error aimodel::strip::changedWhileStripped(const std::string &path) {
  return fileError(path, failure(EAGAIN, "changed while it was stripped (an "
                                         "exporter still writing it?); "
                                         "nothing written"));
}

llvm::Error aimodel::strip::unusableInput(const std::string &path,
                                          llvm::Error error) {
  return llvm::make_error<UnusableInput>(printablePath(path) + ": " +
                                         llvm::toString(std::move(error)));
}

namespace {

/// "x" + "/" + "y", for messages.
std::string joined(const std::string &rel, llvm::StringRef name) {
  return rel.empty() ? name.str() : rel + "/" + name.str();
}

/// removeTree's walk; with `dryRun`, only the checks. A refusal by the
/// guard is EPERM (the input) or EXDEV (a mount), `*blockedAt` then naming
/// the entry.
llvm::Error removeEntry(int dirFd, const std::string &name,
                        const RemovalGuard &guard, bool dryRun,
                        const std::string &shown,
                        std::string *blockedAt = nullptr) {
  auto blocked = [&](int code, const llvm::Twine &why) {
    if (blockedAt)
      *blockedAt = shown;
    return failure(code, printablePath(shown) + ": " + why);
  };
  llvm::Expected<std::optional<support::FileState>> state =
      support::stateAt(dirFd, name);
  if (!state)
    return failure(errnoOf(state.takeError()),
                   printablePath(shown) + ": cannot stat");
  if (!*state)
    return llvm::Error::success();
  const FileIdentity identity = (*state)->identity;
  if (guard.input && guard.input->isProtected(identity))
    return blocked(EPERM, "is the input or holds it; not removed");
  if (!S_ISDIR((*state)->mode)) {
    // A file bind-mounted here belongs to another mount: not ours to unlink.
    llvm::Expected<uint64_t> mount = support::mountAt(dirFd, name);
    if (!mount)
      return mount.takeError();
    if (*mount != guard.mount)
      return blocked(EXDEV, "is a mount point; nothing across it is removed");
    if (!dryRun && ::unlinkat(dirFd, name.c_str(), 0) != 0 && errno != ENOENT)
      return failure(errno, printablePath(shown) + ": cannot remove: " +
                                support::errnoReason(errno));
    return llvm::Error::success();
  }
  int flags = O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC;
  UniqueFd folder(::openat(dirFd, name.c_str(), flags));
  if (!folder && errno == EACCES && !dryRun) {
    // A folder of ours made read-only: give it back its owner's rights.
    ::fchmodat(dirFd, name.c_str(), 0700, 0);
    folder.reset(::openat(dirFd, name.c_str(), flags));
  }
  if (!folder) {
    if (errno == ENOENT)
      return llvm::Error::success();
    return failure(errno, printablePath(shown) +
                              ": cannot open: " + support::errnoReason(errno));
  }
  llvm::Expected<FileIdentity> opened = support::identityOf(folder.get());
  if (!opened)
    return opened.takeError();
  if (*opened != identity || (guard.input && guard.input->isProtected(*opened)))
    return blocked(EPERM, "changed while it was removed; not removed");
  llvm::Expected<uint64_t> mount = support::mountOf(folder.get());
  if (!mount)
    return mount.takeError();
  if (*mount != guard.mount)
    return blocked(EXDEV, "is a mount point; nothing across it is removed");
  if (!dryRun)
    ::fchmod(folder.get(), 0700); // entries of a read-only folder stay put
  llvm::Expected<std::vector<bundle::DirEntry>> entries =
      bundle::listDirectory(folder.get());
  if (!entries)
    return failure(errnoOf(entries.takeError()),
                   printablePath(shown) + ": cannot read directory");
  for (const bundle::DirEntry &entry : *entries)
    if (llvm::Error err = removeEntry(folder.get(), entry.name, guard, dryRun,
                                      joined(shown, entry.name), blockedAt))
      return err;
  if (!dryRun && ::unlinkat(dirFd, name.c_str(), AT_REMOVEDIR) != 0 &&
      errno != ENOENT)
    return failure(errno, printablePath(shown) + ": cannot remove: " +
                              support::errnoReason(errno));
  return llvm::Error::success();
}

/// The temporary names of DST: the prefix, then 16 random hex digits. Long
/// names are cut so the temporary still fits in NAME_MAX.
std::string tempPrefix(llvm::StringRef name) {
  return ("." + name.take_front(200) + ".aimodel-strip-").str();
}
constexpr unsigned kRandomBytes = 8;
/// Made in every temporary right after its folder is locked: one without
/// it was left between the two, and is empty.
constexpr const char *kMarkerName = ".aimodel-strip";
constexpr const char *kOutputName = "out";
/// Where the POSIX swap puts the old DST while the output takes its place.
constexpr const char *kAsideName = "old";

bool isTempName(llvm::StringRef name, llvm::StringRef prefix) {
  return name.consume_front(prefix) && name.size() == 2 * kRandomBytes &&
         llvm::all_of(name, [](char c) {
           return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
         });
}

} // namespace

bool aimodel::strip::isStripTemporaryName(llvm::StringRef name) {
  size_t at = name.rfind(".aimodel-strip-");
  return name.starts_with(".") && at != llvm::StringRef::npos && at > 0 &&
         isTempName(name, name.take_front(at + 15));
}

std::optional<std::string>
aimodel::strip::temporaryOwner(llvm::StringRef name) {
  if (!isStripTemporaryName(name))
    return std::nullopt;
  llvm::StringRef owner =
      name.drop_front().take_front(name.rfind(".aimodel-strip-") - 1);
  if (owner.size() >= 200 || owner.empty())
    return std::nullopt;
  return owner.str();
}

//===----------------------------------------------------------------------===//
// InputGuard
//===----------------------------------------------------------------------===//

llvm::Expected<InputGuard> InputGuard::of(int sourceFd,
                                          const std::string &path) {
  InputGuard guard;
  struct stat st;
  if (::fstat(sourceFd, &st) != 0)
    return ioFailure("cannot stat the input", errno);
  guard.self = {uint64_t(st.st_dev), uint64_t(st.st_ino)};
  guard.below.insert(guard.self);
  if (!S_ISDIR(st.st_mode)) {
    llvm::Expected<UniqueFd> folder = folderOfFile(path, guard.self);
    if (!folder)
      return folder.takeError();
    if (llvm::Error err = addFoldersAbove(folder->get(), guard.above))
      return err;
    return guard;
  }
  if (llvm::Error err = addFoldersAbove(sourceFd, guard.above))
    return err;
  std::vector<bundle::WalkError> errors =
      bundle::forEachEntryBelow(sourceFd, [&](const bundle::DirEntry &e) {
        if (e.type == bundle::DirEntry::Type::Directory)
          guard.below.insert({e.device, e.inode});
      });
  if (!errors.empty())
    return failure(EACCES,
                   printablePath(bundle::joinPath(path, errors.front().name)) +
                       ": cannot read directory: " + errors.front().reason);
  return guard;
}

llvm::Expected<InputGuard> InputGuard::foldersAbove(int folderFd) {
  InputGuard guard;
  llvm::Expected<FileIdentity> self = support::identityOf(folderFd);
  if (!self)
    return self.takeError();
  guard.self = *self;
  if (llvm::Error err = addFoldersAbove(folderFd, guard.above))
    return err;
  return guard;
}

//===----------------------------------------------------------------------===//
// OutputSlot
//===----------------------------------------------------------------------===//

llvm::Expected<OutputSlot> OutputSlot::replacing(int parentFd,
                                                 llvm::StringRef name,
                                                 const std::string &shown,
                                                 const InputGuard &guard) {
  OutputSlot slot;
  slot.name_ = name.str();
  slot.display_ = printablePath(shown);
  slot.force_ = true;
  slot.guard_.input = &guard;
  slot.parent_ = UniqueFd(::fcntl(parentFd, F_DUPFD_CLOEXEC, 0));
  if (!slot.parent_)
    return ioFailure("cannot duplicate a descriptor", errno);
  llvm::Expected<uint64_t> mount = support::mountOf(slot.parent_.get());
  if (!mount)
    return mount.takeError();
  slot.guard_.mount = *mount;
  return slot;
}

llvm::Expected<OutputSlot> OutputSlot::prepare(const std::string &dst,
                                               const InputGuard &input,
                                               bool force) {
  llvm::StringRef trimmed(dst);
  while (trimmed.size() > 1 && trimmed.ends_with("/"))
    trimmed = trimmed.drop_back();
  std::string shown = printablePath(dst);
  llvm::StringRef name = bundle::baseName(trimmed);
  if (trimmed.empty() || name == "." || name == ".." || name == "/")
    return failure(EINVAL, shown + ": the output must name a new file or "
                                   "folder");
  size_t slash = trimmed.rfind('/');
  std::string parentPath = slash == llvm::StringRef::npos ? "."
                           : slash == 0 ? "/"
                                        : trimmed.take_front(slash).str();

  OutputSlot slot;
  slot.name_ = name.str();
  slot.display_ = shown;
  slot.force_ = force;
  slot.guard_.input = &input;
  llvm::Expected<UniqueFd> parent =
      support::openDirectory(parentPath, support::Symlinks::Follow);
  if (!parent)
    return failure(EINVAL,
                   shown + ": its folder " + printablePath(parentPath) + ": " +
                       support::errnoReason(errnoOf(parent.takeError())));
  slot.parent_ = std::move(*parent);
  llvm::Expected<uint64_t> mount = support::mountOf(slot.parent_.get());
  if (!mount)
    return mount.takeError();
  slot.guard_.mount = *mount;

  // DST must not be written into SRC: the walk would copy the copy, and a
  // bind mount of a folder of SRC is that folder.
  llvm::Expected<FileIdentity> parentId =
      support::identityOf(slot.parent_.get());
  if (!parentId)
    return parentId.takeError();
  if (input.holdsFolder(*parentId))
    return failure(EINVAL, shown + ": is inside the input; write the "
                                   "stripped copy elsewhere");
  llvm::Expected<std::optional<support::FileState>> existing =
      support::stateAt(slot.parent_.get(), slot.name_);
  if (!existing)
    return failure(errnoOf(existing.takeError()), shown + ": cannot stat");
  if (!*existing)
    return slot;
  if ((*existing)->identity == input.source())
    return failure(EINVAL, shown + ": is the input itself");
  if (!force)
    return failure(EEXIST, shown + ": already exists (--force replaces it)");
  // --force deletes the old DST: all of it must be removable under the
  // guard before anything is written.
  std::string at;
  if (llvm::Error err = removeEntry(slot.parent_.get(), slot.name_, slot.guard_,
                                    /*dryRun=*/true, dst, &at)) {
    int code = errnoOf(std::move(err));
    std::string where = at == dst ? "" : " (" + printablePath(at) + ")";
    if (code == EPERM)
      return failure(EINVAL, shown + ": holds the input" + where +
                                 "; --force would delete it");
    if (code == EXDEV)
      return failure(EINVAL, shown + ": holds a mount point" + where +
                                 "; --force never deletes across a mount");
    return failure(
        code, shown + ": cannot be replaced: " + support::errnoReason(code));
  }
  return slot;
}

OutputSlot::OutputSlot(OutputSlot &&other) noexcept
    : parent_(std::move(other.parent_)), temp_(std::move(other.temp_)),
      output_(std::move(other.output_)), name_(std::move(other.name_)),
      tempName_(std::move(other.tempName_)),
      display_(std::move(other.display_)), guard_(other.guard_),
      force_(other.force_), outputCreated_(other.outputCreated_) {
  other.outputCreated_ = false;
}

OutputSlot::~OutputSlot() { discard(); }

bool OutputSlot::restoreAside(int tempFd) {
  // Without an atomic swap, publish() moves DST aside into its temporary
  // before the output takes its place: a run killed between the two left
  // DST there, and DST missing. Put it back; the output is then stale.
  llvm::Expected<std::optional<support::FileState>> aside =
      support::stateAt(tempFd, kAsideName);
  llvm::Expected<std::optional<support::FileState>> dst =
      support::stateAt(parent_.get(), name_);
  bool restore = aside && *aside && dst && !*dst;
  if (!aside)
    llvm::consumeError(aside.takeError());
  if (!dst)
    llvm::consumeError(dst.takeError());
  if (!restore)
    return false;
  if (llvm::Error err =
          support::renameNoReplace(tempFd, kAsideName, parent_.get(), name_)) {
    llvm::consumeError(std::move(err));
    return false;
  }
  return true;
}

std::vector<std::string>
OutputSlot::removeStale(std::vector<std::string> &failures) {
  std::vector<std::string> removed;
  llvm::Expected<std::vector<bundle::DirEntry>> entries =
      bundle::listDirectory(parent_.get());
  if (!entries) {
    failures.push_back(llvm::toString(entries.takeError()));
    return removed;
  }
  std::string prefix = tempPrefix(name_);
  for (const bundle::DirEntry &entry : *entries) {
    if (entry.type != bundle::DirEntry::Type::Directory ||
        entry.name == tempName_ || !isTempName(entry.name, prefix) ||
        guard_.input->isProtected({entry.device, entry.inode}))
      continue;
    llvm::Expected<UniqueFd> folder = support::openDirectory(
        parent_.get(), entry.name, support::Symlinks::Refuse);
    if (!folder) {
      llvm::consumeError(folder.takeError());
      continue;
    }
    // A mount point named like a temporary is another file system's
    // folder, never a run's: nothing in it is touched.
    llvm::Expected<uint64_t> mount = support::mountOf(folder->get());
    if (!mount || *mount != guard_.mount) {
      if (!mount)
        llvm::consumeError(mount.takeError());
      continue;
    }
    // Stale only if no live run holds its lock (the folder itself).
    llvm::Expected<bool> locked = support::tryLockExclusive(folder->get());
    if (!locked || !*locked) {
      if (!locked)
        llvm::consumeError(locked.takeError());
      continue;
    }
    llvm::Expected<std::optional<support::FileState>> marker =
        support::stateAt(folder->get(), kMarkerName);
    llvm::Error err = llvm::Error::success();
    std::string restored;
    if (!marker) {
      err = marker.takeError();
    } else if (*marker) {
      if (restoreAside(folder->get()))
        restored = " (" + printablePath(name_) +
                   ", left aside by an interrupted swap, put back)";
      // Ours: all of it goes, under the guard; an old DST set aside whose
      // replacement is in place (killed before it was renamed to the
      // output's name) too.
      err = removeEntry(folder->get(), kOutputName, guard_, false,
                        joined(entry.name, kOutputName));
      if (!err)
        err = removeEntry(folder->get(), kAsideName, guard_, false,
                          joined(entry.name, kAsideName));
      if (!err && ::unlinkat(folder->get(), kMarkerName, 0) != 0 &&
          errno != ENOENT)
        err = ioFailure("cannot remove its marker", errno);
    }
    // Without the marker, it can only be empty (left between its creation
    // and its marker); a folder that is not is someone else's, and stays.
    if (!err &&
        ::unlinkat(parent_.get(), entry.name.c_str(), AT_REMOVEDIR) != 0) {
      if (errno == ENOTEMPTY || errno == EEXIST) {
        if (*marker)
          err = ioFailure("cannot remove it", errno);
        else
          continue;
      } else if (errno != ENOENT) {
        err = ioFailure("cannot remove it", errno);
      }
    }
    if (err)
      failures.push_back(printablePath(entry.name) + ": " +
                         llvm::toString(std::move(err)));
    else
      removed.push_back(entry.name + restored);
  }
  return removed;
}

llvm::Expected<int> OutputSlot::createTemp() {
  if (temp_)
    return failure(EEXIST, "the temporary exists already");
  std::string prefix = tempPrefix(name_);
  for (int attempt = 0;; ++attempt) {
    llvm::Expected<std::string> token = support::randomHex(kRandomBytes);
    if (!token)
      return token.takeError();
    std::string name = prefix + *token;
    if (::mkdirat(parent_.get(), name.c_str(), 0700) != 0) {
      if (errno == EEXIST && attempt < 8)
        continue;
      return failure(errno, "cannot create a temporary folder beside it: " +
                                support::errnoReason(errno));
    }
    llvm::Expected<UniqueFd> folder =
        support::openDirectory(parent_.get(), name, support::Symlinks::Refuse);
    if (!folder) {
      int error = errnoOf(folder.takeError());
      if (error == ENOENT && attempt < 8)
        continue; // removed by a clean-up before it was locked
      return failure(error, "cannot open its temporary folder: " +
                                support::errnoReason(error));
    }
    // Locked for as long as this run lives. A file system without locks
    // (ENOLCK) cannot tell stale from live: no run removes such a
    // temporary, so it is still safe. A clean-up that got in between the
    // folder and its lock found it empty and removed it: then the marker
    // cannot be made, and this run fails cleanly.
    llvm::Expected<bool> locked = support::tryLockExclusive(folder->get());
    if (!locked)
      llvm::consumeError(locked.takeError());
    else if (!*locked && attempt < 8)
      continue; // a clean-up holds it, and will remove it
    UniqueFd marker(
        ::openat(folder->get(), kMarkerName,
                 O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600));
    if (!marker) {
      int error = errno;
      if (error == ENOENT && attempt < 8)
        continue; // removed by a clean-up before it was marked
      ::unlinkat(parent_.get(), name.c_str(), AT_REMOVEDIR);
      return failure(error, "cannot mark its temporary folder: " +
                                support::errnoReason(error));
    }
    temp_ = std::move(*folder);
    tempName_ = name;
    return temp_.get();
  }
}

llvm::Expected<UniqueFd> OutputSlot::createTempFolder() {
  llvm::Expected<int> temp = createTemp();
  if (!temp)
    return temp.takeError();
  llvm::Expected<UniqueFd> fd = makeFolder(*temp, kOutputName);
  if (!fd)
    return fd.takeError();
  outputCreated_ = true;
  output_.reset(::fcntl(fd->get(), F_DUPFD_CLOEXEC, 0));
  return fd;
}

llvm::Expected<UniqueFd> OutputSlot::createTempFile(mode_t mode) {
  llvm::Expected<int> temp = createTemp();
  if (!temp)
    return temp.takeError();
  llvm::Expected<UniqueFd> fd = createFile(*temp, kOutputName, mode);
  if (fd)
    outputCreated_ = true;
  return fd;
}

void OutputSlot::removeTemp() {
  if (!temp_)
    return;
  if (::unlinkat(temp_.get(), kMarkerName, 0) == 0 || errno == ENOENT)
    ::unlinkat(parent_.get(), tempName_.c_str(), AT_REMOVEDIR);
  temp_.reset(); // the lock goes with it
}

llvm::Error OutputSlot::publish(std::string &warning,
                                std::optional<mode_t> folderMode) {
  if (!outputCreated_)
    return failure(EINVAL, display_ + ": nothing to publish");
  // Like cp, the data is not forced to disk (an fsync of a multi-gigabyte
  // copy costs more than the copy): the rename makes the output appear
  // whole to every process, and a killed run leaves no partial DST.
  llvm::Error renamed =
      support::renameNoReplace(temp_.get(), kOutputName, parent_.get(), name_);
  bool replaced = false;
  if (renamed) {
    int error = errnoOf(std::move(renamed));
    if (error != EEXIST)
      return failure(error, display_ +
                                ": cannot rename the output into "
                                "place: " +
                                support::errnoReason(error));
    if (!force_)
      return failure(EEXIST, display_ + ": appeared while the output was "
                                        "built; nothing replaced");
    if (llvm::Error err = support::renameExchange(
            temp_.get(), kOutputName, parent_.get(), name_, kAsideName))
      return failure(errnoOf(std::move(err)),
                     display_ + ": cannot replace it with the output");
    replaced = true;
  }
  outputCreated_ = false;
  if (folderMode && output_)
    ::fchmod(output_.get(), *folderMode & 01777 & ~mode_t(S_ISUID | S_ISGID));
  output_.reset();
  ::fsync(parent_.get());
  if (replaced) {
    // The old DST now sits in the temporary.
    if (llvm::Error err = removeEntry(temp_.get(), kOutputName, guard_, false,
                                      joined(tempName_, kOutputName))) {
      warning = "the old output is left at " +
                printablePath(joined(tempName_, kOutputName)) + ": " +
                llvm::toString(std::move(err));
      // Unlocked, a later run sees it as stale and tries again.
      temp_.reset();
      return llvm::Error::success();
    }
  }
  removeTemp();
  return llvm::Error::success();
}

void OutputSlot::discard() {
  if (!temp_)
    return;
  if (outputCreated_)
    llvm::consumeError(
        removeEntry(temp_.get(), kOutputName, guard_, false, kOutputName));
  outputCreated_ = false;
  removeTemp();
}

llvm::Error aimodel::strip::removeTree(int dirFd, llvm::StringRef name,
                                       const RemovalGuard &guard) {
  return removeEntry(dirFd, name.str(), guard, false, name.str());
}
