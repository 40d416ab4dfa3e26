#include "bundle/Bundle.h"
#include "support/PathText.h"
#include "testing/TestFiles.h"

#include <gtest/gtest.h>

#include <unistd.h>

using namespace aimodel::bundle;
using aimodel::support::printablePath;

namespace {
/// Every symlink below `dir`, sorted; the walk must meet no error.
std::vector<DirEntry>
symlinksBelow(const std::string &dir,
              llvm::function_ref<bool(const DirEntry &)> descend = nullptr) {
  std::vector<DirEntry> links;
  std::vector<WalkError> errors = forEachEntryBelow(
      dir,
      [&](const DirEntry &e) {
        if (e.type == DirEntry::Type::Symlink)
          links.push_back(e);
      },
      descend);
  EXPECT_TRUE(errors.empty());
  std::sort(links.begin(), links.end(),
            [](auto &a, auto &b) { return a.name < b.name; });
  return links;
}
} // namespace

TEST(Bundle, KindComesFromTheExtension) {
  EXPECT_EQ(assetKindFromName("a/b/X.aimodel"), BundleKind::Asset);
  EXPECT_EQ(assetKindFromName("X.h18p.aimodelc/"), BundleKind::CompiledAsset);
  EXPECT_EQ(assetKindFromName(".aimodel"), std::nullopt);
  EXPECT_EQ(assetKindFromName("X.aimodel.bak"), std::nullopt);
  EXPECT_EQ(bundleKindName(BundleKind::BundleDir), "bundle-dir");
}

TEST(Bundle, CompiledLayoutTakesTheArchFromTheName) {
  AssetLayout layout = resolveAssetLayout(BundleKind::CompiledAsset,
                                          "dir/m.fp16.h18p.aimodelc", {});
  EXPECT_EQ(layout.ir, "main-h18p.mlirb");
  EXPECT_EQ(layout.optionalMembers,
            (std::vector<std::string>{"main-h18p-delegates", "stats.json"}));
  EXPECT_EQ(resolveAssetLayout(BundleKind::Asset, "m.aimodel", {}).ir,
            "main.mlirb");
}

TEST(Bundle, CompiledLayoutWithoutArchFallsBackToTheOnlyMlirb) {
  std::vector<DirEntry> one{{"main-h17g.mlirb", DirEntry::Type::File}};
  EXPECT_EQ(resolveAssetLayout(BundleKind::CompiledAsset, "m.aimodelc", one).ir,
            "main-h17g.mlirb");
  std::vector<DirEntry> two{{"main-a.mlirb", DirEntry::Type::File},
                            {"main-b.mlirb", DirEntry::Type::File}};
  AssetLayout ambiguous =
      resolveAssetLayout(BundleKind::CompiledAsset, "m.aimodelc", two);
  EXPECT_TRUE(ambiguous.ir.empty());
  EXPECT_FALSE(ambiguous.problem.empty());
}

TEST(Bundle, ListingIsSortedAndNeverFollowsLinks) {
  aimodel::testing::ScratchDir dir;
  dir.write("b", "x");
  dir.write("a", "x");
  dir.mkdir("c/d");
  ASSERT_EQ(::symlink("..", dir.path("c/d/up").c_str()), 0);
  ASSERT_EQ(::symlink("/nonexistent", dir.path("dangling").c_str()), 0);
  llvm::Expected<std::vector<DirEntry>> entries = listDirectory(dir.root);
  ASSERT_TRUE(bool(entries));
  std::vector<std::string> names;
  for (const DirEntry &e : *entries)
    names.push_back(e.name);
  EXPECT_EQ(names, (std::vector<std::string>{"a", "b", "c", "dangling"}));
  std::vector<DirEntry> links = symlinksBelow(dir.root);
  ASSERT_EQ(links.size(), 2u);
  EXPECT_EQ(links[0].name, "c/d/up");
  EXPECT_EQ(links[0].symlinkTarget, "..");
  EXPECT_EQ(links[1].name, "dangling");
}

TEST(Bundle, SymlinkSearchSkipsFoldersTheCallerExcludes) {
  aimodel::testing::ScratchDir dir;
  dir.mkdir("keep/skip");
  ASSERT_EQ(::symlink("x", dir.path("keep/a").c_str()), 0);
  ASSERT_EQ(::symlink("x", dir.path("keep/skip/b").c_str()), 0);
  std::vector<DirEntry> links = symlinksBelow(
      dir.root, [](const DirEntry &e) { return baseName(e.name) != "skip"; });
  ASSERT_EQ(links.size(), 1u);
  EXPECT_EQ(links[0].name, "keep/a");
}

TEST(Bundle, CompiledLayoutOfANameWithoutExtensionDoesNotUnderflow) {
  AssetLayout layout =
      resolveAssetLayout(BundleKind::CompiledAsset, ".", {{"main-h18p.mlirb"}});
  EXPECT_EQ(layout.ir, "main-h18p.mlirb"); // falls back to the only mlirb
}

TEST(PathText, EscapesWhatIsNotPrintableUtf8) {
  EXPECT_EQ(printablePath("models/ok.aimodel"), "models/ok.aimodel");
  EXPECT_EQ(printablePath("caf\xc3\xa9"), "caf\xc3\xa9");
  EXPECT_EQ(printablePath("a\nb\xff\\c"), "a\\x0ab\\xff\\\\c");
  EXPECT_EQ(printablePath("\xe2\x82"), "\\xe2\\x82"); // truncated sequence
}
