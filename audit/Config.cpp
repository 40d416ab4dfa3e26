//===- Config.cpp - The .aimodel.json audit config ------------------------===//

#include "audit/Config.h"
#include "audit/ReportFiles.h"

#include "support/PathText.h"
#include "support/SafeFile.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/GlobPattern.h"
#include "llvm/Support/Path.h"

#include <cerrno>
#include <sys/stat.h>

using namespace aimodel;
using namespace aimodel::audit;
using Json = nlohmann::ordered_json;
namespace path = llvm::sys::path;

namespace {
/// Brace alternatives a glob may expand to; more is a mistake, not a need.
constexpr size_t MaxGlobAlternatives = 1024;
constexpr uint64_t MaxConfigBytes = 1 << 20;

llvm::Error fail(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

std::string jsonQuoted(llvm::StringRef text) {
  return Json(support::printablePath(text)).dump();
}

llvm::Expected<llvm::GlobPattern> compileGlob(llvm::StringRef pattern) {
  return llvm::GlobPattern::create(pattern, MaxGlobAlternatives);
}

/// Validates one "ignore" entry; errors are relative to it.
llvm::Expected<IgnoreEntry> parseIgnore(const Json &entry) {
  if (!entry.is_object())
    return fail(llvm::formatv("is a JSON {0}, not an object with \"path\", "
                              "\"rules\" and \"reason\"",
                              entry.type_name()));
  for (const auto &item : entry.items())
    if (item.key() != "path" && item.key() != "rules" && item.key() != "reason")
      return fail("unknown key " + jsonQuoted(item.key()) +
                  " (expected \"path\", \"rules\" or \"reason\")");
  IgnoreEntry result;
  auto reason = entry.find("reason");
  if (reason == entry.end() || !reason->is_string() ||
      llvm::StringRef(reason->get_ref<const std::string &>()).trim().empty())
    return fail("needs a non-empty \"reason\" (why these findings are "
                "accepted)");
  result.reason = reason->get<std::string>();
  auto glob = entry.find("path");
  if (glob == entry.end() || !glob->is_string() ||
      glob->get_ref<const std::string &>().empty())
    return fail("needs \"path\", a non-empty glob (\"*\" for every bundle)");
  result.path = glob->get<std::string>();
  if (llvm::Expected<llvm::GlobPattern> compiled = compileGlob(result.path);
      !compiled)
    return fail(
        "\"path\" " + jsonQuoted(result.path) +
        " is not a valid glob: " + llvm::toString(compiled.takeError()));
  auto rules = entry.find("rules");
  if (rules == entry.end())
    return result;
  if (!rules->is_array() || rules->empty())
    return fail("\"rules\" must be a non-empty array of rule IDs (leave it "
                "out to ignore every rule)");
  for (const Json &id : *rules) {
    const Rule *rule =
        id.is_string() ? findRule(id.get_ref<const std::string &>()) : nullptr;
    if (!rule)
      return fail("unknown rule " + id.dump() +
                  " in \"rules\" (see aimodel audit --list-rules)");
    if (!llvm::is_contained(result.rules, rule))
      result.rules.push_back(rule);
  }
  return result;
}

llvm::Error parseSeverities(const Json &severity, Config &config) {
  if (!severity.is_object())
    return fail("\"severity\" must be an object of rule ID to severity");
  for (const auto &item : severity.items()) {
    const Rule *rule = findRule(item.key());
    if (!rule)
      return fail("severity: unknown rule " + jsonQuoted(item.key()) +
                  " (see aimodel audit --list-rules)");
    std::optional<Severity> level;
    if (item.value().is_string())
      level = parseSeverity(item.value().get_ref<const std::string &>());
    if (!level)
      return fail("severity." + item.key() + ": unknown severity " +
                  item.value().dump() +
                  " (expected \"error\", \"warning\" or \"info\")");
    config.severity[rule->id.str()] = *level;
  }
  return llvm::Error::success();
}

/// `p` made absolute with `cwd`, with `.`, `..` and doubled slashes removed.
std::string absoluteLexical(llvm::StringRef p, llvm::StringRef cwd) {
  llvm::SmallString<256> result;
  if (path::is_absolute(p, path::Style::posix)) {
    result = p;
  } else {
    result = cwd;
    if (!path::is_absolute(result, path::Style::posix))
      llvm::sys::fs::make_absolute(result);
    path::append(result, path::Style::posix, p);
  }
  path::remove_dots(result, /*remove_dot_dot=*/true, path::Style::posix);
  return std::string(result);
}

/// lstat(2): true if `p` exists in any form (a dangling symlink too, so a
/// broken config link is an error rather than silently no config).
llvm::Expected<bool> exists(const std::string &p) {
  struct stat st;
  if (::lstat(p.c_str(), &st) == 0)
    return true;
  if (errno == ENOENT || errno == ENOTDIR)
    return false;
  int error = errno;
  return fail(support::printablePath(p) +
              ": cannot be checked: " + support::errnoReason(error));
}
} // namespace

llvm::Expected<Config> aimodel::audit::parseConfig(llvm::StringRef text,
                                                   llvm::StringRef file) {
  std::string name = support::printablePath(file);
  llvm::Expected<Json> doc = parseStrictJson(text);
  if (!doc)
    return fail(name + ": " + llvm::toString(doc.takeError()));
  if (!doc->is_object())
    return fail(llvm::formatv(
        "{0}: is a JSON {1}, not an object with \"ignore\" and \"severity\"",
        name, doc->type_name()));
  Config config;
  config.file = file.str();
  llvm::StringRef parent = path::parent_path(file, path::Style::posix);
  config.folder = parent.empty() ? "." : parent.str();
  for (const auto &item : doc->items()) {
    if (item.key() == "ignore") {
      if (!item.value().is_array())
        return fail(name + ": \"ignore\" must be an array of objects");
      for (size_t i = 0; i < item.value().size(); ++i) {
        llvm::Expected<IgnoreEntry> entry = parseIgnore(item.value()[i]);
        if (!entry)
          return fail(llvm::formatv("{0}: ignore[{1}]: {2}", name, i,
                                    llvm::toString(entry.takeError())));
        config.ignore.push_back(std::move(*entry));
      }
    } else if (item.key() == "severity") {
      if (llvm::Error error = parseSeverities(item.value(), config))
        return fail(name + ": " + llvm::toString(std::move(error)));
    } else {
      return fail(name + ": unknown key " + jsonQuoted(item.key()) +
                  " (expected \"ignore\" or \"severity\")");
    }
  }
  return config;
}

llvm::Expected<Config> aimodel::audit::loadConfig(llvm::StringRef file) {
  std::string name = support::printablePath(file);
  llvm::Expected<support::RegularFile> opened =
      support::openRegularFile(file, support::Symlinks::Follow);
  if (!opened)
    return fail(name + ": " + llvm::toString(opened.takeError()));
  if (opened->size > MaxConfigBytes)
    return fail(llvm::formatv("{0}: is {1} bytes, over the {2}-byte limit",
                              name, opened->size, MaxConfigBytes));
  llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>> buffer =
      support::mapRegularFile(std::move(*opened), file);
  if (!buffer)
    return fail(name + ": " + llvm::toString(buffer.takeError()));
  return parseConfig((*buffer)->getBuffer(), file);
}

llvm::Expected<std::optional<Config>>
aimodel::audit::findConfig(llvm::StringRef cwd) {
  std::string dir = absoluteLexical(".", cwd);
  while (true) {
    std::string candidate = bundle::joinPath(dir, ConfigFileName);
    llvm::Expected<bool> found = exists(candidate);
    if (!found)
      return found.takeError();
    if (*found) {
      llvm::Expected<Config> config = loadConfig(candidate);
      if (!config)
        return config.takeError();
      return std::optional<Config>(std::move(*config));
    }
    // A worktree or submodule has a .git file, not a folder: either ends it.
    llvm::Expected<bool> repoRoot = exists(bundle::joinPath(dir, ".git"));
    if (!repoRoot)
      return repoRoot.takeError();
    if (*repoRoot || dir == "/")
      return std::nullopt;
    llvm::StringRef parent = path::parent_path(dir, path::Style::posix);
    dir = parent.empty() ? "/" : parent.str();
  }
}

std::string aimodel::audit::configMatchPath(const Config &config,
                                            llvm::StringRef bundlePath,
                                            llvm::StringRef cwd) {
  std::string folder = absoluteLexical(config.folder, cwd);
  std::string bundle = absoluteLexical(bundlePath, cwd);
  if (bundle == folder)
    return ".";
  if (folder == "/")
    return bundle.substr(1);
  if (llvm::StringRef(bundle).starts_with(folder + "/"))
    return bundle.substr(folder.size() + 1);
  return bundlePath.str();
}

ConfigEffect aimodel::audit::applyConfig(const Config &config,
                                         AuditReport &report,
                                         llvm::StringRef cwd) {
  // GlobPattern refers to its pattern text; config.ignore outlives these.
  std::vector<std::optional<llvm::GlobPattern>> globs;
  for (const IgnoreEntry &entry : config.ignore) {
    llvm::Expected<llvm::GlobPattern> glob = compileGlob(entry.path);
    if (glob)
      globs.emplace_back(std::move(*glob));
    else {
      llvm::consumeError(glob.takeError()); // parseConfig refused it already
      globs.emplace_back();
    }
  }
  ConfigEffect effect;
  for (BundleReport &bundle : report.bundles) {
    std::string matched = configMatchPath(config, bundle.path, cwd);
    std::vector<const IgnoreEntry *> applicable;
    for (size_t i = 0; i < globs.size(); ++i)
      if (globs[i] && globs[i]->match(matched))
        applicable.push_back(&config.ignore[i]);
    auto ignored = [&](const Finding &finding) {
      return llvm::any_of(applicable, [&](const IgnoreEntry *entry) {
        return entry->rules.empty() ||
               llvm::is_contained(entry->rules, finding.rule);
      });
    };
    size_t before = bundle.findings.size();
    llvm::erase_if(bundle.findings, ignored);
    effect.suppressedByConfig += before - bundle.findings.size();
    for (Finding &finding : bundle.findings) {
      auto override = config.severity.find(finding.rule->id.str());
      if (override != config.severity.end())
        finding.severity = override->second;
    }
  }
  recountSeverities(report);
  return effect;
}
