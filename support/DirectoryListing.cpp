//===- DirectoryListing.cpp - Reading a directory's entries ---------------===//
//
// Three forms: Linux (getdents64), macOS and plain POSIX (readdir). The
// POSIX one is also built on Linux under AIMODEL_POSIX_FALLBACKS, so CI
// runs it.
//
//===----------------------------------------------------------------------===//

#include "support/DirectoryListing.h"

#include "support/SafeFile.h"

#include <cerrno>
#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

#if defined(__linux__) && !defined(AIMODEL_POSIX_FALLBACKS)
#define AIMODEL_LINUX 1
#elif defined(__APPLE__) && !defined(AIMODEL_POSIX_FALLBACKS)
#define AIMODEL_MACOS 1
#endif

namespace aimodel::support {

namespace {

llvm::Error listingError(int errorNumber) {
  return ioError("cannot read directory", errorNumber);
}

bool isDotOrDotDot(const char *name) {
  return name[0] == '.' &&
         (name[1] == '\0' || (name[1] == '.' && name[2] == '\0'));
}

#if defined(AIMODEL_LINUX) || defined(AIMODEL_MACOS)
ListedType typeOf(unsigned char type) {
  switch (type) {
  case DT_UNKNOWN:
    return ListedType::Unknown;
  case DT_REG:
    return ListedType::File;
  case DT_DIR:
    return ListedType::Directory;
  case DT_LNK:
    return ListedType::Symlink;
  default: // FIFO, socket, device, whiteout
    return ListedType::Other;
  }
}
#endif

#if defined(AIMODEL_LINUX)
/// getdents64 straight into a buffer: no duplicate descriptor, no DIR.
llvm::Error
readEntries(int dirFd,
            llvm::function_ref<void(llvm::StringRef, ListedType)> onEntry,
            ListFrom from, ListedTypes types) {
  if (from == ListFrom::Start && ::lseek(dirFd, 0, SEEK_SET) < 0)
    return listingError(errno);
  // glibc's readdir reads 32 KiB at a time too; records are 8-aligned.
  alignas(struct dirent64) char buffer[32 * 1024];
  while (true) {
    ssize_t n = ::getdents64(dirFd, buffer, sizeof(buffer));
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0)
      return listingError(errno);
    if (n == 0)
      return llvm::Error::success();
    for (ssize_t at = 0; at < n;) {
      const auto *entry =
          reinterpret_cast<const struct dirent64 *>(buffer + at);
      at += entry->d_reclen;
      if (isDotOrDotDot(entry->d_name))
        continue;
      onEntry(entry->d_name, types == ListedTypes::Unknown
                                 ? ListedType::Unknown
                                 : typeOf(entry->d_type));
    }
  }
}
#else
/// readdir through a duplicate (fdopendir owns what it is given), rewound
/// since the duplicate shares the caller's position.
llvm::Error
readEntries(int dirFd,
            llvm::function_ref<void(llvm::StringRef, ListedType)> onEntry,
            ListFrom from, ListedTypes types) {
  (void)from; // the duplicate is rewound either way
  int copy = ::fcntl(dirFd, F_DUPFD_CLOEXEC, 0);
  if (copy < 0)
    return listingError(errno);
  DIR *handle = ::fdopendir(copy);
  if (!handle) {
    int error = errno;
    ::close(copy);
    return listingError(error);
  }
  struct Closer {
    DIR *handle;
    ~Closer() { ::closedir(handle); }
  } closer{handle};
  ::rewinddir(handle);
  while (true) {
    errno = 0;
    struct dirent *d = ::readdir(handle);
    if (!d)
      return errno ? listingError(errno) : llvm::Error::success();
    if (isDotOrDotDot(d->d_name))
      continue;
#if defined(AIMODEL_MACOS)
    ListedType type =
        types == ListedTypes::Unknown ? ListedType::Unknown : typeOf(d->d_type);
#else
    (void)types; // POSIX has no d_type: every entry must be examined
    ListedType type = ListedType::Unknown;
#endif
    onEntry(d->d_name, type);
  }
}
#endif

} // namespace

llvm::Error
readDirectory(int dirFd,
              llvm::function_ref<void(llvm::StringRef, ListedType)> onEntry,
              ListFrom from, ListedTypes types) {
  return readEntries(dirFd, onEntry, from, types);
}

} // namespace aimodel::support
