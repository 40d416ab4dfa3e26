//===- SafeFile.h - Open and map untrusted regular files --------*- C++ -*-===//
//
// Every read and every mapping of a file the user did not write goes through
// one open, so the same rules hold everywhere: never block on a FIFO or
// device, refuse anything but a regular file, decide on the open descriptor
// (fstat), never on an earlier lstat that a rename could invalidate, and let
// the open itself refuse a symlink (O_NOFOLLOW), so no check can race it.
//
// Paths the user names on the command line may be followed
// (Symlinks::Follow); everything met inside a bundle never is
// (Symlinks::Refuse). Names are opened relative to a directory descriptor
// (openat), so a path's depth or length never matters.
//
//===----------------------------------------------------------------------===//
#ifndef AIMODEL_SUPPORT_SAFEFILE_H
#define AIMODEL_SUPPORT_SAFEFILE_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/MemoryBuffer.h"

#include <cstdint>
#include <memory>
#include <string>

struct stat;

namespace aimodel::support {

/// An owned file descriptor, closed when it goes out of scope.
class UniqueFd {
public:
  UniqueFd() = default;
  explicit UniqueFd(int fd) : fd_(fd) {}
  UniqueFd(UniqueFd &&other) noexcept : fd_(other.release()) {}
  UniqueFd &operator=(UniqueFd &&other) noexcept {
    reset(other.release());
    return *this;
  }
  UniqueFd(const UniqueFd &) = delete;
  UniqueFd &operator=(const UniqueFd &) = delete;
  ~UniqueFd() { reset(); }

  int get() const { return fd_; }
  explicit operator bool() const { return fd_ >= 0; }
  int release() {
    int fd = fd_;
    fd_ = -1;
    return fd;
  }
  void reset(int fd = -1);

private:
  int fd_ = -1;
};

enum class Symlinks {
  Refuse, ///< no component of the name may be a symlink (O_NOFOLLOW each)
  Follow, ///< resolved as the kernel resolves any path
};

/// What a file is, whatever it is called: device and inode.
struct FileIdentity {
  uint64_t device = 0, inode = 0;
  bool operator==(const FileIdentity &o) const {
    return device == o.device && inode == o.inode;
  }
  bool operator!=(const FileIdentity &o) const { return !(*this == o); }
  bool operator<(const FileIdentity &o) const {
    return std::make_pair(device, inode) < std::make_pair(o.device, o.inode);
  }
};

/// Identity, size and change times of a file: equal states before and
/// after a read mean nothing wrote to it meanwhile (a write, a truncation
/// and a replacement all change one of them).
struct FileState {
  FileIdentity identity;
  uint64_t size = 0;
  int64_t mtimeSec = 0, mtimeNsec = 0, ctimeSec = 0, ctimeNsec = 0;
  /// st_mode: kind and permissions. Not compared: a chmod changes ctime.
  uint32_t mode = 0;
  bool operator==(const FileState &o) const {
    return identity == o.identity && size == o.size && mtimeSec == o.mtimeSec &&
           mtimeNsec == o.mtimeNsec && ctimeSec == o.ctimeSec &&
           ctimeNsec == o.ctimeNsec;
  }
  bool operator!=(const FileState &o) const { return !(*this == o); }
};

/// What fstat says, as a FileState.
FileState stateFrom(const struct ::stat &st);

/// A regular file open for reading, with its state when it was opened (the
/// baseline every "did it change while it was read" compares with).
struct RegularFile {
  // A constructor, not an aggregate: a size can never brace-initialise
  // the state's first field.
  RegularFile(UniqueFd fd, const FileState &state)
      : fd(std::move(fd)), state(state) {}
  UniqueFd fd;
  FileState state;
  uint64_t size() const { return state.size; }
};

/// THE open: `name` relative to the directory `dirFd` (AT_FDCWD: the current
/// directory) is opened O_RDONLY|O_NONBLOCK|O_CLOEXEC (|O_NOFOLLOW, each
/// component, under Refuse), fstat'd, refused unless a regular file, and
/// then made blocking again (where O_NONBLOCK affects regular files; not
/// on Linux). Errors carry the errno as their code and say
/// what happened: "is a symlink; not followed", "is a directory", "is not a
/// regular file", "cannot open: permission denied", "cannot open: no such
/// file or directory", ...; a folder on the way that fails names itself.
llvm::Expected<RegularFile> openRegularFile(int dirFd, llvm::StringRef name,
                                            Symlinks symlinks);

/// `path` as given: the folders leading to it are resolved as the kernel
/// does; `symlinks` decides for its last component only.
llvm::Expected<RegularFile> openRegularFile(llvm::StringRef path,
                                            Symlinks symlinks);

/// The directory `name` below `dirFd`, opened O_DIRECTORY for listing and as
/// a base for openat (same symlink rules as openRegularFile). Errors: "is a
/// symlink; not followed", "is not a directory", "cannot read directory:
/// <reason>".
llvm::Expected<UniqueFd> openDirectory(int dirFd, llvm::StringRef name,
                                       Symlinks symlinks);

/// `path` as given, of any length (past PATH_MAX it is opened component by
/// component); `symlinks` decides for its last component only.
llvm::Expected<UniqueFd> openDirectory(llvm::StringRef path, Symlinks symlinks);

/// Maps the regular file `path` (no copy), following symlinks: for paths the
/// user named. Errors as openRegularFile, and "cannot read: <reason>".
llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>>
mapRegularFile(llvm::StringRef path);

/// As above, with the last component's symlink rule explicit.
llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>>
mapRegularFile(llvm::StringRef path, Symlinks symlinks);

/// Maps `name` below `dirFd`; by default nothing on the way is followed.
llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>>
mapRegularFile(int dirFd, llvm::StringRef name,
               Symlinks symlinks = Symlinks::Refuse);

/// Maps a file opened by openRegularFile; `name` is the buffer's identifier.
llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>>
mapRegularFile(RegularFile file, llvm::StringRef name);

/// A short, lower-case reason for an errno value ("permission denied", "no
/// such file or directory"), for messages that name the file themselves.
std::string errnoReason(int errorNumber);

/// An error "WHAT: REASON" carrying errno value `errorNumber`.
llvm::Error ioError(const llvm::Twine &what, int errorNumber);

/// Writes all of `bytes` to `fd` (retrying short writes and EINTR); errors
/// "cannot write: REASON".
llvm::Error writeAll(int fd, llvm::StringRef bytes);

/// Up to the first `limit` bytes of `file` (fewer if it is shorter), read
/// with pread, so its offset does not move. Errors "cannot be read: REASON".
llvm::Expected<std::string> readPrefix(const RegularFile &file, size_t limit);

/// Which side of a copy failed: reading `in` or writing `out`.
enum class IOSide { Read, Write };

/// Appends bytes [offset, offset + size) of file `in` to `out` (at its
/// current position): copied by the kernel (Linux copy_file_range), by
/// reading and writing where it cannot. Errors name what failed, or "shrank
/// while it was copied"; `failedSide`, when given, says which side.
llvm::Error copyRange(int in, uint64_t offset, uint64_t size, int out,
                      IOSide *failedSide = nullptr);

} // namespace aimodel::support

#endif // AIMODEL_SUPPORT_SAFEFILE_H
