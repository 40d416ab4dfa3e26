//===- TreePlan.cpp - What a tree run will do -----------------------------===//

#include "strip/TreePlan.h"

#include "bundle/Bundle.h"
#include "bundle/TreeWalk.h"
#include "strip/OutputTree.h"
#include "strip/StripTree.h"
#include "support/Parallel.h"
#include "support/PathText.h"

#include <algorithm>
#include <set>
#include <sys/stat.h>

using namespace aimodel;
using namespace aimodel::strip;
using bundle::DirEntry;
using support::printablePath;

namespace {
std::string under(const std::string &root, llvm::StringRef rel) {
  return rel.empty() ? root : bundle::joinPath(root, rel);
}
} // namespace

bool aimodel::strip::beginAsset(const Item &item, const std::string &in,
                                const std::string &out, AssetOutcome &outcome) {
  outcome = {in, out, item.reason.empty() ? "aimodel" : "aimodelc"};
  if (item.reason.empty())
    return true;
  outcome.skipped = item.reason;
  return false;
}

llvm::Expected<RootFolder>
aimodel::strip::openRootFolder(const std::string &path,
                               llvm::StringRef fileHint) {
  llvm::Expected<support::UniqueFd> fd =
      support::openDirectory(path, support::Symlinks::Follow);
  if (!fd) {
    std::error_code code = llvm::errorToErrorCode(fd.takeError());
    if (code == std::errc::not_a_directory)
      return fileError(path, "is a file; " + fileHint);
    return fileError(path, support::errnoReason(code.value()));
  }
  RootFolder root{std::move(*fd), bundle::namedPathKindName(path), {}};
  root.kind = bundle::assetKindFromName(root.kindName);
  if (root.kind == bundle::BundleKind::CompiledAsset)
    return fileError(path, llvm::Twine("is a ") + kCompiledBundleReason);
  return root;
}

llvm::Expected<TreePlan> aimodel::strip::planTree(int rootFd,
                                                  const std::string &root) {
  TreePlan plan;
  std::set<std::string> expected, entered;
  std::vector<bundle::WalkError> errors = bundle::walkFolders(
      rootFd,
      [&](int fd, const std::string &rel, const std::vector<DirEntry> &list) {
        entered.insert(rel);
        struct stat st;
        mode_t mode = ::fstat(fd, &st) == 0 ? st.st_mode & 07777 : 0755;
        if (rel.empty())
          plan.rootMode = mode;
        else
          plan.folders.push_back({Item::Folder, rel, "", mode});
        for (const DirEntry &e : list) {
          // A temporary of another run (or an interrupted one) is that
          // run's business: never copied, never repaired.
          if (e.type == DirEntry::Type::Directory &&
              isStripTemporaryName(e.name)) {
            plan.temporaries.push_back(bundle::joinPath(rel, e.name));
            continue;
          }
          std::string path = bundle::joinPath(rel, e.name);
          std::optional<bundle::BundleKind> kind =
              bundle::assetKindFromName(e.name);
          switch (e.type) {
          case DirEntry::Type::Symlink:
            plan.work.push_back({Item::Skip, path,
                                 "symlink to '" +
                                     printablePath(e.symlinkTarget) +
                                     "': not followed or copied"});
            break;
          case DirEntry::Type::Other:
            plan.work.push_back({Item::Skip, path,
                                 "not a regular file or folder (a FIFO, "
                                 "socket or device): not copied"});
            break;
          case DirEntry::Type::File:
            if (kind)
              plan.work.push_back({Item::Skip, path,
                                   "a file named like an asset, not an "
                                   "asset folder: not copied"});
            else
              plan.work.push_back({Item::File, path});
            break;
          case DirEntry::Type::Directory:
            if (kind == bundle::BundleKind::CompiledAsset)
              plan.work.push_back({Item::Asset, path, kCompiledBundleReason});
            else if (kind)
              plan.work.push_back({Item::Asset, path});
            else
              expected.insert(path);
            break;
          }
        }
      },
      [](const DirEntry &e) {
        llvm::StringRef base = bundle::baseName(e.name);
        return !bundle::assetKindFromName(base) && !isStripTemporaryName(base);
      });
  if (!errors.empty())
    return fileError(under(root, errors.front().name),
                     "cannot read directory: " + errors.front().reason);
  // A folder met twice (mounted inside the tree) is walked once.
  for (const std::string &rel : expected)
    if (!entered.count(rel))
      plan.work.push_back({Item::Skip, rel,
                           "the same folder again (mounted inside the "
                           "tree): not copied"});
  std::sort(plan.work.begin(), plan.work.end(),
            [](const Item &a, const Item &b) { return a.rel < b.rel; });
  return plan;
}

void aimodel::strip::runJobs(size_t count, unsigned jobs,
                             llvm::function_ref<llvm::Error(size_t)> job,
                             std::vector<std::string> &errors) {
  errors.assign(count, "");
  support::forEachIndex(count, jobs, [&](size_t i) {
    llvm::Error err = job(i);
    if (!err)
      return true;
    errors[i] = llvm::toString(std::move(err));
    return false;
  });
}

llvm::Error aimodel::strip::firstError(const std::vector<std::string> &errors) {
  for (const std::string &error : errors)
    if (!error.empty())
      return llvm::createStringError(error);
  return llvm::Error::success();
}
