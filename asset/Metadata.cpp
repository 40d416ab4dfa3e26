//===- Metadata.cpp - Bounded parsing of metadata.json --------------------===//

#include "asset/Metadata.h"
#include "asset/FileReading.h"

#include "llvm/Support/FormatVariadic.h"

using namespace aimodel::asset;

std::optional<size_t>
aimodel::asset::findExcessiveNesting(llvm::StringRef text, unsigned maxDepth) {
  unsigned depth = 0;
  bool inString = false;
  for (size_t i = 0, e = text.size(); i < e; ++i) {
    char c = text[i];
    if (inString) {
      if (c == '\\')
        ++i; // skip the escaped character, whatever it is
      else if (c == '"')
        inString = false;
      continue;
    }
    switch (c) {
    case '"':
      inString = true;
      break;
    case '[':
    case '{':
      if (++depth > maxDepth)
        return i;
      break;
    case ']':
    case '}':
      if (depth > 0)
        --depth;
      break;
    default:
      break;
    }
  }
  return std::nullopt;
}

MetadataResult aimodel::asset::parseMetadata(llvm::StringRef text,
                                             const MetadataLimits &limits) {
  MetadataResult result;
  if (text.size() > limits.maxBytes) {
    result.problem = MetadataProblem::TooLarge;
    result.message = llvm::formatv("is {0} bytes, over the {1}-byte limit",
                                   text.size(), limits.maxBytes);
    return result;
  }
  if (std::optional<size_t> at = findExcessiveNesting(text, limits.maxDepth)) {
    result.problem = MetadataProblem::TooDeep;
    result.message = llvm::formatv(
        "nests deeper than {0} levels (byte {1})", limits.maxDepth, *at);
    return result;
  }
  nlohmann::json parsed;
  try {
    parsed = nlohmann::json::parse(text.begin(), text.end());
  } catch (const nlohmann::json::parse_error &e) {
    result.problem = MetadataProblem::NotJson;
    // Keep nlohmann's reason, but locate it by byte offset, not line/column.
    std::string what = e.what();
    size_t reason = what.find(": ", what.find("column"));
    result.message = llvm::formatv(
        "is not valid JSON at byte {0}: {1}", e.byte,
        reason == std::string::npos ? what : what.substr(reason + 2));
    return result;
  }
  if (!parsed.is_object()) {
    result.problem = MetadataProblem::NotObject;
    result.message = llvm::formatv("is a JSON {0}, not an object",
                                   parsed.type_name());
    return result;
  }
  result.object = std::move(parsed);
  return result;
}

MetadataResult aimodel::asset::loadMetadata(llvm::StringRef path,
                                            const MetadataLimits &limits) {
  llvm::Expected<std::string> text = readSmallFile(path, limits.maxBytes);
  if (!text) {
    MetadataResult result;
    llvm::handleAllErrors(text.takeError(), [&](const llvm::StringError &e) {
      result.problem = e.convertToErrorCode() == std::errc::file_too_large
                           ? MetadataProblem::TooLarge
                           : MetadataProblem::Unreadable;
      result.message = e.getMessage();
    });
    return result;
  }
  return parseMetadata(*text, limits);
}

std::optional<std::string>
aimodel::asset::stringField(const nlohmann::json &object, const char *key) {
  auto it = object.find(key);
  if (it == object.end() || !it->is_string())
    return std::nullopt;
  return it->get<std::string>();
}
