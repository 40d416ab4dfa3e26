//===- Baseline.cpp - Accepting the findings of an earlier report ---------===//

#include "audit/Baseline.h"
#include "audit/ReportFiles.h"

#include "llvm/ADT/STLExtras.h"

using namespace aimodel;
using namespace aimodel::audit;

llvm::Expected<Baseline> aimodel::audit::loadBaseline(llvm::StringRef path) {
  llvm::Expected<nlohmann::ordered_json> doc = readReport(path);
  if (!doc)
    return doc.takeError();
  Baseline baseline;
  baseline.file = path.str();
  for (const nlohmann::ordered_json &bundle : doc->at("bundles")) {
    std::string bundlePath = exactPath(bundle, "path");
    for (const nlohmann::ordered_json &finding : bundle.at("findings"))
      baseline.findings.emplace(bundlePath,
                                finding.at("rule").get<std::string>(),
                                exactPath(finding, "file"));
  }
  return baseline;
}

unsigned aimodel::audit::applyBaseline(const Baseline &baseline,
                                       AuditReport &report) {
  unsigned suppressed = 0;
  for (BundleReport &bundle : report.bundles) {
    size_t before = bundle.findings.size();
    llvm::erase_if(bundle.findings, [&](const Finding &finding) {
      return baseline.findings.count(
          {bundle.path, finding.rule->id.str(), finding.file});
    });
    suppressed += before - bundle.findings.size();
  }
  recountSeverities(report);
  return suppressed;
}
