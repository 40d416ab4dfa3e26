#include "audit/Audit.h"

#include "asset/TestFiles.h"

#include "llvm/Support/SHA256.h"

#include <gtest/gtest.h>

using namespace aimodel;
using namespace aimodel::audit;

namespace {
std::string sha256(llvm::StringRef bytes) {
  auto d = llvm::SHA256::hash(llvm::ArrayRef<uint8_t>(
      reinterpret_cast<const uint8_t *>(bytes.data()), bytes.size()));
  return std::string(d.begin(), d.end());
}

std::vector<std::string> ruleIds(const BundleReport &r) {
  std::vector<std::string> ids;
  for (const Finding &f : r.findings)
    ids.push_back(f.rule->id.str());
  return ids;
}

BundleReport auditDir(const std::string &path, asset::BundleKind kind) {
  return auditBundle({path, kind});
}
} // namespace

TEST(Audit, CleanAssetHasNoFindingsAndReportsProducer) {
  aimodel::testing::ScratchDir dir;
  dir.write("m.aimodel/metadata.json",
            R"({"producer" : "coreai-core 1.0.0b2", "assetVersion" : "2.0"})");
  dir.write("m.aimodel/main.mlirb", "ML\xEFR-bytes");
  dir.write("m.aimodel/main.hash", sha256("ML\xEFR-bytes"));
  BundleReport r = auditDir(dir.path("m.aimodel"), asset::BundleKind::Asset);
  EXPECT_TRUE(r.findings.empty());
  EXPECT_EQ(r.producer, "coreai-core 1.0.0b2");
}

TEST(Audit, RestampedHashOfOtherBytesIsAMismatch) {
  aimodel::testing::ScratchDir dir;
  dir.write("m.aimodel/metadata.json", R"({"producer": "p", "assetVersion": "2.0"})");
  dir.write("m.aimodel/main.mlirb", "new bytes");
  dir.write("m.aimodel/main.hash", sha256("old bytes"));
  BundleReport r = auditDir(dir.path("m.aimodel"), asset::BundleKind::Asset);
  EXPECT_EQ(ruleIds(r), std::vector<std::string>{"AIM003"});
  EXPECT_EQ(r.findings[0].file, "main.hash");
}

TEST(Audit, MissingProducerOnlyForPortableAssets) {
  aimodel::testing::ScratchDir dir;
  for (const char *name : {"a.aimodel", "a.h18p.aimodelc"}) {
    std::string base = std::string(name) + "/";
    std::string ir = llvm::StringRef(name).ends_with("c") ? "main-h18p.mlirb"
                                                          : "main.mlirb";
    dir.write(base + "metadata.json", R"({"assetVersion": "2.0"})");
    dir.write(base + ir, "x");
    dir.write(base + "main.hash", sha256("x"));
  }
  EXPECT_EQ(ruleIds(auditDir(dir.path("a.aimodel"), asset::BundleKind::Asset)),
            std::vector<std::string>{"AIM001"});
  EXPECT_TRUE(auditDir(dir.path("a.h18p.aimodelc"),
                       asset::BundleKind::CompiledAsset)
                  .findings.empty());
}

TEST(Audit, SeverityCountsAndWorst) {
  aimodel::testing::ScratchDir dir;
  dir.mkdir("e.aimodel");
  AuditReport report =
      auditBundles({{dir.path("e.aimodel"), asset::BundleKind::Asset}});
  EXPECT_EQ(report.countBySeverity[static_cast<int>(Severity::Error)], 3u);
  EXPECT_EQ(report.worst(), Severity::Error);
  EXPECT_EQ(AuditReport().worst(), std::nullopt);
}

TEST(Audit, RuleIdsAreStableAndOrdered) {
  std::vector<std::string> ids;
  for (const Rule *rule : allRules())
    ids.push_back((rule->id + " " + rule->name).str());
  EXPECT_EQ(ids, (std::vector<std::string>{
                     "AIM001 missing-producer", "AIM003 hash-mismatch",
                     "AIM004 missing-file", "AIM005 unreadable-metadata",
                     "AIM009 unexpected-file", "AIM010 symlink",
                     "AIM011 unknown-asset-version"}));
}
