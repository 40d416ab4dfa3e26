//===- Bundle.cpp - Core AI bundle kinds and their layout -----------------===//
//
// Layout facts (coreai-format.md §1): X.aimodel holds metadata.json,
// main.mlirb and main.hash; X.<arch>.aimodelc holds metadata.json, main.hash,
// main-<arch>.mlirb, main-<arch>-delegates/ and stats.json.
//
//===----------------------------------------------------------------------===//

#include "bundle/Bundle.h"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

using namespace aimodel::bundle;

llvm::StringRef aimodel::bundle::bundleKindName(BundleKind kind) {
  switch (kind) {
  case BundleKind::Asset:
    return "aimodel";
  case BundleKind::CompiledAsset:
    return "aimodelc";
  case BundleKind::BundleDir:
    return "bundle-dir";
  }
  return "unknown";
}

std::optional<BundleKind>
aimodel::bundle::assetKindFromName(llvm::StringRef name) {
  name = baseName(name);
  // A bare ".aimodel" has no model name; treat it as an ordinary folder.
  if (name.size() > 8 && name.ends_with(".aimodel"))
    return BundleKind::Asset;
  if (name.size() > 9 && name.ends_with(".aimodelc"))
    return BundleKind::CompiledAsset;
  return std::nullopt;
}

llvm::StringRef aimodel::bundle::baseName(llvm::StringRef path) {
  while (path.size() > 1 && path.ends_with("/"))
    path = path.drop_back();
  size_t slash = path.rfind('/');
  return slash == llvm::StringRef::npos || path.size() == 1
             ? path
             : path.substr(slash + 1);
}

std::string aimodel::bundle::joinPath(llvm::StringRef dir,
                                      llvm::StringRef name) {
  if (dir.empty())
    return name.str();
  if (dir.ends_with("/"))
    return (dir + name).str();
  return (dir + "/" + name).str();
}

static DirEntry::Type typeOf(const struct stat &st) {
  if (S_ISLNK(st.st_mode))
    return DirEntry::Type::Symlink;
  if (S_ISDIR(st.st_mode))
    return DirEntry::Type::Directory;
  if (S_ISREG(st.st_mode))
    return DirEntry::Type::File;
  return DirEntry::Type::Other;
}

/// What the symlink `name` in the directory `dirFd` says. Relative to the
/// descriptor, so it works however long the directory's path is.
static std::string readLinkTarget(int dirFd, const char *name) {
  std::string target(256, '\0');
  while (true) {
    ssize_t n = ::readlinkat(dirFd, name, target.data(), target.size());
    if (n < 0)
      return "";
    if (static_cast<size_t>(n) < target.size()) {
      target.resize(static_cast<size_t>(n));
      return target;
    }
    target.resize(target.size() * 2); // possibly truncated: retry larger
  }
}

