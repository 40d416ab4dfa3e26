#include "bundle/TreeWalk.h"
#include "bundle/FileTestSupport.h"
#include "testing/TestFiles.h"

#include <gtest/gtest.h>

#include <climits>
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

using namespace aimodel::bundle;

static std::vector<std::string> paths(const WalkResult &r) {
  std::vector<std::string> out;
  for (const FoundBundle &b : r.bundles)
    out.push_back(b.path);
  return out;
}

TEST(TreeWalk, FindsBundlesSortedAndDoesNotSearchInsideAssets) {
  aimodel::testing::ScratchDir dir;
  dir.mkdir("z/b.aimodel/nested.aimodel");
  dir.mkdir("a.h18p.aimodelc");
  dir.write("m/metadata.json", "{\"metadata_version\": \"0.2\"}");
  dir.mkdir("m/x.aimodel");
  dir.write("plain/metadata.json", "{\"assetVersion\": \"2.0\"}");
  llvm::Expected<WalkResult> r = findBundles({dir.root + "/"});
  ASSERT_TRUE(bool(r));
  EXPECT_EQ(paths(*r), (std::vector<std::string>{dir.root + "/a.h18p.aimodelc",
                                                 dir.root + "/m",
                                                 dir.root + "/m/x.aimodel",
                                                 dir.root + "/z/b.aimodel"}));
  EXPECT_EQ(r->bundles[1].kind, BundleKind::BundleDir);
  EXPECT_TRUE(r->errors.empty());
}

TEST(TreeWalk, SymlinkLoopsDoNotHangAndLinkedBundlesAreReported) {
  aimodel::testing::ScratchDir dir;
  dir.mkdir("real.aimodel");
  ASSERT_EQ(::symlink(".", dir.path("loop").c_str()), 0);
  ASSERT_EQ(::symlink("real.aimodel", dir.path("alias.aimodel").c_str()), 0);
  llvm::Expected<WalkResult> r = findBundles({dir.root});
  ASSERT_TRUE(bool(r));
  ASSERT_EQ(r->bundles.size(), 2u);
  EXPECT_EQ(r->bundles[0].entryType, DirEntry::Type::Symlink);
  EXPECT_EQ(r->bundles[0].symlinkTarget, "real.aimodel");
}

TEST(TreeWalk, BadRootsAreInputErrors) {
  aimodel::testing::ScratchDir dir;
  std::string file = dir.write("notes.txt", "x");
  llvm::Expected<WalkResult> missing = findBundles({dir.path("nope")});
  ASSERT_FALSE(bool(missing));
  EXPECT_NE(llvm::toString(missing.takeError()).find("no such file"),
            std::string::npos);
  llvm::Expected<WalkResult> plain = findBundles({file});
  ASSERT_FALSE(bool(plain));
  EXPECT_NE(llvm::toString(plain.takeError()).find("is a file"),
            std::string::npos);
  // A file named like a bundle is a bundle (with a finding), not an error.
  std::string fake = dir.write("fake.aimodel", "x");
  llvm::Expected<WalkResult> named = findBundles({fake});
  ASSERT_TRUE(bool(named));
  EXPECT_EQ(named->bundles.at(0).entryType, DirEntry::Type::File);
}

TEST(TreeWalk, UnparsableMetadataInAPlainFolderDoesNotStopTheWalk) {
  aimodel::testing::ScratchDir dir;
  // nlohmann throws out_of_range (not parse_error) for this number.
  dir.write("plain/metadata.json", "{\"a\": 1e400}");
  dir.mkdir("plain/x.aimodel");
  llvm::Expected<WalkResult> r = findBundles({dir.root});
  ASSERT_TRUE(bool(r));
  EXPECT_EQ(paths(*r), (std::vector<std::string>{dir.path("plain"),
                                                 dir.path("plain/x.aimodel")}));
  EXPECT_EQ(r->bundles[0].kind, BundleKind::BundleDir); // holds an asset
}

TEST(TreeWalk, SameBundleNamedAndWalkedIsReportedAsWalkedInAnyOrder) {
  aimodel::testing::ScratchDir dir;
  dir.mkdir("real/x.aimodel");
  dir.mkdir("sub");
  ASSERT_EQ(::symlink("../real/x.aimodel", dir.path("sub/y.aimodel").c_str()),
            0);
  for (auto roots :
       {std::vector<std::string>{dir.path("sub"), dir.path("sub/y.aimodel")},
        std::vector<std::string>{dir.path("sub/y.aimodel"), dir.path("sub")}}) {
    llvm::Expected<WalkResult> r = findBundles(roots);
    ASSERT_TRUE(bool(r));
    ASSERT_EQ(r->bundles.size(), 1u);
    EXPECT_EQ(r->bundles[0].path, dir.path("sub/y.aimodel"));
    EXPECT_EQ(r->bundles[0].entryType, DirEntry::Type::Symlink);
    EXPECT_EQ(r->bundles[0].symlinkTarget, "../real/x.aimodel");
  }
  // Named alone, the link is followed.
  llvm::Expected<WalkResult> alone = findBundles({dir.path("sub/y.aimodel")});
  ASSERT_TRUE(bool(alone));
  EXPECT_EQ(alone->bundles.at(0).entryType, DirEntry::Type::Directory);
}

