#include "audit/Baseline.h"
#include "audit/ReportFiles.h"

#include "testing/TestFiles.h"

#include <gtest/gtest.h>

using namespace aimodel;
using namespace aimodel::audit;

namespace {
Finding finding(const Rule &rule, llvm::StringRef file = "",
                llvm::StringRef message = "m") {
  Finding f;
  f.rule = &rule;
  f.severity = rule.severity;
  f.message = message.str();
  f.file = file.str();
  return f;
}

BundleReport bundleOf(std::string path, std::vector<Finding> findings) {
  BundleReport bundle;
  bundle.path = std::move(path);
  bundle.kind = bundle::BundleKind::Asset;
  bundle.findings = std::move(findings);
  return bundle;
}

std::string errorOf(const aimodel::testing::ScratchDir &dir,
                    llvm::StringRef text) {
  std::string file = dir.write("baseline.json", text);
  llvm::Expected<Baseline> baseline = loadBaseline(file);
  if (baseline)
    return "(accepted)";
  return llvm::toString(baseline.takeError());
}
} // namespace

TEST(Baseline, SuppressesKnownFindingsByBundleRuleAndFile) {
  aimodel::testing::ScratchDir dir;
  AuditReport before;
  before.bundles.push_back(
      bundleOf("m/a.aimodel",
               {finding(rules::MissingProducer),
                finding(rules::UnexpectedFile, "notes.txt", "old text")}));
  before.bundles.push_back(
      bundleOf("m/b.aimodel", {finding(rules::HashMismatch, "main.hash")}));
  recountSeverities(before);
  std::string file =
      dir.write("baseline.json", toJson(before, "0.1.0").dump(2) + "\n");

  llvm::Expected<Baseline> baseline = loadBaseline(file);
  ASSERT_TRUE(bool(baseline)) << llvm::toString(baseline.takeError());
  EXPECT_EQ(baseline->findings.size(), 3u);

  AuditReport now;
  now.bundles.push_back(bundleOf(
      "m/a.aimodel", {finding(rules::MissingProducer),
                      // The same finding reworded is still the same finding.
                      finding(rules::UnexpectedFile, "notes.txt", "new text"),
                      // Same rule, another file: new.
                      finding(rules::UnexpectedFile, "other.txt")}));
  now.bundles.push_back(
      bundleOf("m/b.aimodel", {finding(rules::HashMismatch, "main.hash"),
                               finding(rules::Symlink, "link")}));
  // Same rule and file in another bundle: new.
  now.bundles.push_back(
      bundleOf("m/c.aimodel", {finding(rules::HashMismatch, "main.hash")}));
  recountSeverities(now);
  ASSERT_EQ(now.countBySeverity[static_cast<int>(Severity::Error)], 3u);

  EXPECT_EQ(applyBaseline(*baseline, now), 3u);
  ASSERT_EQ(now.bundles[0].findings.size(), 1u);
  EXPECT_EQ(now.bundles[0].findings[0].file, "other.txt");
  ASSERT_EQ(now.bundles[1].findings.size(), 1u);
  EXPECT_EQ(now.bundles[1].findings[0].rule, &rules::Symlink);
  EXPECT_EQ(now.bundles[2].findings.size(), 1u);
  EXPECT_EQ(now.countBySeverity[static_cast<int>(Severity::Error)], 2u);
  EXPECT_EQ(now.countBySeverity[static_cast<int>(Severity::Warning)], 0u);
  EXPECT_EQ(now.countBySeverity[static_cast<int>(Severity::Info)], 1u);
}

TEST(Baseline, PathsThatAreNotUtf8MatchByTheirBytes) {
  aimodel::testing::ScratchDir dir;
  // Latin-1 names: the report escapes them and adds path_bytes/file_bytes.
  const std::string bundlePath = "m/caf\xe9.aimodel", member = "x\xff";
  AuditReport before;
  before.bundles.push_back(
      bundleOf(bundlePath, {finding(rules::UnexpectedFile, member)}));
  recountSeverities(before);
  nlohmann::ordered_json doc = toJson(before, "0.1.0");
  ASSERT_TRUE(doc["bundles"][0].contains("path_bytes")) << doc.dump();
  std::string file = dir.write("baseline.json", doc.dump(2));
  llvm::Expected<Baseline> baseline = loadBaseline(file);
  ASSERT_TRUE(bool(baseline)) << llvm::toString(baseline.takeError());

  AuditReport now;
  // The escaped text, as bytes, is another path: not suppressed.
  now.bundles.push_back(
      bundleOf("m/caf\\xe9.aimodel", {finding(rules::UnexpectedFile, member)}));
  now.bundles.push_back(
      bundleOf(bundlePath, {finding(rules::UnexpectedFile, member)}));
  EXPECT_EQ(applyBaseline(*baseline, now), 1u);
  EXPECT_EQ(now.bundles[0].findings.size(), 1u);
  EXPECT_TRUE(now.bundles[1].findings.empty());
}

