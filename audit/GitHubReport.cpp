//===- GitHubReport.cpp - GitHub Actions workflow commands ----------------===//
//
// The runner reads workflow commands line by line from stdout, so an
// unescaped newline in a name could start a command of the attacker's
// choosing (::add-mask::, ::stop-commands::). Escaping follows
// @actions/core's command.js: data escapes % CR LF; property values also
// escape ':' and ',' (which would end the property list or the property).
//
//===----------------------------------------------------------------------===//

#include "audit/ReportFormats.h"

#include "support/PathText.h"

#include "llvm/Support/FormatVariadic.h"

using namespace aimodel;
using namespace aimodel::audit;

static std::string escapeData(llvm::StringRef text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    if (c == '%')
      out += "%25";
    else if (c == '\r')
      out += "%0D";
    else if (c == '\n')
      out += "%0A";
    else
      out.push_back(c);
  }
  return out;
}

static std::string escapeProperty(llvm::StringRef text) {
  std::string out;
  for (char c : escapeData(text)) {
    if (c == ':')
      out += "%3A";
    else if (c == ',')
      out += "%2C";
    else
      out.push_back(c);
  }
  return out;
}

/// The runner unescapes CR and LF back, so a UTF-8 name with them still
/// names its file exactly; other control bytes (terminal escapes in the
/// log) and bytes that are not UTF-8 get the printable form instead.
/// A name with a backslash gets the printable form too (where it is
/// doubled), or a literal "\xff" would read as an escaped 0xFF byte.
static std::string pathText(llvm::StringRef bytes) {
  bool exact = support::isValidUtf8(bytes);
  for (unsigned char b : bytes)
    if ((b < 0x20 && b != '\t' && b != '\r' && b != '\n') || b == 0x7f ||
        b == '\\')
      exact = false;
  return exact ? bytes.str() : support::printablePath(bytes);
}

static llvm::StringRef commandOf(Severity severity) {
  switch (severity) {
  case Severity::Error:
    return "error";
  case Severity::Warning:
    return "warning";
  case Severity::Info:
    return "notice";
  }
  return "error";
}

void aimodel::audit::writeGitHubReport(llvm::raw_ostream &os,
                                       const AuditReport &report) {
  for (const BundleReport &bundle : report.bundles)
    for (const Finding &f : bundle.findings) {
      std::string title = (f.rule->id + " " + f.rule->name).str();
      os << "::" << commandOf(f.severity)
         << " file=" << escapeProperty(pathText(bundle.pathOf(f)))
         << ",title=" << escapeProperty(title)
         << "::" << escapeData(support::printableText(f.message)) << "\n";
    }
  // Plain text, not a command: the runner prints it as it is.
  const auto &n = report.countBySeverity;
  os << llvm::formatv("aimodel audit: {0} bundle(s), {1} error(s), {2} "
                      "warning(s), {3} info\n",
                      report.bundles.size(),
                      n[static_cast<int>(Severity::Error)],
                      n[static_cast<int>(Severity::Warning)],
                      n[static_cast<int>(Severity::Info)]);
}
