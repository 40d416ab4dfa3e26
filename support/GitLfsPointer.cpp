//===- GitLfsPointer.cpp - Recognise a git-LFS pointer file --------------===//

#include "support/GitLfsPointer.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"

using namespace aimodel::support;

std::optional<GitLfsPointer>
aimodel::support::parseGitLfsPointer(llvm::StringRef bytes) {
  if (bytes.size() > kGitLfsPointerMaxSize || !bytes.ends_with("\n"))
    return std::nullopt;
  llvm::SmallVector<llvm::StringRef, 8> lines;
  bytes.drop_back().split(lines, '\n');
  // The first line names the specification; the older "hawser" URL is the
  // same format under its pre-release name.
  if (lines.front() != "version https://git-lfs.github.com/spec/v1" &&
      lines.front() != "version https://hawser.github.com/spec/v1")
    return std::nullopt;
  GitLfsPointer pointer;
  bool haveOid = false, haveSize = false;
  llvm::StringRef previousKey;
  for (llvm::StringRef line : llvm::ArrayRef(lines).drop_front()) {
    auto [key, value] = line.split(' ');
    if (key.empty() || value.empty() || key <= previousKey)
      return std::nullopt; // keys are unique and sorted
    previousKey = key;
    if (key == "oid") {
      llvm::StringRef hex = value;
      if (!hex.consume_front("sha256:") || hex.size() != 64 ||
          !llvm::all_of(hex, [](char c) {
            return llvm::isDigit(c) || (c >= 'a' && c <= 'f');
          }))
        return std::nullopt;
      pointer.oidSha256 = hex.str();
      haveOid = true;
    } else if (key == "size") {
      if (!llvm::all_of(value, llvm::isDigit) ||
          value.getAsInteger(10, pointer.size))
        return std::nullopt;
      haveSize = true;
    }
  }
  if (!haveOid || !haveSize)
    return std::nullopt;
  return pointer;
}

std::string
aimodel::support::describeGitLfsPointer(const GitLfsPointer &pointer) {
  return "a git-LFS pointer (object sha256:" + pointer.oidSha256 + ", " +
         std::to_string(pointer.size) +
         " bytes), not the file itself: " + kGitLfsFetchHint.str();
}
