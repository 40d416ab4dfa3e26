//===- StripTree.h - Stripping whole assets and trees -----------*- C++ -*-===//
//
// `aimodel strip` above one file: an .aimodel becomes its stripped copy (its
// main.mlirb stripped by StripFile, main.hash written for the new bytes,
// every other member copied byte for byte); a folder is mirrored, every
// .aimodel in it stripped and every other file copied, except MLIR bytecode
// outside any asset (by its magic, whatever its name), which is stripped
// when it carries debug payload (LooseFile.h). What cannot be
// stripped or copied faithfully is skipped and listed with the reason:
// compiled bundles (.aimodelc), symlinks, FIFOs and devices, assets the core
// refuses or that hold a symlink. The output is built in a temporary sibling
// of DST and renamed into place only once every asset verified
// (OutputTree.h); inputs are only ever read.
//
// Results are sorted by path and do not depend on the number of jobs.
//
//===----------------------------------------------------------------------===//
#ifndef AIMODEL_STRIP_STRIPTREE_H
#define AIMODEL_STRIP_STRIPTREE_H

#include "strip/StripFile.h"

#include "llvm/Support/Error.h"

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace aimodel::strip {

/// Why a compiled bundle is never stripped.
inline constexpr const char *kCompiledBundleReason =
    "compiled bundle: recompile from the stripped source";

struct TreeOptions {
  StripOptions file;
  unsigned jobs = 1;   ///< assets and files handled at once
  bool dryRun = false; ///< plan and measure; write nothing
  bool force = false;  ///< replace an existing DST (atomically)
  /// Strip an asset whose main.hash does not verify, writing a new one
  /// (the report says the old one was wrong); otherwise it is not stripped.
  bool rehash = false;
  /// Write a strip record into each stripped asset's metadata.json
  /// (bundle/StripRecord.h); off, metadata.json is copied byte for byte.
  bool record = true;
  std::string toolVersion; ///< the record's versions.aimodel
  /// --in-place: where originals are kept ("" for nowhere).
  std::string backup;
  /// Called (from any worker) as assets finish: done, total.
  std::function<void(size_t, size_t)> progress;
};

/// One asset (or the one file of --file): stripped, or skipped.
struct AssetOutcome {
  std::string input;  ///< as given + '/'-joined relative part (raw bytes)
  std::string output; ///< where it lands, DST-based
  /// "aimodel", "aimodelc" or "file" (--file, or in a tree an IR file
  /// outside any asset)
  std::string kind;
  /// Set: not stripped, not copied; why.
  std::optional<std::string> skipped;
  /// The IR file stripped, relative to the asset ("main.mlirb"; "" for a
  /// file), and what the core reported for it.
  std::string irFile;
  FileStripResult result;
  uint64_t membersCopied = 0; ///< other files of the asset, byte for byte
  /// Under --rehash, what was wrong with the old main.hash.
  std::optional<std::string> rehashed;
  /// Skipped only because its main.hash does not verify: --rehash would
  /// strip it.
  bool needsRehash = false;
  /// A strip record was written into the copy's metadata.json.
  bool recorded = false;
  /// --in-place: nothing to strip, left as it was.
  bool unchanged = false;
  /// --in-place --backup: where the original is kept.
  std::optional<std::string> backup;
};

/// A file outside any asset, copied byte for byte (bytecode among them
/// only when it carries no debug payload).
struct CopiedFile {
  std::string input, output;
  uint64_t bytes = 0;
};

/// Something that is not an asset and was not copied (a symlink, a FIFO,
/// bytecode that cannot be decoded or stripped).
struct SkippedEntry {
  std::string input;
  std::string reason;
};

struct StripReport {
  std::string input, output; ///< SRC and DST as given
  /// What SRC was: one bytecode file (--file), one asset, or a folder.
  enum class Mode { File, Asset, Tree } mode = Mode::Tree;
  bool dryRun = false;
  bool inPlace = false; ///< --in-place: output is input, asset by asset
  bool written = false; ///< DST was created (or replaced)
  LocationMode locations = LocationMode::Unknown;
  std::vector<AssetOutcome> assets; ///< sorted by input path
  std::vector<CopiedFile> copied;   ///< sorted by input path
  std::vector<SkippedEntry> skipped;
  /// For stderr: stale temporaries removed, an old DST left behind.
  std::vector<std::string> notes;

  /// Anything not stripped or copied: exit 1.
  bool anySkipped() const;
  /// Some stripped file still holds debug payload: exit 1 unless allowed.
  bool anyKept() const;
};

/// Strips SRC, an .aimodel or a folder, into DST. An error (exit 2) is one
/// line naming the file: SRC or DST refused, a single asset that cannot be
/// stripped, a folder that cannot be read, an input that changed while it
/// was read, a write or verification failure; nothing is left behind then.
/// In a folder, an asset or file that cannot be read, decoded or stripped
/// is skipped with its reason and the rest is written.
llvm::Expected<StripReport> stripPath(const std::string &source,
                                      const std::string &destination,
                                      const TreeOptions &options);

/// Repairs PATH, an .aimodel or a folder, in place: each asset strip can
/// repair (and that holds something to strip) is replaced by its verified
/// stripped copy, built beside it and swapped in atomically; the rest is
/// left as it is, with the reason (StripInPlace.cpp). Errors as stripPath.
llvm::Expected<StripReport> stripInPlace(const std::string &path,
                                         const TreeOptions &options);

/// Strips one bytecode file IN (followed, as named) into the file OUT; one
/// that cannot be stripped is an error.
llvm::Expected<StripReport> stripSingleFile(const std::string &input,
                                            const std::string &output,
                                            const TreeOptions &options);

} // namespace aimodel::strip

#endif // AIMODEL_STRIP_STRIPTREE_H
