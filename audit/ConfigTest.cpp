#include "audit/Config.h"
#include "audit/GitTracked.h"

#include "testing/TestFiles.h"

#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

using namespace aimodel;
using namespace aimodel::audit;

namespace {
Finding finding(const Rule &rule, llvm::StringRef file = "") {
  Finding f;
  f.rule = &rule;
  f.severity = rule.severity;
  f.message = "m";
  f.file = file.str();
  return f;
}

std::vector<std::string> ids(const BundleReport &bundle) {
  std::vector<std::string> out;
  for (const Finding &f : bundle.findings)
    out.push_back(f.rule->id.str());
  return out;
}

std::string errorOf(llvm::StringRef text) {
  llvm::Expected<Config> config = parseConfig(text, "dir/.aimodel.json");
  if (config)
    return "(accepted)";
  return llvm::toString(config.takeError());
}
} // namespace

TEST(Config, ParsesIgnoresAndSeverities) {
  llvm::Expected<Config> config = parseConfig(
      R"({"ignore": [{"path": "legacy/*", "rules": ["AIM001", "AIM012"],
                      "reason": "frozen exports"},
                     {"path": "*", "reason": "everything"}],
          "severity": {"AIM009": "warning", "AIM001": "error"}})",
      "repo/.aimodel.json");
  ASSERT_TRUE(bool(config)) << llvm::toString(config.takeError());
  EXPECT_EQ(config->folder, "repo");
  ASSERT_EQ(config->ignore.size(), 2u);
  EXPECT_EQ(config->ignore[0].path, "legacy/*");
  EXPECT_EQ(config->ignore[0].rules,
            (std::vector<const Rule *>{&rules::MissingProducer,
                                       &rules::UnverifiedLocation}));
  EXPECT_EQ(config->ignore[0].reason, "frozen exports");
  EXPECT_TRUE(config->ignore[1].rules.empty()); // absent: every rule
  EXPECT_EQ(config->severity.at("AIM009"), Severity::Warning);
  EXPECT_EQ(config->severity.at("AIM001"), Severity::Error);

  llvm::Expected<Config> bare = parseConfig("{}", ".aimodel.json");
  ASSERT_TRUE(bool(bare));
  EXPECT_EQ(bare->folder, ".");
}

TEST(Config, InvalidConfigsAreOneLineErrorsNamingFileAndEntry) {
  const std::pair<std::string, std::string> cases[] = {
      {R"({"ignore": [{"path": "a", "reason": "r"}, {"path": "b"}]})",
       "dir/.aimodel.json: ignore[1]: needs a non-empty \"reason\""},
      {R"({"ignore": [{"path": "a", "reason": " \t"}]})",
       "ignore[0]: needs a non-empty \"reason\""},
      {R"({"ignore": [{"path": "a", "reason": 3}]})",
       "ignore[0]: needs a non-empty \"reason\""},
      {R"({"ignore": [{"reason": "r"}]})", "ignore[0]: needs \"path\""},
      {R"({"ignore": [{"path": "", "reason": "r"}]})",
       "ignore[0]: needs \"path\""},
      {R"({"ignore": [{"path": "[", "reason": "r"}]})",
       "ignore[0]: \"path\" \"[\" is not a valid glob"},
      {R"({"ignore": [{"path": "a", "rules": ["AIM999"], "reason": "r"}]})",
       "ignore[0]: unknown rule \"AIM999\""},
      {R"({"ignore": [{"path": "a", "rules": ["aim001"], "reason": "r"}]})",
       "ignore[0]: unknown rule \"aim001\""},
      {R"({"ignore": [{"path": "a", "rules": [], "reason": "r"}]})",
       "ignore[0]: \"rules\" must be a non-empty array"},
      {R"({"ignore": [{"path": "a", "rules": "AIM001", "reason": "r"}]})",
       "ignore[0]: \"rules\" must be a non-empty array"},
      {R"({"ignore": [{"path": "a", "rule": ["AIM001"], "reason": "r"}]})",
       "ignore[0]: unknown key \"rule\""},
      {R"({"ignore": ["legacy/*"]})", "ignore[0]: is a JSON string"},
      {R"({"ignore": {"path": "a"}})", "\"ignore\" must be an array"},
      {R"({"ignores": []})", "dir/.aimodel.json: unknown key \"ignores\""},
      {R"({"severity": {"AIM999": "info"}})",
       "severity: unknown rule \"AIM999\""},
      {R"({"severity": {"AIM009": "fatal"}})",
       "severity.AIM009: unknown severity \"fatal\""},
      {R"({"severity": {"AIM009": 1}})", "severity.AIM009: unknown severity"},
      {R"({"severity": ["AIM009"]})", "\"severity\" must be an object"},
      {R"({"severity": {}, "severity": {}})", "\"severity\" more than once"},
      {R"({"severity": {"AIM009": "info", "AIM009": "error"}})",
       "\"AIM009\" more than once"},
      {R"({"ignore": [{"path": "a", "path": "b", "reason": "r"}]})",
       "\"path\" more than once"},
      {R"({} x)", "is not valid JSON at byte"},
      {R"({"ignore": [})", "is not valid JSON at byte"},
      {std::string("{}\0{}", 5), "trailing bytes after the JSON document"},
      {"[]", "is a JSON array, not an object"},
  };
  for (const auto &[text, expected] : cases) {
    std::string error = errorOf(text);
    EXPECT_NE(error.find(expected), std::string::npos)
        << text << "\n  gave: " << error;
    EXPECT_EQ(error.find('\n'), std::string::npos) << error;
    EXPECT_EQ(error.rfind("dir/.aimodel.json: ", 0), 0u) << error;
  }
}

TEST(Config, LoadNamesTheFileOnErrors) {
  aimodel::testing::ScratchDir dir;
  llvm::Expected<Config> missing = loadConfig(dir.path("nope.json"));
  ASSERT_FALSE(bool(missing));
  std::string error = llvm::toString(missing.takeError());
  EXPECT_NE(error.find(dir.path("nope.json") + ": "), std::string::npos)
      << error;
  EXPECT_NE(error.find("no such file"), std::string::npos) << error;

  dir.mkdir("adir.json");
  llvm::Expected<Config> folder = loadConfig(dir.path("adir.json"));
  ASSERT_FALSE(bool(folder));
  EXPECT_NE(llvm::toString(folder.takeError()).find(dir.path("adir.json")),
            std::string::npos);

  std::string file =
      dir.write("c.json", R"({"severity": {"AIM009": "error"}})");
  llvm::Expected<Config> loaded = loadConfig(file);
  ASSERT_TRUE(bool(loaded)) << llvm::toString(loaded.takeError());
  EXPECT_EQ(loaded->file, file);
  EXPECT_EQ(loaded->folder, dir.root);
}

TEST(Config, FindWalksUpToTheNearestConfig) {
  aimodel::testing::ScratchDir dir;
  dir.mkdir("repo/.git");
  dir.write("repo/.aimodel.json", "{}");
  dir.write("repo/a/.aimodel.json", R"({"severity": {"AIM009": "error"}})");
  dir.mkdir("repo/a/b/c");
  dir.mkdir("repo/z");

  llvm::Expected<std::optional<Config>> nearest =
      findConfig(dir.path("repo/a/b/c"));
  ASSERT_TRUE(bool(nearest)) << llvm::toString(nearest.takeError());
  ASSERT_TRUE(nearest->has_value());
  EXPECT_EQ((*nearest)->file, dir.path("repo/a/.aimodel.json"));
  EXPECT_EQ((*nearest)->folder, dir.path("repo/a"));

  // The folder holding .git is still checked, then the search stops.
  llvm::Expected<std::optional<Config>> top = findConfig(dir.path("repo/z/"));
  ASSERT_TRUE(bool(top));
  ASSERT_TRUE(top->has_value());
  EXPECT_EQ((*top)->file, dir.path("repo/.aimodel.json"));
}

TEST(Config, FindStopsAtTheRepositoryRoot) {
  aimodel::testing::ScratchDir dir;
  dir.write(".aimodel.json", "{}"); // outside the repository: not used
  dir.mkdir("repo/.git");
  dir.mkdir("repo/sub");
  dir.write("worktree/.git", "gitdir: elsewhere\n"); // a .git file stops too
  dir.mkdir("worktree/sub");
  for (const char *cwd : {"repo/sub", "worktree/sub", "repo"}) {
    llvm::Expected<std::optional<Config>> found = findConfig(dir.path(cwd));
    ASSERT_TRUE(bool(found)) << llvm::toString(found.takeError());
    EXPECT_FALSE(found->has_value()) << cwd;
  }
  // Without a repository only the working directory's own config counts:
  // a config planted above (a CI build folder under /tmp) is not used.
  dir.mkdir("plain/sub");
  llvm::Expected<std::optional<Config>> found =
      findConfig(dir.path("plain/sub"));
  ASSERT_TRUE(bool(found));
  EXPECT_FALSE(found->has_value());
  llvm::Expected<std::optional<Config>> here = findConfig(dir.root);
  ASSERT_TRUE(bool(here));
  ASSERT_TRUE(here->has_value());
  EXPECT_EQ((*here)->file, dir.path(".aimodel.json"));
}

TEST(Config, FindNeverLooksAboveTheHomeDirectory) {
  aimodel::testing::ScratchDir dir;
  dir.mkdir(".git"); // a repository holding home directories
  dir.write(".aimodel.json", R"({"ignore": [{"path": "*", "reason": "r"}]})");
  dir.mkdir("home/alice/project/sub");
  llvm::Expected<std::optional<Config>> found =
      findConfig(dir.path("home/alice/project/sub"), dir.path("home/alice"));
  ASSERT_TRUE(bool(found)) << llvm::toString(found.takeError());
  EXPECT_FALSE(found->has_value());
  // Without the home boundary the repository's root config is found.
  llvm::Expected<std::optional<Config>> unbounded =
      findConfig(dir.path("home/alice/project/sub"));
  ASSERT_TRUE(bool(unbounded));
  EXPECT_TRUE(unbounded->has_value());
}

TEST(Config, TheHomeLimitIsTheFolderNotItsSpelling) {
  // HOME spelt through a symlink (or the working directory through one)
  // still stops the search at the home folder itself.
  aimodel::testing::ScratchDir dir;
  dir.mkdir(".git");
  dir.write(".aimodel.json", R"({"ignore": [{"path": "*", "reason": "r"}]})");
  dir.mkdir("home/alice/project");
  ASSERT_EQ(::symlink(dir.path("home").c_str(), dir.path("via").c_str()), 0);
  for (auto [cwd, home] :
       {std::pair{dir.path("home/alice/project"), dir.path("via/alice")},
        std::pair{dir.path("via/alice/project"), dir.path("home/alice")}}) {
    llvm::Expected<std::optional<Config>> found = findConfig(cwd, home);
    ASSERT_TRUE(bool(found)) << llvm::toString(found.takeError());
    EXPECT_FALSE(found->has_value()) << cwd << " with HOME " << home;
  }
}

TEST(Config, AFoundConfigIsNeverASymlink) {
  // A link planted in the repository could lead to any config on the
  // machine: a found one is opened without following it (a named one,
  // --config, is the user's choice).
  aimodel::testing::ScratchDir dir;
  dir.mkdir("repo/.git");
  std::string elsewhere = dir.write(
      "elsewhere.json", R"({"ignore": [{"path": "*", "reason": "r"}]})");
  ASSERT_EQ(
      ::symlink(elsewhere.c_str(), dir.path("repo/.aimodel.json").c_str()), 0);
  llvm::Expected<std::optional<Config>> found = findConfig(dir.path("repo"));
  ASSERT_FALSE(bool(found));
  EXPECT_NE(llvm::toString(found.takeError()).find("symlink"),
            std::string::npos);
  EXPECT_TRUE(bool(loadConfig(dir.path("repo/.aimodel.json"))));
}

TEST(Config, AFolderAnyoneMayWriteIsNeverTrusted) {
  // Whoever owns it (root here, or the user): anyone could have put the
  // config there. Sticky folders (/tmp) are fine.
  aimodel::testing::ScratchDir dir;
  dir.mkdir("open/.git");
  std::string file = dir.write("open/.aimodel.json",
                               R"({"ignore": [{"path": "*", "reason": "r"}]})");
  ASSERT_EQ(::chmod(dir.path("open").c_str(), 0777), 0);
  llvm::Expected<Config> open = loadConfig(file);
  ASSERT_FALSE(bool(open));
  std::string error = llvm::toString(open.takeError());
  EXPECT_NE(error.find("writable by anyone (mode 0777)"), std::string::npos)
      << error;
  ASSERT_EQ(::chmod(dir.path("open").c_str(), 01777), 0);
  EXPECT_TRUE(bool(loadConfig(file)));
  ASSERT_EQ(::chmod(dir.path("open").c_str(), 0755), 0);
}

TEST(Config, UntrustedConfigsAreRefusedNamingTheFile) {
  aimodel::testing::ScratchDir dir;
  dir.mkdir("repo/.git");
  std::string file =
      dir.write("repo/.aimodel.json",
                R"({"ignore": [{"path": "*", "reason": "planted"}]})");
  ASSERT_EQ(::chmod(file.c_str(), 0666), 0);
  llvm::Expected<std::optional<Config>> open = findConfig(dir.path("repo"));
  ASSERT_FALSE(bool(open));
  std::string error = llvm::toString(open.takeError());
  EXPECT_EQ(error.rfind(file + ": refused: writable by anyone (mode 0666)", 0),
            0u)
      << error;
  ASSERT_EQ(::chmod(file.c_str(), 0644), 0);
  EXPECT_TRUE(bool(loadConfig(file)));
  if (::geteuid() != 0)
    GTEST_SKIP() << "chown to another user or group needs root";
  // Group-writable, the group shared with another account (nogroup is
  // nobody's): refused. In the owner's private group (root's, as a clone
  // under umask 002 makes it): accepted.
  ASSERT_EQ(::chown(file.c_str(), 0, 65534), 0);
  ASSERT_EQ(::chmod(file.c_str(), 0664), 0);
  llvm::Expected<Config> group = loadConfig(file);
  ASSERT_FALSE(bool(group));
  std::string groupError = llvm::toString(group.takeError());
  EXPECT_NE(groupError.find("writable by its group, which has other members "
                            "(mode 0664), and not as committed in git; a "
                            "config decides what the audit reports (chmod "
                            "g-w "),
            std::string::npos)
      << groupError;
  ASSERT_EQ(::chown(file.c_str(), 0, 0), 0);
  EXPECT_TRUE(bool(loadConfig(file))) << "umask 002, private group";
  ASSERT_EQ(::chmod(file.c_str(), 0644), 0);
  EXPECT_TRUE(bool(loadConfig(file)));
  ASSERT_EQ(::chown(file.c_str(), 65534, 65534), 0);
  llvm::Expected<std::optional<Config>> foreign = findConfig(dir.path("repo"));
  ASSERT_FALSE(bool(foreign));
  error = llvm::toString(foreign.takeError());
  EXPECT_NE(error.find("refused: owned by uid 65534"), std::string::npos)
      << error;
}

TEST(Config, AFolderAnotherUserOwnsIsNotTrusted) {
  if (::geteuid() != 0)
    GTEST_SKIP() << "chown to another user needs root";
  // Root's config, mode 0644, in a folder nobody owns (mode 0755): nobody
  // may rename another root-owned file in. The same for any folder above
  // it up to the repository's root.
  aimodel::testing::ScratchDir dir;
  dir.mkdir("repo/.git");
  dir.mkdir("repo/models/team");
  std::string file = dir.write("repo/models/.aimodel.json",
                               R"({"stale_compiler_floor": "coreai-build-0"})");
  ASSERT_TRUE(bool(findConfig(dir.path("repo/models/team"))));
  ASSERT_EQ(::chown(dir.path("repo/models").c_str(), 65534, 65534), 0);
  llvm::Expected<std::optional<Config>> owned =
      findConfig(dir.path("repo/models/team"));
  ASSERT_FALSE(bool(owned));
  std::string error = llvm::toString(owned.takeError());
  EXPECT_NE(error.find("refused: the folder " + dir.path("repo/models") +
                       " is owned by uid 65534"),
            std::string::npos)
      << error;
  EXPECT_FALSE(bool(loadConfig(file))); // named, too
  ASSERT_EQ(::chown(dir.path("repo/models").c_str(), 0, 0), 0);
  ASSERT_EQ(::chown(dir.path("repo").c_str(), 65534, 65534), 0);
  llvm::Expected<std::optional<Config>> above =
      findConfig(dir.path("repo/models/team"));
  ASSERT_FALSE(bool(above));
  error = llvm::toString(above.takeError());
  EXPECT_NE(
      error.find("the folder " + dir.path("repo") + " is owned by uid 65534"),
      std::string::npos)
      << error;
  ASSERT_EQ(::chown(dir.path("repo").c_str(), 0, 0), 0);
  EXPECT_TRUE(bool(findConfig(dir.path("repo/models/team"))));
}

TEST(Config, GlobsThatCanNeverMatchAreWarnedAbout) {
  llvm::Expected<Config> config = parseConfig(
      R"({"ignore": [{"path": "/abs/x.aimodel", "reason": "r"},
                     {"path": "./legacy/*", "reason": "r"},
                     {"path": "legacy//*", "reason": "r"},
                     {"path": "legacy/*", "reason": "r"}]})",
      "c/.aimodel.json");
  ASSERT_TRUE(bool(config)) << llvm::toString(config.takeError());
  std::vector<std::string> warnings = configWarnings(*config);
  ASSERT_EQ(warnings.size(), 3u);
  EXPECT_EQ(warnings[0].rfind("c/.aimodel.json: ignore[0]: \"path\" "
                              "\"/abs/x.aimodel\" is absolute",
                              0),
            0u)
      << warnings[0];
  EXPECT_NE(warnings[1].find("ignore[1]"), std::string::npos);
  EXPECT_NE(warnings[2].find("ignore[2]"), std::string::npos);
}

TEST(Config, AReasonOfInvisibleCharactersIsNoReason) {
  for (const char *blank :
       {"\u00a0", "\u200b", "\u200b\u00a0 ", "\u3000", "\ufeff", "\u00ad",
        "\u034f", "\u115f", "\u2061", "\u2800", "\u3164", "\ufe0f", "\uffa0"}) {
    std::string text = std::string(R"({"ignore": [{"path": "a", "reason": ")") +
                       blank + "\"}]}";
    EXPECT_EQ(errorOf(text).find("needs a non-empty \"reason\""),
              std::string("dir/.aimodel.json: ignore[0]: ").size())
        << text;
  }
  EXPECT_EQ(errorOf(R"({"ignore": [{"path": "a", "reason": "\u00a0ok"}]})"),
            "(accepted)");
}

TEST(Config, FoundButInvalidIsAnError) {
  aimodel::testing::ScratchDir dir;
  dir.mkdir("repo/.git");
  dir.write("repo/.aimodel.json", R"({"ignore": [{"path": "*"}]})");
  llvm::Expected<std::optional<Config>> found = findConfig(dir.path("repo"));
  ASSERT_FALSE(bool(found));
  EXPECT_EQ(llvm::toString(found.takeError()),
            dir.path("repo/.aimodel.json") +
                ": ignore[0]: needs a non-empty \"reason\" (why these "
                "findings are accepted)");
  // A config that is a folder is not silently skipped either.
  dir.mkdir("other/.git");
  dir.mkdir("other/.aimodel.json");
  llvm::Expected<std::optional<Config>> folder = findConfig(dir.path("other"));
  ASSERT_FALSE(bool(folder));
  EXPECT_NE(llvm::toString(folder.takeError())
                .find(dir.path("other/.aimodel.json") + ": "),
            std::string::npos);
}

TEST(Config, MatchPathIsRelativeToTheConfigFolder) {
  Config config;
  config.folder = "/r";
  EXPECT_EQ(configMatchPath(config, "x.aimodel", "/r/sub"), "sub/x.aimodel");
  EXPECT_EQ(configMatchPath(config, "../legacy/y.aimodel", "/r/sub"),
            "legacy/y.aimodel");
  EXPECT_EQ(configMatchPath(config, "./legacy/./a//b.aimodel", "/r"),
            "legacy/a/b.aimodel");
  EXPECT_EQ(configMatchPath(config, "/r/legacy/z.aimodel", "/elsewhere"),
            "legacy/z.aimodel");
  EXPECT_EQ(configMatchPath(config, ".", "/r"), ".");
  // Outside the folder: as reported.
  EXPECT_EQ(configMatchPath(config, "/rr/q.aimodel", "/r"), "/rr/q.aimodel");
  EXPECT_EQ(configMatchPath(config, "../../o/q.aimodel", "/r/sub"),
            "../../o/q.aimodel");
  // A config folder given relative to the working directory.
  config.folder = "cfg";
  EXPECT_EQ(configMatchPath(config, "cfg/m/x.aimodel", "/w"), "m/x.aimodel");
  config.folder = "/";
  EXPECT_EQ(configMatchPath(config, "x.aimodel", "/w"), "w/x.aimodel");
}

TEST(Config, ApplyDropsIgnoredFindingsAndOverridesSeverities) {
  llvm::Expected<Config> config = parseConfig(
      R"({"ignore": [{"path": "legacy/*", "rules": ["AIM001", "AIM012"],
                      "reason": "frozen"},
                     {"path": "{vendor,third_party}/*.aimodelc",
                      "reason": "not ours"}],
          "severity": {"AIM009": "warning"}})",
      "/repo/.aimodel.json");
  ASSERT_TRUE(bool(config)) << llvm::toString(config.takeError());

  AuditReport report;
  auto add = [&](std::string path, std::vector<Finding> findings) {
    BundleReport bundle;
    bundle.path = std::move(path);
    bundle.kind = bundle::BundleKind::Asset;
    bundle.findings = std::move(findings);
    report.bundles.push_back(std::move(bundle));
  };
  add("legacy/deep/a.aimodel", // `*` crosses '/'
      {finding(rules::MissingProducer), finding(rules::UnexpectedFile, "x"),
       finding(rules::UnverifiedLocation)});
  add("new/b.aimodel",
      {finding(rules::MissingProducer), finding(rules::HashMismatch),
       finding(rules::UnexpectedFile, "y")});
  add("vendor/c.h18p.aimodelc",
      {finding(rules::HashMismatch), finding(rules::UnexpectedFile)});
  add("vendor/d.aimodel", {finding(rules::HashMismatch)});

  ConfigEffect effect = applyConfig(*config, report, "/repo");
  EXPECT_EQ(effect.suppressedByConfig, 4u);
  EXPECT_EQ(ids(report.bundles[0]), std::vector<std::string>{"AIM009"});
  EXPECT_EQ(report.bundles[0].findings[0].severity, Severity::Warning);
  EXPECT_EQ(ids(report.bundles[1]),
            (std::vector<std::string>{"AIM001", "AIM003", "AIM009"}));
  EXPECT_TRUE(report.bundles[2].findings.empty());
  EXPECT_EQ(ids(report.bundles[3]), std::vector<std::string>{"AIM003"});
  EXPECT_EQ(report.countBySeverity[static_cast<int>(Severity::Error)], 2u);
  EXPECT_EQ(report.countBySeverity[static_cast<int>(Severity::Warning)], 3u);
  EXPECT_EQ(report.countBySeverity[static_cast<int>(Severity::Info)], 0u);
}

TEST(Config, ApplyMatchesFromAnotherWorkingDirectory) {
  llvm::Expected<Config> config =
      parseConfig(R"({"ignore": [{"path": "legacy/*", "reason": "frozen"}]})",
                  "/repo/.aimodel.json");
  ASSERT_TRUE(bool(config));
  AuditReport report;
  for (const char *path : {"../legacy/a.aimodel", "legacy/a.aimodel"}) {
    BundleReport bundle;
    bundle.path = path;
    bundle.kind = bundle::BundleKind::Asset;
    bundle.findings = {finding(rules::MissingProducer)};
    report.bundles.push_back(std::move(bundle));
  }
  // From /repo/models, "../legacy" is /repo/legacy; "legacy" is not.
  EXPECT_EQ(applyConfig(*config, report, "/repo/models").suppressedByConfig,
            1u);
  EXPECT_TRUE(report.bundles[0].findings.empty());
  EXPECT_EQ(report.bundles[1].findings.size(), 1u);
  EXPECT_EQ(report.countBySeverity[static_cast<int>(Severity::Warning)], 1u);
}

TEST(Config, GitBlobIdsAreGitsOwn) {
  // `printf '{}\n' | git hash-object --stdin`, and with
  // --object-format=sha256 (`git hash-object -t blob`).
  EXPECT_EQ(gitBlobId("{}\n", 40), "0967ef424bce6791893e9a57bb952f80fd536e93");
  EXPECT_EQ(gitBlobId("{}\n", 64),
            "d31a3bcab1e8ff3781c5035c6c06b1df01708614b4b5b102e8a1a2429d092ac7");
  EXPECT_EQ(gitBlobId("{}\n", 12), "");
}
