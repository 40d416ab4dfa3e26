//===- OutputTree.h - Where `aimodel strip` writes, and how -----*- C++ -*-===//
//
// The file-system half of `strip`: nothing here knows what an asset is.
// Everything a run writes is built in a temporary sibling of DST (same
// folder, named ".DSTNAME.aimodel-strip-<pid>"), and renamed into place
// only once complete, so DST never exists half written: renameat2 with
// RENAME_NOREPLACE, or RENAME_EXCHANGE under --force, after which the old
// DST (now under the temporary name) is deleted. A temporary whose pid is
// no longer alive was left by a killed run and is removed by the next one.
//
// Inputs are only ever opened read-only, below their folder's descriptor,
// without following a symlink (support/SafeFile.h). New files are created
// O_EXCL|O_NOFOLLOW with the source's permission bits; folders are created
// 0700 and given theirs once filled, so a read-only source folder can be
// mirrored. Data is flushed (syncfs) before anything is renamed into place.
//
//===----------------------------------------------------------------------===//
#ifndef AIMODEL_STRIP_OUTPUTTREE_H
#define AIMODEL_STRIP_OUTPUTTREE_H

#include "support/SafeFile.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <string>
#include <sys/types.h>
#include <vector>

namespace aimodel::strip {

/// DST's slot in its parent folder: checked, then filled through a
/// temporary sibling and published atomically.
class OutputSlot {
public:
  /// Checks DST against SRC (`source`, opened by the caller and followed as
  /// the user named it): DST's folder must exist; DST must not be SRC nor
  /// inside it (real paths, through the open descriptors); without `force`
  /// DST must not exist; with it, SRC must not be DST nor inside it.
  static llvm::Expected<OutputSlot> prepare(const std::string &dst,
                                            int sourceFd, bool force);

  OutputSlot(OutputSlot &&other) noexcept;
  OutputSlot &operator=(OutputSlot &&) = delete;
  /// Removes the temporary if it was never published.
  ~OutputSlot();

  int parentFd() const { return parent_.get(); }
  /// DST's last component, and the temporary sibling's name.
  const std::string &name() const { return name_; }
  const std::string &tempName() const { return temp_; }

  /// Removes temporaries of DST left by runs whose process is gone (and
  /// one named with this very pid: it cannot be a live run's). Returns the
  /// names removed; `failures` gets one line per one that could not be.
  std::vector<std::string> removeStale(std::vector<std::string> &failures);

  /// Creates the temporary as a folder (0700), or as a file with `mode`.
  llvm::Expected<support::UniqueFd> createTempFolder();
  llvm::Expected<support::UniqueFd> createTempFile(mode_t mode);

  /// Flushes the finished temporary's file system, renames it to DST
  /// (replacing it under --force, then deleting the old one: a failure
  /// there is only a warning, put in `warning`), and flushes the parent.
  llvm::Error publish(std::string &warning);

  /// Removes the temporary and everything in it.
  void discard();

private:
  OutputSlot() = default;

  support::UniqueFd parent_;
  std::string name_, temp_, display_;
  bool force_ = false;
  bool created_ = false;
};

/// Creates the folder `name` below `dirFd` (0700, never following a
/// symlink) and opens it.
llvm::Expected<support::UniqueFd> makeFolder(int dirFd, llvm::StringRef name);

/// Creates the new file `name` below `dirFd` (O_EXCL|O_NOFOLLOW, read and
/// write) with exactly the permission bits `mode` (umask aside).
llvm::Expected<support::UniqueFd> createFile(int dirFd, llvm::StringRef name,
                                             mode_t mode);

/// Copies the regular file `name` below `sourceDirFd` (never followed) to
/// the new file `name` below `targetDirFd` with its permission bits, by
/// copy_file_range (read/write where the kernel cannot).
/// Returns the bytes copied. Names may hold '/' (opened per component).
llvm::Expected<uint64_t> copyFile(int sourceDirFd, llvm::StringRef name,
                                  int targetDirFd);

/// Gives the folder `name` below `targetDirFd` ("" or "." for itself) the
/// permission bits `mode`.
llvm::Error finishFolder(int targetDirFd, llvm::StringRef name, mode_t mode);

/// Permission bits of the open descriptor `fd`.
llvm::Expected<mode_t> permissionsOf(int fd);

/// Deletes `name` below `dirFd` and, for a folder, everything in it,
/// never following a symlink (a link is removed, not its target).
llvm::Error removeTree(int dirFd, llvm::StringRef name);

/// The real path of an open descriptor ("/proc/self/fd/N").
llvm::Expected<std::string> realPathOf(int fd);

} // namespace aimodel::strip

#endif // AIMODEL_STRIP_OUTPUTTREE_H
