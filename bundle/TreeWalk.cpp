//===- TreeWalk.cpp - Finding bundles in a tree ---------------------------===//

#include "bundle/TreeWalk.h"
#include "bundle/Metadata.h"
#include "support/PathText.h"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <sys/stat.h>
#include <unistd.h>

using namespace aimodel::bundle;
using aimodel::support::printablePath;

bool aimodel::bundle::isBundleDir(llvm::StringRef dir,
                                  const std::vector<DirEntry> &entries) {
  auto metadata = std::find_if(entries.begin(), entries.end(), [](auto &e) {
    return e.name == "metadata.json";
  });
  if (metadata == entries.end())
    return false;
  MetadataResult parsed = loadMetadata(joinPath(dir, "metadata.json"));
  if (parsed.object)
    return parsed.object->contains("metadata_version");
  return std::any_of(entries.begin(), entries.end(), [](const DirEntry &e) {
    return e.type == DirEntry::Type::Directory && assetKindFromName(e.name);
  });
}

/// Strips trailing slashes so "a/" and "a" report the same paths.
static std::string normaliseRoot(llvm::StringRef root) {
  while (root.size() > 1 && root.ends_with("/"))
    root = root.drop_back();
  return root.str();
}

static void walkDirectory(const std::string &root, WalkResult &result) {
  std::vector<std::string> pending{root};
  while (!pending.empty()) {
    std::string dir = std::move(pending.back());
    pending.pop_back();
    llvm::Expected<std::vector<DirEntry>> entries = listDirectory(dir);
    if (!entries) {
      result.errors.push_back(printablePath(dir) + ": " +
                              llvm::toString(entries.takeError()));
      continue;
    }
    if (isBundleDir(dir, *entries))
      result.bundles.push_back({dir, BundleKind::BundleDir});
    for (const DirEntry &entry : *entries) {
      std::string path = joinPath(dir, entry.name);
      if (std::optional<BundleKind> kind = assetKindFromName(entry.name)) {
        // Assets are leaves: their insides are checked by the audit, not
        // searched for more bundles.
        result.bundles.push_back(
            {path, *kind, entry.type, entry.symlinkTarget});
        continue;
      }
      if (entry.type == DirEntry::Type::Directory)
        pending.push_back(std::move(path));
    }
  }
}

llvm::Expected<WalkResult>
aimodel::bundle::findBundles(const std::vector<std::string> &roots) {
  WalkResult result;
  // Named roots are seen through stat (followed), the walk sees lstat. The
  // same path can be both ("audit d d/link.aimodel"); the walked view must
  // win whatever the argument order, so a symlink inside a searched tree is
  // always reported as one. Named views are kept apart and merged last.
  std::vector<FoundBundle> named;
  for (const std::string &given : roots) {
    std::string root = normaliseRoot(given);
    struct stat st;
    // The roots themselves are followed: the user named them explicitly.
    if (::stat(root.c_str(), &st) != 0)
      return llvm::createStringError(
          std::error_code(errno, std::generic_category()), "%s: %s",
          printablePath(given).c_str(),
          errno == ENOENT ? "no such file or directory" : std::strerror(errno));
    std::string kindName = namedPathKindName(root);
    std::optional<BundleKind> kind = assetKindFromName(kindName);
    if (!S_ISDIR(st.st_mode)) {
      if (!kind)
        return llvm::createStringError(
            "%s: is a file; expected a bundle or a folder to search",
            printablePath(given).c_str());
      named.push_back({root, *kind, DirEntry::Type::File, "", kindName});
      continue;
    }
    if (kind) {
      named.push_back({root, *kind, DirEntry::Type::Directory, "", kindName});
      continue;
    }
    if (::access(root.c_str(), R_OK | X_OK) != 0)
      return llvm::createStringError(
          std::error_code(errno, std::generic_category()), "%s: %s",
          printablePath(given).c_str(), std::strerror(errno));
    walkDirectory(root, result);
  }
  // Walked views first; the stable sort keeps them ahead of a named view of
  // the same path, and unique keeps the first of each run.
  result.bundles.insert(result.bundles.end(),
                        std::make_move_iterator(named.begin()),
                        std::make_move_iterator(named.end()));
  std::stable_sort(result.bundles.begin(), result.bundles.end(),
                   [](const FoundBundle &a, const FoundBundle &b) {
                     return a.path < b.path;
                   });
  result.bundles.erase(
      std::unique(result.bundles.begin(), result.bundles.end(),
                  [](const FoundBundle &a, const FoundBundle &b) {
                    return a.path == b.path;
                  }),
      result.bundles.end());
  // Overlapping roots walk the same folders twice: report each error once.
  std::sort(result.errors.begin(), result.errors.end());
  result.errors.erase(std::unique(result.errors.begin(), result.errors.end()),
                      result.errors.end());
  return result;
}
