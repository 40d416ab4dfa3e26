//===- LooseFile.h - A tree's files outside assets (internal) ---*- C++ -*-===//
//
// Shared by StripTree.cpp: a file of the tree that is no member of an asset
// is copied byte for byte, unless it is MLIR bytecode (by its magic bytes,
// whatever its name or folder: a backup's main.mlirb, a dump named .bin).
// Such a file is planned as an asset's IR is, by the one decoder and the
// payload scan: without debug payload it is copied as it is; with some, it
// is stripped into the copy; one that cannot be decoded or stripped is
// skipped with the reason, never copied, so a "clean" output is clean
// everywhere. Not a public header.
//
//===----------------------------------------------------------------------===//
#ifndef AIMODEL_STRIP_LOOSEFILE_H
#define AIMODEL_STRIP_LOOSEFILE_H

#include "strip/StripFile.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <string>

namespace aimodel::strip {

/// What became of one file outside any asset.
struct LooseFileOutcome {
  enum class Kind { Copied, Stripped, Skipped } kind = Kind::Copied;
  uint64_t bytes = 0;     ///< Copied: its size
  FileStripResult result; ///< Stripped: what the core reported
  std::string reason;     ///< Skipped: why it was not copied
};

/// Copies or strips the file `rel` below `sourceDirFd` to `rel` below
/// `outFd` (< 0: a dry run, nothing written). `inShown` and `outShown` name
/// it in messages. An UnusableInput error (it cannot be opened or read)
/// lets the tree skip it; any other error (a write error, an input that
/// changed) stops the run.
llvm::Expected<LooseFileOutcome>
copyOrStripLooseFile(int sourceDirFd, llvm::StringRef rel, int outFd,
                     const std::string &inShown, const std::string &outShown,
                     const StripOptions &options);

} // namespace aimodel::strip

#endif // AIMODEL_STRIP_LOOSEFILE_H
