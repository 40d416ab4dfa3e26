//===- PreCommit.cpp - Bundles touched by a list of files -----------------===//

#include "bundle/PreCommit.h"
#include "bundle/TreeWalk.h"

#include "support/SafeFile.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Path.h"

#include <algorithm>
#include <cerrno>
#include <map>
#include <set>
#include <sys/stat.h>

using namespace aimodel;
using namespace aimodel::bundle;

namespace {
/// Byte range of one '/'-separated component; empty ones ("a//b") skipped.
struct Component {
  size_t begin, end;
};

std::vector<Component> componentsOf(llvm::StringRef path) {
  std::vector<Component> result;
  size_t begin = 0;
  while (begin < path.size()) {
    size_t end = path.find('/', begin);
    if (end == llvm::StringRef::npos)
      end = path.size();
    if (end > begin)
      result.push_back({begin, end});
    begin = end + 1;
  }
  return result;
}

enum class Presence { Absent, Directory, Other };

/// lstat(2): the asset itself is never followed, as the walk would not.
/// Anything but "not there" counts as there, so an unreadable path reaches
/// the audit and is reported rather than skipped.
Presence presence(const std::string &path) {
  struct stat st;
  if (::lstat(path.c_str(), &st) != 0)
    return errno == ENOENT || errno == ENOTDIR ? Presence::Absent
                                               : Presence::Other;
  return S_ISDIR(st.st_mode) ? Presence::Directory : Presence::Other;
}

} // namespace

std::vector<std::string>
aimodel::bundle::bundlesForFiles(const std::vector<std::string> &files,
                                 std::vector<std::string> &ignored) {
  std::set<std::string> bundles; // std::string orders by unsigned bytes
  BundleFolderCache folders;     // the files of one commit share folders
  for (const std::string &given : files) {
    // A ".." is resolved lexically, as git names files:
    // "b.aimodel/../a.aimodel/x" is a file of a.aimodel, never of b.aimodel.
    // Other paths keep their spelling (the audit reports the first given).
    std::string file = given;
    std::vector<Component> givenComponents = componentsOf(given);
    if (llvm::any_of(givenComponents, [&](const Component &c) {
          return llvm::StringRef(given).slice(c.begin, c.end) == "..";
        })) {
      llvm::SmallString<256> normal(given);
      llvm::sys::path::remove_dots(normal, /*remove_dot_dot=*/true,
                                   llvm::sys::path::Style::posix);
      file = normal.empty() ? "." : normal.str().str();
    }
    llvm::StringRef path(file);
    std::vector<Component> components = componentsOf(path);
    auto isAsset = [&](const Component &c) {
      return assetKindFromName(path.slice(c.begin, c.end)).has_value();
    };
    auto asset = std::find_if(components.begin(), components.end(), isAsset);
    // Where the search for a bundle folder starts: above a vanished asset,
    // at the path itself when it is a folder, else at its parent.
    size_t count = components.size();
    if (asset != components.end()) {
      std::string assetPath = path.take_front(asset->end).str();
      if (presence(assetPath) != Presence::Absent) {
        bundles.insert(std::move(assetPath));
        continue;
      }
      count = asset - components.begin();
    } else if (count > 0 && presence(file) != Presence::Directory) {
      --count;
    }
    std::string folder = file.empty()
                             ? std::string()
                             : nearestBundleFolder(path, count, folders);
    if (folder.empty())
      ignored.push_back(given);
    else
      bundles.insert(std::move(folder));
  }
  return {bundles.begin(), bundles.end()};
}
