//===- SarifReport.cpp - SARIF 2.1.0 rendering of an audit ----------------===//
//
// Shaped for GitHub code scanning: every rule in the driver (so ruleIndex is
// stable whatever fired), one location per result with a line (GitHub needs
// region.startLine), and our own partialFingerprints, since GitHub cannot
// compute them for binary members such as main.hash.
//
//===----------------------------------------------------------------------===//

#include "audit/Fixes.h"
#include "audit/ReportFormats.h"

#include "support/PathText.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SHA256.h"

using namespace aimodel;
using namespace aimodel::audit;
using json = nlohmann::ordered_json;

// RFC 3986 prefers upper-case percent-encodings.
static const char kUpperHex[] = "0123456789ABCDEF";
static const char kLowerHex[] = "0123456789abcdef";
static constexpr llvm::StringLiteral kSchemaUri =
    "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/"
    "sarif-schema-2.1.0.json";
static constexpr llvm::StringLiteral kSrcRoot = "%SRCROOT%";

std::string aimodel::audit::percentEncodePath(llvm::StringRef bytes) {
  std::string out;
  out.reserve(bytes.size());
  for (unsigned char b : bytes) {
    if (llvm::isAlnum(b) || b == '-' || b == '.' || b == '_' || b == '~' ||
        b == '/') {
      out.push_back(static_cast<char>(b));
      continue;
    }
    out.push_back('%');
    out.push_back(kUpperHex[b >> 4]);
    out.push_back(kUpperHex[b & 15]);
  }
  return out;
}

/// `path` made absolute against the current directory, with "." and ".."
/// removed lexically: symlinks are never followed, and the report's paths
/// are the ones the user gave.
static std::string absolutePath(llvm::StringRef path) {
  llvm::SmallString<256> full(path);
  llvm::sys::fs::make_absolute(full);
  llvm::sys::path::remove_dots(full, /*remove_dot_dot=*/true,
                               llvm::sys::path::Style::posix);
  return std::string(full);
}

namespace {
/// Where results point: relative to the root when inside it.
class Locator {
public:
  explicit Locator(llvm::StringRef sarifRoot)
      : rootPrefix(absolutePath(sarifRoot.empty() ? "." : sarifRoot)) {
    if (!llvm::StringRef(rootPrefix).ends_with("/"))
      rootPrefix += "/";
  }

  /// The root as the absolute file: URI originalUriBaseIds needs (it must
  /// end with a slash).
  std::string rootUri() const {
    return "file://" + percentEncodePath(rootPrefix);
  }

  /// {uri, relative}: relative URIs are resolved against %SRCROOT%.
  std::pair<std::string, bool> locate(llvm::StringRef path) const {
    std::string full = absolutePath(path);
    llvm::StringRef ref(full);
    if (ref.size() > rootPrefix.size() && ref.starts_with(rootPrefix))
      return {percentEncodePath(ref.drop_front(rootPrefix.size())), true};
    return {"file://" + percentEncodePath(full), false};
  }

private:
  std::string rootPrefix;
};
} // namespace

/// Stable across runs and machines as long as the path is inside the root:
/// the relative URI, never an absolute path, goes in.
static std::string fingerprint(const Finding &f, llvm::StringRef uri) {
  llvm::SHA256 hash;
  hash.update(f.rule->id);
  hash.update(llvm::StringRef("\0", 1));
  hash.update(uri);
  hash.update(llvm::StringRef("\0", 1));
  // The message as reports show it, so a report read back (--merge)
  // fingerprints alike.
  hash.update(support::printableText(f.message));
  std::array<uint8_t, 32> digest = hash.final();
  std::string hex;
  for (size_t i = 0; i < 16; ++i) {
    hex.push_back(kLowerHex[digest[i] >> 4]);
    hex.push_back(kLowerHex[digest[i] & 15]);
  }
  return hex + ":1";
}