llvm::Expected<std::vector<DirEntry>>
aimodel::bundle::listDirectory(llvm::StringRef dir) {
  std::string dirPath = dir.str();
  DIR *handle = ::opendir(dirPath.c_str());
  if (!handle)
    return llvm::createStringError(
        std::error_code(errno, std::generic_category()),
        "cannot read directory: %s", std::strerror(errno));
  // Entries are examined relative to the open directory, never as
  // dir + "/" + name: past PATH_MAX that path cannot be lstat'd, and an
  // entry silently typed Other would hide a whole subtree from the walk.
  int dirFd = ::dirfd(handle);
  std::vector<DirEntry> entries;
  while (struct dirent *d = ::readdir(handle)) {
    llvm::StringRef name(d->d_name);
    if (name == "." || name == "..")
      continue;
    DirEntry entry;
    entry.name = name.str();
    struct stat st;
    if (::fstatat(dirFd, d->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0)
      entry.type = typeOf(st);
    if (entry.type == DirEntry::Type::Symlink)
      entry.symlinkTarget = readLinkTarget(dirFd, d->d_name);
    entries.push_back(std::move(entry));
  }
  ::closedir(handle);
  // File systems return entries in any order; reports must not.
  std::sort(
      entries.begin(), entries.end(),
      [](const DirEntry &a, const DirEntry &b) { return a.name < b.name; });
  return entries;
}

void aimodel::bundle::forEachEntryBelow(
    llvm::StringRef dir, llvm::function_ref<void(const DirEntry &)> visit,
    llvm::function_ref<bool(const DirEntry &)> descend) {
  // Explicit stack of relative paths: no recursion.
  std::vector<std::string> pending{""};
  while (!pending.empty()) {
    std::string rel = std::move(pending.back());
    pending.pop_back();
    llvm::Expected<std::vector<DirEntry>> entries =
        listDirectory(rel.empty() ? dir.str() : joinPath(dir, rel));
    if (!entries) {
      llvm::consumeError(entries.takeError());
      continue;
    }
    for (DirEntry &entry : *entries) {
      if (!rel.empty())
        entry.name = joinPath(rel, entry.name);
      visit(entry);
      if (entry.type == DirEntry::Type::Directory &&
          (!descend || descend(entry)))
        pending.push_back(entry.name);
    }
  }
}

std::vector<DirEntry> aimodel::bundle::findSymlinksBelow(
    llvm::StringRef dir, llvm::function_ref<bool(const DirEntry &)> descend) {
  std::vector<DirEntry> links;
  forEachEntryBelow(
      dir,
      [&](const DirEntry &entry) {
        if (entry.type == DirEntry::Type::Symlink)
          links.push_back(entry);
      },
      descend);
  std::sort(
      links.begin(), links.end(),
      [](const DirEntry &a, const DirEntry &b) { return a.name < b.name; });
  return links;
}

/// "X.<arch>.aimodelc" -> "<arch>"; "" when the name carries no arch.
static llvm::StringRef archFromName(llvm::StringRef dirName) {
  llvm::StringRef stem = baseName(dirName);
  // A name such as "." carries no arch (and must not underflow the stem).
  if (!stem.consume_back(".aimodelc"))
    return "";
  size_t dot = stem.rfind('.');
  if (dot == llvm::StringRef::npos || dot + 1 == stem.size())
    return "";
  return stem.substr(dot + 1);
}

AssetLayout
aimodel::bundle::resolveAssetLayout(BundleKind kind, llvm::StringRef dirName,
                                    const std::vector<DirEntry> &entries) {
  AssetLayout layout;
  layout.metadata = "metadata.json";
  layout.hash = "main.hash";
  if (kind == BundleKind::Asset) {
    layout.ir = "main.mlirb";
    return layout;
  }
  std::string arch = archFromName(dirName).str();
  if (arch.empty()) {
    std::vector<llvm::StringRef> candidates;
    for (const DirEntry &entry : entries) {
      llvm::StringRef name(entry.name);
      if (name.starts_with("main-") && name.ends_with(".mlirb") &&
          name.size() > strlen("main-.mlirb"))
        candidates.push_back(name);
    }
    if (candidates.size() != 1) {
      layout.problem = "the bundle name has no architecture "
                       "(X.<arch>.aimodelc) and there is not exactly one "
                       "main-<arch>.mlirb";
      return layout;
    }
    arch = candidates.front()
               .drop_front(strlen("main-"))
               .drop_back(strlen(".mlirb"))
               .str();
  }
  layout.ir = "main-" + arch + ".mlirb";
  layout.optionalMembers = {"main-" + arch + "-delegates", "stats.json"};
  return layout;
}

/// The name that says what a named root is: its own last component if that
/// announces a kind, else that of its canonical path, so "X.aimodel/.", ".."
/// and a link named otherwise are classified by what they lead to. "" if
/// neither names a bundle.
std::string aimodel::bundle::namedPathKindName(const std::string &root) {
  if (assetKindFromName(root))
    return baseName(root).str();
  char *resolved = ::realpath(root.c_str(), nullptr);
  if (!resolved)
    return "";
  std::string canonical = baseName(resolved).str();
  std::free(resolved);
  return assetKindFromName(canonical) ? canonical : "";
}

llvm::Expected<std::string>
aimodel::bundle::assetIrPath(llvm::StringRef bundlePath) {
  std::string name = namedPathKindName(bundlePath.str());
  std::optional<BundleKind> kind = assetKindFromName(name);
  if (!kind)
    return llvm::createStringError("not a .aimodel or .aimodelc bundle");
  llvm::Expected<std::vector<DirEntry>> entries = listDirectory(bundlePath);
  if (!entries)
    return entries.takeError();
  AssetLayout layout = resolveAssetLayout(*kind, name, *entries);
  if (layout.ir.empty())
    return llvm::createStringError(layout.problem.c_str());
  return joinPath(bundlePath, layout.ir);
}
