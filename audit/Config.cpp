//===- Config.cpp - The .aimodel.json audit config ------------------------===//

#include "audit/Config.h"
#include "audit/GitTracked.h"
#include "audit/Provenance.h"
#include "audit/ReportFiles.h"

#include "support/FileSystem.h"
#include "support/PathText.h"
#include "support/SafeFile.h"

#include "bundle/FileReading.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/ConvertUTF.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/GlobPattern.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Regex.h"
#include "llvm/Support/SHA256.h"

#include <cerrno>
#include <cstdio>
#include <grp.h>
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

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

/// Characters that show nothing, so a reason of only these looks given when
/// it is not: Unicode's white space, its default-ignorable code points
/// (format controls, variation selectors, fillers, tags) and the blanks
/// that render as empty cells (braille blank, Hangul fillers).
bool isBlankCodePoint(uint32_t c) {
  static const std::pair<uint32_t, uint32_t> kBlank[] = {
      {0x09, 0x0D},       {0x20, 0x20},       {0x85, 0x85},
      {0xA0, 0xA0},       {0xAD, 0xAD},       {0x34F, 0x34F},
      {0x61C, 0x61C},     {0x115F, 0x1160},   {0x1680, 0x1680},
      {0x17B4, 0x17B5},   {0x180B, 0x180F},   {0x2000, 0x200F},
      {0x2028, 0x202F},   {0x205F, 0x206F},   {0x2800, 0x2800},
      {0x3000, 0x3000},   {0x3164, 0x3164},   {0xFE00, 0xFE0F},
      {0xFEFF, 0xFEFF},   {0xFFA0, 0xFFA0},   {0xFFF0, 0xFFF8},
      {0x1BCA0, 0x1BCA3}, {0x1D173, 0x1D17A}, {0xE0000, 0xE0FFF}};
  for (auto [low, high] : kBlank)
    if (c >= low && c <= high)
      return true;
  return false;
}
bool isBlankText(llvm::StringRef text) {
  const auto *p = reinterpret_cast<const llvm::UTF8 *>(text.begin());
  const auto *end = reinterpret_cast<const llvm::UTF8 *>(text.end());
  while (p < end) {
    llvm::UTF32 c = 0;
    if (llvm::convertUTF8Sequence(&p, end, &c, llvm::strictConversion) !=
        llvm::conversionOK)
      return false; // bytes that are not text are something, not blank
    if (!isBlankCodePoint(c))
      return false;
  }
  return true;
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
      isBlankText(reason->get_ref<const std::string &>()))
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
    } else if (item.key() == "stale_compiler_floor") {
      // A floor is a version and nothing else ("coreai-build-3600.75.3").
      if (!item.value().is_string() ||
          !llvm::Regex("^coreai-build-[0-9]+(\\.[0-9]+)*$")
               .match(item.value().get<std::string>()))
        return fail(name +
                    ": \"stale_compiler_floor\" must be a producer "
                    "string such as \"" +
                    kDefaultCompilerFloor.str() + "\"");
      config.compilerFloor = item.value().get<std::string>();
    } else {
      return fail(name + ": unknown key " + jsonQuoted(item.key()) +
                  " (expected \"ignore\", \"severity\" or "
                  "\"stale_compiler_floor\")");
    }
  }
  return config;
}

