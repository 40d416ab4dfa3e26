//===- BundleFolder.h - Opening the folders of many bundles -----*- C++ -*-===//
//
// A walk reports bundles by path; auditing each opens it again. Opened by
// path, every bundle would resolve the whole path to its folder anew, and a
// tree of 10,000 bundles in 100 folders would open those folders 10,000
// times. Here the folder holding a bundle is opened once, by path as
// before, and kept while bundles in it are being opened (bundles come in
// path order, so those of one folder come together); the bundle itself is
// opened below it with the same no-follow rule as ever.
//
//===----------------------------------------------------------------------===//
#ifndef AIMODEL_BUNDLE_BUNDLEFOLDER_H
#define AIMODEL_BUNDLE_BUNDLEFOLDER_H

#include "bundle/TreeWalk.h"
#include "support/SafeFile.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <list>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

namespace aimodel::bundle {

/// The last few folders opened by path, shared by threads. A folder stays
/// open while it is among the `capacity` most recently asked for (or while
/// a caller holds it), so a cache lives for one run over one tree: what
/// it hands out is the folder as it was when first opened.
class FolderCache {
public:
  explicit FolderCache(size_t capacity = 8) : capacity_(capacity) {}

  /// support::openDirectory(path, symlinks), with the folder holding the
  /// last component taken from the cache (opened by path, followed, as
  /// openDirectory opens it). Errors as openDirectory's.
  llvm::Expected<support::UniqueFd> openDirectory(llvm::StringRef path,
                                                  support::Symlinks symlinks);

private:
  using Folder = std::shared_ptr<const support::UniqueFd>;
  /// The folder at `path`, opened (followed) or found among the recent.
  llvm::Expected<Folder> folder(llvm::StringRef path);

  std::mutex mutex_;
  size_t capacity_;
  std::list<std::pair<std::string, Folder>> recent_; ///< most recent first
};

/// A bundle's folder, open, and its entries (EntryDetail::Full).
struct OpenedBundle {
  support::UniqueFd fd;
  std::vector<DirEntry> entries;
};

/// Opens and lists the folder of the bundle `found`: only a bundle the user
/// named may be a symlink to follow. The folders leading to it come from
/// `folders` when given. Errors as openDirectory's and listDirectory's.
llvm::Expected<OpenedBundle> openBundle(const FoundBundle &found,
                                        FolderCache *folders);

} // namespace aimodel::bundle

#endif // AIMODEL_BUNDLE_BUNDLEFOLDER_H
