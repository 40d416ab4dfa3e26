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
#include "support/FileSystem.h"
#include "support/SafeFile.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace aimodel::strip {

/// "a/b/c" -> ("a/b", "c"); "c" -> ("", "c").
std::pair<llvm::StringRef, llvm::StringRef> splitRel(llvm::StringRef rel);

/// The folder `rel` below `rootFd` ("" for itself), never following a link.
llvm::Expected<support::UniqueFd> openBelow(int rootFd, llvm::StringRef rel);

/// Puts the reason of an UnusableInput error about `path` (its message
/// without the leading "<path>: ") in `reason`; returns any other error.
llvm::Error takeUnusableReason(llvm::Error error, const std::string &path,
                               std::optional<std::string> &reason);

/// What an asset is made of, read before anything is written.
struct AssetScan {
  std::optional<std::string> skip;     ///< why it cannot be stripped whole
  std::string ir;                      ///< "main.mlirb"
  std::vector<bundle::DirEntry> below; ///< every entry, relative names
  /// main.hash as read (its first 4 KiB), and its state; none if missing.
  std::optional<std::string> hash;
  support::FileState hashState;
  /// metadata.json's name, text and state when the audit's reader
  /// accepted it.
  std::string metadataName;
  std::string metadataText;
  support::FileState metadataState;
};

/// Why `hash` (main.hash as read) is not `digest` (the mlirb's SHA-256),
/// or nullopt when it is.
std::optional<std::string> hashProblem(const std::optional<std::string> &hash,
                                       const std::array<uint8_t, 32> &digest,
                                       llvm::StringRef irName);

/// Lists the asset `assetFd` (named `kindName`, reported as `path`) to the
/// bottom. Skipped: it holds a symlink, FIFO or device; its mlirb or
/// metadata.json is missing or not a regular file; metadata.json is one the
/// audit refuses (AIM005: not JSON, over the size cap, ...); its main.hash
/// is not a regular file. Error: a folder in it cannot be read; an
/// UnusableInput one: metadata.json cannot be opened or read.
llvm::Expected<AssetScan> scanAsset(int assetFd, llvm::StringRef kindName,
                                    const std::string &path);

/// Strips the scanned asset `assetFd` into the empty folder `outFd` (< 0:
/// a dry run), filling `outcome` (its input and output paths set by the
/// caller); metadata.json gets the strip record unless `options.record` is
/// off. `outcome.skipped` is set when the core refuses the IR or the
/// old main.hash does not verify (unless `rehash`); the caller then removes
/// the folder. Errors name the file; an UnusableInput one (the mlirb cannot
/// be read or decoded) lets a tree skip the asset. With `outputMode`, the
/// output folder's own permission bits are put there, not applied (a
/// folder published by rename must still be writable then).
llvm::Error stripAsset(int assetFd, const AssetScan &scan, int outFd,
                       const TreeOptions &options, AssetOutcome &outcome,
                       mode_t *outputMode = nullptr);

} // namespace aimodel::strip

#endif // AIMODEL_STRIP_STRIPASSET_H
