//===- ReportFiles.cpp - Reading JSON inputs of `aimodel audit` -----------===//

#include "audit/ReportFiles.h"

#include "bundle/Metadata.h"
#include "support/PathText.h"
#include "support/SafeFile.h"

#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <set>
#include <tuple>
#include <vector>

using namespace aimodel;
using namespace aimodel::audit;
using Json = nlohmann::ordered_json;

namespace {
/// Reports are a few levels deep; the cap only keeps hostile input from
/// reaching nlohmann's recursive destructor and dump.
constexpr unsigned MaxDepth = 64;
/// A report of a million bundles is far below this.
constexpr uint64_t MaxReportBytes = uint64_t(1) << 30;

llvm::Error fail(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

std::optional<std::string> decodeHex(llvm::StringRef hex) {
  auto digit = [](char c) -> int {
    if (c >= '0' && c <= '9')
      return c - '0';
    if (c >= 'a' && c <= 'f')
      return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
      return c - 'A' + 10;
    return -1;
  };
  if (hex.size() % 2)
    return std::nullopt;
  std::string out;
  out.reserve(hex.size() / 2);
  for (size_t i = 0; i < hex.size(); i += 2) {
    int hi = digit(hex[i]), lo = digit(hex[i + 1]);
    if (hi < 0 || lo < 0)
      return std::nullopt;
    out.push_back(static_cast<char>(hi * 16 + lo));
  }
  return out;
}

/// Checks that object[key] is a string and object[key + "_bytes"], if
/// present, is its exact bytes in hex. `where` names the object.
llvm::Error checkPath(const Json &object, const std::string &key,
                      const std::string &where) {
  auto it = object.find(key);
  if (it == object.end() || !it->is_string())
    return fail(where + ": \"" + key + "\" is missing or not a string");
  auto bytes = object.find(key + "_bytes");
  if (bytes != object.end() &&
      (!bytes->is_string() || !decodeHex(bytes->get<std::string>())))
    return fail(where + ": \"" + key + "_bytes\" is not a hex string");
  return llvm::Error::success();
}

llvm::Error checkReport(const Json &doc) {
  if (!doc.is_object())
    return fail(llvm::formatv("is a JSON {0}, not an aimodel audit report",
                              doc.type_name()));
  auto schema = doc.find("schema");
  if (schema == doc.end() || !schema->is_string())
    return fail("has no \"schema\": not an aimodel audit report");
  if (*schema != ReportSchema.str())
    return fail("has schema " + schema->dump() + ", expected \"" +
                ReportSchema + "\"");
  auto tool = doc.find("tool");
  if (tool == doc.end() || !tool->is_object())
    return fail("\"tool\" is missing or not an object");
  auto bundles = doc.find("bundles");
  if (bundles == doc.end() || !bundles->is_array())
    return fail("\"bundles\" is missing or not an array");
  for (size_t i = 0; i < bundles->size(); ++i) {
    const Json &bundle = (*bundles)[i];
    std::string where = llvm::formatv("bundles[{0}]", i);
    if (!bundle.is_object())
      return fail(where + " is not an object");
    if (llvm::Error error = checkPath(bundle, "path", where))
      return error;
    auto findings = bundle.find("findings");
    if (findings == bundle.end() || !findings->is_array())
      return fail(where + ": \"findings\" is missing or not an array");
    for (size_t j = 0; j < findings->size(); ++j) {
      const Json &finding = (*findings)[j];
      std::string at = llvm::formatv("{0}.findings[{1}]", where, j);
      if (!finding.is_object())
        return fail(at + " is not an object");
      auto rule = finding.find("rule");
      if (rule == finding.end() || !rule->is_string())
        return fail(at + ": \"rule\" is missing or not a string");
      if (llvm::Error error = checkPath(finding, "file", at))
        return error;
    }
  }
  auto summary = doc.find("summary");
  if (summary == doc.end() || !summary->is_object())
    return fail("\"summary\" is missing or not an object");
  for (const auto &[key, value] : summary->items())
    if (!value.is_number_unsigned())
      return fail("summary." + key + " is not a count");
  return llvm::Error::success();
}
} // namespace

llvm::Expected<Json> aimodel::audit::parseStrictJson(llvm::StringRef text) {
  if (std::optional<size_t> at = bundle::findExcessiveNesting(text, MaxDepth))
    return fail(llvm::formatv("nests deeper than {0} levels (byte {1})",
                              MaxDepth, *at));
  bundle::DuplicateKeyFinder<Json> keys;
  Json parsed;
  try {
    parsed = Json::parse(text.begin(), text.end(), keys.callback());
  } catch (const Json::parse_error &e) {
    std::string what = e.what();
    size_t reason = what.find(": ", what.find("column"));
    return fail(llvm::formatv(
        "is not valid JSON at byte {0}: {1}", e.byte,
        reason == std::string::npos ? what : what.substr(reason + 2)));
  } catch (const Json::exception &e) {
    // Grammatical JSON nlohmann still refuses (a number out of range).
    return fail(llvm::Twine("cannot be parsed: ") + e.what());
  }
  // nlohmann's lexer stops at a NUL byte even when given the length; a NUL
  // cannot be inside a document it accepts, so it starts trailing bytes.
  if (size_t nul = text.find('\0'); nul != llvm::StringRef::npos)
    return fail(llvm::formatv(
        "has trailing bytes after the JSON document at byte {0}", nul));
  if (const std::optional<std::string> &duplicate = keys.duplicate())
    return fail(llvm::formatv("has the key {0} more than once in one object",
                              *duplicate));
  return parsed;
}

llvm::Expected<Json> aimodel::audit::readJsonFile(llvm::StringRef path,
                                                  uint64_t maxBytes) {
  std::string name = support::printablePath(path);
  llvm::Expected<support::RegularFile> file =
      support::openRegularFile(path, support::Symlinks::Follow);
  if (!file)
    return fail(name + ": " + llvm::toString(file.takeError()));
  if (file->size() > maxBytes)
    return fail(llvm::formatv("{0}: is {1} bytes, over the {2}-byte limit",
                              name, file->size(), maxBytes));
  llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>> buffer =
      support::mapRegularFile(std::move(*file), path);
  if (!buffer)
    return fail(name + ": " + llvm::toString(buffer.takeError()));
  llvm::Expected<Json> parsed = parseStrictJson((*buffer)->getBuffer());
  if (!parsed)
    return fail(name + ": " + llvm::toString(parsed.takeError()));
  return parsed;
}

llvm::Expected<Json> aimodel::audit::readReport(llvm::StringRef path) {
  llvm::Expected<Json> doc = readJsonFile(path, MaxReportBytes);
  if (!doc)
    return doc.takeError();
  if (llvm::Error error = checkReport(*doc))
    return fail(support::printablePath(path) + ": " +
                llvm::toString(std::move(error)));
  return doc;
}

std::string aimodel::audit::exactPath(const Json &object,
                                      const std::string &key) {
  auto bytes = object.find(key + "_bytes");
  if (bytes != object.end() && bytes->is_string())
    if (std::optional<std::string> raw = decodeHex(bytes->get<std::string>()))
      return *raw;
  auto text = object.find(key);
  return text != object.end() && text->is_string() ? text->get<std::string>()
                                                   : std::string();
}

void aimodel::audit::sortFindings(std::vector<Finding> &findings) {
  std::stable_sort(findings.begin(), findings.end(),
                   [](const Finding &a, const Finding &b) {
                     return std::tie(a.rule->id, a.file, a.message) <
                            std::tie(b.rule->id, b.file, b.message);
                   });
}

void aimodel::audit::recountSeverities(AuditReport &report) {
  report.countBySeverity = {};
  for (const BundleReport &bundle : report.bundles)
    for (const Finding &finding : bundle.findings)
      ++report.countBySeverity[static_cast<int>(finding.severity)];
}
