//===- Bundle.cpp - Core AI bundle kinds and their layout -----------------===//
//
// Layout facts (coreai-format.md §1): X.aimodel holds metadata.json,
// main.mlirb and main.hash; X.<arch>.aimodelc holds metadata.json, main.hash,
// main-<arch>.mlirb, main-<arch>-delegates/ and stats.json.
//
//===----------------------------------------------------------------------===//

#include "bundle/Bundle.h"

#include "support/SafeFile.h"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <set>
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
  case BundleKind::IRFile:
    return "ir-file";
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

static llvm::Error listingError(int errorNumber) {
  return llvm::createStringError(
      std::error_code(errorNumber, std::generic_category()),
      "cannot read directory: " + aimodel::support::errnoReason(errorNumber));
}

static DirEntry::Type typeOf(aimodel::support::ListedType type) {
  using aimodel::support::ListedType;
  switch (type) {
  case ListedType::File:
    return DirEntry::Type::File;
  case ListedType::Directory:
    return DirEntry::Type::Directory;
  case ListedType::Symlink:
    return DirEntry::Type::Symlink;
  default:
    return DirEntry::Type::Other;
  }
}

llvm::Expected<std::vector<DirEntry>>
aimodel::bundle::listDirectory(int dirFd, const ListingOptions &options) {
  std::vector<DirEntry> entries;
  std::vector<support::ListedType> listedTypes;
  if (llvm::Error error = support::readDirectory(
          dirFd,
          [&](llvm::StringRef name, support::ListedType type) {
            entries.emplace_back().name = name.str();
            listedTypes.push_back(type);
          },
          options.from, options.types))
    return error;
  bool anyExamined = false;
  auto mustExamine = [&](size_t i) {
    support::ListedType type = listedTypes[i];
    return options.detail == EntryDetail::Full ||
           type == support::ListedType::Unknown ||
           type == support::ListedType::Directory ||
           type == support::ListedType::Symlink ||
           // Names alone prove no search permission: one entry is examined.
           (i + 1 == entries.size() && !anyExamined);
  };
  // Entries removed since they were listed are dropped in place.
  size_t kept = 0;
  auto keep = [&](size_t i) {
    if (kept != i)
      entries[kept] = std::move(entries[i]);
    ++kept;
  };
  for (size_t i = 0; i < entries.size(); ++i) {
    DirEntry &entry = entries[i];
    if (!mustExamine(i)) {
      entry.type = typeOf(listedTypes[i]);
      keep(i);
      continue;
    }
    anyExamined = true;
    struct stat st;
    if (::fstatat(dirFd, entry.name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) {
      if (errno == ENOENT)
        continue; // removed since it was listed
      // Without search permission names can be read but not examined: an
      // entry typed by guess could hide a whole subtree.
      return listingError(errno);
    }
    entry.type = typeOf(st);
    entry.device = static_cast<uint64_t>(st.st_dev);
    entry.inode = static_cast<uint64_t>(st.st_ino);
    entry.size = static_cast<uint64_t>(st.st_size);
    entry.examined = true;
    if (entry.type == DirEntry::Type::Symlink)
      entry.symlinkTarget = readLinkTarget(dirFd, entry.name.c_str());
    keep(i);
  }
  entries.resize(kept);
  // File systems return entries in any order; reports must not.
  std::sort(
      entries.begin(), entries.end(),
      [](const DirEntry &a, const DirEntry &b) { return a.name < b.name; });
  return entries;
}

llvm::Expected<std::vector<DirEntry>>
aimodel::bundle::listDirectory(llvm::StringRef dir) {
  llvm::Expected<support::UniqueFd> fd =
      support::openDirectory(dir, support::Symlinks::Follow);
  if (!fd)
    return fd.takeError();
  return listDirectory(fd->get());
}

/// The reason alone: "permission denied", not "cannot read directory: ...".
static std::string reasonOf(llvm::Error error) {
  std::string message = llvm::toString(std::move(error));
  llvm::StringRef text(message);
  text.consume_front("cannot read directory: ");
  return text.str();
}

std::vector<WalkError> aimodel::bundle::walkFolders(
    int dirFd,
    llvm::function_ref<void(int, const std::string &,
                            const std::vector<DirEntry> &)>
        onFolder,
    llvm::function_ref<bool(const DirEntry &)> descend,
    const std::vector<DirEntry> *top, EntryDetail detail) {
  std::vector<WalkError> errors;
  // An explicit stack, no recursion: each frame holds its folder open (so
  // children open relative to it, at any depth) and the subfolders still
  // to enter.
  struct Frame {
    support::UniqueFd owned;
    int fd;
    std::string rel;
    std::vector<std::string> folders;
    size_t next = 0;
  };
  std::vector<Frame> stack;
  // A folder mounted inside itself would otherwise be walked forever.
  // The top's own identity is asked for only once there is a folder to
  // enter: most bundles have none.
  std::set<std::pair<uint64_t, uint64_t>> entered;
  bool topEntered = false;
  auto enter = [&](support::UniqueFd owned, int fd, std::string rel,
                   const std::vector<DirEntry> &entries) {
    onFolder(fd, rel, entries);
    Frame frame{std::move(owned), fd, std::move(rel), {}};
    for (const DirEntry &e : entries) {
      if (e.type != DirEntry::Type::Directory)
        continue;
      if (!topEntered) {
        topEntered = true;
        struct stat st;
        if (::fstat(dirFd, &st) == 0)
          entered.insert({uint64_t(st.st_dev), uint64_t(st.st_ino)});
      }
      DirEntry joined = e;
      joined.name = joinPath(frame.rel, e.name);
      if (descend(joined) && entered.insert({e.device, e.inode}).second)
        frame.folders.push_back(e.name);
    }
    stack.push_back(std::move(frame));
  };
  if (top) {
    enter(support::UniqueFd(), dirFd, "", *top);
  } else {
    llvm::Expected<std::vector<DirEntry>> listed =
        listDirectory(dirFd, {detail});
    if (!listed) {
      errors.push_back({"", reasonOf(listed.takeError())});
      return errors;
    }
    enter(support::UniqueFd(), dirFd, "", *listed);
  }
  while (!stack.empty()) {
    Frame &frame = stack.back();
    if (frame.next == frame.folders.size()) {
      stack.pop_back();
      continue;
    }
    const std::string &name = frame.folders[frame.next++];
    std::string rel = joinPath(frame.rel, name);
    llvm::Expected<support::UniqueFd> fd =
        support::openDirectory(frame.fd, name, support::Symlinks::Refuse);
    if (!fd) {
      errors.push_back({rel, reasonOf(fd.takeError())});
      continue;
    }
    llvm::Expected<std::vector<DirEntry>> listed =
        listDirectory(fd->get(), {detail, support::ListFrom::FreshDescriptor});
    if (!listed) {
      errors.push_back({rel, reasonOf(listed.takeError())});
      continue;
    }
    int raw = fd->get();
    enter(std::move(*fd), raw, std::move(rel), *listed); // `frame` dies here
  }
  return errors;
}

std::vector<WalkError> aimodel::bundle::forEachEntryBelow(
    int dirFd, llvm::function_ref<void(const DirEntry &)> visit,
    llvm::function_ref<bool(const DirEntry &)> descend) {
  return walkFolders(
      dirFd,
      [&](int, const std::string &rel, const std::vector<DirEntry> &entries) {
        for (const DirEntry &e : entries) {
          DirEntry joined = e;
          joined.name = joinPath(rel, e.name);
          visit(joined);
        }
      },
      [&](const DirEntry &dir) { return !descend || descend(dir); });
}

std::vector<WalkError> aimodel::bundle::forEachEntryBelow(
    llvm::StringRef dir, llvm::function_ref<void(const DirEntry &)> visit,
    llvm::function_ref<bool(const DirEntry &)> descend) {
  llvm::Expected<support::UniqueFd> fd =
      support::openDirectory(dir, support::Symlinks::Follow);
  if (!fd)
    return {{"", reasonOf(fd.takeError())}};
  return forEachEntryBelow(fd->get(), visit, descend);
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
  layout.arch = arch;
  layout.delegates = "main-" + arch + "-delegates";
  layout.optionalMembers = {layout.delegates, "stats.json"};
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
