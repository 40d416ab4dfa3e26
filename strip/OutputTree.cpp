//===- OutputTree.cpp - Where `aimodel strip` writes, and how -------------===//

#include "strip/OutputTree.h"

#include "bundle/Bundle.h"
#include "support/PathText.h"

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdio>
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

using Identity = std::pair<dev_t, ino_t>;

llvm::Expected<Identity> identityOf(int fd) {
  struct stat st;
  if (::fstat(fd, &st) != 0)
    return ioFailure("cannot stat", errno);
  return Identity(st.st_dev, st.st_ino);
}

/// True when the folder `dirFd` is `ancestor` or lies below it, found by
/// climbing "..": identities, not spellings, so symlinks, bind mounts and
/// paths longer than PATH_MAX cannot hide it.
llvm::Expected<bool> isAtOrBelow(int dirFd, Identity ancestor) {
  UniqueFd current(::fcntl(dirFd, F_DUPFD_CLOEXEC, 0));
  if (!current)
    return ioFailure("cannot duplicate a descriptor", errno);
  while (true) {
    llvm::Expected<Identity> here = identityOf(current.get());
    if (!here)
      return here.takeError();
    if (*here == ancestor)
      return true;
    UniqueFd parent(
        ::openat(current.get(), "..", O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    if (!parent)
      return ioFailure("cannot open a parent folder", errno);
    llvm::Expected<Identity> up = identityOf(parent.get());
    if (!up)
      return up.takeError();
    if (*up == *here)
      return false; // the root
    current = std::move(parent);
  }
}

/// "<prefix><digits>" or "<prefix><digits>.old": the pid, else 0.
pid_t tempPid(llvm::StringRef name, llvm::StringRef prefix) {
  if (!name.consume_front(prefix))
    return 0;
  name.consume_back(".old");
  unsigned long long pid = 0;
  if (name.empty() || name.size() > 10 ||
      !std::all_of(name.begin(), name.end(), ::isdigit) ||
      name.getAsInteger(10, pid) || pid == 0 || pid > 0x7fffffff)
    return 0;
  return pid_t(pid);
}

bool processAlive(pid_t pid) { return ::kill(pid, 0) == 0 || errno != ESRCH; }

/// The temporary names of DST: the prefix, then the pid. Long names are cut
/// so the temporary still fits in NAME_MAX.
std::string tempPrefix(llvm::StringRef name) {
  return ("." + name.take_front(200) + ".aimodel-strip-").str();
}

} // namespace

//===----------------------------------------------------------------------===//
// OutputSlot
//===----------------------------------------------------------------------===//

llvm::Expected<OutputSlot> OutputSlot::prepare(const std::string &dst,
                                               int sourceFd, bool force) {
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
  slot.temp_ = tempPrefix(name) + std::to_string(::getpid());
  slot.display_ = shown;
  slot.force_ = force;
  llvm::Expected<UniqueFd> parent =
      support::openDirectory(parentPath, support::Symlinks::Follow);
  if (!parent) {
    std::error_code code = llvm::errorToErrorCode(parent.takeError());
    return failure(EINVAL, shown + ": its folder " + printablePath(parentPath) +
                               ": " + support::errnoReason(code.value()));
  }
  slot.parent_ = std::move(*parent);

  struct stat source;
  if (::fstat(sourceFd, &source) != 0)
    return ioFailure("cannot stat the input", errno);
  Identity sourceId(source.st_dev, source.st_ino);
  // DST (its folder, then DST itself once created there) must not lie in
  // SRC: the walk would copy the copy.
  if (S_ISDIR(source.st_mode)) {
    llvm::Expected<bool> inside = isAtOrBelow(slot.parentFd(), sourceId);
    if (!inside)
      return failure(EINVAL, shown + ": " + llvm::toString(inside.takeError()));
    if (*inside)
      return failure(EINVAL, shown + ": is inside the input; write the "
                                     "stripped copy elsewhere");
  }
  struct stat existing;
  if (::fstatat(slot.parentFd(), slot.name_.c_str(), &existing,
                AT_SYMLINK_NOFOLLOW) != 0) {
    if (errno != ENOENT)
      return failure(errno, shown + ": " + support::errnoReason(errno));
    return slot;
  }
  if (Identity(existing.st_dev, existing.st_ino) == sourceId)
    return failure(EINVAL, shown + ": is the input itself");
  if (!force)
    return failure(EEXIST, shown + ": already exists (--force replaces it)");
  // --force deletes the old DST: it must not hold SRC.
  if (S_ISDIR(existing.st_mode)) {
    llvm::Expected<UniqueFd> old = support::openDirectory(
        slot.parentFd(), slot.name_, support::Symlinks::Refuse);
    if (!old)
      return failure(EINVAL, shown + ": " + llvm::toString(old.takeError()));
    UniqueFd sourceFolder;
    if (S_ISDIR(source.st_mode)) {
      sourceFolder.reset(::fcntl(sourceFd, F_DUPFD_CLOEXEC, 0));
    } else {
      // A file: the folder it really sits in.
      llvm::Expected<std::string> real = realPathOf(sourceFd);
      if (!real)
        return real.takeError();
      llvm::StringRef folder = llvm::StringRef(*real).rsplit('/').first;
      llvm::Expected<UniqueFd> opened = support::openDirectory(
          folder.empty() ? "/" : folder, support::Symlinks::Follow);
      if (!opened)
        return opened.takeError();
      sourceFolder = std::move(*opened);
    }
    llvm::Expected<Identity> oldId = identityOf(old->get());
    if (!oldId)
      return oldId.takeError();
    llvm::Expected<bool> holds = isAtOrBelow(sourceFolder.get(), *oldId);
    if (!holds)
      return failure(EINVAL, shown + ": " + llvm::toString(holds.takeError()));
    if (*holds)
      return failure(EINVAL, shown + ": holds the input; --force would "
                                     "delete it");
  }
  return slot;
}

OutputSlot::OutputSlot(OutputSlot &&other) noexcept
    : parent_(std::move(other.parent_)), name_(std::move(other.name_)),
      temp_(std::move(other.temp_)), display_(std::move(other.display_)),
      force_(other.force_), created_(other.created_) {
  other.created_ = false;
}

OutputSlot::~OutputSlot() { discard(); }

std::vector<std::string>
OutputSlot::removeStale(std::vector<std::string> &failures) {
  std::vector<std::string> removed;
  llvm::Expected<std::vector<bundle::DirEntry>> entries =
      bundle::listDirectory(parentFd());
  if (!entries) {
    failures.push_back(llvm::toString(entries.takeError()));
    return removed;
  }
  std::string prefix = tempPrefix(name_);
  for (const bundle::DirEntry &entry : *entries) {
    pid_t pid = tempPid(entry.name, prefix);
    if (!pid || (pid != ::getpid() && processAlive(pid)))
      continue;
    if (llvm::Error err = removeTree(parentFd(), entry.name))
      failures.push_back(printablePath(entry.name) + ": " +
                         llvm::toString(std::move(err)));
    else
      removed.push_back(entry.name);
  }
  return removed;
}

llvm::Expected<UniqueFd> OutputSlot::createTempFolder() {
  llvm::Expected<UniqueFd> fd = makeFolder(parentFd(), temp_);
  if (fd)
    created_ = true;
  return fd;
}

llvm::Expected<UniqueFd> OutputSlot::createTempFile(mode_t mode) {
  llvm::Expected<UniqueFd> fd = createFile(parentFd(), temp_, mode);
  if (fd)
    created_ = true;
  return fd;
}

llvm::Error OutputSlot::publish(std::string &warning) {
  int parent = parentFd();
  const char *from = temp_.c_str(), *to = name_.c_str();
  // Like cp, the data is not forced to disk (an fsync of a multi-gigabyte
  // copy costs more than the copy): the rename makes the output appear
  // whole to every process, and a killed run leaves no partial DST.
  bool replaced = false;
  if (::renameat2(parent, from, parent, to, RENAME_NOREPLACE) != 0) {
    int error = errno;
    if (error == EEXIST && force_) {
      if (::renameat2(parent, from, parent, to, RENAME_EXCHANGE) != 0)
        error = errno;
      else
        replaced = true, error = 0;
    }
    if (error == EINVAL || error == ENOSYS) {
      // A file system without renameat2's flags: a plain rename replaces a
      // file atomically; a folder goes aside first.
      struct stat st;
      bool exists = ::fstatat(parent, to, &st, AT_SYMLINK_NOFOLLOW) == 0;
      std::string aside = temp_ + ".old";
      if (exists && S_ISDIR(st.st_mode)) {
        if (::renameat(parent, to, parent, aside.c_str()) != 0)
          return ioFailure("cannot move the old output aside", errno);
        if (::renameat(parent, from, parent, to) != 0) {
          int renameError = errno;
          ::renameat(parent, aside.c_str(), parent, to);
          return ioFailure("cannot rename the output into place", renameError);
        }
        created_ = false;
        if (llvm::Error err = removeTree(parent, aside))
          warning = "the old output is left at " + printablePath(aside) + ": " +
                    llvm::toString(std::move(err));
        ::fsync(parent);
        return llvm::Error::success();
      }
      error = ::renameat(parent, from, parent, to) == 0 ? 0 : errno;
    }
    if (error == EEXIST)
      return failure(EEXIST, display_ + ": appeared while the output was "
                                        "built; nothing replaced");
    if (error)
      return ioFailure("cannot rename the output into place", error);
  }
  created_ = false;
  if (::fsync(parent) != 0)
    return ioFailure("cannot flush the output's folder", errno);
  if (replaced) {
    // The old DST now sits under the temporary name.
    if (llvm::Error err = removeTree(parent, temp_))
      warning = "the old output is left at " + printablePath(temp_) + ": " +
                llvm::toString(std::move(err));
    ::fsync(parent);
  }
  return llvm::Error::success();
}

void OutputSlot::discard() {
  if (!created_)
    return;
  created_ = false;
  llvm::consumeError(removeTree(parentFd(), temp_));
}

//===----------------------------------------------------------------------===//
// Files and folders
//===----------------------------------------------------------------------===//

llvm::Expected<UniqueFd> aimodel::strip::makeFolder(int dirFd,
                                                    llvm::StringRef name) {
  std::string text = name.str();
  if (::mkdirat(dirFd, text.c_str(), 0700) != 0)
    return ioFailure("cannot create folder", errno);
  return support::openDirectory(dirFd, name, support::Symlinks::Refuse);
}

llvm::Expected<UniqueFd>
aimodel::strip::createFile(int dirFd, llvm::StringRef name, mode_t mode) {
  std::string text = name.str();
  int fd;
  do
    fd = ::openat(dirFd, text.c_str(),
                  O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
                  mode & 0777);
  while (fd < 0 && errno == EINTR);
  if (fd < 0)
    return ioFailure("cannot create", errno);
  UniqueFd file(fd);
  // Exactly the source's bits, whatever the umask.
  if (::fchmod(fd, mode & 0777) != 0)
    return ioFailure("cannot set permissions", errno);
  return file;
}

llvm::Expected<uint64_t> aimodel::strip::copyFile(int sourceDirFd,
                                                  llvm::StringRef name,
                                                  int targetDirFd) {
  llvm::Expected<support::RegularFile> source =
      support::openRegularFile(sourceDirFd, name, support::Symlinks::Refuse);
  if (!source)
    return source.takeError();
  llvm::Expected<mode_t> mode = permissionsOf(source->fd.get());
  if (!mode)
    return mode.takeError();
  auto [folder, base] = llvm::StringRef(name).rsplit('/');
  if (base.empty())
    std::swap(folder, base);
  llvm::Expected<UniqueFd> target = support::openDirectory(
      targetDirFd, folder.empty() ? "." : folder, support::Symlinks::Refuse);
  if (!target)
    return target.takeError();
  llvm::Expected<UniqueFd> out = createFile(target->get(), base, *mode);
  if (!out)
    return out.takeError();
  uint64_t size = source->size;
  if (llvm::Error err =
          support::copyRange(source->fd.get(), 0, size, out->get()))
    return err;
  struct stat st;
  if (::fstat(out->get(), &st) != 0)
    return ioFailure("cannot stat the copy", errno);
  if (uint64_t(st.st_size) != size)
    return failure(EIO, "the copy holds " + llvm::Twine(st.st_size) +
                            " bytes, not " + llvm::Twine(size));
  return size;
}

llvm::Error aimodel::strip::finishFolder(int targetDirFd, llvm::StringRef name,
                                         mode_t mode) {
  llvm::Expected<UniqueFd> fd = support::openDirectory(
      targetDirFd, name.empty() ? "." : name, support::Symlinks::Refuse);
  if (!fd)
    return fd.takeError();
  if (::fchmod(fd->get(), mode & 01777) != 0)
    return ioFailure("cannot set permissions", errno);
  return llvm::Error::success();
}

llvm::Expected<mode_t> aimodel::strip::permissionsOf(int fd) {
  struct stat st;
  if (::fstat(fd, &st) != 0)
    return ioFailure("cannot stat", errno);
  return mode_t(st.st_mode & 07777);
}

llvm::Error aimodel::strip::removeTree(int dirFd, llvm::StringRef name) {
  std::string text = name.str();
  int flags = O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC;
  UniqueFd folder(::openat(dirFd, text.c_str(), flags));
  if (!folder && errno == EACCES) {
    // A folder of ours made read-only: give it back its owner's rights.
    ::fchmodat(dirFd, text.c_str(), 0700, 0);
    folder.reset(::openat(dirFd, text.c_str(), flags));
  }
  if (!folder) {
    if (errno == ENOENT)
      return llvm::Error::success();
    if (errno != ENOTDIR && errno != ELOOP)
      return ioFailure("cannot open", errno);
    if (::unlinkat(dirFd, text.c_str(), 0) != 0 && errno != ENOENT)
      return ioFailure("cannot remove", errno);
    return llvm::Error::success();
  }
  ::fchmod(folder.get(), 0700); // entries of a read-only folder stay put
  llvm::Expected<std::vector<bundle::DirEntry>> entries =
      bundle::listDirectory(folder.get());
  if (!entries)
    return entries.takeError();
  for (const bundle::DirEntry &entry : *entries) {
    if (entry.type == bundle::DirEntry::Type::Directory) {
      if (llvm::Error err = removeTree(folder.get(), entry.name))
        return err;
    } else if (::unlinkat(folder.get(), entry.name.c_str(), 0) != 0 &&
               errno != ENOENT) {
      return ioFailure("cannot remove", errno);
    }
  }
  if (::unlinkat(dirFd, text.c_str(), AT_REMOVEDIR) != 0 && errno != ENOENT)
    return ioFailure("cannot remove", errno);
  return llvm::Error::success();
}

llvm::Expected<std::string> aimodel::strip::realPathOf(int fd) {
  std::string link = "/proc/self/fd/" + std::to_string(fd);
  std::string target(4096, '\0');
  while (true) {
    ssize_t n = ::readlink(link.c_str(), target.data(), target.size());
    if (n < 0)
      return ioFailure("cannot tell where the input is", errno);
    if (size_t(n) < target.size()) {
      target.resize(size_t(n));
      return target;
    }
    target.resize(target.size() * 2);
  }
}
