//===- Report.cpp - Text and JSON renderings of an audit ------------------===//

#include "audit/Audit.h"

#include "support/PathText.h"

#include "llvm/Support/FormatVariadic.h"

using namespace aimodel;
using namespace aimodel::audit;

std::optional<Severity> AuditReport::worst() const {
  for (int s = static_cast<int>(Severity::Error); s >= 0; --s)
    if (countBySeverity[s] > 0)
      return static_cast<Severity>(s);
  return std::nullopt;
}

AuditReport
aimodel::audit::auditBundles(const std::vector<bundle::FoundBundle> &found) {
  AuditReport report;
  for (const bundle::FoundBundle &bundle : found) {
    BundleReport one = auditBundle(bundle);
    for (const Finding &f : one.findings)
      ++report.countBySeverity[static_cast<int>(f.severity)];
    report.bundles.push_back(std::move(one));
  }
  return report;
}

static llvm::StringRef colourOf(Severity severity) {
  switch (severity) {
  case Severity::Error:
    return "\033[1;31m";
  case Severity::Warning:
    return "\033[1;35m";
  case Severity::Info:
    return "\033[1;36m";
  }
  return "";
}

static std::string plural(unsigned n, llvm::StringRef word) {
  return llvm::formatv("{0} {1}{2}", n, word, n == 1 ? "" : "s");
}

void aimodel::audit::writeTextReport(llvm::raw_ostream &os,
                                     const AuditReport &report, bool colour) {
  for (const BundleReport &bundle : report.bundles) {
    std::string path = support::printablePath(bundle.path);
    for (const Finding &f : bundle.findings) {
      os << path;
      if (!f.file.empty())
        os << "/" << support::printablePath(f.file);
      os << ": ";
      if (colour)
        os << colourOf(f.severity);
      os << severityName(f.severity);
      if (colour)
        os << "\033[0m";
      // Messages may quote bytes from the bundle (symlink targets, names).
      os << ": " << support::printablePath(f.message) << " [" << f.rule->id
         << " " << f.rule->name << "]\n";
    }
  }
  const auto &n = report.countBySeverity;
  os << llvm::formatv(
      "{0} audited: {1}, {2}, {3}\n", plural(report.bundles.size(), "bundle"),
      plural(n[static_cast<int>(Severity::Error)], "error"),
      plural(n[static_cast<int>(Severity::Warning)], "warning"),
      llvm::formatv("{0} info", n[static_cast<int>(Severity::Info)]).str());
}

nlohmann::ordered_json aimodel::audit::toJson(const AuditReport &report,
                                              llvm::StringRef toolVersion) {
  nlohmann::ordered_json bundles = nlohmann::ordered_json::array();
  for (const BundleReport &bundle : report.bundles) {
    nlohmann::ordered_json findings = nlohmann::ordered_json::array();
    for (const Finding &f : bundle.findings)
      findings.push_back({{"rule", f.rule->id.str()},
                          {"severity", severityName(f.severity).str()},
                          {"message", support::printablePath(f.message)},
                          {"file", support::printablePath(f.file)}});
    bundles.push_back(
        {{"path", support::printablePath(bundle.path)},
         {"kind", bundle::bundleKindName(bundle.kind).str()},
         {"producer",
          bundle.producer
              ? nlohmann::ordered_json(support::printablePath(*bundle.producer))
              : nlohmann::ordered_json(nullptr)},
         {"findings", std::move(findings)}});
  }
  const auto &n = report.countBySeverity;
  return {{"schema", "aimodel-audit/1"},
          {"tool", {{"name", "aimodel"}, {"version", toolVersion.str()}}},
          {"bundles", std::move(bundles)},
          {"summary",
           {{"bundles", report.bundles.size()},
            {"error", n[static_cast<int>(Severity::Error)]},
            {"warning", n[static_cast<int>(Severity::Warning)]},
            {"info", n[static_cast<int>(Severity::Info)]}}}};
}
