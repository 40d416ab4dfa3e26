//===- IRInputs.cpp - Which bytecode files a PATH stands for --------------===//

#include "bundle/IRFiles.h"

#include "bundle/Bundle.h"
#include "support/PathText.h"

#include <algorithm>
#include <sys/stat.h>

using namespace aimodel;

/// Every *.mpsgraph below `dir` (delegate graphs are MLIR bytecode too),
/// sorted, without following symlinks.
static void findDelegateGraphs(const std::string &dir,
                               std::vector<std::string> &out) {
  std::vector<std::string> found;
  bundle::forEachEntryBelow(dir, [&](const bundle::DirEntry &e) {
    if (e.type == bundle::DirEntry::Type::File &&
        llvm::StringRef(e.name).ends_with(".mpsgraph"))
      found.push_back(bundle::joinPath(dir, e.name));
  });
  std::sort(found.begin(), found.end());
  out.insert(out.end(), found.begin(), found.end());
}

llvm::Expected<std::vector<std::string>>
aimodel::bundle::irFilesOf(const std::string &path, bool withDelegates) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0)
    return llvm::createStringError("%s: no such file or directory",
                                   support::printablePath(path).c_str());
  if (!S_ISDIR(st.st_mode))
    return std::vector<std::string>{path};
  if (!bundle::assetKindFromName(bundle::namedPathKindName(path)))
    return llvm::createStringError(
        "%s: is a folder; expected a .aimodel/.aimodelc bundle or an IR file",
        support::printablePath(path).c_str());
  llvm::Expected<std::string> ir = bundle::assetIrPath(path);
  if (!ir)
    return llvm::createStringError("%s: %s",
                                   support::printablePath(path).c_str(),
                                   llvm::toString(ir.takeError()).c_str());
  // Inside a bundle nothing is followed (as in audit): a symlinked IR file
  // is refused, not read.
  struct stat member;
  if (::lstat(ir->c_str(), &member) == 0 && S_ISLNK(member.st_mode))
    return llvm::createStringError(
        "%s: is a symlink inside the bundle; not followed",
        support::printablePath(*ir).c_str());
  std::vector<std::string> files{*ir};
  if (withDelegates)
    findDelegateGraphs(path, files);
  return files;
}
