//===- BundleFolder.cpp - Opening the folders of many bundles -------------===//

#include "bundle/BundleFolder.h"

using namespace aimodel::bundle;
using aimodel::support::Symlinks;
using aimodel::support::UniqueFd;

llvm::Expected<FolderCache::Folder> FolderCache::folder(llvm::StringRef path) {
  std::lock_guard<std::mutex> lock(mutex_);
  for (auto it = recent_.begin(); it != recent_.end(); ++it)
    if (it->first == path) {
      recent_.splice(recent_.begin(), recent_, it);
      return it->second;
    }
  // Opened under the lock: once per folder, and no two threads race to.
  llvm::Expected<UniqueFd> opened =
      support::openDirectory(path, Symlinks::Follow);
  if (!opened)
    return opened.takeError();
  Folder folder = std::make_shared<const UniqueFd>(std::move(*opened));
  recent_.emplace_front(path.str(), folder);
  if (recent_.size() > capacity_)
    recent_.pop_back(); // closed once its last holder lets go
  return folder;
}

llvm::Expected<UniqueFd> FolderCache::openDirectory(llvm::StringRef path,
                                                    Symlinks symlinks) {
  // As support::openDirectory splits it: the folder holding the last
  // component is resolved as given, the last component by `symlinks`.
  if (symlinks == Symlinks::Follow)
    return support::openDirectory(path, symlinks);
  llvm::StringRef trimmed = path;
  while (trimmed.size() > 1 && trimmed.ends_with("/"))
    trimmed = trimmed.drop_back();
  size_t slash = trimmed.rfind('/');
  if (slash == llvm::StringRef::npos || trimmed == "/")
    return support::openDirectory(path, symlinks);
  llvm::Expected<Folder> parent =
      folder(trimmed.take_front(slash == 0 ? 1 : slash));
  if (!parent)
    return parent.takeError();
  return support::openDirectory((*parent)->get(), path.drop_front(slash + 1),
                                symlinks);
}

llvm::Expected<OpenedBundle>
aimodel::bundle::openBundle(const FoundBundle &found, FolderCache *folders) {
  Symlinks symlinks = found.named ? Symlinks::Follow : Symlinks::Refuse;
  llvm::Expected<UniqueFd> fd =
      folders ? folders->openDirectory(found.path, symlinks)
              : support::openDirectory(found.path, symlinks);
  if (!fd)
    return fd.takeError();
  llvm::Expected<std::vector<DirEntry>> entries = listDirectory(
      fd->get(), {EntryDetail::Full, support::ListFrom::FreshDescriptor});
  if (!entries)
    return entries.takeError();
  return OpenedBundle{std::move(*fd), std::move(*entries)};
}
