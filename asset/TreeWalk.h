//===- TreeWalk.h - Finding bundles in a tree -------------------*- C++ -*-===//
//
// Walks the paths users name and returns every bundle below them, in byte
// order of their reported paths, whatever order the file system lists
// directories in. Directory symlinks are never entered, so loops cannot hang
// the walk; a symlink that looks like a bundle is reported, not followed.
//
//===----------------------------------------------------------------------===//
#ifndef AIMODEL_ASSET_TREEWALK_H
#define AIMODEL_ASSET_TREEWALK_H

#include "asset/Bundle.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <string>
#include <vector>

namespace aimodel::asset {

struct FoundBundle {
  std::string path; ///< as given + '/'-joined relative part (raw bytes)
  BundleKind kind;
  DirEntry::Type entryType = DirEntry::Type::Directory;
  std::string symlinkTarget; ///< when the bundle path itself is a symlink
};

struct WalkResult {
  std::vector<FoundBundle> bundles; ///< sorted by path, no duplicates
  /// Folders below the roots that could not be read: the audit is incomplete.
  std::vector<std::string> errors;
};

/// Finds the bundles under each root. A root that does not exist, cannot be
/// read, or is a plain file not named like a bundle is an input error.
llvm::Expected<WalkResult> findBundles(const std::vector<std::string> &roots);

/// True when `dir` (not itself an asset) is a coreai-models bundle folder:
/// its metadata.json has "metadata_version", or it cannot be parsed but the
/// folder holds assets.
bool isBundleDir(llvm::StringRef dir, const std::vector<DirEntry> &entries);

} // namespace aimodel::asset

#endif // AIMODEL_ASSET_TREEWALK_H
