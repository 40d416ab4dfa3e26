//===- SafeFile.cpp - The one no-follow, non-blocking open ----------------===//
//
// MemoryBuffer::getFile opens with a blocking open(2) and reads what it
// cannot map: a FIFO hangs the open and /dev/zero is read forever. Here a
// file is opened non-blocking, judged by fstat on the descriptor, and mapped
// with the size fstat reported. Names are resolved relative to a directory
// descriptor, one component at a time when symlinks must be refused (the
// kernel's O_NOFOLLOW only guards the last one) or when a path is longer
// than PATH_MAX (which one open(2) cannot take).
//
//===----------------------------------------------------------------------===//

#include "support/SafeFile.h"
#include "support/FileSystem.h"
#include "support/ReadGuard.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <climits>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <system_error>
#include <unistd.h>
#include <vector>

namespace aimodel::support {

void UniqueFd::reset(int fd) {
  if (fd_ >= 0)
    ::close(fd_);
  fd_ = fd;
}

std::string errnoReason(int errorNumber) {
  std::string text = std::strerror(errorNumber);
  if (!text.empty())
    text[0] =
        static_cast<char>(std::tolower(static_cast<unsigned char>(text[0])));
  return text;
}

static llvm::Error fail(int errorNumber, const llvm::Twine &message) {
  return llvm::createStringError(
      std::error_code(errorNumber, std::generic_category()), message);
}

llvm::Error ioError(const llvm::Twine &what, int errorNumber) {
  return fail(errorNumber, what + ": " + errnoReason(errorNumber));
}

/// copyRange's fallback: pread and write through a small buffer.
static llvm::Error copyByReading(int in, uint64_t offset, uint64_t end, int out,
                                 IOSide &side) {
  std::vector<char> buffer(1 << 20);
  while (offset < end) {
    size_t want = size_t(std::min<uint64_t>(buffer.size(), end - offset));
    ssize_t n = ::pread(in, buffer.data(), want, off_t(offset));
    if (n < 0 && errno == EINTR)
      continue;
    side = IOSide::Read;
    if (n < 0)
      return ioError("cannot read", errno);
    if (n == 0)
      return fail(EIO, "shrank while it was copied");
    side = IOSide::Write;
    if (llvm::Error err =
            writeAll(out, llvm::StringRef(buffer.data(), size_t(n))))
      return err;
    offset += uint64_t(n);
  }
  return llvm::Error::success();
}

/// Errors of a kernel copy that the output causes.
static bool isWriteError(int error) {
  return error == ENOSPC || error == EDQUOT || error == EFBIG || error == EROFS;
}

llvm::Error copyRange(int in, uint64_t offset, uint64_t size, int out,
                      IOSide *failedSide) {
  IOSide side = IOSide::Read;
  llvm::Error result = llvm::Error::success();
  uint64_t end = offset + size;
#if defined(__linux__) && !defined(AIMODEL_POSIX_FALLBACKS)
  loff_t position = loff_t(offset);
  while (uint64_t(position) < end) {
    size_t chunk = size_t(std::min<uint64_t>(end - position, 1ull << 30));
    ssize_t n = ::copy_file_range(in, &position, out, nullptr, chunk, 0);
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0 && (errno == EXDEV || errno == ENOSYS || errno == EINVAL ||
                  errno == EOPNOTSUPP || errno == EPERM || errno == ETXTBSY)) {
      result = copyByReading(in, uint64_t(position), end, out, side);
      break;
    }
    if (n < 0) {
      side = isWriteError(errno) ? IOSide::Write : IOSide::Read;
      result = ioError(side == IOSide::Write ? "cannot write" : "cannot copy",
                       errno);
      break;
    }
    if (n == 0) {
      result = fail(EIO, "shrank while it was copied");
      break;
    }
  }
#else
  result = copyByReading(in, offset, end, out, side);
#endif
  if (result && failedSide)
    *failedSide = side;
  return result;
}

llvm::Error writeAll(int fd, llvm::StringRef bytes) {
  while (!bytes.empty()) {
    ssize_t n = ::write(fd, bytes.data(), bytes.size());
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      return ioError("cannot write", n < 0 ? errno : ENOSPC);
    bytes = bytes.drop_front(size_t(n));
  }
  return llvm::Error::success();
}

llvm::Expected<std::string> readPrefix(const RegularFile &file, size_t limit) {
  std::string bytes(size_t(std::min<uint64_t>(file.size(), limit)), '\0');
  size_t done = 0;
  while (done < bytes.size()) {
    ssize_t n = ::pread(file.fd.get(), bytes.data() + done, bytes.size() - done,
                        off_t(done));
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0)
      return ioError("cannot be read", errno);
    if (n == 0) // shorter than when it was opened
      break;
    done += size_t(n);
  }
  bytes.resize(done);
  return bytes;
}

