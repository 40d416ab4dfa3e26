#include "audit/Audit.h"
#include "audit/Fixes.h"

#include "bundle/FileTestSupport.h"
#include "testing/MinimalBytecode.h"
#include "testing/TestFiles.h"

#include "llvm/Support/SHA256.h"

#include <gtest/gtest.h>

#include <climits>
#include <fcntl.h>
#include <sys/stat.h>
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

/// Valid IR on which no IR rule fires.
const std::string kIR = aimodel::testing::minimalBytecode().str();
/// What every compiled asset written here gets: AIM008 names its compiler.
const std::string kCompiledByP =
    "AIM008 : compiled by p, from source of unknown hash (no sourceHash)";
/// And AIM030, how an h18p bundle loads.
const std::string kLoadsH18p =
    "AIM030 : compiled for 'h18p' (a device identifier's major version: "
    "iPhone18,x is h18p, Mac16,x h16c; coreai-build accepts any name); load "
    "it with SpecializationOptions.default() or .cpuOnly(): asking for a "
    "compute unit re-specializes it on the device (doctor AOTC-ARCH-NAME, "
    "AOTC-LOAD-OPTIONS; 3P, not verified here)";
/// And AIM031 when its delegates hold no ANE region.
std::string noANERegion(const std::string &found) {
  return "AIM031 main-h18p-delegates: no ANE region: " + found +
         "; it runs on the GPU or CPU only; coreai-build writes such a bundle "
         "and exits 0 when its ANE compile fails (apple/coreai-models#205; "
         "3P, not verified here)";
}
const std::string kOnlyMPSGraph = noANERegion(
    "no ANE_region file below main-h18p-delegates (delegates: MPSGraph)");

BundleReport auditDir(const std::string &path, bundle::BundleKind kind) {
  return auditBundle({path, kind});
}
} // namespace

TEST(Audit, CleanAssetHasNoFindingsAndReportsProducer) {
  aimodel::testing::ScratchDir dir;
  dir.write("m.aimodel/metadata.json",
            R"({"producer" : "coreai-core 1.0.0b2", "assetVersion" : "2.0"})");
  dir.write("m.aimodel/main.mlirb", kIR);
  dir.write("m.aimodel/main.hash", sha256(kIR));
  BundleReport r = auditDir(dir.path("m.aimodel"), bundle::BundleKind::Asset);
  EXPECT_TRUE(r.findings.empty());
  EXPECT_EQ(r.producer, "coreai-core 1.0.0b2");
}