static llvm::StringRef sarifLevel(Severity severity) {
  switch (severity) {
  case Severity::Error:
    return "error";
  case Severity::Warning:
    return "warning";
  case Severity::Info:
    return "note";
  }
  return "error";
}

static json textObject(llvm::StringRef text) { return {{"text", text.str()}}; }

static json ruleDescriptor(const Rule &rule) {
  return {
      {"id", rule.id.str()},
      {"name", rule.name.str()},
      {"shortDescription", textObject(rule.summary)},
      {"fullDescription", textObject((rule.summary + ". " + rule.help).str())},
      {"help", textObject(rule.help)},
      {"defaultConfiguration", {{"level", sarifLevel(rule.severity).str()}}},
      {"properties",
       {{"evidence", evidenceName(rule.evidence).str()},
        {"source", rule.source.str()}}}};
}

/// The rule's position in the driver's rules array, which lists allRules().
static std::optional<size_t> ruleIndex(const Rule *rule) {
  llvm::ArrayRef<const Rule *> all = allRules();
  for (size_t i = 0; i < all.size(); ++i)
    if (all[i] == rule || all[i]->id == rule->id)
      return i;
  return std::nullopt;
}

static json result(const Finding &f, const BundleReport &bundle,
                   const Locator &locator) {
  auto [uri, relative] = locator.locate(bundle.pathOf(f));

  json artifact = {{"uri", uri}};
  if (relative)
    artifact["uriBaseId"] = kSrcRoot.str();
  json out = {{"ruleId", f.rule->id.str()}};
  if (std::optional<size_t> index = ruleIndex(f.rule))
    out["ruleIndex"] = *index;
  out["level"] = sarifLevel(f.severity).str();
  // Messages may quote raw bytes (names, symlink targets): JSON needs UTF-8.
  out["message"] = textObject(support::printableText(f.message));
  out["locations"] = json::array({{{"physicalLocation",
                                    {{"artifactLocation", std::move(artifact)},
                                     {"region", {{"startLine", 1}}}}}}});
  out["partialFingerprints"] = {
      {"primaryLocationLineHash", fingerprint(f, uri)}};

  json properties = {{"fix", fixFor(f, bundle)}};
  if (f.ops)
    properties["ops"] = f.ops;
  if (f.blockArguments)
    properties["blockArguments"] = f.blockArguments;
  if (!f.examples.empty()) {
    json examples = json::array();
    for (const std::string &example : f.examples)
      examples.push_back(support::printableText(example));
    properties["examples"] = std::move(examples);
  }
  out["properties"] = std::move(properties);
  return out;
}

void aimodel::audit::writeSarifReport(llvm::raw_ostream &os,
                                      const AuditReport &report,
                                      llvm::StringRef toolVersion,
                                      llvm::StringRef sarifRoot) {
  Locator locator(sarifRoot);
  json rules = json::array();
  for (const Rule *rule : allRules())
    rules.push_back(ruleDescriptor(*rule));

  json results = json::array();
  for (const BundleReport &bundle : report.bundles)
    for (const Finding &f : bundle.findings) {
      results.push_back(result(f, bundle, locator));
      // Against a baseline, what is reported is what it did not hold.
      if (report.run.baselineFile)
        results.back()["baselineState"] = "new";
    }

  std::string version = support::printablePath(toolVersion);
  json driver = {{"name", "aimodel"},
                 {"version", version},
                 {"semanticVersion", version},
                 {"rules", std::move(rules)}};
  json run = {
      {"tool", {{"driver", std::move(driver)}}},
      {"originalUriBaseIds", {{kSrcRoot.str(), {{"uri", locator.rootUri()}}}}},
      {"results", std::move(results)},
      // What the run was asked and what hid findings (config, baseline).
      {"properties", {{"aimodel", runJson(report.run)}}}};
  json log = {{"$schema", kSchemaUri.str()},
              {"version", "2.1.0"},
              {"runs", json::array({std::move(run)})}};
  os << log.dump(2) << "\n";
}