namespace {
/// The device of the folder `dir`, or nullopt when it cannot be checked.
std::optional<uint64_t> deviceOf(const std::string &dir) {
  struct stat st;
  if (::stat(dir.c_str(), &st) != 0)
    return std::nullopt;
  return uint64_t(st.st_dev);
}

/// "0664": a file mode as chmod writes it.
std::string octalMode(mode_t mode) {
  char text[8];
  std::snprintf(text, sizeof text, "%04o", unsigned(mode & 07777));
  return text;
}

llvm::Error checkFolderTrusted(const std::string &folder,
                               const std::string &name);

/// Whether group `gid` is user `owner`'s alone: no member listed but the
/// owner, and no other account's primary group (a user private group, as
/// Debian, Ubuntu and Fedora make for every account).
bool isPrivateGroup(gid_t gid, uid_t owner) {
  const struct passwd *account = ::getpwuid(owner);
  if (!account)
    return false;
  std::string ownerName = account->pw_name ? account->pw_name : "";
  const struct group *group = ::getgrgid(gid);
  if (!group)
    return false;
  for (char **member = group->gr_mem; member && *member; ++member)
    if (ownerName != *member)
      return false;
  bool alone = true;
  ::setpwent();
  while (const struct passwd *other = ::getpwent())
    if (other->pw_gid == gid && other->pw_uid != owner)
      alone = false;
  ::endpwent();
  return alone;
}

/// A config writable by a group with other members, trusted only if git
/// has committed the bytes read: where it is, and the refusal otherwise.
struct CommittedCheck {
  std::string folder, name; ///< the real file's folder and name
  std::string refusal;      ///< empty: no check needed
};

/// Refuses a config someone other than its reader (or root) could have
/// written: it decides what the audit reports. One its group may write is
/// left to `check` (a clone under umask 002 of a repository committing it).
llvm::Error checkTrusted(int fd, const std::string &file,
                         CommittedCheck &check) {
  std::string name = support::printablePath(file);
  struct stat st;
  if (::fstat(fd, &st) != 0)
    return fail(name + ": cannot be checked: " + support::errnoReason(errno));
  uid_t me = ::geteuid();
  if (st.st_uid != me && st.st_uid != 0)
    return fail(llvm::formatv("{0}: refused: owned by uid {1}, neither you "
                              "(uid {2}) nor root, and a config decides what "
                              "the audit reports (--no-config audits "
                              "without it)",
                              name, st.st_uid, me));
  if (st.st_mode & S_IWOTH)
    return fail(llvm::formatv(
        "{0}: refused: writable by anyone (mode {1}), and a config decides "
        "what the audit reports (chmod o-w {0}, or --no-config)",
        name, octalMode(st.st_mode)));
  // Who may replace it: anyone who may write the folder that holds it
  // (the file's real folder where the system can say: a named config may
  // be a symlink), unless the folder is sticky.
  std::string real = support::pathOfOpenFile(fd);
  if (real.empty())
    real = file;
  std::string folder = path::parent_path(real, path::Style::posix).str();
  if (folder.empty())
    folder = ".";
  // Group-writable is what a clone under umask 002 makes: harmless when the
  // group is its owner's own private group, or when the bytes are the ones
  // the repository committed.
  if ((st.st_mode & S_IWGRP) && !isPrivateGroup(st.st_gid, st.st_uid)) {
    check.folder = folder;
    check.name = path::filename(real, path::Style::posix).str();
    check.refusal = llvm::formatv(
        "{0}: refused: writable by its group, which has other members (mode "
        "{1}), and not as committed in git; a config decides what the audit "
        "reports (chmod g-w {0}, or --no-config)",
        name, octalMode(st.st_mode));
  }
  return checkFolderTrusted(folder, name);
}

/// Refuses a config in `folder` (`name` is the config, printable) when
/// someone other than its reader or root could rename files there: the
/// folder's owner always can, whatever its mode; anyone, or its group, when
/// it is writable so and not sticky.
llvm::Error checkFolderTrusted(const std::string &folder,
                               const std::string &name) {
  uid_t me = ::geteuid();
  struct stat dir;
  if (::stat(folder.c_str(), &dir) != 0)
    return fail(name + ": cannot check its folder " +
                support::printablePath(folder) + ": " +
                support::errnoReason(errno));
  if (dir.st_uid != me && dir.st_uid != 0)
    return fail(llvm::formatv("{0}: refused: the folder {1} is owned by uid "
                              "{2}, neither you (uid {3}) nor root, who may "
                              "rename another file in (--no-config audits "
                              "without it)",
                              name, support::printablePath(folder), dir.st_uid,
                              me));
  bool sticky = dir.st_mode & S_ISVTX;
  if ((dir.st_mode & S_IWOTH) && !sticky)
    return fail(llvm::formatv("{0}: refused: its folder {1} is writable by "
                              "anyone (mode {2}), so anyone could have put "
                              "it there (--no-config audits without it)",
                              name, support::printablePath(folder),
                              octalMode(dir.st_mode)));
  // A folder its group may write, owned by its reader or root, is a clone
  // made under umask 002: the group is the reader's own.
  return llvm::Error::success();
}
} // namespace

llvm::Expected<Config> aimodel::audit::loadConfig(llvm::StringRef file,
                                                  bool followSymlink) {
  std::string name = support::printablePath(file);
  llvm::Expected<support::RegularFile> opened =
      support::openRegularFile(file, followSymlink ? support::Symlinks::Follow
                                                   : support::Symlinks::Refuse);
  if (!opened)
    return fail(name + ": " + llvm::toString(opened.takeError()));
  CommittedCheck committed;
  if (llvm::Error error = checkTrusted(opened->fd.get(), file.str(), committed))
    return error;
  if (opened->size() > MaxConfigBytes)
    return fail(llvm::formatv("{0}: is {1} bytes, over the {2}-byte limit",
                              name, opened->size(), MaxConfigBytes));
  llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>> buffer =
      support::mapRegularFile(std::move(*opened), file);
  if (!buffer)
    return fail(name + ": " + llvm::toString(buffer.takeError()));
  if (!committed.refusal.empty() &&
      !isCommittedContent(committed.folder, committed.name,
                          (*buffer)->getBuffer()))
    return fail(committed.refusal);
  llvm::Expected<Config> config = parseConfig((*buffer)->getBuffer(), file);
  if (config)
    config->digest = bundle::toHex(llvm::SHA256::hash(
        llvm::arrayRefFromStringRef((*buffer)->getBuffer())));
  return config;
}

