#include "asset/TestFiles.h"
#include "asset/TreeWalk.h"

#include <gtest/gtest.h>

#include <unistd.h>

using namespace aimodel::asset;

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
  EXPECT_EQ(paths(*r), (std::vector<std::string>{
                           dir.root + "/a.h18p.aimodelc", dir.root + "/m",
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
