//===- StripRecord.h - What a stripped copy says about itself ---*- C++ -*-===//
//
// A stripped asset's metadata.json carries one top-level key, "strip", that
// says what made it and from what: written by `aimodel strip`, read by the
// audit (a stripped legacy copy is known as one; a record its IR
// contradicts is a finding). The shape follows the community's
// strip_bundle.py record where that is known (what, tool, versions,
// from_main_mlirb and main_mlirb with bytes and sha256); date, removed and
// rehashed are ours (docs/architecture.md, "The strip record").
//
// The record is added to the file's text, not by re-serialising it: every
// other byte of metadata.json (key order, Apple's `"key" : value` spacing,
// its `\/` escapes) stays as it was.
//
//===----------------------------------------------------------------------===//
#ifndef AIMODEL_BUNDLE_STRIPRECORD_H
#define AIMODEL_BUNDLE_STRIPRECORD_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>

namespace aimodel::bundle {

inline constexpr const char *kStripRecordKey = "strip";

/// One IR file as the record names it: its size and SHA-256 (lower-case
/// hex, the hex of the main.hash that goes with it).
struct RecordedFile {
  uint64_t bytes = 0;
  std::string sha256;
};

struct StripRecord {
  std::string tool;    ///< "aimodel strip"
  std::string version; ///< the tool's version
  std::string date;    ///< UTC, Apple's creationDate form: 20261203T084512Z
  RecordedFile from;   ///< the IR file stripped
  RecordedFile to;     ///< the IR file written
  /// What was removed (ours; absent from a record another tool wrote).
  uint64_t opLocations = 0, blockArgumentLocations = 0, entries = 0,
           strings = 0;
  std::string locations = "unknown"; ///< what payload locations became
  /// Set when the source's main.hash was wrong and --rehash wrote a new one.
  std::optional<std::string> rehashed;
};

/// A record read from a parsed metadata object.
struct ReadRecord {
  std::optional<StripRecord> record;  ///< set when present and well formed
  std::optional<std::string> problem; ///< present but not a record: why
};

/// Reads the "strip" key of `metadata`: neither set when there is none.
ReadRecord readStripRecord(const nlohmann::json &metadata);

/// `text`, a JSON object (as parseMetadata accepts), with the top-level key
/// "strip" set to `record`: replaced where the key is, else added after the
/// last member, in the file's own indentation and key separator. Nothing
/// else of `text` changes.
llvm::Expected<std::string> withStripRecord(llvm::StringRef text,
                                            const StripRecord &record);

/// UTC now in the record's form, or SOURCE_DATE_EPOCH's when set (for
/// reproducible outputs).
std::string recordDateNow();

} // namespace aimodel::bundle

#endif // AIMODEL_BUNDLE_STRIPRECORD_H
