//===- FileSystem.h - What writers ask of the file system -------*- C++ -*-===//
//
// The calls a safe writer needs that POSIX does not give portably, each
// behind one function: atomic renames that refuse to replace or that swap,
// the mount a folder belongs to, exclusive locks, random names, and a
// file's state for "did it change while I read it". Linux uses renameat2, statx
// and /proc; macOS renameatx_np; anything else (and Linux built with
// AIMODEL_POSIX_FALLBACKS, so the fallbacks are tested code) plain POSIX, with
// what that loses said below.
//
//===----------------------------------------------------------------------===//
#ifndef AIMODEL_SUPPORT_FILESYSTEM_H
#define AIMODEL_SUPPORT_FILESYSTEM_H

#include "support/SafeFile.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <optional>
#include <string>
#include <sys/types.h>
#include <utility>

namespace aimodel::support {

llvm::Expected<FileIdentity> identityOf(int fd);
llvm::Expected<FileState> stateOf(int fd);
/// The entry `name` below `dirFd`, not followed; nullopt when absent.
llvm::Expected<std::optional<FileState>> stateAt(int dirFd,
                                                 llvm::StringRef name);

/// Which mount the open file or folder `fd` belongs to: a number that
/// differs across mounts, bind mounts of one file system included (Linux:
/// statx's mount id). Where the system cannot tell mounts apart, the
/// device number (which still tells file systems apart).
llvm::Expected<uint64_t> mountOf(int fd);
/// The same for the entry `name` below `dirFd`, not followed (a file bind
/// mounted there is on its own mount).
llvm::Expected<uint64_t> mountAt(int dirFd, llvm::StringRef name);

/// Renames `from` below `fromDir` to `to` below `toDir`, atomically, failing
/// with EEXIST when `to` exists. Without an atomic no-replace rename (POSIX)
/// a file is published by link-then-unlink (atomic too); a folder by a
/// check then a rename, which a racing writer of `to` can defeat.
llvm::Error renameNoReplace(int fromDir, llvm::StringRef from, int toDir,
                            llvm::StringRef to);

/// Swaps `a` below `aDir` and `b` below `bDir` atomically (both exist).
/// Without an atomic swap (POSIX), `b` is renamed to `aside` below `aDir`
/// (which must not exist) and then `a` to `b`: for a moment there is no `b`.
llvm::Error renameExchange(int aDir, llvm::StringRef a, int bDir,
                           llvm::StringRef b, llvm::StringRef aside);

/// The folder above the open folder `dirFd` ("..") opened only to be
/// looked at and climbed from (Linux: O_PATH, so no read permission is
/// needed).
llvm::Expected<UniqueFd> openParentFolder(int dirFd);

/// Takes an exclusive lock on the open file `fd` without waiting: false
/// when another open file description holds it (in any process, any pid
/// namespace). Released when `fd` closes, so a killed holder frees it.
llvm::Expected<bool> tryLockExclusive(int fd);

/// `bytes` random bytes as lower-case hex, from the kernel's generator.
llvm::Expected<std::string> randomHex(unsigned bytes);

/// Where the open file `fd` is, as an absolute path, or "" when the
/// system cannot tell or the file has no name any more.
std::string pathOfOpenFile(int fd);

/// Tells the kernel `fd` will be read once, front to back.
void adviseSequentialRead(int fd);

/// Gives back the pages of [start, start + length) of a read-only private
/// mapping (nothing is lost: they are read again if touched). Linux and
/// macOS drop them (madvise DONTNEED); plain POSIX only advises.
void dropMappedPages(const void *start, size_t length);

/// True when this build uses only the plain POSIX fallbacks above.
bool usesPosixFallbacks();

} // namespace aimodel::support

#endif // AIMODEL_SUPPORT_FILESYSTEM_H
