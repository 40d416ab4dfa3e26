//===- DiffReportTest.cpp - Formatting of `aimodel diff` results ----------===//
//
// Hand-built DiffResults, so the formats are pinned independently of the
// matcher.
//
//===----------------------------------------------------------------------===//

#include "graphdiff/DiffReport.h"

#include "testing/TestFiles.h"

#include "llvm/Support/MemoryBuffer.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <sys/stat.h>
#include <unistd.h>

using namespace aimodel;
using namespace aimodel::graphdiff;

namespace {

Change change(ChangeKind kind, std::string op, std::optional<uint64_t> source,
              std::optional<uint64_t> target, std::string detail = "",
              std::string module = "", std::string line = "") {
  Change c;
  c.kind = kind;
  c.op = std::move(op);
  c.sourceIndex = source;
  c.targetIndex = target;
  c.detail = std::move(detail);
  c.module = std::move(module);
  c.sourceLine = std::move(line);
  return c;
}

/// main: one modified reshape and one added add in module A, one removed mul
/// without a module; a composite pair that is identical; an added graph.
DiffResult sample() {
  DiffResult result;
  GraphComparison main;
  main.source = main.target = "main";
  main.status = GraphStatus::Different;
  main.sourceOps = 10;
  main.targetOps = 10;
  main.counts = {8, 1, 1, 1};
  main.changes = {
      change(ChangeKind::Modified, "coreai.reshape", 3, 3,
             "attribute shape: [1, 64] -> [64, 1]", "Linear$1/Block$3/Model$1",
             "model.py:120"),
      change(ChangeKind::Removed, "coreai.mul", 5, std::nullopt),
      change(ChangeKind::Added, "coreai.add", std::nullopt, 6, "",
             "Linear$1/Block$3/Model$1", "model.py:121"),
  };
  main.changes[1].readers = {{"coreai.add", 6, 1}};
  main.changes[2].unused = true;
  GraphComparison composite;
  composite.source = "rms_norm_k3j9x0qa";
  composite.target = "rms_norm_p0zz81m2";
  composite.sourceOps = composite.targetOps = 4;
  composite.counts.identical = 4;
  GraphComparison added;
  added.target = "extra";
  added.status = GraphStatus::Added;
  added.targetOps = 2;
  added.counts.added = 2;
  result.graphs = {main, composite, added};
  return result;
}

ReportOptions options(uint64_t maxItems = kDefaultMaxItems) {
  ReportOptions o;
  o.maxItems = maxItems;
  o.golden = "golden.mlirb";
  o.candidate = "new.mlirb";
  return o;
}

std::string text(const DiffResult &result, const ReportOptions &o) {
  std::string out;
  llvm::raw_string_ostream os(out);
  writeTextReport(os, result, o);
  return out;
}

std::string html(const DiffResult &result, const ReportOptions &o) {
  std::string out;
  llvm::raw_string_ostream os(out);
  writeHtmlReport(os, result, o);
  return out;
}

TEST(DiffReport, Verdict) {
  EXPECT_TRUE(allIdentical(DiffResult{}));
  DiffResult result = sample();
  EXPECT_FALSE(allIdentical(result));
  result.graphs.resize(2);
  result.graphs[0].status = GraphStatus::Identical;
  EXPECT_TRUE(allIdentical(result));
}

TEST(DiffReport, GroupsByModuleInGraphOrderUnknownLast) {
  DiffResult result = sample();
  std::vector<ModuleGroup> groups =
      groupByModule(result.graphs[0].changes, 100);
  ASSERT_EQ(groups.size(), 2u);
  EXPECT_EQ(groups[0].module, "Linear$1/Block$3/Model$1");
  ASSERT_EQ(groups[0].changes.size(), 2u);
  EXPECT_EQ(groups[0].changes[0]->op, "coreai.reshape");
  EXPECT_EQ(groups[0].changes[1]->op, "coreai.add");
  EXPECT_EQ(groups[1].module, "");
  // The cap takes the first changes in graph order, then groups them.
  groups = groupByModule(result.graphs[0].changes, 2);
  ASSERT_EQ(groups.size(), 2u);
  EXPECT_EQ(groups[0].changes.size(), 1u);
  EXPECT_EQ(groups[1].changes[0]->op, "coreai.mul");
  EXPECT_TRUE(groupByModule(result.graphs[0].changes, 0).empty());
}

TEST(DiffReport, Json) {
  nlohmann::json doc = nlohmann::json::parse(jsonReport(sample()));
  EXPECT_EQ(doc["schema"], "aimodel-diff/1");
  EXPECT_EQ(doc["verdict"], "different");
  ASSERT_EQ(doc["graphs"].size(), 3u);
  const nlohmann::json &main = doc["graphs"][0];
  EXPECT_EQ(main["source"], "main");
  EXPECT_EQ(main["target"], "main");
  EXPECT_EQ(main["status"], "different");
  EXPECT_EQ(main["ops"], nlohmann::json({{"source", 10}, {"target", 10}}));
  EXPECT_EQ(
      main["counts"],
      nlohmann::json(
          {{"identical", 8}, {"modified", 1}, {"added", 1}, {"removed", 1}}));
  ASSERT_EQ(main["changes"].size(), 3u);
  EXPECT_EQ(main["changes"][0],
            nlohmann::json({{"kind", "modified"},
                            {"op", "coreai.reshape"},
                            {"source_index", 3},
                            {"target_index", 3},
                            {"detail", "attribute shape: [1, 64] -> [64, 1]"},
                            {"module", "Linear$1/Block$3/Model$1"},
                            {"source_line", "model.py:120"},
                            {"fx_node", ""},
                            {"op_id", nullptr},
                            {"ambiguous", false}}));
  EXPECT_FALSE(main["changes"][1].contains("target_index"));
  // An added or removed op says who reads it.
  EXPECT_EQ(main["changes"][1]["read_by"],
            nlohmann::json::parse(
                R"([{"op": "coreai.add", "index": 6, "operand": 1}])"));
  EXPECT_EQ(main["changes"][1]["unused"], false);
  EXPECT_EQ(main["changes"][2]["read_by"], nlohmann::json::array());
  EXPECT_EQ(main["changes"][2]["unused"], true);
  EXPECT_FALSE(main["changes"][0].contains("read_by"));
  EXPECT_EQ(main["weights_by_shape"], 0);
  EXPECT_FALSE(main["changes"][2].contains("source_index"));
  EXPECT_EQ(doc["graphs"][1]["status"], "identical");
  EXPECT_EQ(doc["graphs"][2]["source"], nullptr);
  EXPECT_EQ(doc["graphs"][2]["status"], "added");
  // Key order is part of the format.
  std::string raw = jsonReport(sample());
  EXPECT_LT(raw.find("\"schema\""), raw.find("\"verdict\""));
  EXPECT_LT(raw.find("\"verdict\""), raw.find("\"graphs\""));
  EXPECT_EQ(nlohmann::json::parse(jsonReport(DiffResult{}))["verdict"],
            "identical");
}

/// sample() with main's interface changed: an output's type and an
/// input's name only.
DiffResult withInterface() {
  DiffResult result = sample();
  InterfaceComparison &in = result.graphs[0].interface.emplace();
  in.golden = InterfaceText{{{"ids", "tensor<1x512xi32>", false}},
                            {{"logits", "tensor<1x512x8xf16>", false}}};
  in.candidate = InterfaceText{{{"input_ids", "tensor<1x512xi32>", false}},
                               {{"logits", "tensor<1x512x8xf32>", false}}};
  in.changes = {{"input 0: `ids` \u2192 `input_ids`", true},
                {"output 0 `logits`: tensor<1x512x8xf16> \u2192 "
                 "tensor<1x512x8xf32>",
                 false}};
  result.graphs[0].weightsByShape = 2;
  return result;
}

TEST(DiffReport, InterfaceComesFirstInEveryReport) {
  nlohmann::json doc = nlohmann::json::parse(jsonReport(withInterface()));
  const nlohmann::json &in = doc["graphs"][0]["interface"];
  EXPECT_EQ(
      in["golden"]["inputs"][0],
      nlohmann::json::parse(
          R"({"name": "ids", "type": "tensor<1x512xi32>", "state": false})"));
  EXPECT_EQ(in["new"]["outputs"][0]["type"], "tensor<1x512x8xf32>");
  ASSERT_EQ(in["changes"].size(), 2u);
  EXPECT_EQ(in["changes"][0]["name_only"], true);
  EXPECT_EQ(in["changes"][1]["name_only"], false);
  EXPECT_FALSE(doc["graphs"][1].contains("interface"));
  EXPECT_EQ(doc["graphs"][0]["weights_by_shape"], 2);

  std::string out = text(withInterface(), options());
  llvm::StringRef rest(out);
  rest = rest.drop_until([](char c) { return c == '\n'; }).drop_front();
  rest = rest.drop_until([](char c) { return c == '\n'; }).drop_front();
  EXPECT_TRUE(rest.starts_with(
      "  interface changed: input 0: `ids` \u2192 `input_ids` (name only)\n"
      "  interface changed: output 0 `logits`: tensor<1x512x8xf16> \u2192 "
      "tensor<1x512x8xf32>\n  Linear$1"))
      << out;
  EXPECT_NE(out.find("; 2 weights compared by type and shape only"),
            std::string::npos);
}

TEST(DiffReport, JsonListsEveryChangeAndSurvivesBadUtf8) {
  DiffResult result = sample();
  for (int i = 0; i < 500; ++i)
    result.graphs[0].changes.push_back(
        change(ChangeKind::Added, "x.op", std::nullopt, i));
  result.graphs[0].changes[0].detail = "bad \xff\xfe bytes";
  nlohmann::json doc = nlohmann::json::parse(jsonReport(result));
  EXPECT_EQ(doc["graphs"][0]["changes"].size(), 503u);
  EXPECT_EQ(doc["graphs"][0]["changes"][0]["detail"], "bad \\xff\\xfe bytes");
}

TEST(DiffReport, Text) {
  EXPECT_EQ(text(sample(), options()),
            "golden.mlirb -> new.mlirb: different\n"
            "graph main: different (10 -> 10 ops): 1 modified, 1 added, "
            "1 removed, 8 identical\n"
            "  Linear$1/Block$3/Model$1\n"
            "    ~ coreai.reshape [3 -> 3]: attribute shape: [1, 64] -> "
            "[64, 1] (model.py:120)\n"
            "    + coreai.add [-> 6] (model.py:121)\n"
            "  (no module)\n"
            "    - coreai.mul [5 ->]\n"
            "graph extra: added (2 ops)\n"
            "3 graphs compared: 1 identical, 1 different, 1 added, 0 removed; "
            "ops: 1 modified, 3 added, 1 removed\n");
}

TEST(DiffReport, TextCapsAndColours) {
  std::string capped = text(sample(), options(1));
  EXPECT_NE(capped.find("coreai.reshape"), std::string::npos);
  EXPECT_EQ(capped.find("coreai.mul"), std::string::npos);
  EXPECT_NE(capped.find("  ... 2 more changes not listed (--max-items 1; "
                        "--format json lists all)\n"),
            std::string::npos);
  EXPECT_EQ(capped.find('\033'), std::string::npos);
  ReportOptions coloured = options();
  coloured.colour = true;
  std::string painted = text(sample(), coloured);
  EXPECT_NE(painted.find("\033[31mdifferent\033[0m"), std::string::npos);
  EXPECT_NE(painted.find("\033[32m+ coreai.add\033[0m"), std::string::npos);
}

TEST(DiffReport, TextEscapesUntrustedBytes) {
  DiffResult result = sample();
  result.graphs[0].changes[0].detail = "line\nforged: identical\033[2J";
  ReportOptions o = options();
  o.golden = "a\tb.mlirb";
  std::string out = text(result, o);
  EXPECT_EQ(out.find("\nforged"), std::string::npos);
  EXPECT_EQ(out.find('\033'), std::string::npos);
  EXPECT_NE(out.find("a\\x09b.mlirb"), std::string::npos);
}

TEST(DiffReport, TextIdentical) {
  DiffResult result = sample();
  result.graphs.erase(result.graphs.begin());
  result.graphs.pop_back();
  EXPECT_EQ(text(result, options()),
            "golden.mlirb -> new.mlirb: identical\n"
            "1 graph compared: 1 identical, 0 different, 0 added, 0 removed; "
            "ops: 0 modified, 0 added, 0 removed\n");
}

TEST(DiffReport, HtmlIsSelfContainedAndEscaped) {
  DiffResult result = sample();
  result.graphs[0].changes[0].module = "<script>alert(1)</script>";
  result.graphs[0].changes[0].detail = "a & \"b\" 'c'";
  std::string page = html(result, options());
  EXPECT_EQ(page.rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_EQ(page.find("<script"), std::string::npos);
  EXPECT_EQ(page.find("http"), std::string::npos);
  EXPECT_EQ(page.find("src="), std::string::npos);
  EXPECT_EQ(page.find("url("), std::string::npos);
  EXPECT_NE(page.find("&lt;script&gt;alert(1)&lt;/script&gt;"),
            std::string::npos);
  EXPECT_NE(page.find("a &amp; &quot;b&quot; &#39;c&#39;"), std::string::npos);
  EXPECT_NE(page.find("Verdict: different"), std::string::npos);
  EXPECT_NE(page.find("rms_norm_k3j9x0qa"), std::string::npos);
  EXPECT_NE(page.find("(no module)"), std::string::npos);
  std::string capped = html(sample(), options(2));
  EXPECT_NE(capped.find("1 more change not listed (--max-items 2"),
            std::string::npos);
  EXPECT_NE(capped.find("coreai.mul"), std::string::npos);
  EXPECT_EQ(capped.find("coreai.add"), std::string::npos);
}

std::string readAll(const std::string &path) {
  auto buffer = llvm::MemoryBuffer::getFile(path);
  return buffer ? (*buffer)->getBuffer().str() : "<unreadable>";
}

TEST(DiffReport, OutputFileIsReplacedAtomically) {
  aimodel::testing::ScratchDir dir;
  std::string path = dir.path("report.json");
  ASSERT_FALSE(bool(writeFileAtomically(path, "one\n")));
  EXPECT_EQ(readAll(path), "one\n");
  ::chmod(path.c_str(), 0640);
  ASSERT_FALSE(bool(writeFileAtomically(path, "two\n")));
  EXPECT_EQ(readAll(path), "two\n");
  struct stat st;
  ASSERT_EQ(::stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0640u);
  // Nothing but the report is left in the folder.
  std::error_code ec;
  size_t entries = 0;
  for (auto it = std::filesystem::directory_iterator(dir.root, ec);
       it != std::filesystem::directory_iterator(); ++it)
    ++entries;
  EXPECT_EQ(entries, 1u);
}

TEST(DiffReport, OutputFileNeverThroughSymlink) {
  aimodel::testing::ScratchDir dir;
  std::string target = dir.write("target.txt", "keep\n");
  std::string link = dir.path("link.json");
  ASSERT_EQ(::symlink(target.c_str(), link.c_str()), 0);
  llvm::Error error = writeFileAtomically(link, "new\n");
  ASSERT_TRUE(bool(error));
  EXPECT_NE(llvm::toString(std::move(error)).find("is a symlink"),
            std::string::npos);
  EXPECT_EQ(readAll(target), "keep\n");
  dir.mkdir("folder");
  error = writeFileAtomically(dir.path("folder"), "x");
  ASSERT_TRUE(bool(error));
  EXPECT_NE(llvm::toString(std::move(error)).find("is a directory"),
            std::string::npos);
  error = writeFileAtomically(dir.path("missing/report.json"), "x");
  ASSERT_TRUE(bool(error));
  EXPECT_NE(llvm::toString(std::move(error)).find("missing/report.json"),
            std::string::npos);
}

} // namespace
