//===- ReportFiles.h - Reading JSON inputs of `aimodel audit` ---*- C++ -*-===//
//
// The audit reads JSON the user hands it: a config file, a baseline report,
// shard reports to merge. All of it is parsed as strictly as metadata.json
// (no trailing bytes, no key twice in one object, bounded nesting), so two
// tools can never read one file two ways. Earlier reports are checked
// against the "aimodel-audit/1" shape once, here, so their readers can rely
// on it.
//
//===----------------------------------------------------------------------===//
#ifndef AIMODEL_AUDIT_REPORTFILES_H
#define AIMODEL_AUDIT_REPORTFILES_H

#include "audit/Audit.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>

namespace aimodel::audit {

/// The schema tag of JSON reports.
inline constexpr llvm::StringLiteral ReportSchema = "aimodel-audit/1";

/// Parses `text` strictly, keeping key order. Errors are one line, without
/// a file name ("is not valid JSON at byte 12: ...", "has the key "a" more
/// than once in one object", "has trailing bytes ... at byte 40").
llvm::Expected<nlohmann::ordered_json> parseStrictJson(llvm::StringRef text);

/// Reads the file at `path` (a path the user named: symlinks followed; a
/// FIFO or device refused without blocking) and parses it strictly. Errors
/// name the file.
llvm::Expected<nlohmann::ordered_json> readJsonFile(llvm::StringRef path,
                                                    uint64_t maxBytes);

/// Reads a report written by `aimodel audit --format json` and checks its
/// shape: the schema tag, a "tool" object, "bundles" (objects with a string
/// "path" and an array of "findings", each with string "rule" and "file"),
/// "summary" (an object of counts), and well-formed "*_bytes" hex fields.
/// Errors name the file and the offending element ("bundles[2].path").
llvm::Expected<nlohmann::ordered_json> readReport(llvm::StringRef path);

/// The exact bytes of the path stored under `key` of an object readReport
/// accepted: `key`_bytes decoded when present (a name that is not UTF-8),
/// else the string itself.
std::string exactPath(const nlohmann::ordered_json &object,
                      const std::string &key);

/// Recounts AuditReport::countBySeverity from the findings, after findings
/// were dropped or their severity changed.
void recountSeverities(AuditReport &report);

/// Puts findings in report order: by rule ID, then file, then message.
void sortFindings(std::vector<Finding> &findings);

} // namespace aimodel::audit

#endif // AIMODEL_AUDIT_REPORTFILES_H
