#include "audit/Audit.h"

#include "testing/TestFiles.h"

#include "llvm/Support/SHA256.h"

#include <gtest/gtest.h>

#include <unistd.h>

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

BundleReport auditDir(const std::string &path, bundle::BundleKind kind) {
  return auditBundle({path, kind});
}
} // namespace

TEST(Audit, CleanAssetHasNoFindingsAndReportsProducer) {
  aimodel::testing::ScratchDir dir;
  dir.write("m.aimodel/metadata.json",
            R"({"producer" : "coreai-core 1.0.0b2", "assetVersion" : "2.0"})");
  dir.write("m.aimodel/main.mlirb", "ML\xEFR-bytes");
  dir.write("m.aimodel/main.hash", sha256("ML\xEFR-bytes"));
  BundleReport r = auditDir(dir.path("m.aimodel"), bundle::BundleKind::Asset);
  EXPECT_TRUE(r.findings.empty());
  EXPECT_EQ(r.producer, "coreai-core 1.0.0b2");
}

TEST(Audit, RestampedHashOfOtherBytesIsAMismatch) {
  aimodel::testing::ScratchDir dir;
  dir.write("m.aimodel/metadata.json",
            R"({"producer": "p", "assetVersion": "2.0"})");
  dir.write("m.aimodel/main.mlirb", "new bytes");
  dir.write("m.aimodel/main.hash", sha256("old bytes"));
  BundleReport r = auditDir(dir.path("m.aimodel"), bundle::BundleKind::Asset);
  EXPECT_EQ(ruleIds(r), std::vector<std::string>{"AIM003"});
  EXPECT_EQ(r.findings[0].file, "main.hash");
}

TEST(Audit, MissingProducerOnlyForPortableAssets) {
  aimodel::testing::ScratchDir dir;
  for (const char *name : {"a.aimodel", "a.h18p.aimodelc"}) {
    std::string base = std::string(name) + "/";
    std::string ir =
        llvm::StringRef(name).ends_with("c") ? "main-h18p.mlirb" : "main.mlirb";
    dir.write(base + "metadata.json", R"({"assetVersion": "2.0"})");
    dir.write(base + ir, "x");
    dir.write(base + "main.hash", sha256("x"));
  }
  EXPECT_EQ(ruleIds(auditDir(dir.path("a.aimodel"), bundle::BundleKind::Asset)),
            std::vector<std::string>{"AIM001"});
  EXPECT_TRUE(
      auditDir(dir.path("a.h18p.aimodelc"), bundle::BundleKind::CompiledAsset)
          .findings.empty());
}

TEST(Audit, SeverityCountsAndWorst) {
  aimodel::testing::ScratchDir dir;
  dir.mkdir("e.aimodel");
  AuditReport report =
      auditBundles({{dir.path("e.aimodel"), bundle::BundleKind::Asset}});
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

namespace {
std::vector<std::string> messages(const BundleReport &r) {
  std::vector<std::string> out;
  for (const Finding &f : r.findings)
    out.push_back(f.rule->id.str() + " " + f.file + ": " + f.message);
  return out;
}
} // namespace

TEST(Audit, BundleFolderAssetPathsAreJudgedByComponent) {
  aimodel::testing::ScratchDir dir;
  dir.write("b/metadata.json", R"({"metadata_version": "0.2", "assets": {
      "dots": "model..v2.aimodel", "nested": "sub/n.aimodel",
      "up": "sub/../n.aimodel", "slash": "sub/", "link": "alias.aimodel",
      "through": "lnk/n.aimodel", "file": "f.aimodel"}})");
  dir.mkdir("b/model..v2.aimodel");
  dir.mkdir("b/sub/n.aimodel");
  dir.write("b/f.aimodel", "x");
  ASSERT_EQ(::symlink("sub/n.aimodel", dir.path("b/alias.aimodel").c_str()), 0);
  ASSERT_EQ(::symlink("sub", dir.path("b/lnk").c_str()), 0);
  // Inside an asset: that asset's audit reports it, not the folder's.
  ASSERT_EQ(::symlink("x", dir.path("b/sub/n.aimodel/inner").c_str()), 0);
  BundleReport r = auditDir(dir.path("b"), bundle::BundleKind::BundleDir);
  EXPECT_EQ(messages(r),
            (std::vector<std::string>{
                "AIM004 f.aimodel: asset 'file' at 'f.aimodel' is not a folder",
                "AIM004 metadata.json: asset 'slash' path 'sub/' does not "
                "name an entry in the bundle folder",
                "AIM004 metadata.json: asset 'up' path 'sub/../n.aimodel' "
                "leaves the bundle folder",
                "AIM010 lnk: symlink to 'sub'; not followed"}));
}

