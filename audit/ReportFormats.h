//===- ReportFormats.h - CI renderings of an audit --------------*- C++ -*-===//
//
// Reports for CI systems: SARIF 2.1.0 (GitHub code scanning), JUnit XML
// (GitLab, Jenkins) and GitHub Actions workflow commands. Like the text and
// JSON reports they are pure functions of the AuditReport, so the same report
// gives the same bytes. Paths and messages are untrusted bytes: every writer
// escapes them so they cannot break the format or forge another entry.
//
//===----------------------------------------------------------------------===//
#ifndef AIMODEL_AUDIT_REPORTFORMATS_H
#define AIMODEL_AUDIT_REPORTFORMATS_H

#include "audit/Audit.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/raw_ostream.h"

namespace aimodel::audit {

/// SARIF 2.1.0, one run. Each result's location is the file concerned (the
/// bundle path joined with the finding's file, or the bundle itself), made
/// relative to `sarifRoot` (a directory; uriBaseId "%SRCROOT%") when it lies
/// inside it, else an absolute file: URI. Relative paths, in the report and
/// in `sarifRoot`, are taken against the process's current directory.
void writeSarifReport(llvm::raw_ostream &os, const AuditReport &report,
                      llvm::StringRef toolVersion, llvm::StringRef sarifRoot);

/// JUnit XML: one test case per bundle; each error is a <failure>, warnings
/// and info go to the case's <system-out>.
void writeJUnitReport(llvm::raw_ostream &os, const AuditReport &report);

/// GitHub Actions workflow commands (::error / ::warning / ::notice), one
/// line per finding, then a plain summary line.
void writeGitHubReport(llvm::raw_ostream &os, const AuditReport &report);

/// For people: what the gate decides (`failOn`: the severity that fails
/// it; std::nullopt for --fail-on never) and why.
struct PeopleReportOptions {
  std::optional<Severity> failOn = Severity::Error;
  /// Markdown lists at most this many findings.
  unsigned maxFindings = 50;
};

/// Markdown for a GitHub job summary or a pull-request comment: the verdict
/// first, a table of counts per rule, then the first findings with their
/// fix. Every string from the files is escaped: it renders as text.
void writeMarkdownReport(llvm::raw_ostream &os, const AuditReport &report,
                         const PeopleReportOptions &options);

/// One self-contained HTML page (inline CSS, no script, no URL) for a
/// migration audit of a big tree: the verdict and totals, a bar per rule,
/// a table per folder (bundles, errors, warnings, legacy assets), every
/// finding with its fix, and the `aimodel strip` commands that repair what
/// a strip can repair.
void writeHtmlReport(llvm::raw_ostream &os, const AuditReport &report,
                     const PeopleReportOptions &options);

/// RFC 3986 percent-encoding of raw bytes: everything but the unreserved
/// characters (A-Z a-z 0-9 - . _ ~) and '/' becomes %XX.
std::string percentEncodePath(llvm::StringRef bytes);

} // namespace aimodel::audit

#endif // AIMODEL_AUDIT_REPORTFORMATS_H