TEST(Baseline, PathBytesWinOverPathAndPlainPathsWork) {
  aimodel::testing::ScratchDir dir;
  std::string file = dir.write("baseline.json", R"({
    "schema": "aimodel-audit/1", "tool": {"name": "aimodel", "version": "0"},
    "bundles": [
      {"path": "ignored text", "path_bytes": "612e61696d6f64656c",
       "findings": [{"rule": "AIM001", "file": ""}]},
      {"path": "b.aimodel", "kind": "aimodel", "producer": null,
       "findings": [{"rule": "AIM009", "severity": "info", "message": "m",
                     "file": "ignored", "file_bytes": "6E6F746573"}]}],
    "summary": {"bundles": 2, "error": 0, "warning": 1, "info": 1}})");
  llvm::Expected<Baseline> baseline = loadBaseline(file);
  ASSERT_TRUE(bool(baseline)) << llvm::toString(baseline.takeError());
  AuditReport now;
  now.bundles.push_back(
      bundleOf("a.aimodel", {finding(rules::MissingProducer)}));
  now.bundles.push_back(
      bundleOf("b.aimodel", {finding(rules::UnexpectedFile, "notes")}));
  now.bundles.push_back(
      bundleOf("ignored text", {finding(rules::MissingProducer)}));
  EXPECT_EQ(applyBaseline(*baseline, now), 2u);
  EXPECT_EQ(now.bundles[2].findings.size(), 1u);
}

TEST(Baseline, InvalidReportsAreClearErrors) {
  aimodel::testing::ScratchDir dir;
  const std::string ok =
      R"("tool": {"name": "aimodel", "version": "0"}, "summary": {"bundles": 0})";
  const std::pair<std::string, std::string> cases[] = {
      {"not json", "is not valid JSON at byte"},
      {"{\"schema\": \"aimodel-audit/1\"} {}", "is not valid JSON at byte"},
      {std::string("{}\0", 3), "trailing bytes"},
      {"[]", "is a JSON array, not an aimodel audit report"},
      {R"({"bundles": []})", "has no \"schema\""},
      {R"({"schema": "aimodel-audit/2", "bundles": [], )" + ok + "}",
       "has schema \"aimodel-audit/2\", expected \"aimodel-audit/1\""},
      {R"({"schema": "aimodel-audit/1", )" + ok + "}",
       "\"bundles\" is missing or not an array"},
      {R"({"schema": "aimodel-audit/1", "bundles": [{"findings": []}], )" + ok +
           "}",
       "bundles[0]: \"path\" is missing or not a string"},
      {R"({"schema": "aimodel-audit/1", "bundles": [{"path": "a",
           "findings": [{"file": ""}]}], )" +
           ok + "}",
       "bundles[0].findings[0]: \"rule\" is missing or not a string"},
      {R"({"schema": "aimodel-audit/1", "bundles": [{"path": "a",
           "findings": [{"rule": "AIM001"}]}], )" +
           ok + "}",
       "bundles[0].findings[0]: \"file\" is missing or not a string"},
      {R"({"schema": "aimodel-audit/1", "bundles": [{"path": "a",
           "path_bytes": "6", "findings": []}], )" +
           ok + "}",
       "bundles[0]: \"path_bytes\" is not a hex string"},
      {R"({"schema": "aimodel-audit/1", "bundles": [{"path": "a",
           "findings": [{"rule": "AIM001", "file": "", "file_bytes": "zz"}]}], )" +
           ok + "}",
       "bundles[0].findings[0]: \"file_bytes\" is not a hex string"},
      {R"({"schema": "aimodel-audit/1", "schema": "aimodel-audit/1"})",
       "has the key \"schema\" more than once"},
      {R"({"schema": "aimodel-audit/1", "bundles": [],
           "tool": {"name": "aimodel"}, "summary": {"error": -1}})",
       "summary.error is not a count"},
  };
  for (const auto &[text, expected] : cases) {
    std::string error = errorOf(dir, text);
    EXPECT_NE(error.find(expected), std::string::npos)
        << text << "\n  gave: " << error;
    EXPECT_EQ(error.rfind(dir.path("baseline.json") + ": ", 0), 0u) << error;
    EXPECT_EQ(error.find('\n'), std::string::npos) << error;
  }

  llvm::Expected<Baseline> missing = loadBaseline(dir.path("none.json"));
  ASSERT_FALSE(bool(missing));
  std::string error = llvm::toString(missing.takeError());
  EXPECT_EQ(error.rfind(dir.path("none.json") + ": ", 0), 0u) << error;
}