static int openAt(int dirFd, const std::string &name, int flags) {
  int fd;
  do
    fd = ::openat(dirFd, name.c_str(), flags);
  while (fd < 0 && errno == EINTR);
  return fd;
}

/// Only to word an error: the open has already refused the entry.
static bool isSymlinkAt(int dirFd, const std::string &name) {
  struct stat st;
  return ::fstatat(dirFd, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 &&
         S_ISLNK(st.st_mode);
}

namespace {
/// Where the last component of a name lives.
struct Parent {
  UniqueFd owned; ///< a folder opened on the way, if any
  int fd;         ///< the folder to open `last` in
  std::string last;
  bool trailingSlash = false; ///< the name ended in '/': must be a directory
};
} // namespace

/// Opens the folders leading to the last component of `name` below `dirFd`.
/// When the kernel may resolve the whole name (Follow, shorter than
/// PATH_MAX), nothing is opened here.
static llvm::Expected<Parent> openParent(int dirFd, llvm::StringRef name,
                                         Symlinks symlinks) {
  if (symlinks == Symlinks::Follow && name.size() < PATH_MAX)
    return Parent{UniqueFd(), dirFd, name.str()};
  Parent parent{UniqueFd(), dirFd, ""};
  parent.trailingSlash = name.size() > 1 && name.ends_with("/");
  llvm::SmallVector<llvm::StringRef, 16> parts;
  for (llvm::StringRef part : llvm::split(name, '/'))
    if (!part.empty() && part != ".")
      parts.push_back(part);
  if (symlinks == Symlinks::Refuse && llvm::is_contained(parts, ".."))
    return fail(EINVAL, "'..' leaves the folder; not followed");
  if (name.starts_with("/")) {
    int fd = openAt(AT_FDCWD, "/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
      return fail(errno, "cannot open: " + errnoReason(errno));
    parent.owned.reset(fd);
    parent.fd = fd;
  }
  if (parts.empty()) { // "/", ".", "": the folder itself
    parent.last = ".";
    return parent;
  }
  parent.last = parts.back().str();
  std::string prefix;
  for (llvm::StringRef part : llvm::ArrayRef(parts).drop_back()) {
    prefix += (prefix.empty() ? "" : "/") + part.str();
    std::string component = part.str();
    int flags = O_RDONLY | O_DIRECTORY | O_CLOEXEC |
                (symlinks == Symlinks::Refuse ? O_NOFOLLOW : 0);
    int fd = openAt(parent.fd, component, flags);
    if (fd < 0) {
      int error = errno;
      if (symlinks == Symlinks::Refuse &&
          (error == ENOTDIR || error == ELOOP) &&
          isSymlinkAt(parent.fd, component))
        return fail(ELOOP, "'" + prefix + "' is a symlink; not followed");
      return fail(error, "cannot open: " + errnoReason(error));
    }
    parent.owned.reset(fd);
    parent.fd = fd;
  }
  return parent;
}

FileState stateFrom(const struct ::stat &st) {
  FileState state;
  state.identity = {uint64_t(st.st_dev), uint64_t(st.st_ino)};
  state.size = uint64_t(st.st_size);
  state.mode = uint32_t(st.st_mode);
#if defined(__APPLE__)
  state.mtimeSec = st.st_mtimespec.tv_sec,
  state.mtimeNsec = st.st_mtimespec.tv_nsec;
  state.ctimeSec = st.st_ctimespec.tv_sec,
  state.ctimeNsec = st.st_ctimespec.tv_nsec;
#else
  state.mtimeSec = st.st_mtim.tv_sec, state.mtimeNsec = st.st_mtim.tv_nsec;
  state.ctimeSec = st.st_ctim.tv_sec, state.ctimeNsec = st.st_ctim.tv_nsec;
#endif
  return state;
}

llvm::Expected<RegularFile> openRegularFile(int dirFd, llvm::StringRef name,
                                            Symlinks symlinks) {
  llvm::Expected<Parent> parent = openParent(dirFd, name, symlinks);
  if (!parent)
    return parent.takeError();
  int flags = O_RDONLY | O_NONBLOCK | O_CLOEXEC |
              (symlinks == Symlinks::Refuse ? O_NOFOLLOW : 0);
  int fd = openAt(parent->fd, parent->last, flags);
  if (fd < 0) {
    int error = errno;
    if (error == ELOOP && symlinks == Symlinks::Refuse)
      return fail(ELOOP, "is a symlink; not followed");
    return fail(error, "cannot open: " + errnoReason(error));
  }
  RegularFile file{UniqueFd(fd), {}};
  struct stat st;
  if (::fstat(fd, &st) != 0)
    return fail(errno, "cannot stat: " + errnoReason(errno));
  if (S_ISDIR(st.st_mode))
    return fail(EISDIR, "is a directory");
  if (!S_ISREG(st.st_mode))
    return fail(EINVAL, "is not a regular file");
  if (parent->trailingSlash)
    return fail(ENOTDIR, "cannot open: " + errnoReason(ENOTDIR));
#if !defined(__linux__) || defined(AIMODEL_POSIX_FALLBACKS)
  // A regular file never blocks: clear O_NONBLOCK for ordinary reads. The
  // flags are the ones just opened with, so no F_GETFL is needed.
  if (::fcntl(fd, F_SETFL, flags & ~O_NONBLOCK & ~O_CLOEXEC) != 0)
    return fail(errno, "cannot open: " + errnoReason(errno));
#endif
  // On Linux O_NONBLOCK has no effect on a regular file (open(2)), so it is
  // left set: two system calls fewer per file, 6 per audited bundle.
  file.state = stateFrom(st);
  return file;
}

/// Splits `path` into the folder it names (resolved as given) and its last
/// component, so that only the last is subject to `symlinks`.
template <typename Result, typename OpenFn>
static llvm::Expected<Result>
openLastComponent(llvm::StringRef path, Symlinks symlinks, OpenFn open) {
  if (symlinks == Symlinks::Follow)
    return open(AT_FDCWD, path);
  llvm::StringRef trimmed = path;
  while (trimmed.size() > 1 && trimmed.ends_with("/"))
    trimmed = trimmed.drop_back();
  size_t slash = trimmed.rfind('/');
  if (slash == llvm::StringRef::npos || trimmed == "/")
    return open(AT_FDCWD, path);
  llvm::Expected<UniqueFd> folder = openDirectory(
      trimmed.take_front(slash == 0 ? 1 : slash), Symlinks::Follow);
  if (!folder)
    return folder.takeError();
  return open(folder->get(), path.drop_front(slash + 1));
}

llvm::Expected<RegularFile> openRegularFile(llvm::StringRef path,
                                            Symlinks symlinks) {
  return openLastComponent<RegularFile>(
      path, symlinks, [&](int dirFd, llvm::StringRef name) {
        return openRegularFile(dirFd, name, symlinks);
      });
}

llvm::Expected<UniqueFd> openDirectory(int dirFd, llvm::StringRef name,
                                       Symlinks symlinks) {
  llvm::Expected<Parent> parent = openParent(dirFd, name, symlinks);
  if (!parent)
    return parent.takeError();
  int flags = O_RDONLY | O_DIRECTORY | O_CLOEXEC |
              (symlinks == Symlinks::Refuse ? O_NOFOLLOW : 0);
  int fd = openAt(parent->fd, parent->last, flags);
  if (fd < 0) {
    int error = errno;
    // O_DIRECTORY|O_NOFOLLOW says ENOTDIR for a symlink, ELOOP for others.
    if (symlinks == Symlinks::Refuse && (error == ENOTDIR || error == ELOOP) &&
        isSymlinkAt(parent->fd, parent->last))
      return fail(ELOOP, "is a symlink; not followed");
    if (error == ENOTDIR)
      return fail(ENOTDIR, "is not a directory");
    return fail(error, "cannot read directory: " + errnoReason(error));
  }
  return UniqueFd(fd);
}

llvm::Expected<UniqueFd> openDirectory(llvm::StringRef path,
                                       Symlinks symlinks) {
  return openLastComponent<UniqueFd>(
      path, symlinks, [&](int dirFd, llvm::StringRef name) {
        return openDirectory(dirFd, name, symlinks);
      });
}

llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>>
mapRegularFile(RegularFile file, llvm::StringRef name) {
  auto buffer = llvm::MemoryBuffer::getOpenFile(
      file.fd.get(), name, file.size(), /*RequiresNullTerminator=*/false);
  if (!buffer)
    return llvm::createStringError(
        buffer.getError(), "cannot read: " + buffer.getError().message());
  return guardBuffer(std::move(*buffer), std::move(file), name);
}

llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>>
mapRegularFile(int dirFd, llvm::StringRef name, Symlinks symlinks) {
  llvm::Expected<RegularFile> file = openRegularFile(dirFd, name, symlinks);
  if (!file)
    return file.takeError();
  return mapRegularFile(std::move(*file), name);
}

llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>>
mapRegularFile(llvm::StringRef path, Symlinks symlinks) {
  llvm::Expected<RegularFile> file = openRegularFile(path, symlinks);
  if (!file)
    return file.takeError();
  return mapRegularFile(std::move(*file), path);
}

llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>>
mapRegularFile(llvm::StringRef path) {
  return mapRegularFile(path, Symlinks::Follow);
}

} // namespace aimodel::support
