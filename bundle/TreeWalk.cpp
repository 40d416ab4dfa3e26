//===- TreeWalk.cpp - Finding bundles in a tree ---------------------------===//

#include "bundle/TreeWalk.h"
#include "bundle/Metadata.h"
#include "bytecode/BytecodeReader.h"
#include "support/PathText.h"
#include "support/SafeFile.h"

#include <algorithm>
#include <cerrno>
#include <climits>
#include <fcntl.h>
#include <optional>
#include <set>
#include <sys/stat.h>
#include <unistd.h>

using namespace aimodel::bundle;
using aimodel::support::printablePath;

bool aimodel::bundle::isBundleDir(int dirFd,
                                  const std::vector<DirEntry> &entries) {
  auto metadata = std::find_if(entries.begin(), entries.end(), [](auto &e) {
    return e.name == "metadata.json";
  });
  if (metadata == entries.end())
    return false;
  MetadataResult parsed = loadMetadata(dirFd, "metadata.json");
  if (parsed.object)
    return parsed.object->contains("metadata_version");
  return std::any_of(entries.begin(), entries.end(), [](const DirEntry &e) {
    return e.type == DirEntry::Type::Directory && assetKindFromName(e.name);
  });
}

bool BundleFolderCache::isBundleFolder(const std::string &folder) {
  auto [it, inserted] = known.try_emplace(folder, false);
  if (!inserted)
    return it->second;
  llvm::Expected<support::UniqueFd> fd =
      support::openDirectory(folder, support::Symlinks::Follow);
  if (!fd) {
    llvm::consumeError(fd.takeError()); // gone, or not a folder
    return false;
  }
  // Folders above a PATH may be large ($HOME, /tmp): they are listed only
  // when their metadata.json is there and cannot settle the question.
  MetadataResult parsed = loadMetadata(fd->get(), "metadata.json");
  if (parsed.object)
    return it->second = parsed.object->contains("metadata_version");
  if (parsed.problem == MetadataProblem::Unreadable &&
      llvm::StringRef(parsed.message).ends_with("no such file or directory"))
    return false;
  llvm::Expected<std::vector<DirEntry>> entries = listDirectory(fd->get());
  if (!entries) {
    llvm::consumeError(entries.takeError());
    return false;
  }
  return it->second = isBundleDir(fd->get(), *entries);
}

/// The end offsets of `path`'s non-empty components.
static std::vector<size_t> componentEnds(llvm::StringRef path) {
  std::vector<size_t> ends;
  for (size_t begin = 0; begin < path.size();) {
    size_t end = std::min(path.find('/', begin), path.size());
    if (end > begin)
      ends.push_back(end);
    begin = end + 1;
  }
  return ends;
}

size_t aimodel::bundle::pathDepth(llvm::StringRef path) {
  return componentEnds(path).size();
}

std::string aimodel::bundle::nearestBundleFolder(llvm::StringRef path,
                                                 size_t depth,
                                                 BundleFolderCache &cache) {
  std::vector<size_t> ends = componentEnds(path);
  for (size_t i = std::min(depth, ends.size()); i-- > 0;) {
    std::string prefix = path.take_front(ends[i]).str();
    if (cache.isBundleFolder(prefix))
      return prefix;
  }
  llvm::StringRef first =
      path.take_front(ends.empty() ? 0 : ends[0]).drop_while([](char c) {
        return c == '/';
      });
  std::string top;
  if (path.starts_with("/"))
    top = "/";
  else if (first != "." && first != "..")
    top = "."; // a relative path's folders end at the current one
  return !top.empty() && cache.isBundleFolder(top) ? top : std::string();
}

