//===- JUnitReport.cpp - JUnit XML rendering of an audit ------------------===//
//
// There is no JUnit spec; this follows what GitLab and Jenkins read: one test
// case per bundle (GitLab keys cases by classname + name, so the bundle path
// is the name), errors as <failure>, the rest as <system-out>, and no
// timestamps so the output is deterministic.
//
//===----------------------------------------------------------------------===//

#include "audit/ReportFormats.h"

#include "support/MarkupText.h"
#include "support/PathText.h"

#include "llvm/Support/FormatVariadic.h"

using namespace aimodel;
using namespace aimodel::audit;

static const char kHexDigits[] = "0123456789abcdef";

/// Printable text (support/PathText.h: a path, or prose such as a message)
/// as XML 1.0 character data or attribute value. That form already turns
/// invalid UTF-8 and C0 and C1 controls into "\xNN"; what XML 1.0 still
/// forbids (U+FFFE, U+FFFF) is written the same way, so any name yields a
/// well-formed document; markup characters become character references.
static std::string xmlEscape(llvm::StringRef text) {
  std::string out;
  out.reserve(text.size());
  auto escapeBytes = [&](llvm::StringRef raw) {
    for (unsigned char b : raw) {
      out += "\\x";
      out.push_back(kHexDigits[b >> 4]);
      out.push_back(kHexDigits[b & 15]);
    }
  };
  llvm::StringRef rest(text);
  while (!rest.empty()) {
    unsigned char b = rest.front();
    if (rest.starts_with("\xEF\xBF\xBE") || rest.starts_with("\xEF\xBF\xBF")) {
      escapeBytes(rest.take_front(3));
      rest = rest.drop_front(3);
      continue;
    }
    out.push_back(static_cast<char>(b));
    rest = rest.drop_front();
  }
  // The markup characters as references (XML reads HTML's five alike).
  return support::htmlEscape(out);
}

static std::string xmlPath(llvm::StringRef bytes) {
  return xmlEscape(support::printablePath(bytes));
}

static std::string xmlProse(llvm::StringRef bytes) {
  return xmlEscape(support::printableText(bytes));
}

/// One finding as a line of the case's text, like the text report's line.
static std::string findingLine(const BundleReport &bundle, const Finding &f) {
  return xmlPath(bundle.pathOf(f)) + ": " + severityName(f.severity).str() +
         ": " + xmlProse(f.message) + " [" + f.rule->id.str() + " " +
         f.rule->name.str() + "]\n";
}

void aimodel::audit::writeJUnitReport(llvm::raw_ostream &os,
                                      const AuditReport &report) {
  size_t failing = 0;
  for (const BundleReport &bundle : report.bundles)
    for (const Finding &f : bundle.findings)
      if (f.severity == Severity::Error) {
        ++failing;
        break;
      }
  std::string counts =
      llvm::formatv("tests=\"{0}\" failures=\"{1}\" errors=\"0\"",
                    report.bundles.size(), failing);

  os << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  os << "<testsuites name=\"aimodel\" " << counts << ">\n";
  os << "  <testsuite name=\"aimodel audit\" " << counts << " skipped=\"0\">\n";
  for (const BundleReport &bundle : report.bundles) {
    os << "    <testcase classname=\"aimodel."
       << bundle::bundleKindName(bundle.kind) << "\" name=\""
       << xmlPath(bundle.path) << "\"";
    if (bundle.findings.empty()) {
      os << "/>\n";
      continue;
    }
    os << ">\n";
    std::string others;
    for (const Finding &f : bundle.findings) {
      if (f.severity != Severity::Error) {
        others += findingLine(bundle, f);
        continue;
      }
      std::string message = xmlProse(f.message);
      if (!f.file.empty())
        message = xmlPath(f.file) + ": " + message;
      os << "      <failure type=\"" << f.rule->id << "\" message=\"" << message
         << "\">" << findingLine(bundle, f) << "</failure>\n";
    }
    if (!others.empty())
      os << "      <system-out>" << others << "</system-out>\n";
    os << "    </testcase>\n";
  }
  os << "  </testsuite>\n</testsuites>\n";
}
