//===- Bundle.h - Core AI bundle kinds and their layout ---------*- C++ -*-===//
//
// What a Core AI bundle directory is made of. The facts about layouts (which
// member files a kind needs, how the IR file is named) live in one place,
// Bundle.cpp, so that a layout fact learnt wrong is a one-line change.
//
//===----------------------------------------------------------------------===//
#ifndef AIMODEL_BUNDLE_BUNDLE_H
#define AIMODEL_BUNDLE_BUNDLE_H

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace aimodel::bundle {

enum class BundleKind {
  Asset,         ///< X.aimodel: portable IR
  CompiledAsset, ///< X.<arch>.aimodelc: AOT-compiled
  BundleDir,     ///< coreai-models outer folder: metadata.json with
                 ///< metadata_version
  IRFile,        ///< one MLIR bytecode file (by its magic), outside any asset
};

/// The name used in reports: "aimodel", "aimodelc", "bundle-dir", "ir-file".
llvm::StringRef bundleKindName(BundleKind kind);

/// The asset kind a directory name announces by its extension, if any.
std::optional<BundleKind> assetKindFromName(llvm::StringRef name);

/// A directory entry as lstat sees it: symlinks are never resolved.
struct DirEntry {
  enum class Type { File, Directory, Symlink, Other };
  std::string name; ///< relative to the listed directory, '/'-separated
  Type type = Type::Other;
  std::string symlinkTarget;      ///< for symlinks: what the link says
  uint64_t device = 0, inode = 0; ///< identity (of the link, for symlinks)
};

/// Entries of the open directory `dirFd`, sorted by name (byte order), "."
/// and ".." omitted, each lstat'd relative to the descriptor (so the
/// directory's path length never matters). An entry that cannot be examined
/// makes the listing fail: its type would be a guess.
llvm::Expected<std::vector<DirEntry>> listDirectory(int dirFd);

/// Entries of the directory at `dir`, a path the user named (followed).
llvm::Expected<std::vector<DirEntry>> listDirectory(llvm::StringRef dir);

/// A folder a walk could not read: never skipped in silence.
struct WalkError {
  std::string name;   ///< relative to the walked folder; "" for itself
  std::string reason; ///< "permission denied", ...
};

/// Walks the folders below the open directory `dirFd` depth first, calling
/// `onFolder(fd, rel, entries)` for it (rel "") and for every folder entered.
/// A real directory is entered only if `descend` (given the entry with its
/// name relative to `dirFd`) returns true; symlinks never are, so loops
/// cannot hang it. `top`, when given, is dirFd's listing, so it is not
/// listed twice. Descriptors are held along the current branch only.
std::vector<WalkError>
walkFolders(int dirFd,
            llvm::function_ref<void(int fd, const std::string &rel,
                                    const std::vector<DirEntry> &entries)>
                onFolder,
            llvm::function_ref<bool(const DirEntry &)> descend,
            const std::vector<DirEntry> *top = nullptr);

/// Calls `visit` for every entry at any depth below the open directory
/// `dirFd` (names relative to it), entering real directories only; when
/// `descend` is given, a directory is entered only if it returns true (the
/// directory itself is still visited). Returns the folders that could not
/// be read.
[[nodiscard]] std::vector<WalkError>
forEachEntryBelow(int dirFd, llvm::function_ref<void(const DirEntry &)> visit,
                  llvm::function_ref<bool(const DirEntry &)> descend = nullptr);

/// The same below the directory at `dir` (a path the user named); a `dir`
/// that cannot be read is the error named "".
[[nodiscard]] std::vector<WalkError>
forEachEntryBelow(llvm::StringRef dir,
                  llvm::function_ref<void(const DirEntry &)> visit,
                  llvm::function_ref<bool(const DirEntry &)> descend = nullptr);

/// The members an asset of a kind is made of.
struct AssetLayout {
  std::string metadata; ///< always "metadata.json"
  std::string hash;     ///< always "main.hash"
  std::string ir; ///< "main.mlirb", or "main-<arch>.mlirb"; empty if unknown
  /// A compiled asset's architecture ("h18p") and the folder of its
  /// delegate graphs ("main-h18p-delegates"); empty when unknown.
  std::string arch, delegates;
  std::vector<std::string> optionalMembers; ///< known, not required
  std::string problem; ///< why `ir` could not be determined, if it could not
};

/// Resolves the layout of an asset directory named `dirName` whose top-level
/// entries are `entries`. For X.<arch>.aimodelc the arch comes from the name;
/// a compiled asset named without one falls back to its only main-*.mlirb.
AssetLayout resolveAssetLayout(BundleKind kind, llvm::StringRef dirName,
                               const std::vector<DirEntry> &entries);

/// The name that says what a path named by the user is: its own last
/// component if that announces a kind, else that of its canonical path, so
/// "X.aimodel/.", ".." and a link named otherwise are classified by what they
/// lead to. "" if neither names a bundle.
std::string namedPathKindName(const std::string &path);

/// Last path component, ignoring trailing slashes.
llvm::StringRef baseName(llvm::StringRef path);

/// `dir` + "/" + `name`, without doubling a trailing slash.
std::string joinPath(llvm::StringRef dir, llvm::StringRef name);

} // namespace aimodel::bundle

#endif // AIMODEL_BUNDLE_BUNDLE_H
