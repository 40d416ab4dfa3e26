//===- Config.h - The .aimodel.json audit config ----------------*- C++ -*-===//
//
// A project states once which findings it accepts, and why:
//
//   {"ignore": [{"path": "legacy/*", "rules": ["AIM001", "AIM012"],
//                "reason": "frozen 0.4.0 exports, replaced in Q3"}],
//    "severity": {"AIM009": "warning"},
//    "stale_compiler_floor": "coreai-build-3600.75.3"}
//
// "ignore" drops findings of bundles whose path matches `path`, a glob
// (llvm::GlobPattern: `*` matches any bytes, `/` included, so "legacy/*"
// covers everything below legacy/; `?`, `[a-z]`, `{a,b}` and `\` escapes
// work), for the listed `rules` (absent: every rule). The path matched is the
// bundle's, relative to the config file's folder; a bundle outside that
// folder is matched by its path as reported. Every entry needs a `reason`:
// an exception nobody can explain is not kept. "severity" overrides a rule's
// severity ("error", "warning" or "info"). "stale_compiler_floor" moves
// AIM013's floor (a "coreai-build-<version>" producer) when newer reports
// say where the fault lies.
//
// Anything unknown is an error, not a warning: a misspelt key or rule ID
// would otherwise silently ignore nothing or everything.
//
//===----------------------------------------------------------------------===//
#ifndef AIMODEL_AUDIT_CONFIG_H
#define AIMODEL_AUDIT_CONFIG_H

#include "audit/Audit.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace aimodel::audit {

/// The name findConfig looks for.
inline constexpr llvm::StringLiteral ConfigFileName = ".aimodel.json";

struct IgnoreEntry {
  std::string path;                ///< the glob, as written
  std::vector<const Rule *> rules; ///< empty: every rule
  std::string reason;
};

struct Config {
  std::string file;   ///< the config file, as found or named
  std::string folder; ///< its folder ("." for a bare file name)
  std::vector<IgnoreEntry> ignore;
  std::map<std::string, Severity> severity; ///< by rule ID
  /// AIM013's floor, when the config moves it.
  std::optional<std::string> compilerFloor;
  /// SHA-256 of the file's bytes, hex: what shards of one run must share.
  std::string digest;
};

/// Parses config text; `file` names it in errors. Errors are one line:
/// "FILE: ignore[2]: needs a non-empty \"reason\"".
llvm::Expected<Config> parseConfig(llvm::StringRef text, llvm::StringRef file);

/// Reads and parses the config at `path` (at most 1 MiB; a symlink followed
/// only with `followSymlink`, for a config the user named), refusing one
/// that someone else could have written: not owned by the user running the
/// audit or by root, writable by its group or by anyone, in a folder anyone
/// may write (not sticky), or in a group-writable one someone else owns. A
/// config decides what the audit reports.
llvm::Expected<Config> loadConfig(llvm::StringRef path,
                                  bool followSymlink = true);

/// The project's config, for an audit run in `cwd` (made absolute if it is
/// not): the nearest .aimodel.json from `cwd` up to the repository's root
/// (the first folder holding `.git`, a folder or a file), never above
/// `home` (the user's home directory; empty: none) and never onto another
/// file system; outside any repository, only `cwd`'s own. None found:
/// std::nullopt. A config found but unusable or untrusted, or a folder that
/// cannot be checked, is an error.
llvm::Expected<std::optional<Config>> findConfig(llvm::StringRef cwd,
                                                 llvm::StringRef home = {});

/// Ignore entries whose glob can never match a path as configMatchPath
/// forms it (absolute, "./", "//", ".."): one line each, naming the file
/// and entry.
std::vector<std::string> configWarnings(const Config &config);

/// The path `bundlePath` is matched by: made absolute with `cwd`, `.` and
/// `..` removed lexically, then relative to the config's folder ("." for the
/// folder itself); outside that folder, `bundlePath` unchanged.
std::string configMatchPath(const Config &config, llvm::StringRef bundlePath,
                            llvm::StringRef cwd);

struct ConfigEffect {
  unsigned suppressedByConfig = 0; ///< findings dropped by "ignore"
  /// Per ignore entry, the findings it matched (a finding two entries
  /// match counts for both).
  std::vector<unsigned> suppressedByEntry;
};

/// Drops ignored findings, applies severity overrides and recounts
/// AuditReport::countBySeverity. Findings keep their order (by rule ID,
/// file, message: neither step can change it). `cwd` must be the folder the
/// bundle paths are relative to.
ConfigEffect applyConfig(const Config &config, AuditReport &report,
                         llvm::StringRef cwd);

/// Sets the severity of every finding of a rule in `severity` (by rule ID)
/// and recounts: the config's "severity", and --severity RULE=LEVEL.
void applySeverities(const std::map<std::string, Severity> &severity,
                     AuditReport &report);

} // namespace aimodel::audit

#endif // AIMODEL_AUDIT_CONFIG_H
