//===- GitTracked.cpp - Is a file's content the one git committed ---------===//

#include "audit/GitTracked.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FileUtilities.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/SHA1.h"
#include "llvm/Support/SHA256.h"

#include <vector>

extern char **environ;

using namespace aimodel;

std::string aimodel::audit::gitBlobId(llvm::StringRef content,
                                      size_t idLength) {
  // git's object id: the hash of "blob <size>\0" and the bytes.
  std::string header = "blob " + std::to_string(content.size());
  header.push_back('\0');
  auto bytes = [](llvm::StringRef s) { return llvm::arrayRefFromStringRef(s); };
  if (idLength == 40) {
    llvm::SHA1 hash;
    hash.update(bytes(header));
    hash.update(bytes(content));
    return llvm::toHex(hash.final(), /*LowerCase=*/true);
  }
  if (idLength == 64) {
    llvm::SHA256 hash;
    hash.update(bytes(header));
    hash.update(bytes(content));
    return llvm::toHex(hash.final(), /*LowerCase=*/true);
  }
  return "";
}

bool aimodel::audit::isCommittedContent(const std::string &folder,
                                        llvm::StringRef name,
                                        llvm::StringRef content) {
  llvm::ErrorOr<std::string> git = llvm::sys::findProgramByName("git");
  if (!git)
    return false;
  llvm::SmallString<128> listing;
  if (llvm::sys::fs::createTemporaryFile("aimodel-config-tree", "txt", listing))
    return false;
  llvm::FileRemover remove(listing);
  // The caller's GIT_DIR, GIT_WORK_TREE or GIT_INDEX_FILE (a hook's) would
  // point at another repository than the folder's: dropped.
  std::vector<std::string> keptEnv;
  for (char **entry = environ; entry && *entry; ++entry)
    if (!llvm::StringRef(*entry).starts_with("GIT_"))
      keptEnv.push_back(*entry);
  std::vector<llvm::StringRef> env(keptEnv.begin(), keptEnv.end());
  // ls-tree reads the commit's tree only: no working file, so no filter,
  // fsmonitor or hook the repository's own config may name runs.
  std::string pathspec = ":(literal)" + name.str();
  llvm::StringRef args[] = {*git, "-C",   folder, "ls-tree",
                            "-z", "HEAD", "--",   pathspec};
  std::optional<llvm::StringRef> redirects[] = {
      llvm::StringRef(""), llvm::StringRef(listing), llvm::StringRef("")};
  if (llvm::sys::ExecuteAndWait(*git, args, env, redirects) != 0)
    return false;
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> text =
      llvm::MemoryBuffer::getFile(listing);
  if (!text)
    return false;
  // "<mode> blob <id>\t<name>\0": exactly one entry, a regular file.
  llvm::StringRef entry = (*text)->getBuffer();
  if (!entry.consume_back(llvm::StringRef("\0", 1)) || entry.contains('\0'))
    return false;
  auto [meta, listed] = entry.split('\t');
  if (listed != name)
    return false;
  llvm::SmallVector<llvm::StringRef, 3> fields;
  meta.split(fields, ' ');
  if (fields.size() != 3 || (fields[0] != "100644" && fields[0] != "100755") ||
      fields[1] != "blob")
    return false;
  std::string id = gitBlobId(content, fields[2].size());
  return !id.empty() && id == fields[2].lower();
}