TEST(Audit, BundleFolderSymlinksAreReportedAtAnyDepthButOnlyOnce) {
  aimodel::testing::ScratchDir dir;
  dir.write("b/metadata.json", R"({"metadata_version": "0.2"})");
  dir.write("b/nested/metadata.json", R"({"metadata_version": "0.2"})");
  dir.mkdir("b/docs/deeper");
  ASSERT_EQ(::symlink("/etc", dir.path("b/docs/deeper/l").c_str()), 0);
  ASSERT_EQ(::symlink("/etc", dir.path("b/nested/l").c_str()), 0);
  BundleReport outer = auditDir(dir.path("b"), bundle::BundleKind::BundleDir);
  EXPECT_EQ(messages(outer),
            std::vector<std::string>{"AIM010 docs/deeper/l: symlink to '/etc'; "
                                     "not followed"});
  BundleReport inner =
      auditDir(dir.path("b/nested"), bundle::BundleKind::BundleDir);
  EXPECT_EQ(messages(inner), std::vector<std::string>{
                                 "AIM010 l: symlink to '/etc'; not followed"});
}

TEST(Audit, CompiledFormsSatisfyDeclaredAssetsFromOneListing) {
  aimodel::testing::ScratchDir dir;
  std::string assets;
  for (int i = 0; i < 200; ++i) {
    dir.mkdir("b/sub/m" + std::to_string(i) + ".h18p.aimodelc");
    assets += "\"a" + std::to_string(i) + "\": \"sub/m" + std::to_string(i) +
              ".aimodel\", ";
  }
  // A file or a prefix-only match does not count as the compiled form.
  dir.write("b/sub/f.h18p.aimodelc", "x");
  dir.mkdir("b/sub/mx.aimodelc.old");
  dir.write("b/metadata.json",
            R"({"metadata_version": "0.2", "assets": {)" + assets +
                R"("f": "sub/f.aimodel", "x": "sub/mx.aimodel"}})");
  BundleReport r = auditDir(dir.path("b"), bundle::BundleKind::BundleDir);
  EXPECT_EQ(messages(r),
            (std::vector<std::string>{
                "AIM004 sub/f.aimodel: asset 'f' not found at 'sub/f.aimodel'",
                "AIM004 sub/mx.aimodel: asset 'x' not found at "
                "'sub/mx.aimodel'"}));
}

TEST(Audit, CompiledAssetNamedDotTakesItsArchFromTheRealName) {
  aimodel::testing::ScratchDir dir;
  dir.write("m.h18p.aimodelc/metadata.json", R"({"assetVersion": "2.0"})");
  dir.write("m.h18p.aimodelc/main-h18p.mlirb", "x");
  dir.write("m.h18p.aimodelc/main-a17.mlirb", "y");
  dir.write("m.h18p.aimodelc/main.hash", sha256("x"));
  llvm::Expected<bundle::WalkResult> walked =
      bundle::findBundles({dir.path("m.h18p.aimodelc/.")});
  ASSERT_TRUE(bool(walked));
  ASSERT_EQ(walked->bundles.size(), 1u);
  EXPECT_EQ(messages(auditBundle(walked->bundles[0])),
            std::vector<std::string>{"AIM009 main-a17.mlirb: unexpected file "
                                     "'main-a17.mlirb' in a .aimodelc"});
}
