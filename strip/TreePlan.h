//===- TreePlan.h - What a tree run will do (internal) ----------*- C++ -*-===//
//
// Shared by StripTree.cpp and StripInPlace.cpp: one walk of SRC, before
// anything is written, sorts every entry into folders to make, files,
// assets and entries to skip; a pool runs the per-entry work. Not a
// public header.
//
//===----------------------------------------------------------------------===//
#ifndef AIMODEL_STRIP_TREEPLAN_H
#define AIMODEL_STRIP_TREEPLAN_H

#include "bundle/Bundle.h"
#include "support/SafeFile.h"

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/Support/Error.h"

#include <optional>
#include <string>
#include <sys/types.h>
#include <vector>

namespace aimodel::strip {

struct AssetOutcome;

struct Item {
  enum Kind { Folder, File, Asset, Skip } kind;
  std::string rel;
  std::string reason; ///< Skip; for an asset skipped whole (.aimodelc)
  mode_t mode = 0;    ///< Folder
};

struct TreePlan {
  std::vector<Item> folders; ///< walk order: every parent before its folders
  std::vector<Item> work;    ///< files, assets and skips, sorted by path
  /// Strip temporaries found (and skipped), by path: one whose asset is
  /// missing may hold it, set aside by a killed swap.
  std::vector<std::string> temporaries;
  mode_t rootMode = 0755;
};

/// The folder a run was named (followed: the user named it), with the
/// asset kind its name announces. A file is refused with `fileHint` ("use
/// --file ..."), a compiled bundle with the reason strip never strips one.
struct RootFolder {
  support::UniqueFd fd;
  std::string kindName; ///< the name the kind is read from
  std::optional<bundle::BundleKind> kind;
};
llvm::Expected<RootFolder> openRootFolder(const std::string &path,
                                          llvm::StringRef fileHint);

/// Walks the folder `rootFd` (shown as `root`); a folder that cannot be
/// read is an error. Folders named like strip's temporaries are skipped.
llvm::Expected<TreePlan> planTree(int rootFd, const std::string &root);

/// Starts the outcome of the asset `item`, read as `in` and written as
/// `out`: its kind set, and skipped whole when the walk gave a reason
/// (a compiled bundle). True when there is work left to do.
bool beginAsset(const Item &item, const std::string &in, const std::string &out,
                AssetOutcome &outcome);

/// Runs `job(i)` for i in [0, count) on `jobs` threads. After the first
/// failure no new job starts; errors land at their index.
void runJobs(size_t count, unsigned jobs,
             llvm::function_ref<llvm::Error(size_t)> job,
             std::vector<std::string> &errors);

/// The first error of runJobs, if any.
llvm::Error firstError(const std::vector<std::string> &errors);

} // namespace aimodel::strip

#endif // AIMODEL_STRIP_TREEPLAN_H
