//===- FileSystem.cpp - What writers ask of the file system ---------------===//
//
// Three implementations per call: Linux, macOS, plain POSIX. The POSIX one
// is also built on Linux under AIMODEL_POSIX_FALLBACKS, so CI runs it.
//
//===----------------------------------------------------------------------===//

#include "support/FileSystem.h"

#include "support/SafeFile.h"

#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#if defined(__linux__) && !defined(AIMODEL_POSIX_FALLBACKS)
#define AIMODEL_LINUX 1
#include <sys/random.h>
#ifndef STATX_MNT_ID
#define STATX_MNT_ID 0x00001000U
#endif
#elif defined(__APPLE__) && !defined(AIMODEL_POSIX_FALLBACKS)
#define AIMODEL_MACOS 1
#endif

namespace aimodel::support {

namespace {

bool existsAt(int dirFd, const std::string &name) {
  struct stat st;
  return ::fstatat(dirFd, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0;
}

#if !defined(AIMODEL_LINUX) && !defined(AIMODEL_MACOS)
/// POSIX: a file is published by a hard link, which fails when `to`
/// exists; a folder cannot be linked, so it is checked, then renamed.
llvm::Error posixRenameNoReplace(int fromDir, const std::string &from,
                                 int toDir, const std::string &to) {
  struct stat st;
  if (::fstatat(fromDir, from.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0)
    return ioError("cannot rename", errno);
  if (!S_ISDIR(st.st_mode)) {
    if (::linkat(fromDir, from.c_str(), toDir, to.c_str(), 0) == 0) {
      ::unlinkat(fromDir, from.c_str(), 0);
      return llvm::Error::success();
    }
    if (errno == EEXIST)
      return ioError("cannot rename", EEXIST);
    // A file system without hard links: check, then rename.
  }
  if (existsAt(toDir, to))
    return ioError("cannot rename", EEXIST);
  // A folder that appeared since the check is not replaced (rename refuses
  // a non-empty one): that is the EEXIST a caller handles.
  if (::renameat(fromDir, from.c_str(), toDir, to.c_str()) != 0)
    return ioError("cannot rename", errno == ENOTEMPTY ? EEXIST : errno);
  return llvm::Error::success();
}
#endif

} // namespace

llvm::Expected<FileIdentity> identityOf(int fd) {
  struct stat st;
  if (::fstat(fd, &st) != 0)
    return ioError("cannot stat", errno);
  return stateFrom(st).identity;
}

llvm::Expected<FileState> stateOf(int fd) {
  struct stat st;
  if (::fstat(fd, &st) != 0)
    return ioError("cannot stat", errno);
  return stateFrom(st);
}

llvm::Expected<std::optional<FileState>> stateAt(int dirFd,
                                                 llvm::StringRef name) {
  struct stat st;
  std::string text = name.str();
  if (::fstatat(dirFd, text.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) {
    if (errno == ENOENT)
      return std::optional<FileState>();
    return ioError("cannot stat", errno);
  }
  return std::optional<FileState>(stateFrom(st));
}

llvm::Expected<uint64_t> mountOf(int fd) { return mountAt(fd, ""); }

llvm::Expected<uint64_t> mountAt(int dirFd, llvm::StringRef name) {
  std::string path = name.str();
#if defined(AIMODEL_LINUX)
  int flags = AT_SYMLINK_NOFOLLOW | (path.empty() ? AT_EMPTY_PATH : 0);
  struct statx stx;
  if (::statx(dirFd, path.c_str(), flags, STATX_MNT_ID, &stx) == 0 &&
      (stx.stx_mask & STATX_MNT_ID))
    return uint64_t(stx.stx_mnt_id);
  // Kernels before 5.8 have no mount id: fall back to the device.
#endif
  struct stat st;
  if ((path.empty()
           ? ::fstat(dirFd, &st)
           : ::fstatat(dirFd, path.c_str(), &st, AT_SYMLINK_NOFOLLOW)) != 0)
    return ioError("cannot stat", errno);
  return uint64_t(st.st_dev);
}

llvm::Error renameNoReplace(int fromDir, llvm::StringRef from, int toDir,
                            llvm::StringRef to) {
  std::string f = from.str(), t = to.str();
#if defined(AIMODEL_LINUX)
  if (::renameat2(fromDir, f.c_str(), toDir, t.c_str(), RENAME_NOREPLACE) == 0)
    return llvm::Error::success();
  if (errno != EINVAL && errno != ENOSYS)
    return ioError("cannot rename", errno);
  // A file system without renameat2's flags (some network file systems).
  if (existsAt(toDir, t))
    return ioError("cannot rename", EEXIST);
  if (::renameat(fromDir, f.c_str(), toDir, t.c_str()) != 0)
    return ioError("cannot rename", errno == ENOTEMPTY ? EEXIST : errno);
  return llvm::Error::success();
#elif defined(AIMODEL_MACOS)
  if (::renameatx_np(fromDir, f.c_str(), toDir, t.c_str(), RENAME_EXCL) != 0)
    return ioError("cannot rename", errno);
  return llvm::Error::success();
#else
  return posixRenameNoReplace(fromDir, f, toDir, t);
#endif
}

llvm::Error renameExchange(int aDir, llvm::StringRef a, int bDir,
                           llvm::StringRef b, llvm::StringRef aside) {
  std::string x = a.str(), y = b.str(), z = aside.str();
#if defined(AIMODEL_LINUX)
  if (::renameat2(aDir, x.c_str(), bDir, y.c_str(), RENAME_EXCHANGE) == 0)
    return llvm::Error::success();
  if (errno != EINVAL && errno != ENOSYS)
    return ioError("cannot swap", errno);
#elif defined(AIMODEL_MACOS)
  if (::renameatx_np(aDir, x.c_str(), bDir, y.c_str(), RENAME_SWAP) == 0)
    return llvm::Error::success();
  if (errno != ENOTSUP && errno != EINVAL)
    return ioError("cannot swap", errno);
#endif
  // Not atomic: b goes aside, then a takes its place.
  if (existsAt(aDir, z))
    return ioError("cannot move the old one aside", EEXIST);
  if (::renameat(bDir, y.c_str(), aDir, z.c_str()) != 0)
    return ioError("cannot move the old one aside", errno);
  if (::renameat(aDir, x.c_str(), bDir, y.c_str()) != 0) {
    int error = errno;
    ::renameat(aDir, z.c_str(), bDir, y.c_str());
    return ioError("cannot rename", error);
  }
  if (::renameat(aDir, z.c_str(), aDir, x.c_str()) != 0)
    return ioError("cannot rename", errno);
  return llvm::Error::success();
}

llvm::Expected<UniqueFd> openParentFolder(int dirFd) {
#if defined(AIMODEL_LINUX)
  int flags = O_PATH | O_DIRECTORY | O_CLOEXEC;
#else
  int flags = O_RDONLY | O_DIRECTORY | O_CLOEXEC;
#endif
  int fd;
  do
    fd = ::openat(dirFd, "..", flags);
  while (fd < 0 && errno == EINTR);
  if (fd < 0)
    return ioError("cannot open the folder above", errno);
  return UniqueFd(fd);
}

llvm::Expected<bool> tryLockExclusive(int fd) {
  while (true) {
    if (::flock(fd, LOCK_EX | LOCK_NB) == 0)
      return true;
    if (errno == EINTR)
      continue;
    if (errno == EWOULDBLOCK)
      return false;
    return ioError("cannot lock", errno);
  }
}

llvm::Expected<std::string> randomHex(unsigned bytes) {
  std::string raw(bytes, '\0');
#if defined(AIMODEL_LINUX)
  size_t done = 0;
  while (done < raw.size()) {
    ssize_t n = ::getrandom(raw.data() + done, raw.size() - done, 0);
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0)
      return ioError("cannot get random bytes", errno);
    done += size_t(n);
  }
#elif defined(AIMODEL_MACOS)
  ::arc4random_buf(raw.data(), raw.size());
#else
  llvm::Expected<RegularFile> random =
      openRegularFile("/dev/urandom", Symlinks::Follow);
  int fd = -1;
  UniqueFd device;
  if (!random) {
    // A character device, not a regular file: opened plainly.
    llvm::consumeError(random.takeError());
    device.reset(::open("/dev/urandom", O_RDONLY | O_CLOEXEC));
    fd = device.get();
  } else {
    fd = random->fd.get();
  }
  if (fd < 0)
    return ioError("cannot open /dev/urandom", errno);
  size_t done = 0;
  while (done < raw.size()) {
    ssize_t n = ::read(fd, raw.data() + done, raw.size() - done);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      return ioError("cannot read /dev/urandom", n < 0 ? errno : EIO);
    done += size_t(n);
  }
#endif
  static const char digits[] = "0123456789abcdef";
  std::string hex;
  for (unsigned char c : raw) {
    hex.push_back(digits[c >> 4]);
    hex.push_back(digits[c & 15]);
  }
  return hex;
}

std::string pathOfOpenFile(int fd) {
#if defined(AIMODEL_LINUX)
  char where[PATH_MAX];
  std::string link = "/proc/self/fd/" + std::to_string(fd);
  ssize_t n = ::readlink(link.c_str(), where, sizeof(where) - 1);
  if (n <= 0)
    return "";
  llvm::StringRef path(where, size_t(n));
  // Linux names a removed file "PATH (deleted)"; such a name is no answer.
  if (!path.starts_with("/") || path.ends_with(" (deleted)"))
    return "";
  return path.str();
#elif defined(AIMODEL_MACOS)
  char where[PATH_MAX];
  if (::fcntl(fd, F_GETPATH, where) != 0)
    return "";
  return where;
#else
  (void)fd;
  return "";
#endif
}

void adviseSequentialRead(int fd) {
#if defined(POSIX_FADV_SEQUENTIAL)
  ::posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
#else
  (void)fd;
#endif
}

void dropMappedPages(const void *start, size_t length) {
  void *at = const_cast<void *>(start);
#if defined(AIMODEL_LINUX) || defined(AIMODEL_MACOS)
  ::madvise(at, length, MADV_DONTNEED);
#else
  ::posix_madvise(at, length, POSIX_MADV_DONTNEED);
#endif
}

bool usesPosixFallbacks() {
#if defined(AIMODEL_LINUX) || defined(AIMODEL_MACOS)
  return false;
#else
  return true;
#endif
}

} // namespace aimodel::support
