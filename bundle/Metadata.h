//===- Metadata.h - Bounded parsing of metadata.json ------------*- C++ -*-===//
//
// `metadata.json` comes from anywhere, so it is parsed strictly but within
// limits checked before any recursion can start: a size cap and a nesting
// cap. Unknown keys are kept: callers read what they know and carry the rest.
//
//===----------------------------------------------------------------------===//
#ifndef AIMODEL_BUNDLE_METADATA_H
#define AIMODEL_BUNDLE_METADATA_H

#include "llvm/ADT/StringRef.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>

namespace aimodel::bundle {

struct MetadataLimits {
  uint64_t maxBytes = 1 << 20; // Apple's files are a few hundred bytes.
  unsigned maxDepth = 64;      // Apple's files nest at most 3 deep.
};

/// Why a metadata file could not be used.
enum class MetadataProblem {
  Unreadable,
  TooLarge,
  TooDeep,
  NotJson,
  TrailingBytes, ///< bytes other than whitespace after the document
  DuplicateKey,  ///< a key twice in one object (a parser keeps either)
  NotObject
};

/// Either a parsed JSON object or the reason there is none.
struct MetadataResult {
  std::optional<nlohmann::json> object;
  MetadataProblem problem = MetadataProblem::Unreadable;
  std::string message; // one line, without the file name
};

/// Parses JSON text that must be an object: all of it (nothing but
/// whitespace after the document, not even after a NUL byte), with no key
/// twice in one object.
MetadataResult parseMetadata(llvm::StringRef text,
                             const MetadataLimits &limits = {});

/// Reads and parses the file at `path` (never following a symlink).
MetadataResult loadMetadata(llvm::StringRef path,
                            const MetadataLimits &limits = {});

/// Reads and parses `name` below the directory `dirFd` (nothing followed).
MetadataResult loadMetadata(int dirFd, llvm::StringRef name,
                            const MetadataLimits &limits = {});

/// Byte offset at which `text` first nests deeper than `maxDepth` arrays or
/// objects, if it does. Linear, no recursion; strings are skipped properly.
std::optional<size_t> findExcessiveNesting(llvm::StringRef text,
                                           unsigned maxDepth);

/// The string value of `key`, if the object has it as a string.
std::optional<std::string> stringField(const nlohmann::json &object,
                                       const char *key);

} // namespace aimodel::bundle

#endif // AIMODEL_BUNDLE_METADATA_H