TEST(Audit, RestampedHashOfOtherBytesIsAMismatch) {
  aimodel::testing::ScratchDir dir;
  dir.write("m.aimodel/metadata.json",
            R"({"producer": "p", "assetVersion": "2.0"})");
  dir.write("m.aimodel/main.mlirb", kIR);
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
    dir.write(base + ir, kIR);
    dir.write(base + "main.hash", sha256(kIR));
  }
  EXPECT_EQ(ruleIds(auditDir(dir.path("a.aimodel"), bundle::BundleKind::Asset)),
            std::vector<std::string>{"AIM001"});
  EXPECT_EQ(ruleIds(auditDir(dir.path("a.h18p.aimodelc"),
                             bundle::BundleKind::CompiledAsset)),
            (std::vector<std::string>{"AIM008", "AIM030", "AIM031"}));
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
  EXPECT_EQ(ids,
            (std::vector<std::string>{"AIM001 missing-producer",
                                      "AIM002 legacy-debug-location",
                                      "AIM003 hash-mismatch",
                                      "AIM004 missing-file",
                                      "AIM005 unreadable-metadata",
                                      "AIM006 unreadable-ir",
                                      "AIM007 debug-payload",
                                      "AIM008 compiled-bundle",
                                      "AIM009 unexpected-file",
                                      "AIM010 symlink",
                                      "AIM011 unknown-asset-version",
                                      "AIM012 unverified-location",
                                      "AIM013 stale-compiler",
                                      "AIM014 compiled-without-source",
                                      "AIM015 graph-trap",
                                      "AIM016 strip-record-mismatch",
                                      "AIM017 state-count",
                                      "AIM018 single-token-graph",
                                      "AIM019 vocab-size-mismatch",
                                      "AIM020 tokenizer-overflow",
                                      "AIM021 dynamic-kv-long-context",
                                      "AIM022 incomplete-language-bundle",
                                      "AIM023 chat-template-missing",
                                      "AIM024 chat-template-absent",
                                      "AIM025 eos-not-in-template",
                                      "AIM026 tokenizer-class-unregistered",
                                      "AIM027 large-portable-graph",
                                      "AIM028 memory-entitlement",
                                      "AIM029 symlinked-asset-path",
                                      "AIM030 compiled-load-contract",
                                      "AIM031 no-ane-region",
                                      "AIM032 ane-requested-not-compiled"}));
  for (const Rule *rule : allRules()) {
    EXPECT_EQ(findRule(rule->id), rule);
    EXPECT_FALSE(rule->help.empty()) << rule->id.str();
    EXPECT_FALSE(rule->source.empty()) << rule->id.str();
  }
  EXPECT_EQ(findRule("AIM999"), nullptr);
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
  dir.write("b/metadata.json", R"({"metadata_version": "0.2", "assets": {}})");
  dir.write("b/nested/metadata.json",
            R"({"metadata_version": "0.2", "assets": {}})");
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
  dir.write("m.h18p.aimodelc/main-h18p.mlirb", kIR);
  dir.write("m.h18p.aimodelc/main-a17.mlirb", "y");
  dir.write("m.h18p.aimodelc/main.hash", sha256(kIR));
  llvm::Expected<bundle::WalkResult> walked =
      bundle::findBundles({dir.path("m.h18p.aimodelc/.")});
  ASSERT_TRUE(bool(walked));
  ASSERT_EQ(walked->bundles.size(), 1u);
  EXPECT_EQ(
      messages(auditBundle(walked->bundles[0])),
      (std::vector<std::string>{
          "AIM008 : compiled by an unnamed compiler (no producer), from "
          "source of unknown hash (no sourceHash)",
          "AIM009 main-a17.mlirb: unexpected file "
          "'main-a17.mlirb' in a .aimodelc",
          kLoadsH18p, noANERegion("no main-h18p-delegates folder at all")}));
}

namespace {
/// A clean compiled asset at `base` (relative to `dir`).
void writeCompiled(const aimodel::testing::ScratchDir &dir,
                   const std::string &base) {
  dir.write(base + "/metadata.json",
            R"({"producer": "p", "assetVersion": "2.0"})");
  dir.write(base + "/main-h18p.mlirb", kIR);
  dir.write(base + "/main.hash", sha256(kIR));
  dir.write(base + "/main-h18p-delegates/MPSGraph/g.mpsgraph", kIR);
}
} // namespace

TEST(Audit, WhatCannotBeReadInsideAnAssetIsAFinding) {
  aimodel::testing::ScratchDir dir;
  writeCompiled(dir, "m.h18p.aimodelc");
  dir.write("m.h18p.aimodelc/stats.json", "{}");
  aimodel::testing::shareWithNobody(dir.root);
  ASSERT_EQ(::chmod(dir.path("m.h18p.aimodelc/main-h18p-delegates").c_str(), 0),
            0);
  ASSERT_EQ(::chmod(dir.path("m.h18p.aimodelc/stats.json").c_str(), 0), 0);
  ASSERT_EQ(::chmod(dir.path("m.h18p.aimodelc/main.hash").c_str(), 0), 0);
  std::string got = aimodel::testing::runAsNobody([&] {
    std::string out;
    for (const std::string &line : messages(auditDir(
             dir.path("m.h18p.aimodelc"), bundle::BundleKind::CompiledAsset)))
      out += line + "\n";
    return out;
  });
  EXPECT_EQ(got, "AIM003 main.hash: main.hash cannot be read: permission "
                 "denied\n"
                 "AIM004 main-h18p-delegates: main-h18p-delegates cannot be "
                 "read: permission denied\n"
                 "AIM004 stats.json: stats.json cannot be read: permission "
                 "denied\n" +
                     kCompiledByP + "\n" + kLoadsH18p + "\n");
}

