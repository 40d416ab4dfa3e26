#include "audit/ReportFormats.h"
#include "audit/Fixes.h"

#include "support/PathText.h"
#include "testing/TestFiles.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Regex.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <map>
#include <optional>
#include <set>
#include <sys/wait.h>

using namespace aimodel;
using namespace aimodel::audit;
using json = nlohmann::ordered_json;

namespace {
// A bundle name built to break formats: spaces, '%', '#', a newline
// followed by a workflow command, a tab, a byte that is not UTF-8, "::".
const std::string kHostileName = "evil\n::set-env name=X::1\t\xff::.aimodel";
const char kRoot[] = "/work/repo";

AuditReport sampleReport(const std::string &root = kRoot) {
  AuditReport report;
  BundleReport plain{root + "/models/a b%#.aimodel",
                     bundle::BundleKind::Asset,
                     std::nullopt,
                     {}};
  plain.findings = {
      Finding{&rules::HashMismatch, Severity::Error,
              "main.hash is not the SHA-256 of main.mlirb", "main.hash"},
      Finding{&rules::MissingProducer, Severity::Warning,
              "metadata.json has no producer <&\"'>", "metadata.json"},
  };
  BundleReport hostile{
      root + "/" + kHostileName, bundle::BundleKind::Asset, std::nullopt, {}};
  hostile.findings = {
      Finding{&rules::Symlink, Severity::Error,
              "symlink to \"/etc/passwd\n::add-mask::x\" 100%0A",
              "link\n::add-mask::x"},
      Finding{&rules::UnexpectedFile, Severity::Info, "unexpected file",
              "x,y:z%0A\r\x01\xef\xbf\xbe"},
  };
  BundleReport outside{"/elsewhere/c.h18p.aimodelc",
                       bundle::BundleKind::CompiledAsset,
                       std::nullopt,
                       {}};
  Finding ir{&rules::DebugPayload, Severity::Warning,
             "the IR has absolute source paths", "main-h18p.mlirb"};
  ir.ops = 3;
  ir.blockArguments = 1;
  ir.examples = {"/Users/alice/model.py", "bad\xff"};
  outside.findings = {ir,
                      Finding{&rules::UnknownAssetVersion, Severity::Warning,
                              "assetVersion is \"1.0\"", ""}};
  report.bundles = {plain, hostile, outside};
  for (const BundleReport &b : report.bundles)
    for (const Finding &f : b.findings)
      ++report.countBySeverity[static_cast<int>(f.severity)];
  return report;
}

std::string sarif(const AuditReport &report, llvm::StringRef root = kRoot) {
  std::string out;
  llvm::raw_string_ostream os(out);
  writeSarifReport(os, report, "0.1.0", root);
  return out;
}

const json &results(const json &log) { return log["runs"][0]["results"]; }
const json &artifactOf(const json &result) {
  return result["locations"][0]["physicalLocation"]["artifactLocation"];
}

int runShell(const std::string &command) {
  int status = std::system(command.c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}
} // namespace

TEST(Sarif, DriverListsEveryRuleAndResultsPointIntoIt) {
  json log = json::parse(sarif(sampleReport()));
  EXPECT_EQ(log["version"], "2.1.0");
  EXPECT_TRUE(log["$schema"].get<std::string>().find("sarif") !=
              std::string::npos);
  ASSERT_EQ(log["runs"].size(), 1u);
  const json &driver = log["runs"][0]["tool"]["driver"];
  EXPECT_EQ(driver["name"], "aimodel");
  EXPECT_EQ(driver["version"], "0.1.0");
  const json &rules = driver["rules"];
  ASSERT_EQ(rules.size(), allRules().size());
  for (size_t i = 0; i < rules.size(); ++i) {
    const Rule &rule = *allRules()[i];
    EXPECT_EQ(rules[i]["id"], rule.id.str());
    EXPECT_EQ(rules[i]["name"], rule.name.str());
    EXPECT_EQ(rules[i]["shortDescription"]["text"], rule.summary.str());
    EXPECT_EQ(rules[i]["help"]["text"], rule.help.str());
    // No help URI: the project names no home page; the help is inline.
    EXPECT_FALSE(rules[i].contains("helpUri"));
    EXPECT_FALSE(
        rules[i]["fullDescription"]["text"].get<std::string>().empty());
  }
  EXPECT_EQ(rules[2]["defaultConfiguration"]["level"], "error");   // AIM003
  EXPECT_EQ(rules[0]["defaultConfiguration"]["level"], "warning"); // AIM001
  EXPECT_EQ(rules[8]["defaultConfiguration"]["level"], "note");    // AIM009

  const json &res = results(log);
  ASSERT_EQ(res.size(), 6u);
  std::vector<std::string> ids, levels;
  for (const json &r : res) {
    // The rule's index in rules[], never the result's own index.
    size_t index = r["ruleIndex"].get<size_t>();
    ASSERT_LT(index, rules.size());
    EXPECT_EQ(rules[index]["id"], r["ruleId"]);
    ids.push_back(r["ruleId"]);
    levels.push_back(r["level"]);
    EXPECT_EQ(r["locations"].size(), 1u);
    EXPECT_EQ(r["locations"][0]["physicalLocation"]["region"]["startLine"], 1);
  }
  EXPECT_EQ(res[0]["ruleIndex"], 2); // AIM003, result 0
  EXPECT_EQ(ids, (std::vector<std::string>{"AIM003", "AIM001", "AIM010",
                                           "AIM009", "AIM007", "AIM011"}));
  EXPECT_EQ(levels, (std::vector<std::string>{"error", "warning", "error",
                                              "note", "warning", "warning"}));
  EXPECT_EQ(res[0]["message"]["text"],
            "main.hash is not the SHA-256 of main.mlirb");
}

TEST(Sarif, UrisAreRelativeToTheRootAndPercentEncoded) {
  json log = json::parse(sarif(sampleReport()));
  EXPECT_EQ(log["runs"][0]["originalUriBaseIds"]["%SRCROOT%"]["uri"],
            "file:///work/repo/");
  const json &res = results(log);
  EXPECT_EQ(artifactOf(res[0])["uri"], "models/a%20b%25%23.aimodel/main.hash");
  EXPECT_EQ(artifactOf(res[0])["uriBaseId"], "%SRCROOT%");
  EXPECT_EQ(artifactOf(res[2])["uri"],
            "evil%0A%3A%3Aset-env%20name%3DX%3A%3A1%09%FF%3A%3A.aimodel/"
            "link%0A%3A%3Aadd-mask%3A%3Ax");
  EXPECT_EQ(artifactOf(res[3])["uri"],
            "evil%0A%3A%3Aset-env%20name%3DX%3A%3A1%09%FF%3A%3A.aimodel/"
            "x%2Cy%3Az%250A%0D%01%EF%BF%BE");
  // Outside the root: an absolute file: URI, no base; a bundle-level
  // finding points at the bundle itself.
  EXPECT_EQ(artifactOf(res[5])["uri"], "file:///elsewhere/c.h18p.aimodelc");
  EXPECT_FALSE(artifactOf(res[5]).contains("uriBaseId"));
  llvm::Regex uriChars("^[A-Za-z0-9._~/%-]+$");
  for (const json &r : res) {
    std::string text = artifactOf(r)["uri"];
    llvm::StringRef uri(text);
    if (uri.consume_front("file://")) {
      EXPECT_TRUE(uri.starts_with("/")) << text;
    }
    EXPECT_TRUE(uriChars.match(uri)) << text;
  }
}

TEST(Sarif, RelativeReportPathsAndRootSpellings) {
  AuditReport report;
  report.bundles = {
      {"models/./x.aimodel", bundle::BundleKind::Asset, std::nullopt, {}},
      {"sub/../y.aimodel", bundle::BundleKind::Asset, std::nullopt, {}}};
  report.bundles[0].findings = {
      Finding{&rules::HashMismatch, Severity::Error, "m", "main.hash"}};
  report.bundles[1].findings = {
      Finding{&rules::MissingFile, Severity::Error, "m", ""}};
  // Relative report paths are taken against the current directory, as
  // is a relative root.
  for (llvm::StringRef root : {"", ".", "./"}) {
    json log = json::parse(sarif(report, root));
    const json &res = results(log);
    EXPECT_EQ(artifactOf(res[0])["uri"], "models/x.aimodel/main.hash")
        << root.str();
    EXPECT_EQ(artifactOf(res[1])["uri"], "y.aimodel") << root.str();
  }
  llvm::SmallString<256> cwd;
  ASSERT_FALSE(llvm::sys::fs::current_path(cwd));
  for (std::string root :
       {std::string(cwd), std::string(cwd) + "/", std::string(cwd) + "//"}) {
    json log = json::parse(sarif(report, root));
    const json &res = results(log);
    EXPECT_EQ(artifactOf(res[0])["uri"], "models/x.aimodel/main.hash") << root;
  }
  // The root of the file system holds everything.
  json log = json::parse(sarif(sampleReport(), "/"));
  const json &res = results(log);
  EXPECT_EQ(artifactOf(res[5])["uri"], "elsewhere/c.h18p.aimodelc");
  EXPECT_EQ(artifactOf(res[5])["uriBaseId"], "%SRCROOT%");
}

TEST(Sarif, OutputAndFingerprintsAreStableAndDistinct) {
  EXPECT_EQ(sarif(sampleReport()), sarif(sampleReport()));
  // Another checkout on another machine: same relative paths, same prints.
  json here = json::parse(sarif(sampleReport()));
  json there =
      json::parse(sarif(sampleReport("/srv/ci/job-7"), "/srv/ci/job-7"));
  llvm::Regex hash("^[0-9a-f]{32}:1$");
  std::set<std::string> seen;
  for (size_t i = 0; i < results(here).size(); ++i) {
    std::string print =
        results(here)[i]["partialFingerprints"]["primaryLocationLineHash"];
    EXPECT_TRUE(hash.match(print)) << print;
    EXPECT_TRUE(seen.insert(print).second) << "duplicate " << print;
    if (artifactOf(results(here)[i]).contains("uriBaseId")) {
      EXPECT_EQ(
          print,
          results(there)[i]["partialFingerprints"]["primaryLocationLineHash"]);
    }
  }
  // Same file and rule, another message: another print.
  AuditReport report = sampleReport();
  report.bundles[0].findings[0].message = "main.hash is 31 bytes";
  json changed = json::parse(sarif(report));
  EXPECT_NE(results(changed)[0]["partialFingerprints"],
            results(here)[0]["partialFingerprints"]);
}

TEST(Sarif, IrCountsAndExamplesAreProperties) {
  json log = json::parse(sarif(sampleReport()));
  const json &res = results(log);
  // Every result carries its fix; IR counts and examples only where known.
  EXPECT_EQ(res[0]["properties"],
            json({{"fix", fixFor(sampleReport().bundles[0].findings[0],
                                 sampleReport().bundles[0])}}));
  const json &props = res[4]["properties"];
  // The compiled bundle's AIM007: a fix it can follow (no strip).
  EXPECT_NE(props["fix"].get<std::string>().find("recompile"),
            std::string::npos);
  EXPECT_EQ(props["ops"], 3);
  EXPECT_EQ(props["blockArguments"], 1);
  EXPECT_EQ(props["examples"],
            json::array({"/Users/alice/model.py", "bad\\xff"}));
  // Raw bytes in messages are made printable (JSON needs UTF-8).
  EXPECT_EQ(res[2]["message"]["text"],
            "symlink to \"/etc/passwd\\x0a::add-mask::x\" 100%0A");
}

// The official SARIF 2.1.0 schema, plus Microsoft's validator. Broken
// copies must fail, so the check is not vacuous.
TEST(Sarif, ValidatesAgainstTheOfficialSchema) {
  aimodel::testing::ScratchDir dir;
  std::string text = sarif(sampleReport());
  auto broken = [&](llvm::StringRef from, llvm::StringRef to) {
    std::string copy = text;
    size_t at = copy.find(from.str());
    EXPECT_NE(at, std::string::npos) << from.str();
    if (at != std::string::npos)
      copy.replace(at, from.size(), to.str());
    return copy;
  };
  std::string good = dir.write("good.sarif", text);
  std::string badLevel = dir.write(
      "level.sarif", broken("\"level\": \"note\"", "\"level\": \"info\""));
  // A raw space: percent-encoding is what makes URIs valid.
  std::string badUri = dir.write("uri.sarif", broken("a%20b", "a b"));
  std::string command = std::string("bash '") + AIMODEL_VALIDATE_SARIF +
                        "' --cache '" + AIMODEL_SARIF_VALIDATOR_CACHE + "' ";
  EXPECT_EQ(runShell(command + "'" + good + "'"), 0);
  EXPECT_EQ(runShell(command + "'" + badLevel + "' 2>/dev/null"), 1);
  EXPECT_EQ(runShell(command + "'" + badUri + "' 2>/dev/null"), 1);
}

namespace {
std::string junit(const AuditReport &report) {
  std::string out;
  llvm::raw_string_ostream os(out);
  writeJUnitReport(os, report);
  return out;
}
} // namespace

TEST(JUnit, EscapesEverythingItQuotes) {
  std::string xml = junit(sampleReport());
  EXPECT_TRUE(llvm::StringRef(xml).starts_with(
      "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites"));
  EXPECT_NE(xml.find("<testsuite name=\"aimodel audit\" tests=\"3\" "
                     "failures=\"2\" errors=\"0\""),
            std::string::npos);
  EXPECT_NE(xml.find("<testcase classname=\"aimodel.aimodel\" "
                     "name=\"/work/repo/models/a b%#.aimodel\">"),
            std::string::npos);
  EXPECT_NE(xml.find("name=\"/work/repo/evil\\x0a::set-env name=X::1\\x09"
                     "\\xff::.aimodel\""),
            std::string::npos);
  EXPECT_NE(xml.find("<failure type=\"AIM003\" message=\"main.hash: "),
            std::string::npos);
  EXPECT_NE(xml.find("no producer &lt;&amp;&quot;&#39;&gt; [AIM001"),
            std::string::npos);
  EXPECT_NE(xml.find("x,y:z%0A\\x0d\\x01\\xef\\xbf\\xbe: info"),
            std::string::npos);
  // Only the newlines between elements and lines: no control byte, no
  // byte that is not UTF-8.
  for (unsigned char c : xml)
    EXPECT_TRUE(c == '\n' || (c >= 0x20 && c != 0x7f)) << int(c);
  EXPECT_TRUE(support::isValidUtf8(xml));
}

TEST(JUnit, IsWellFormedXml) {
  aimodel::testing::ScratchDir dir;
  std::string file = dir.write("report.xml", junit(sampleReport()));
  // Python's expat parser is strict XML 1.0; the script checks the shape.
  const char *check = R"PY(
import sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
assert root.tag == "testsuites", root.tag
suite, = root
cases = suite.findall("testcase")
assert suite.get("tests") == "3" and suite.get("failures") == "2", suite.attrib
assert [c.get("classname") for c in cases] == ["aimodel.aimodel", "aimodel.aimodel", "aimodel.aimodelc"]
assert [len(c.findall("failure")) for c in cases] == [1, 1, 0]
assert cases[1].find("failure").get("type") == "AIM010"
assert "AIM009 unexpected-file" in cases[1].find("system-out").text
assert cases[2].find("system-out").text.count("\n") == 2
)PY";
  EXPECT_EQ(runShell("python3 -c '" + std::string(check) + "' '" + file + "'"),
            0);
  std::string empty = dir.write("empty.xml", junit(AuditReport{}));
  EXPECT_EQ(runShell("python3 -c 'import sys, xml.etree.ElementTree as ET; "
                     "ET.parse(sys.argv[1])' '" +
                     empty + "'"),
            0);
}

