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
#include <set>
#include <string>
#include <vector>

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
  std::string text;    // the bytes read, when loaded from a file
};

/// nlohmann keeps the last of two equal keys; a reader that keeps the first
/// would see another file, so a key twice in one object is refused wherever
/// aimodel reads JSON. Pass callback() to Json::parse, then ask duplicate()
/// for the first key met twice (as JSON text). For json and ordered_json.
template <typename Json> class DuplicateKeyFinder {
public:
  typename Json::parser_callback_t callback() {
    return [this](int, typename Json::parse_event_t event, Json &parsed) {
      using Event = typename Json::parse_event_t;
      if (event == Event::object_start)
        openObjects.emplace_back();
      else if (event == Event::object_end && !openObjects.empty())
        openObjects.pop_back();
      else if (event == Event::key && !openObjects.empty() &&
               !openObjects.back()
                    .insert(parsed.template get<std::string>())
                    .second &&
               !first)
        first = parsed.dump();
      return true;
    };
  }
  const std::optional<std::string> &duplicate() const { return first; }

private:
  std::vector<std::set<std::string>> openObjects;
  std::optional<std::string> first;
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