namespace {

using Identity = std::pair<uint64_t, uint64_t>; // device, inode

/// A bundle as found, before duplicates are merged.
struct Candidate {
  FoundBundle bundle;
  Identity identity;
  bool walked;
  size_t root = 0; ///< which PATH it was found through
};

/// What a PATH says of the bundles found through it.
struct RootFacts {
  std::string path;          ///< normalised
  std::string symlinkTarget; ///< when the PATH itself is a symlink
  bool isSymlink = false;
  /// Computed on demand: the nearest bundle folder above the PATH.
  std::optional<std::string> folderAbove;
};

/// Strips trailing slashes so "a/" and "a" report the same paths.
std::string normaliseRoot(llvm::StringRef root) {
  while (root.size() > 1 && root.ends_with("/"))
    root = root.drop_back();
  return root.str();
}

/// stat(2) of a path the user named, of any length: past PATH_MAX the
/// folder holding it is opened component by component.
int statRoot(const std::string &root, struct stat &st) {
  if (root.size() < PATH_MAX)
    return ::stat(root.c_str(), &st) == 0 ? 0 : errno;
  size_t slash = root.rfind('/');
  if (slash == std::string::npos)
    return ENAMETOOLONG; // one component longer than any name can be
  llvm::Expected<aimodel::support::UniqueFd> folder =
      aimodel::support::openDirectory(
          slash == 0 ? llvm::StringRef("/")
                     : llvm::StringRef(root).take_front(slash),
          aimodel::support::Symlinks::Follow);
  if (!folder)
    return llvm::errorToErrorCode(folder.takeError()).value();
  return ::fstatat(folder->get(), root.c_str() + slash + 1, &st, 0) == 0
             ? 0
             : errno;
}

/// Whether `file`, opened as a regular file, starts with the MLIR bytecode
/// magic: then it is audited as one IR file, whatever its name. An error
/// when it could not be opened or read.
llvm::Expected<bool>
startsAsBytecode(llvm::Expected<aimodel::support::RegularFile> file) {
  if (!file)
    return file.takeError();
  llvm::Expected<std::string> head = aimodel::support::readPrefix(*file, 4);
  if (!head)
    return head.takeError();
  return aimodel::bytecode::looksLikeBytecode(*head);
}

/// A file met by the walk, when it is an IR file: its identity as opened.
/// One that cannot be read is no IR file to audit (it belongs to no asset,
/// whose members are checked on their own).
std::optional<Identity>
bytecodeFileIdentity(llvm::Expected<aimodel::support::RegularFile> file) {
  if (!file) {
    llvm::consumeError(file.takeError());
    return std::nullopt;
  }
  Identity identity(file->state.identity.device, file->state.identity.inode);
  llvm::Expected<bool> bytecode = startsAsBytecode(std::move(*file));
  if (!bytecode) {
    llvm::consumeError(bytecode.takeError());
    return std::nullopt;
  }
  return *bytecode ? std::optional<Identity>(identity) : std::nullopt;
}

/// The identity of `entry` below `dirFd`: as listed when the listing
/// examined it, else as lstat says now; (0, 0) when it cannot be told.
Identity identityOf(int dirFd, const DirEntry &entry) {
  if (entry.examined)
    return Identity(entry.device, entry.inode);
  struct stat st;
  if (::fstatat(dirFd, entry.name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0)
    return Identity(0, 0);
  return Identity(st.st_dev, st.st_ino);
}

/// Walks one root folder, already open and listed.
void walkRoot(const std::string &root, size_t rootIndex, int rootFd,
              const std::vector<DirEntry> &top, std::set<Identity> &entered,
              std::vector<Candidate> &found, WalkResult &result) {
  std::vector<WalkError> errors = walkFolders(
      rootFd,
      [&](int fd, const std::string &rel,
          const std::vector<DirEntry> &entries) {
        std::string dir = rel.empty() ? root : joinPath(root, rel);
        if (isBundleDir(fd, entries)) {
          struct stat st;
          Identity id = ::fstat(fd, &st) == 0 ? Identity(st.st_dev, st.st_ino)
                                              : Identity(0, 0);
          FoundBundle bundle{dir, BundleKind::BundleDir};
          bundle.named = rel.empty();
          found.push_back({std::move(bundle), id, true, rootIndex});
        }
        for (const DirEntry &entry : entries) {
          std::optional<BundleKind> kind = assetKindFromName(entry.name);
          if (entry.type == DirEntry::Type::File && !kind) {
            // IR outside any asset (a backup, a dump) is audited too, so a
            // tree is never clean while it ships debug payload.
            if (std::optional<Identity> ir =
                    bytecodeFileIdentity(aimodel::support::openRegularFile(
                        fd, entry.name, aimodel::support::Symlinks::Refuse)))
              found.push_back(
                  {{joinPath(dir, entry.name), BundleKind::IRFile, entry.type},
                   *ir,
                   true,
                   rootIndex});
          } else if (kind) {
            // Assets are leaves: their insides are checked by the audit,
            // not searched for more bundles.
            found.push_back({{joinPath(dir, entry.name), *kind, entry.type,
                              entry.symlinkTarget},
                             identityOf(fd, entry),
                             true,
                             rootIndex});
          }
        }
      },
      [&](const DirEntry &entry) {
        // A folder reached again under another root is not walked twice.
        return !assetKindFromName(baseName(entry.name)) &&
               entered.insert({entry.device, entry.inode}).second;
      },
      &top, EntryDetail::Types);
  for (const WalkError &error : errors)
    result.errors.push_back(printablePath(joinPath(root, error.name)) +
                            ": cannot read directory: " + error.reason);
}

/// Sets each bundle's bundleFolder and viaSymlink: the nearest bundle
/// folder the walk met above it, else the nearest above its PATH (looked
/// for once per PATH, and only when a bundle needs it).
void placeInBundleFolders(std::vector<Candidate> &found,
                          std::vector<RootFacts> &roots) {
  std::set<std::string> walkedFolders;
  for (const Candidate &c : found)
    if (c.bundle.kind == BundleKind::BundleDir)
      walkedFolders.insert(c.bundle.path);
  BundleFolderCache cache;
  for (Candidate &c : found) {
    RootFacts &root = roots[c.root];
    if (root.isSymlink) {
      c.bundle.viaSymlink = root.path;
      c.bundle.viaSymlinkTarget = root.symlinkTarget;
    }
    if (c.bundle.kind == BundleKind::BundleDir)
      continue;
    llvm::StringRef path(c.bundle.path);
    std::string rootPath = normaliseRoot(root.path);
    for (size_t slash = path.rfind('/');
         slash != llvm::StringRef::npos && slash >= rootPath.size();
         slash = slash ? path.rfind('/', slash - 1) : llvm::StringRef::npos)
      if (walkedFolders.count(path.take_front(slash).str())) {
        c.bundle.bundleFolder = path.take_front(slash).str();
        break;
      }
    if (!c.bundle.bundleFolder.empty())
      continue;
    // Above the PATH: the folder it names is not one (the walk would have
    // said), so the search starts at its parent.
    if (!root.folderAbove)
      root.folderAbove =
          nearestBundleFolder(rootPath, pathDepth(rootPath) - 1, cache);
    c.bundle.bundleFolder = *root.folderAbove;
  }
}

} // namespace

llvm::Expected<WalkResult>
aimodel::bundle::findBundles(const std::vector<std::string> &roots) {
  WalkResult result;
  std::vector<Candidate> found;
  std::set<Identity> entered; // folders walked, over all roots
  std::vector<RootFacts> rootFacts;
  for (const std::string &given : roots) {
    std::string root = normaliseRoot(given);
    size_t rootIndex = rootFacts.size();
    rootFacts.push_back({given});
    struct stat st;
    // The roots themselves are followed: the user named them explicitly.
    if (int error = statRoot(root, st))
      return llvm::createStringError(
          std::error_code(error, std::generic_category()), "%s: %s",
          printablePath(given).c_str(), support::errnoReason(error).c_str());
    Identity id(st.st_dev, st.st_ino);
    // A PATH given through a symlink is followed, and said (AIM029).
    if (struct stat link; root.size() < PATH_MAX &&
                          ::lstat(root.c_str(), &link) == 0 &&
                          S_ISLNK(link.st_mode)) {
      rootFacts.back().isSymlink = true;
      char target[PATH_MAX];
      ssize_t length = ::readlink(root.c_str(), target, sizeof target);
      if (length > 0)
        rootFacts.back().symlinkTarget.assign(target, size_t(length));
    }
    std::string kindName = namedPathKindName(root);
    std::optional<BundleKind> kind = assetKindFromName(kindName);
    if (!kind && S_ISREG(st.st_mode)) {
      // A file named as a PATH that cannot be read is an input error.
      llvm::Expected<bool> bytecode =
          startsAsBytecode(aimodel::support::openRegularFile(
              root, aimodel::support::Symlinks::Follow));
      if (!bytecode) {
        std::error_code code = llvm::errorToErrorCode(bytecode.takeError());
        return llvm::createStringError(
            code, "%s: %s", printablePath(given).c_str(),
            support::errnoReason(code.value()).c_str());
      }
      if (*bytecode) {
        FoundBundle file{root, BundleKind::IRFile, DirEntry::Type::File};
        file.named = true;
        found.push_back({std::move(file), id, false, rootIndex});
        continue;
      }
    }
    if (!S_ISDIR(st.st_mode) || kind) {
      if (!kind)
        return llvm::createStringError(
            "%s: is a file; expected a bundle, a folder to search or an MLIR "
            "bytecode file",
            printablePath(given).c_str());
      FoundBundle bundle{root, *kind,
                         S_ISDIR(st.st_mode) ? DirEntry::Type::Directory
                                             : DirEntry::Type::File,
                         "", kindName};
      bundle.named = true;
      found.push_back({std::move(bundle), id, false, rootIndex});
      continue;
    }
    if (!entered.insert(id).second)
      continue; // the same folder named twice ("d ./d")
    llvm::Expected<support::UniqueFd> fd =
        support::openDirectory(root, support::Symlinks::Follow);
    // Types from the listing: files are opened (to look for IR) or left
    // alone, folders and symlinks are examined anyway.
    llvm::Expected<std::vector<DirEntry>> top =
        fd ? listDirectory(fd->get(), {EntryDetail::Types,
                                       support::ListFrom::FreshDescriptor})
           : llvm::Expected<std::vector<DirEntry>>(fd.takeError());
    if (!top) {
      std::error_code code = llvm::errorToErrorCode(top.takeError());
      return llvm::createStringError(
          code, "%s: %s", printablePath(given).c_str(),
          support::errnoReason(code.value()).c_str());
    }
    walkRoot(root, rootIndex, fd->get(), *top, entered, found, result);
  }
  placeInBundleFolders(found, rootFacts);

  // A path both named (followed) and walked (lstat) is reported as walked:
  // a symlink inside a searched tree is always reported as one.
  std::vector<size_t> order(found.size());
  for (size_t i = 0; i < order.size(); ++i)
    order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    // By reference: a tuple of the paths would copy two per comparison.
    if (int order = found[a].bundle.path.compare(found[b].bundle.path))
      return order < 0;
    return found[a].walked && !found[b].walked;
  });
  std::vector<size_t> kept;
  for (size_t i : order)
    if (kept.empty() || found[kept.back()].bundle.path != found[i].bundle.path)
      kept.push_back(i);
  // One bundle under several spellings: the first found (roots in the order
  // given) is kept.
  std::sort(kept.begin(), kept.end());
  std::set<Identity> reported;
  for (size_t i : kept)
    if (found[i].identity == Identity(0, 0) ||
        reported.insert(found[i].identity).second)
      result.bundles.push_back(std::move(found[i].bundle));
  std::sort(result.bundles.begin(), result.bundles.end(),
            [](const FoundBundle &a, const FoundBundle &b) {
              return a.path < b.path;
            });
  // Overlapping roots walk no folder twice; errors are still sorted.
  std::sort(result.errors.begin(), result.errors.end());
  result.errors.erase(std::unique(result.errors.begin(), result.errors.end()),
                      result.errors.end());
  return result;
}