TEST(Audit, RepeatedAssetEntriesAreCheckedAndReportedOnce) {
  aimodel::testing::ScratchDir dir;
  dir.write("b/metadata.json", R"({"metadata_version": "0.2", "assets": {
      "a": "gone.aimodel", "b": "./gone.aimodel", "c": "gone.aimodel",
      "d": "sub//x.aimodel", "e": "sub/x.aimodel"}})");
  dir.mkdir("b/sub");
  BundleReport r = auditDir(dir.path("b"), bundle::BundleKind::BundleDir);
  EXPECT_EQ(messages(r),
            (std::vector<std::string>{
                "AIM004 gone.aimodel: asset 'a' not found at 'gone.aimodel' "
                "(and 2 more entries naming it)",
                "AIM004 sub//x.aimodel: asset 'd' not found at "
                "'sub//x.aimodel' (and 1 more entry naming it)"}));
}

TEST(Audit, UnreadableFoldersOnAnAssetPathAreSaidSo) {
  aimodel::testing::ScratchDir dir;
  dir.write("b/metadata.json", R"({"metadata_version": "0.2", "assets": {
      "a": "locked/x.aimodel"}})");
  dir.mkdir("b/locked/x.aimodel");
  aimodel::testing::shareWithNobody(dir.root);
  ASSERT_EQ(::chmod(dir.path("b/locked").c_str(), 0), 0);
  std::string got = aimodel::testing::runAsNobody([&] {
    std::string out;
    for (const std::string &line :
         messages(auditDir(dir.path("b"), bundle::BundleKind::BundleDir)))
      out += line + "\n";
    return out;
  });
  EXPECT_EQ(got, "AIM004 locked/x.aimodel: asset 'a' at 'locked/x.aimodel' "
                 "cannot be checked: 'locked' cannot be read: permission "
                 "denied\n");
}

TEST(Audit, BundlesPastPathMaxAreReadBelowTheirDescriptor) {
  aimodel::testing::ScratchDir dir;
  aimodel::testing::DeepCleanup cleanup{dir.root};
  const std::string name(200, 'n');
  std::string relative;
  while (dir.root.size() + relative.size() <= PATH_MAX + 100)
    relative += name + "/";
  // ScratchDir::write cannot go past PATH_MAX: build it through descriptors.
  auto writeAt = [](int dirFd, llvm::StringRef relativePath,
                    llvm::StringRef bytes) {
    llvm::SmallVector<llvm::StringRef, 8> parts;
    relativePath.split(parts, '/');
    int fd = ::dup(dirFd);
    for (llvm::StringRef part : llvm::ArrayRef(parts).drop_back()) {
      ::mkdirat(fd, part.str().c_str(), 0755);
      int next = ::openat(fd, part.str().c_str(), O_RDONLY | O_DIRECTORY);
      ::close(fd);
      fd = next;
    }
    int file = ::openat(fd, parts.back().str().c_str(),
                        O_WRONLY | O_CREAT | O_TRUNC, 0644);
    ::close(fd);
    EXPECT_EQ(::write(file, bytes.data(), bytes.size()),
              static_cast<ssize_t>(bytes.size()));
    ::close(file);
  };
  int fd = ::open(dir.root.c_str(), O_RDONLY | O_DIRECTORY);
  writeAt(fd, relative + "m.h18p.aimodelc/metadata.json",
          R"({"producer": "p", "assetVersion": "2.0"})");
  writeAt(fd, relative + "m.h18p.aimodelc/main-h18p.mlirb", kIR);
  writeAt(fd, relative + "m.h18p.aimodelc/main.hash", sha256(kIR));
  writeAt(fd,
          relative + "m.h18p.aimodelc/main-h18p-delegates/MPSGraph/g.mpsgraph",
          kIR);
  ::close(fd);
  std::string path = dir.root + "/" + relative + "m.h18p.aimodelc";
  ASSERT_GT(path.size(), static_cast<size_t>(PATH_MAX));
  llvm::Expected<bundle::WalkResult> walked = bundle::findBundles({dir.root});
  ASSERT_TRUE(bool(walked));
  ASSERT_EQ(walked->bundles.size(), 1u);
  EXPECT_EQ(walked->bundles[0].path, path);
  std::vector<std::string> expected{kCompiledByP, kLoadsH18p, kOnlyMPSGraph};
  EXPECT_EQ(messages(auditBundle(walked->bundles[0])), expected);
  BundleReport named = auditBundle({path, bundle::BundleKind::CompiledAsset});
  EXPECT_EQ(messages(named), expected);
}

