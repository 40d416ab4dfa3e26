//===- OutputTree.h - Where `aimodel strip` writes, and how -----*- C++ -*-===//
//
// The file-system half of `strip`: nothing here knows what an asset is.
//
// The input is untouchable. An InputGuard records what SRC is by identity
// (device and inode): SRC, every folder below it, every folder above it.
// Nothing that removes can enter or unlink one of those, nor leave the
// file system mount of DST's folder (a bind mount of the same file system
// counts as another mount); DST is refused when its folder is one of SRC's.
// Identities, not spellings, so symlinks, `..` and bind mounts cannot hide
// SRC.
//
// Everything a run writes is built in a temporary sibling of DST, a folder
// ".DSTNAME.aimodel-strip-<random>" created O_EXCL-style (mkdir), locked
// (flock on the folder) and marked by the run that made it. So a temporary
// is "stale" exactly when no live run holds its lock, in any process or
// pid namespace; the next run removes such temporaries (one not yet marked
// only if it is empty), and nothing else. The output inside it ("out", a file
// or folder) is renamed into place once complete: no-replace, or swapped with
// the old DST under
// --force, whose removal follows the same guard.
//
// Inputs are only ever opened read-only, below their folder's descriptor,
// without following a symlink (support/SafeFile.h). New files are created
// O_EXCL|O_NOFOLLOW with the source's permission bits except setuid and
// setgid (dropped deliberately: a copy must not gain a privilege); folders
// are created 0700 and given theirs once filled, so a read-only source
// folder can be mirrored.
//
//===----------------------------------------------------------------------===//
#ifndef AIMODEL_STRIP_OUTPUTTREE_H
#define AIMODEL_STRIP_OUTPUTTREE_H

#include "support/FileSystem.h"
#include "support/SafeFile.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <sys/types.h>
#include <vector>

namespace aimodel::strip {

using support::FileIdentity;

/// What SRC is, by identity.
class InputGuard {
public:
  /// `sourceFd` is SRC opened as the user named it (`path`), a folder or a
  /// regular file. Walks SRC's folders (never following a symlink) and
  /// climbs from SRC (or, for a file, the folder it really sits in).
  static llvm::Expected<InputGuard> of(int sourceFd, const std::string &path);

  /// SRC itself, a file or folder inside it, or a folder above it: never
  /// removed, never entered by a removal.
  bool isProtected(const FileIdentity &id) const {
    return above.count(id) || below.count(id);
  }
  /// A folder DST must not be written into: SRC or one below it.
  bool holdsFolder(const FileIdentity &folder) const {
    return below.count(folder);
  }
  const FileIdentity &source() const { return self; }

  /// Only the open folder `folderFd` and the folders above it: what an
  /// in-place repair of an entry of that folder must never remove.
  static llvm::Expected<InputGuard> foldersAbove(int folderFd);

private:
  FileIdentity self;
  std::set<FileIdentity> above; ///< SRC and the folders above it
  std::set<FileIdentity> below; ///< SRC (a folder) and everything below it
};

/// Where removals may go: the mount of DST's folder, never the input.
struct RemovalGuard {
  uint64_t mount = 0;
  const InputGuard *input = nullptr;
};

/// DST's slot in its parent folder: checked, then filled through a
/// temporary sibling and published atomically.
class OutputSlot {
public:
  /// Checks DST against SRC: DST's folder must exist and not be SRC or in
  /// it; DST must not be SRC; without `force` DST must not exist; with it,
  /// DST must be removable under the guard (it holds no part of SRC and no
  /// mount point).
  static llvm::Expected<OutputSlot>
  prepare(const std::string &dst, const InputGuard &input, bool force);

  /// The slot of `name`, an existing entry of the open folder `parentFd`
  /// (shown as `shown`), to be replaced in place: publish() swaps the
  /// output with it. `guard` protects what the old entry's removal must
  /// not touch.
  static llvm::Expected<OutputSlot> replacing(int parentFd,
                                              llvm::StringRef name,
                                              const std::string &shown,
                                              const InputGuard &guard);

  OutputSlot(OutputSlot &&other) noexcept;
  OutputSlot &operator=(OutputSlot &&) = delete;
  /// Removes the temporary if it was never published.
  ~OutputSlot();

  /// DST's last component.
  const std::string &name() const { return name_; }
  const RemovalGuard &guard() const { return guard_; }

  /// Removes temporaries of DST whose lock no live run holds. Returns the
  /// names removed; `failures` gets one line per one that could not be.
  std::vector<std::string> removeStale(std::vector<std::string> &failures);

  /// Creates the temporary, holding the output as a folder (0700) or as a
  /// file with `mode`; returns the output's descriptor.
  llvm::Expected<support::UniqueFd> createTempFolder();
  llvm::Expected<support::UniqueFd> createTempFile(mode_t mode);

