//===- Metadata.cpp - Bounded parsing of metadata.json --------------------===//

#include "bundle/Metadata.h"
#include "bundle/FileReading.h"

#include "llvm/Support/FormatVariadic.h"

#include <set>
#include <vector>

using namespace aimodel::bundle;

std::optional<size_t>
aimodel::bundle::findExcessiveNesting(llvm::StringRef text, unsigned maxDepth) {
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

namespace {
/// A SAX consumer that keeps nothing but where the parser gave up.
struct RefusalFinder : nlohmann::json_sax<nlohmann::json> {
  std::optional<size_t> position;
  bool null() override { return true; }
  bool boolean(bool) override { return true; }
  bool number_integer(number_integer_t) override { return true; }
  bool number_unsigned(number_unsigned_t) override { return true; }
  bool number_float(number_float_t, const string_t &) override { return true; }
  bool string(string_t &) override { return true; }
  bool binary(binary_t &) override { return true; }
  bool start_object(std::size_t) override { return true; }
  bool key(string_t &) override { return true; }
  bool end_object() override { return true; }
  bool start_array(std::size_t) override { return true; }
  bool end_array() override { return true; }
  bool parse_error(std::size_t at, const std::string &,
                   const nlohmann::detail::exception &) override {
    position = at;
    return false;
  }
};
} // namespace

/// Byte offset at which nlohmann refuses `text`. Only its parse_error
/// exceptions carry one, so on other refusals the text is parsed again
/// through SAX, whose error callback is told the position.
static std::optional<size_t> refusalOffset(llvm::StringRef text) {
  RefusalFinder finder;
  try {
    nlohmann::json::sax_parse(text.begin(), text.end(), &finder);
  } catch (const nlohmann::json::exception &) {
    return std::nullopt;
  }
  return finder.position;
}

MetadataResult aimodel::bundle::parseMetadata(llvm::StringRef text,
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
    result.message = llvm::formatv("nests deeper than {0} levels (byte {1})",
                                   limits.maxDepth, *at);
    return result;
  }
  DuplicateKeyFinder<nlohmann::json> keys;
  nlohmann::json parsed;
  try {
    parsed = nlohmann::json::parse(text.begin(), text.end(), keys.callback());
  } catch (const nlohmann::json::parse_error &e) {
    result.problem = MetadataProblem::NotJson;
    // Keep nlohmann's reason, but locate it by byte offset, not line/column.
    std::string what = e.what();
    size_t reason = what.find(": ", what.find("column"));
    result.message = llvm::formatv(
        "is not valid JSON at byte {0}: {1}", e.byte,
        reason == std::string::npos ? what : what.substr(reason + 2));
    return result;
  } catch (const nlohmann::json::exception &e) {
    // Grammatical JSON nlohmann still refuses (a number out of double range
    // throws out_of_range, not parse_error). Any of its exceptions must
    // become a finding: escaping, it would abort the whole run.
    result.problem = MetadataProblem::NotJson;
    std::string what = e.what();
    if (size_t close = what.find("] "); close != std::string::npos)
      what = what.substr(close + 2); // drop "[json.exception.<kind>.<id>] "
    std::optional<size_t> at = refusalOffset(text);
    result.message =
        at ? llvm::formatv("cannot be parsed at byte {0}: {1}", *at, what).str()
           : "cannot be parsed: " + what;
    return result;
  }
  // nlohmann's lexer takes a NUL byte for the end of input, even when given
  // the length, so "{...}\0garbage" parses. A NUL can appear nowhere else in
  // text it accepts (inside the document it is an error), so the first one
  // is where the trailing bytes start.
  if (size_t nul = text.find('\0'); nul != llvm::StringRef::npos) {
    result.problem = MetadataProblem::TrailingBytes;
    result.message = llvm::formatv(
        "has trailing bytes after the JSON document at byte {0}", nul);
    return result;
  }
  if (const std::optional<std::string> &duplicate = keys.duplicate()) {
    result.problem = MetadataProblem::DuplicateKey;
    result.message = llvm::formatv(
        "has the key {0} more than once in one object", *duplicate);
    return result;
  }
  if (!parsed.is_object()) {
    result.problem = MetadataProblem::NotObject;
    result.message =
        llvm::formatv("is a JSON {0}, not an object", parsed.type_name());
    return result;
  }
  result.object = std::move(parsed);
  return result;
}

static MetadataResult parseRead(llvm::Expected<std::string> text,
                                const MetadataLimits &limits) {
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
  MetadataResult result = parseMetadata(*text, limits);
  result.text = std::move(*text);
  return result;
}

MetadataResult aimodel::bundle::loadMetadata(llvm::StringRef path,
                                             const MetadataLimits &limits) {
  return parseRead(readSmallFile(path, limits.maxBytes), limits);
}

MetadataResult aimodel::bundle::loadMetadata(int dirFd, llvm::StringRef name,
                                             const MetadataLimits &limits) {
  return parseRead(readSmallFile(dirFd, name, limits.maxBytes), limits);
}

std::optional<std::string>
aimodel::bundle::stringField(const nlohmann::json &object, const char *key) {
  auto it = object.find(key);
  if (it == object.end() || !it->is_string())
    return std::nullopt;
  return it->get<std::string>();
}
