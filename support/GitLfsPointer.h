//===- GitLfsPointer.h - Recognise a git-LFS pointer file ------*- C++ -*-===//
//
// A repository that stores models with git-LFS hands out a ~130-byte text
// file in place of each large file until `git lfs pull` fetches it. Such a
// file is not damage: it is a fetch that has not happened, and the readers
// say so instead of "not MLIR bytecode".
//
//===----------------------------------------------------------------------===//
#ifndef AIMODEL_SUPPORT_GITLFSPOINTER_H
#define AIMODEL_SUPPORT_GITLFSPOINTER_H

#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <optional>
#include <string>

namespace aimodel::support {

/// What a pointer names: the object's SHA-256 (64 lower-case hex digits) and
/// size in bytes.
struct GitLfsPointer {
  std::string oidSha256;
  uint64_t size = 0;
};

/// How every message about a pointer ends; a reader (audit's fixes) tells
/// such a message by it.
inline constexpr llvm::StringLiteral kGitLfsFetchHint =
    "fetch it with `git lfs pull`";

/// Pointers are at most this long (the git-LFS specification's limit).
inline constexpr uint64_t kGitLfsPointerMaxSize = 1024;

/// `bytes` parsed as a git-LFS pointer (specification v1: "key value" lines,
/// `version` first, then `oid sha256:HEX` and `size N` among sorted keys);
/// std::nullopt when it is anything else.
std::optional<GitLfsPointer> parseGitLfsPointer(llvm::StringRef bytes);

/// "a git-LFS pointer (object sha256:HEX, N bytes), not the file itself:
/// fetch it with `git lfs pull`".
std::string describeGitLfsPointer(const GitLfsPointer &pointer);

} // namespace aimodel::support

#endif // AIMODEL_SUPPORT_GITLFSPOINTER_H
