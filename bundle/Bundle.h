//===- Bundle.h - Core AI bundle kinds and their layout ---------*- C++ -*-===//
//
// What a Core AI bundle directory is made of. The facts about layouts (which
// member files a kind needs, how the IR file is named) live in one place,
// Bundle.cpp, so that a layout fact learnt wrong is a one-line change.
//
//===----------------------------------------------------------------------===//
#ifndef AIMODEL_BUNDLE_BUNDLE_H
#define AIMODEL_BUNDLE_BUNDLE_H

#include "support/DirectoryListing.h"

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
  uint64_t size = 0;              ///< lstat's size
  /// lstat'd: identity and size are known (always, but for the files and
  /// others of an EntryDetail::Types listing).
  bool examined = false;
};

/// How much a listing learns of each entry.
enum class EntryDetail {
  /// Every entry lstat'd: type, identity and size.
  Full,
  /// Types as the listing gives them (d_type); lstat'd only where it gives
  /// none (DT_UNKNOWN), and folders and symlinks, whose identity a walk
  /// needs. Files and others are not examined: for callers that open each
  /// file they care about anyway (its fstat says the rest).
  Types,
};

struct ListingOptions {
  EntryDetail detail = EntryDetail::Full;
  /// FreshDescriptor: `dirFd` was opened just now, never read (no rewind).
  support::ListFrom from = support::ListFrom::Start;
  /// Unknown: as if the file system gave no types (tests of the fallback).
  support::ListedTypes types = support::ListedTypes::FromListing;
};

/// Entries of the open directory `dirFd`, sorted by name (byte order), "."
/// and ".." omitted, examined (lstat) relative to the descriptor (so the
/// directory's path length never matters) as `options.detail` says. An
/// entry that cannot be examined makes the listing fail: its type would be
/// a guess. So does a folder whose names can be read but whose entries
/// cannot be examined (no search permission), even when no entry needed
/// examining: one is, to tell.
llvm::Expected<std::vector<DirEntry>>
listDirectory(int dirFd, const ListingOptions &options = {});

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
/// Folders are listed with `detail`.
std::vector<WalkError>
walkFolders(int dirFd,
            llvm::function_ref<void(int fd, const std::string &rel,
                                    const std::vector<DirEntry> &entries)>
                onFolder,
            llvm::function_ref<bool(const DirEntry &)> descend,
            const std::vector<DirEntry> *top = nullptr,
            EntryDetail detail = EntryDetail::Full);

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
