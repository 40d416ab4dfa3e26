//===- StripAsset.h - One .aimodel, stripped (internal) ---------*- C++ -*-===//
//
// Shared by StripTree.cpp: how one asset is read (AssetScan: everything in
// it, before anything is written) and written (its IR file stripped by the
// core, main.hash for the new bytes, every other member byte for byte).
// Not a public header.
//
//===----------------------------------------------------------------------===//
#ifndef AIMODEL_STRIP_STRIPASSET_H
#define AIMODEL_STRIP_STRIPASSET_H

#include "bundle/Bundle.h"
#include "strip/StripTree.h"
#include "support/SafeFile.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace aimodel::strip {

/// "<path>: <message>", the path printable.
llvm::Error fileError(const std::string &path, llvm::Error error);
llvm::Error fileError(const std::string &path, const llvm::Twine &message);

/// "a/b/c" -> ("a/b", "c"); "c" -> ("", "c").
std::pair<llvm::StringRef, llvm::StringRef> splitRel(llvm::StringRef rel);

/// The folder `rel` below `rootFd` ("" for itself), never following a link.
llvm::Expected<support::UniqueFd> openBelow(int rootFd, llvm::StringRef rel);

/// What an asset is made of, read before anything is written.
struct AssetScan {
  std::optional<std::string> skip;     ///< why it cannot be stripped whole
  std::string ir;                      ///< "main.mlirb"
  std::vector<bundle::DirEntry> below; ///< every entry, relative names
};

/// Lists the asset `assetFd` (named `kindName`, reported as `path`) to the
/// bottom. Skipped: it holds a symlink, FIFO or device; its mlirb is missing
/// or not a regular file; its main.hash is not a regular file. Error: a
/// folder in it cannot be read.
llvm::Expected<AssetScan> scanAsset(int assetFd, llvm::StringRef kindName,
                                    const std::string &path);

/// Strips the scanned asset `assetFd` into the empty folder `outFd` (< 0:
/// a dry run), filling `outcome` (its input and output paths set by the
/// caller). `outcome.skipped` is set when the core refuses the IR; the
/// caller then removes the folder.
llvm::Error stripAsset(int assetFd, const AssetScan &scan, int outFd,
                       const StripOptions &options, AssetOutcome &outcome);

} // namespace aimodel::strip

#endif // AIMODEL_STRIP_STRIPASSET_H