  /// Renames the finished output to DST (swapping it with the old DST
  /// under --force, then removing the old one: a failure there is only a
  /// warning, put in `warning`), then removes the temporary. A folder
  /// output is given `folderMode` then: moving a folder to another parent
  /// needs write permission on it, which a read-only source's lacks.
  llvm::Error publish(std::string &warning,
                      std::optional<mode_t> folderMode = std::nullopt);

  /// Removes the temporary and everything in it.
  void discard();

private:
  OutputSlot() = default;
  llvm::Expected<int> createTemp();
  /// Puts back a DST an interrupted POSIX swap left in the temporary
  /// `tempFd`; true when it did.
  bool restoreAside(int tempFd);
  void removeTemp();

  /// temp_ is the temporary folder, held locked (flock) while this lives.
  support::UniqueFd parent_, temp_, output_;
  std::string name_, tempName_, display_;
  RemovalGuard guard_;
  bool force_ = false;
  bool outputCreated_ = false;
};

/// Whether `name` is one of strip's temporaries (".X.aimodel-strip-<hex>"):
/// a tree walk never copies or repairs one.
bool isStripTemporaryName(llvm::StringRef name);

/// The name of the DST a strip temporary `name` belongs to; none when it
/// is not one, or its name was cut to fit (DST names over 200 bytes).
std::optional<std::string> temporaryOwner(llvm::StringRef name);

/// Creates the folder `name` below `dirFd` (0700, never following a
/// symlink) and opens it.
llvm::Expected<support::UniqueFd> makeFolder(int dirFd, llvm::StringRef name);

/// Creates the new file `name` below `dirFd` (O_EXCL|O_NOFOLLOW, read and
/// write) with the read, write and execute bits of `mode` (setuid, setgid
/// and sticky dropped), whatever the umask.
llvm::Expected<support::UniqueFd> createFile(int dirFd, llvm::StringRef name,
                                             mode_t mode);

/// Copies the regular file `name` below `sourceDirFd` (never followed) to
/// the new file `name` below `targetDirFd` with its permission bits, by
/// the kernel where it can (support::copyRange). The source must not
/// change while it is copied (its state is compared before and after).
/// Returns the bytes copied. Names may hold '/' (opened per component).
/// Errors name the side that failed: `inShown` (reading) or `outShown`.
llvm::Expected<uint64_t> copyFile(int sourceDirFd, llvm::StringRef name,
                                  int targetDirFd, const std::string &inShown,
                                  const std::string &outShown);

/// As copyFile, from the already open regular file `source`.
llvm::Expected<uint64_t> copyOpenFile(const support::RegularFile &source,
                                      llvm::StringRef name, int targetDirFd,
                                      const std::string &inShown,
                                      const std::string &outShown);

/// An input that cannot be used (unreadable, undecodable): a tree skips
/// the asset holding it and goes on; anything else stops the run.
class UnusableInput : public llvm::ErrorInfo<UnusableInput> {
public:
  static char ID;
  explicit UnusableInput(std::string message) : message(std::move(message)) {}
  void log(llvm::raw_ostream &os) const override { os << message; }
  std::error_code convertToErrorCode() const override {
    return std::make_error_code(std::errc::invalid_argument);
  }
  std::string message;
};

/// "<path>: <message>", the path printable; the error's code, and its
/// being an UnusableInput, are kept.
llvm::Error fileError(const std::string &path, llvm::Error error);
llvm::Error fileError(const std::string &path, const llvm::Twine &message);

/// "<path>: changed while it was stripped ...", with EAGAIN as its code:
/// the run stops, and says the file changed in these words only.
llvm::Error changedWhileStripped(const std::string &path);

/// `error` (prefixed with `path`) as an UnusableInput.
llvm::Error unusableInput(const std::string &path, llvm::Error error);

/// Gives the folder `name` below `targetDirFd` ("" or "." for itself) the
/// permission bits `mode`, setuid and setgid dropped.
llvm::Error finishFolder(int targetDirFd, llvm::StringRef name, mode_t mode);

/// Permission bits of the open descriptor `fd`.
llvm::Expected<mode_t> permissionsOf(int fd);

/// Deletes `name` below `dirFd` and, for a folder, everything in it,
/// never following a symlink (a link is removed, not its target), never
/// leaving `guard.mount` and never touching what `guard.input` protects:
/// either is an error, and what lies beyond stays.
llvm::Error removeTree(int dirFd, llvm::StringRef name,
                       const RemovalGuard &guard);

} // namespace aimodel::strip

#endif // AIMODEL_STRIP_OUTPUTTREE_H