namespace {
std::string github(const AuditReport &report) {
  std::string out;
  llvm::raw_string_ostream os(out);
  writeGitHubReport(os, report);
  return out;
}

/// How the Actions runner reads a line (ActionCommand.TryParseV2): a command
/// starts the line with "::", its properties end at the next "::".
struct Command {
  std::string name;
  std::map<std::string, std::string> properties;
  std::string data;
};
std::string unescape(std::string text, bool property) {
  std::vector<std::pair<std::string, std::string>> table = {{"%0D", "\r"},
                                                            {"%0A", "\n"}};
  if (property)
    table.insert(table.end(), {{"%3A", ":"}, {"%2C", ","}});
  table.push_back({"%25", "%"}); // last, as the runner does
  for (auto &[from, to] : table)
    text = llvm::join(llvm::split(text, from), to);
  return text;
}
std::optional<Command> parseCommand(llvm::StringRef line) {
  if (!line.consume_front("::"))
    return std::nullopt;
  size_t end = line.find("::");
  if (end == llvm::StringRef::npos)
    return std::nullopt;
  auto [name, props] = line.take_front(end).split(' ');
  Command command{
      name.str(), {}, unescape(line.drop_front(end + 2).str(), false)};
  llvm::SmallVector<llvm::StringRef> pairs;
  props.split(pairs, ',', -1, false);
  for (llvm::StringRef pair : pairs) {
    auto [key, value] = pair.split('=');
    command.properties[key.str()] = unescape(value.str(), true);
  }
  return command;
}
} // namespace

