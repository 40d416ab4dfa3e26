//===- PreCommit.h - Bundles touched by a list of files ---------*- C++ -*-===//
//
// pre-commit hands a hook the files a commit touches, not folders, and a
// bundle is a folder: each file is mapped to the bundle it belongs to, so
// `aimodel audit --pre-commit FILES...` audits exactly the bundles a commit
// changes, each once.
//
//===----------------------------------------------------------------------===//
#ifndef AIMODEL_BUNDLE_PRECOMMIT_H
#define AIMODEL_BUNDLE_PRECOMMIT_H

#include <string>
#include <vector>

namespace aimodel::bundle {

/// The bundles the files belong to, sorted by bytes, without duplicates,
/// each spelt as a prefix of a given path (trailing slashes dropped):
///
/// - A file below a component named like an asset (`X.aimodel`,
///   `X.<arch>.aimodelc`) belongs to the outermost such component, decided
///   from the path alone, so a deleted member still maps to its asset (assets
///   are leaves: the walk never looks inside them for more bundles).
/// - Otherwise, or when that asset no longer exists at all, the nearest
///   existing folder above it (the path itself when it is a folder) that is a
///   coreai-models bundle folder, up to `.` for a relative path and `/` for
///   an absolute one: a deleted asset is that folder's missing asset. A
///   folder that cannot be listed is not taken for a bundle folder.
/// - Otherwise the file is in no bundle and is appended to `ignored`, in the
///   order given.
std::vector<std::string> bundlesForFiles(const std::vector<std::string> &files,
                                         std::vector<std::string> &ignored);

} // namespace aimodel::bundle

#endif // AIMODEL_BUNDLE_PRECOMMIT_H