llvm::Expected<std::optional<Config>>
aimodel::audit::findConfig(llvm::StringRef cwd, llvm::StringRef home) {
  // The folders from the working directory up to the repository's root
  // (the first holding .git), never above a home directory, never onto
  // another file system; without a repository only the working directory.
  std::string start = absoluteLexical(".", cwd);
  // The home folder by identity, not by spelling (a symlinked HOME or
  // working directory must not move the limit); without HOME, the
  // account's.
  std::string homePath = home.str();
  if (homePath.empty())
    if (const struct passwd *account = ::getpwuid(::geteuid()))
      homePath = account->pw_dir ? account->pw_dir : "";
  struct stat homeStat;
  bool haveHome = !homePath.empty() && ::stat(homePath.c_str(), &homeStat) == 0;
  auto isHome = [&](const std::string &dir) {
    struct stat st;
    return haveHome && ::stat(dir.c_str(), &st) == 0 &&
           st.st_dev == homeStat.st_dev && st.st_ino == homeStat.st_ino;
  };
  std::optional<uint64_t> device = deviceOf(start);
  std::vector<std::string> folders;
  bool inRepository = false;
  for (std::string dir = start;;) {
    folders.push_back(dir);
    // A worktree or submodule has a .git file, not a folder: either ends it.
    llvm::Expected<bool> repoRoot = exists(bundle::joinPath(dir, ".git"));
    if (!repoRoot)
      return repoRoot.takeError();
    if (*repoRoot) {
      inRepository = true;
      break;
    }
    if (dir == "/" || isHome(dir))
      break;
    llvm::StringRef parent = path::parent_path(dir, path::Style::posix);
    std::string up = parent.empty() ? "/" : parent.str();
    if (!device || deviceOf(up) != device)
      break;
    dir = up;
  }
  if (!inRepository)
    folders.resize(1);
  for (const std::string &dir : folders) {
    std::string candidate = bundle::joinPath(dir, ConfigFileName);
    llvm::Expected<bool> found = exists(candidate);
    if (!found)
      return found.takeError();
    if (!*found)
      continue;
    // Found, not named: a symlink is not followed (it could lead anywhere).
    llvm::Expected<Config> config =
        loadConfig(candidate, /*followSymlink=*/false);
    if (!config)
      return config.takeError();
    // Whoever may rename a folder above it up to the repository's root may
    // swap the folder holding it.
    for (size_t k = size_t(&dir - folders.data()) + 1; k < folders.size(); ++k)
      if (llvm::Error error =
              checkFolderTrusted(folders[k], support::printablePath(candidate)))
        return error;
    return std::optional<Config>(std::move(*config));
  }
  return std::nullopt;
}

std::vector<std::string> aimodel::audit::configWarnings(const Config &config) {
  std::vector<std::string> warnings;
  std::string name = support::printablePath(config.file);
  for (size_t i = 0; i < config.ignore.size(); ++i) {
    llvm::StringRef glob = config.ignore[i].path;
    const char *why = nullptr;
    if (glob.starts_with("/"))
      why = "is absolute, but bundles below the config's folder are matched "
            "by their path relative to it";
    else if (glob == "." || glob.starts_with("./") || glob.contains("/./") ||
             glob.ends_with("/.") || glob.contains("//"))
      why = "has a \"./\" or \"//\" part, which no matched path has (they "
            "are normalised: \"legacy/*\", not \"./legacy/*\")";
    else if (glob.starts_with("../") || glob.contains("/../"))
      why = "has a \"..\" part: bundles outside the config's folder are "
            "matched by their path as reported";
    if (why)
      warnings.push_back(llvm::formatv("{0}: ignore[{1}]: \"path\" {2} {3}",
                                       name, i, jsonQuoted(glob), why));
  }
  return warnings;
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
  effect.suppressedByEntry.assign(config.ignore.size(), 0);
  for (BundleReport &bundle : report.bundles) {
    std::string matched = configMatchPath(config, bundle.path, cwd);
    std::vector<const IgnoreEntry *> applicable;
    for (size_t i = 0; i < globs.size(); ++i)
      if (globs[i] && globs[i]->match(matched))
        applicable.push_back(&config.ignore[i]);
    auto ignored = [&](const Finding &finding) {
      bool dropped = false;
      for (const IgnoreEntry *entry : applicable)
        if (entry->rules.empty() ||
            llvm::is_contained(entry->rules, finding.rule)) {
          ++effect.suppressedByEntry[entry - config.ignore.data()];
          dropped = true;
        }
      return dropped;
    };
    size_t before = bundle.findings.size();
    llvm::erase_if(bundle.findings, ignored);
    effect.suppressedByConfig += before - bundle.findings.size();
  }
  applySeverities(config.severity, report);
  return effect;
}

void aimodel::audit::applySeverities(
    const std::map<std::string, Severity> &severity, AuditReport &report) {
  for (BundleReport &bundle : report.bundles)
    for (Finding &finding : bundle.findings) {
      auto override = severity.find(finding.rule->id.str());
      if (override != severity.end())
        finding.severity = override->second;
    }
  recountSeverities(report);
}
