//===- AuditBundles.cpp - Auditing many bundles in parallel ---------------===//

#include "audit/Audit.h"
#include "support/Parallel.h"

#include <atomic>

using namespace aimodel;
using namespace aimodel::audit;

AuditReport
aimodel::audit::auditBundles(const std::vector<bundle::FoundBundle> &found,
                             const AuditOptions &options) {
  AuditReport report;
  report.bundles.resize(found.size());
  // One run's bundles open their folders below the folders that hold them,
  // each opened once.
  AuditOptions withFolders = options;
  if (!withFolders.folders)
    withFolders.folders = std::make_shared<bundle::FolderCache>();
  // Workers take the next bundle; each result lands at its bundle's index,
  // so the report does not depend on the number of workers.
  std::atomic<size_t> done{0};
  support::forEachIndex(found.size(), options.jobs, [&](size_t i) {
    report.bundles[i] = auditBundle(found[i], withFolders);
    size_t finished = ++done;
    if (options.progress)
      options.progress(finished, found.size());
    return true;
  });
  for (const BundleReport &one : report.bundles)
    for (const Finding &f : one.findings)
      ++report.countBySeverity[static_cast<int>(f.severity)];
  return report;
}