TEST(Audit, JsonWritesValidUtf8PathsExactlyAndHexesTheRest) {
  AuditReport report;
  BundleReport tab{"d/a\tb.aimodel", bundle::BundleKind::Asset, {}, {}};
  tab.findings.push_back({&rules::MissingFile, Severity::Error, "m", "x\ty"});
  BundleReport raw{"d/\xff.aimodel", bundle::BundleKind::Asset, {}, {}};
  raw.findings.push_back({&rules::MissingFile, Severity::Error, "m", "\xfe"});
  report.bundles = {tab, raw};
  nlohmann::ordered_json json = toJson(report, "0");
  EXPECT_EQ(json["bundles"][0]["path"], "d/a\tb.aimodel");
  EXPECT_FALSE(json["bundles"][0].contains("path_bytes"));
  EXPECT_EQ(json["bundles"][0]["findings"][0]["file"], "x\ty");
  EXPECT_FALSE(json["bundles"][0]["findings"][0].contains("file_bytes"));
  EXPECT_EQ(json["bundles"][1]["path"], "d/\\xff.aimodel");
  EXPECT_EQ(json["bundles"][1]["path_bytes"], "642fff2e61696d6f64656c");
  EXPECT_EQ(json["bundles"][1]["findings"][0]["file"], "\\xfe");
  EXPECT_EQ(json["bundles"][1]["findings"][0]["file_bytes"], "fe");
  EXPECT_NO_THROW((void)json.dump());
}

TEST(Audit, BundleFolderWithoutAnAssetsObjectIsAFinding) {
  // A loader finds each asset through "assets": missing, or any other JSON
  // kind than an object, leaves nothing in the folder checkable.
  const std::pair<const char *, const char *> cases[] = {
      {R"({"metadata_version": "0.2"})",
       "AIM005 metadata.json: metadata.json has no \"assets\": a bundle "
       "folder maps each role to its asset there"},
      {R"({"metadata_version": "0.2", "assets": ["a.aimodel"]})",
       "AIM005 metadata.json: \"assets\" is an array, expected an object "
       "mapping each role to an asset path"},
      {R"({"metadata_version": "0.2", "assets": "a.aimodel"})",
       "AIM005 metadata.json: \"assets\" is a string, expected an object "
       "mapping each role to an asset path"},
      {R"({"metadata_version": "0.2", "assets": null})",
       "AIM005 metadata.json: \"assets\" is null, expected an object "
       "mapping each role to an asset path"}};
  for (const auto &[metadata, expected] : cases) {
    aimodel::testing::ScratchDir dir;
    dir.write("b/metadata.json", metadata);
    BundleReport r = auditDir(dir.path("b"), bundle::BundleKind::BundleDir);
    EXPECT_EQ(messages(r), std::vector<std::string>{expected}) << metadata;
  }
}

TEST(Audit, FixesAreOnesTheBundleInHandCanFollow) {
  auto fix = [](const Rule &rule, bundle::BundleKind kind,
                std::optional<std::string> producer) {
    BundleReport bundle{"x", kind, producer, {}};
    return fixFor(Finding{&rule, rule.severity, "m", ""}, bundle);
  };
  using bundle::BundleKind;
  // Compiled bundles cannot be stripped.
  std::string compiled =
      fix(rules::DebugPayload, BundleKind::CompiledAsset, "coreai-build-1");
  EXPECT_EQ(compiled.find("Ship a copy"), std::string::npos);
  EXPECT_NE(compiled.find("recompile"), std::string::npos);
  EXPECT_EQ(fix(rules::DebugPayload, BundleKind::Asset, std::nullopt),
            rules::DebugPayload.help.str());
  // A current writer: "re-export with coreai-torch >= 0.4.1" is what made
  // it, so the fix says what is known instead.
  for (const char *producer : {"coreai-core 1.0.0b2", "coreai-core 1.0.0b3",
                               "coreai-build-3600.75.3"}) {
    std::string modern =
        fix(rules::UnverifiedLocation, BundleKind::Asset, producer);
    EXPECT_EQ(modern.find("Re-export with coreai-torch"), std::string::npos)
        << producer;
    EXPECT_NE(modern.find(producer), std::string::npos);
    EXPECT_NE(modern.find("not known"), std::string::npos);
  }
  for (std::optional<std::string> producer :
       {std::optional<std::string>(),
        std::optional<std::string>("coreai-core 1.0.0b1")})
    EXPECT_EQ(fix(rules::UnverifiedLocation, BundleKind::Asset, producer),
              rules::UnverifiedLocation.help.str());
}
