//===- GitTracked.h - Is a file's content the one git committed -*- C++ -*-===//
//
// A config committed to a repository comes out of a clone under umask 002
// writable by its group. It is still the repository's config when the bytes
// read are the ones HEAD records for it: that is asked of git here.
//
//===----------------------------------------------------------------------===//
#ifndef AIMODEL_AUDIT_GITTRACKED_H
#define AIMODEL_AUDIT_GITTRACKED_H

#include "llvm/ADT/StringRef.h"

#include <string>

namespace aimodel::audit {

/// The object id git gives a blob of `content`: SHA-1 for `idLength` 40,
/// SHA-256 for 64 (a repository's object format), else empty.
std::string gitBlobId(llvm::StringRef content, size_t idLength);

/// True when the file `name` in the folder `folder` is tracked in the
/// commit at HEAD of the repository holding `folder` and `content` is
/// exactly what that commit records for it. git (found on PATH, run
/// without a shell, its GIT_* environment dropped so the folder decides the
/// repository) only lists the tree, reading no working file; false when
/// git is missing, fails, or the folder is in no repository.
bool isCommittedContent(const std::string &folder, llvm::StringRef name,
                        llvm::StringRef content);

} // namespace aimodel::audit

#endif // AIMODEL_AUDIT_GITTRACKED_H
