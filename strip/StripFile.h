//===- StripFile.h - Stripping debug payload from one file -----*- C++ -*-===//
//
// What `aimodel strip` does to one MLIR bytecode file (a main.mlirb, an
// .mpsgraph, ...): every op and block-argument location carrying debug
// payload is replaced (loc(unknown), or the op's own "coreai" op-id NameLoc),
// entries and strings only that payload used are blanked when provably safe,
// everything else is kept: private-dialect entries byte for byte and at their
// index, op order, attributes, properties, resources and their alignment.
// Weights are streamed, never held in memory. The written file is re-read by
// the project's decoder and compared with the input before it counts.
//
// No MLIR here: the rewrite works on the container (bytecode/BytecodeWriter.h)
// and decides which locations to replace with the audit's own location
// predicates (mlir-passes/LocationPredicates.h).
//
//===----------------------------------------------------------------------===//
#ifndef AIMODEL_STRIP_STRIPFILE_H
#define AIMODEL_STRIP_STRIPFILE_H

#include "support/SafeFile.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace aimodel::strip {

/// What a payload-carrying location becomes.
enum class LocationMode {
  /// loc(unknown): the builtin form with the most evidence of loading.
  Unknown,
  /// "coreai"("op_id":N:0), reusing the op's own id entry found inside its
  /// old location (loc(unknown) when it has none). Unverified.
  OpId,
};

struct StripOptions {
  LocationMode locations = LocationMode::Unknown;
  /// Also hash the input (FileStripResult::inputDigest), on a second core:
  /// to check an asset's main.hash, or for a report that shows it.
  bool hashInput = true;
};

/// Debug payload a stripped file still holds, and why.
struct KeptPayload {
  uint64_t count = 0;                ///< distinct strings or pieces
  std::vector<std::string> examples; ///< up to three
  std::string reason;                ///< empty when count is 0
};

/// The outcome for one file. `refused` set: the file cannot be stripped
/// (nothing was written; the caller skips the asset, exit 1).
struct FileStripResult {
  std::optional<std::string> refused;
  std::string inputSha256;               ///< hex; empty unless hashInput
  std::array<uint8_t, 32> inputDigest{}; ///< raw; zero unless hashInput
  std::string outputSha256; ///< hex; empty in a dry run or when refused
  std::array<uint8_t, 32> outputDigest{}; ///< raw, for main.hash
  uint64_t bytesBefore = 0;
  uint64_t bytesAfter = 0;             ///< exact, also in a dry run
  uint64_t opLocations = 0;            ///< op locations replaced
  uint64_t blockArgumentLocations = 0; ///< block-argument locations replaced
  uint64_t opIdLocations = 0;  ///< of those, given an op-id NameLoc (OpId)
  uint64_t entriesRemoved = 0; ///< attribute entries blanked
  uint64_t stringsRemoved = 0; ///< strings blanked
  /// Of the entries blanked: locations only private bytes may refer to,
  /// made loc(unknown) at their index (still locations).
  uint64_t possiblyUsedLocations = 0;
  /// Debug payload (paths, user names, hashes) still in the file: as
  /// planned in a dry run, as found in the written file otherwise.
  KeptPayload kept;
  bool verified = false; ///< written, re-read and compared
};

/// Strips bytecode file `input` into `outputFd`, a new empty regular file
/// opened for reading and writing, then re-reads and verifies it, and
/// checks that the input did not change meanwhile. With outputFd < 0, a
/// dry run: plans and measures only. Errors, each naming the file that
/// failed as the user sees it (`inputName`, or `outputName` for a write or
/// verification failure): the input cannot be decoded ("byte N: ...") or
/// changed, writing fails, or the written file fails verification; the
/// caller then removes the output.
llvm::Expected<FileStripResult> stripFile(const support::RegularFile &input,
                                          llvm::StringRef inputName,
                                          int outputFd,
                                          llvm::StringRef outputName,
                                          const StripOptions &options);

} // namespace aimodel::strip

#endif // AIMODEL_STRIP_STRIPFILE_H