TEST(TreeWalk, RootsNamedDotAreClassifiedByWhatTheyLeadTo) {
  aimodel::testing::ScratchDir dir;
  dir.mkdir("m.h18p.aimodelc/main-h18p-delegates");
  dir.mkdir("folder");
  ASSERT_EQ(::symlink("m.h18p.aimodelc", dir.path("link").c_str()), 0);
  for (const char *root : {"m.h18p.aimodelc/.", "m.h18p.aimodelc/./",
                           "m.h18p.aimodelc/main-h18p-delegates/..", "link"}) {
    llvm::Expected<WalkResult> r = findBundles({dir.path(root)});
    ASSERT_TRUE(bool(r)) << root;
    ASSERT_EQ(r->bundles.size(), 1u) << root;
    EXPECT_EQ(r->bundles[0].kind, BundleKind::CompiledAsset) << root;
    EXPECT_EQ(r->bundles[0].kindName(), "m.h18p.aimodelc") << root;
    EXPECT_EQ(r->bundles[0].path,
              llvm::StringRef(dir.path(root)).rtrim('/').str());
  }
  // "." of an ordinary folder is still searched.
  llvm::Expected<WalkResult> plain = findBundles({dir.path("folder/.")});
  ASSERT_TRUE(bool(plain));
  EXPECT_TRUE(plain->bundles.empty());
}

TEST(TreeWalk, BundlesPastPathMaxAreFoundAndKeepTheirType) {
  aimodel::testing::ScratchDir dir;
  aimodel::testing::DeepCleanup cleanup{dir.root}; // runs before ~ScratchDir
  int rootFd = ::open(dir.root.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  ASSERT_GE(rootFd, 0);
  // Nest 250-byte names until one more would reach PATH_MAX: `deep` can
  // still be opened by path, "deep/<name>" cannot.
  const std::string name(250, 'd');
  std::string deep = dir.root;
  int fd = rootFd;
  while (deep.size() + 1 + name.size() < PATH_MAX) {
    ASSERT_EQ(::mkdirat(fd, name.c_str(), 0755), 0);
    int next = ::openat(fd, name.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    ::close(fd);
    ASSERT_GE(next, 0);
    fd = next;
    deep += "/" + name;
  }
  ASSERT_EQ(::mkdirat(fd, name.c_str(), 0755), 0);
  ASSERT_EQ(::symlinkat("elsewhere", fd, (name + ".link").c_str()), 0);
  int sub = ::openat(fd, name.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  ::close(fd);
  ASSERT_GE(sub, 0);
  ASSERT_EQ(::mkdirat(sub, "x.aimodel", 0755), 0);
  ::close(sub);

  llvm::Expected<std::vector<DirEntry>> entries = listDirectory(deep);
  ASSERT_TRUE(bool(entries)) << llvm::toString(entries.takeError());
  ASSERT_EQ(entries->size(), 2u);
  EXPECT_EQ((*entries)[0].type, DirEntry::Type::Directory);
  EXPECT_EQ((*entries)[1].type, DirEntry::Type::Symlink);
  EXPECT_EQ((*entries)[1].symlinkTarget, "elsewhere");

  // Folders open relative to their parent: depth and length never matter.
  llvm::Expected<WalkResult> r = findBundles({dir.root});
  ASSERT_TRUE(bool(r));
  EXPECT_TRUE(r->errors.empty());
  EXPECT_EQ(paths(*r),
            std::vector<std::string>{deep + "/" + name + "/x.aimodel"});
}

TEST(TreeWalk, UnreadableFoldersAreErrorsNamingThem) {
  aimodel::testing::ScratchDir dir;
  dir.mkdir("a/locked/x.aimodel");
  dir.mkdir("a/listonly/y.aimodel");
  aimodel::testing::shareWithNobody(dir.root);
  ASSERT_EQ(::chmod(dir.path("a/locked").c_str(), 0), 0);
  // Names readable, entries not examinable: as unreadable as the other.
  ASSERT_EQ(::chmod(dir.path("a/listonly").c_str(), 0444), 0);
  EXPECT_EQ(aimodel::testing::runAsNobody([&]() -> std::string {
              llvm::Expected<WalkResult> r = findBundles({dir.root});
              if (!r)
                return llvm::toString(r.takeError());
              std::string got;
              for (const std::string &e : r->errors)
                got += e + "\n";
              std::string want =
                  dir.path("a/listonly") +
                  ": cannot read directory: permission denied\n" +
                  dir.path("a/locked") +
                  ": cannot read directory: permission denied\n";
              return got == want && r->bundles.empty() ? "" : got;
            }),
            "");
}

TEST(TreeWalk, OneBundleUnderTwoSpellingsIsReportedOnceAsFirstGiven) {
  aimodel::testing::ScratchDir dir;
  dir.mkdir("d/x.aimodel");
  dir.write("d/b/metadata.json", R"({"metadata_version": "0.2"})");
  llvm::Expected<WalkResult> twice =
      findBundles({dir.path("d"), dir.root + "/./d"});
  ASSERT_TRUE(bool(twice));
  EXPECT_EQ(paths(*twice), (std::vector<std::string>{dir.path("d/b"),
                                                     dir.path("d/x.aimodel")}));
  for (auto roots :
       {std::vector<std::string>{dir.root + "/./d/x.aimodel", dir.path("d")},
        std::vector<std::string>{dir.path("d"), dir.root + "/./d/x.aimodel"}}) {
    llvm::Expected<WalkResult> r = findBundles(roots);
    ASSERT_TRUE(bool(r));
    std::string first =
        roots[0] == dir.path("d") ? dir.path("d/x.aimodel") : roots[0];
    EXPECT_EQ(paths(*r),
              (std::vector<std::string>{std::min(first, dir.path("d/b")),
                                        std::max(first, dir.path("d/b"))}));
  }
}