TEST(GitHub, OneCommandPerFindingAndNothingInjected) {
  AuditReport report = sampleReport();
  std::string out = github(report);
  EXPECT_EQ(out.find('\r'), std::string::npos);
  llvm::SmallVector<llvm::StringRef> lines;
  llvm::StringRef(out).split(lines, '\n', -1, false);
  ASSERT_EQ(lines.size(), 7u);
  std::vector<std::string> names;
  for (size_t i = 0; i + 1 < lines.size(); ++i) {
    std::optional<Command> command = parseCommand(lines[i]);
    ASSERT_TRUE(command) << lines[i].str();
    names.push_back(command->name);
    EXPECT_EQ(command->properties.size(), 2u) << lines[i].str();
  }
  EXPECT_EQ(names, (std::vector<std::string>{"error", "warning", "error",
                                             "notice", "warning", "warning"}));
  // The summary is plain text: the runner prints it, runs nothing.
  EXPECT_FALSE(lines.back().starts_with("::"));
  EXPECT_EQ(lines.back(), "aimodel audit: 3 bundle(s), 2 error(s), "
                          "3 warning(s), 1 info");

  // The malicious name stays inside one property value, exactly.
  // The name is not UTF-8, so it is in printable form: no raw newline.
  EXPECT_EQ(lines[2], "::error file=/work/repo/evil\\x0a%3A%3Aset-env "
                      "name=X%3A%3A1\\x09\\xff%3A%3A.aimodel/link\\x0a%3A%3A"
                      "add-mask%3A%3Ax,title=AIM010 symlink::symlink to "
                      "\"/etc/passwd\\x0a::add-mask::x\" 100%250A");
  std::optional<Command> symlink = parseCommand(lines[2]);
  EXPECT_EQ(symlink->properties["title"], "AIM010 symlink");
  EXPECT_EQ(symlink->data,
            "symlink to \"/etc/passwd\\x0a::add-mask::x\" 100%0A");
}

TEST(GitHub, Utf8PathsRoundTripExactly) {
  AuditReport report;
  report.bundles = {{"models/we,ird:\n%0A::set-env x.aimodel",
                     bundle::BundleKind::Asset,
                     std::nullopt,
                     {}}};
  report.bundles[0].findings = {
      Finding{&rules::MissingFile, Severity::Error, "line\r\nbreak", "a b"}};
  std::string out = github(report);
  llvm::SmallVector<llvm::StringRef> lines;
  llvm::StringRef(out).split(lines, '\n', -1, false);
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(out.find('\r'), std::string::npos);
  EXPECT_EQ(lines[0].find("\n"), llvm::StringRef::npos);
  std::optional<Command> command = parseCommand(lines[0]);
  ASSERT_TRUE(command);
  // The runner unescapes back to the exact file name.
  EXPECT_EQ(command->properties["file"],
            "models/we,ird:\n%0A::set-env x.aimodel/a b");
  EXPECT_EQ(command->data, "line\\x0d\\x0abreak");
}
