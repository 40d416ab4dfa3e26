//===- TreeWalk.h - Finding bundles in a tree -------------------*- C++ -*-===//
//
// Walks the paths users name and returns every bundle below them, in byte
// order of their reported paths, whatever order the file system lists
// directories in. Directory symlinks are never entered, so loops cannot hang
// the walk; a symlink that looks like a bundle is reported, not followed.
//
//===----------------------------------------------------------------------===//
#ifndef AIMODEL_BUNDLE_TREEWALK_H
#define AIMODEL_BUNDLE_TREEWALK_H

#include "bundle/Bundle.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <map>
#include <string>
#include <vector>

namespace aimodel::bundle {

struct FoundBundle {
  std::string path; ///< as given + '/'-joined relative part (raw bytes)
  BundleKind kind;
  DirEntry::Type entryType = DirEntry::Type::Directory;
  std::string symlinkTarget; ///< when the bundle path itself is a symlink
  /// The name the kind was read from, when not the path's own last component
  /// (a root named "." is classified by its canonical name). Use kindName().
  std::string nameOfKind;
  /// Named on the command line, so its last component may be a symlink to
  /// follow; a bundle met by the walk never is.
  bool named = false;
  /// The nearest coreai-models bundle folder holding it: the walk's, else
  /// the nearest above the PATH it was found through; "" if none. A path
  /// that `path` starts with ("." holds "./x.aimodel" and "x.aimodel").
  std::string bundleFolder;
  /// When the PATH it was found through is itself a symlink (followed, as
  /// it was named): that PATH as given, and what the link says.
  std::string viaSymlink, viaSymlinkTarget;

  /// The name that announces the kind (and a compiled asset's arch).
  llvm::StringRef kindName() const {
    return nameOfKind.empty() ? baseName(path) : llvm::StringRef(nameOfKind);
  }
};

struct WalkResult {
  /// Sorted by path, no duplicates. A path both named as a root (followed)
  /// and met by the walk (lstat) is reported as walked, in any order. One
  /// bundle reached under several spellings ("d" and "./d") is reported
  /// once, by device and inode, under the first spelling given.
  std::vector<FoundBundle> bundles;
  /// Folders below the roots that could not be read: the audit is incomplete.
  std::vector<std::string> errors;
};

/// Finds the bundles under each root. A root that does not exist, cannot be
/// read, or is a plain file not named like a bundle is an input error. A
/// root is an asset if its name, or failing that its canonical path's last
/// component, says so; it is reported by the path as given. Folders are
/// opened relative to their parent's descriptor, so depth and path length
/// never matter.
llvm::Expected<WalkResult> findBundles(const std::vector<std::string> &roots);

/// Which folders are coreai-models bundle folders, asked by path (followed,
/// as a PATH the user names is) and remembered.
class BundleFolderCache {
public:
  bool isBundleFolder(const std::string &folder);

private:
  std::map<std::string, bool> known;
};

/// The nearest bundle folder among the prefixes of `path` made of its first
/// `depth` components (empty ones skipped), deepest first, then "." for a
/// relative path (one not starting with "." or "..") or "/" for an absolute
/// one; "" if none is.
std::string nearestBundleFolder(llvm::StringRef path, size_t depth,
                                BundleFolderCache &cache);

/// How many components `path` has (empty ones skipped): "a//b/" has 2.
size_t pathDepth(llvm::StringRef path);

/// True when the open directory `dirFd` (not itself an asset) is a
/// coreai-models bundle folder: its metadata.json has "metadata_version", or it
/// cannot be parsed but the folder holds assets.
bool isBundleDir(int dirFd, const std::vector<DirEntry> &entries);

} // namespace aimodel::bundle

#endif // AIMODEL_BUNDLE_TREEWALK_H
