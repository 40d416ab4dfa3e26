#include "bundle/PreCommit.h"
#include "testing/TestFiles.h"

#include <gtest/gtest.h>

#include <climits>
#include <unistd.h>

using namespace aimodel::bundle;
using Strings = std::vector<std::string>;

namespace {
/// A tree with assets, a bundle folder and plain folders.
struct Tree : aimodel::testing::ScratchDir {
  Tree() {
    write("models/a.aimodel/metadata.json", "{}");
    write("models/a.aimodel/main.mlirb", "x");
    mkdir("models/b.h18p.aimodelc");
    write("pkg/metadata.json", R"({"metadata_version": "0.2"})");
    write("pkg/x.aimodel/main.mlirb", "x");
    write("pkg/README.md", "");
    write("pkg/sub/notes.txt", "");
    write("pkg/inner/metadata.json", R"({"metadata_version": "0.2"})");
    write("docs/readme.md", "");
    write("docs/metadata.json", R"({"assetVersion": "2.0"})");
  }
};

/// Runs the test body from another working directory, then returns.
class InDirectory {
public:
  explicit InDirectory(const std::string &dir) {
    char buffer[PATH_MAX];
    EXPECT_NE(::getcwd(buffer, sizeof buffer), nullptr);
    previous = buffer;
    EXPECT_EQ(::chdir(dir.c_str()), 0) << dir;
  }
  ~InDirectory() { EXPECT_EQ(::chdir(previous.c_str()), 0); }

private:
  std::string previous;
};
} // namespace

TEST(PreCommit, FilesMapToTheirAssetsLexicallyOncePerAsset) {
  Tree tree;
  Strings ignored;
  Strings bundles = bundlesForFiles(
      {tree.path("models/a.aimodel/main.mlirb"),
       tree.path("models/a.aimodel/deleted.hash"),    // gone: still the asset's
       tree.path("models/a.aimodel/inner.aimodel/f"), // outermost asset
       tree.path("models/b.h18p.aimodelc/main.hash"),
       tree.path("pkg/x.aimodel/main.mlirb")},
      ignored);
  EXPECT_EQ(bundles, (Strings{tree.path("models/a.aimodel"),
                              tree.path("models/b.h18p.aimodelc"),
                              tree.path("pkg/x.aimodel")}));
  EXPECT_TRUE(ignored.empty());
}

TEST(PreCommit, OtherFilesMapToTheNearestBundleFolder) {
  Tree tree;
  Strings ignored;
  Strings bundles = bundlesForFiles(
      {tree.path("pkg/README.md"), tree.path("pkg/metadata.json"),
       tree.path("pkg/sub/notes.txt"),
       tree.path("pkg/sub/gone/deleted.txt"), // nearest existing folder
       tree.path("pkg/inner/metadata.json"),  // nested bundle folder
       tree.path("pkg/y.aimodel/main.mlirb"), // a deleted asset of pkg
       tree.path("pkg/sub")},                 // a folder stands for itself
      ignored);
  EXPECT_EQ(bundles, (Strings{tree.path("pkg"), tree.path("pkg/inner")}));
  EXPECT_TRUE(ignored.empty());
}

TEST(PreCommit, DotDotIsResolvedBeforeTheAssetIsChosen) {
  Tree tree;
  InDirectory in(tree.root);
  Strings ignored;
  // Into b, back out, into a: the file is a's. ".." above the start stays.
  EXPECT_EQ(bundlesForFiles({"models/b.h18p.aimodelc/../a.aimodel/x",
                             "pkg/x.aimodel/sub/../../README.md"},
                            ignored),
            (Strings{"models/a.aimodel", "pkg"}));
  EXPECT_TRUE(ignored.empty());
}

TEST(PreCommit, FilesInNoBundleAreIgnoredInOrder) {
  Tree tree;
  Strings ignored;
  Strings bundles = bundlesForFiles(
      {tree.path("docs/readme.md"),
       tree.path("models/gone.aimodel/main.mlirb"), // whole asset deleted
       tree.path("docs/metadata.json"), // an asset's metadata, no folder's
       "", tree.path("nowhere/at/all")},
      ignored);
  EXPECT_TRUE(bundles.empty());
  EXPECT_EQ(ignored, (Strings{tree.path("docs/readme.md"),
                              tree.path("models/gone.aimodel/main.mlirb"),
                              tree.path("docs/metadata.json"), "",
                              tree.path("nowhere/at/all")}));
}

TEST(PreCommit, RelativePathsKeepTheirSpelling) {
  Tree tree;
  InDirectory in(tree.root);
  Strings ignored;
  Strings bundles = bundlesForFiles(
      {"models/a.aimodel/main.mlirb", "./models/a.aimodel/metadata.json",
       "models//b.h18p.aimodelc/x", "models/a.aimodel/", "./pkg/README.md",
       "pkg/sub/notes.txt", "docs/readme.md"},
      ignored);
  EXPECT_EQ(bundles,
            (Strings{"./models/a.aimodel", "./pkg", "models//b.h18p.aimodelc",
                     "models/a.aimodel", "pkg"}));
  EXPECT_EQ(ignored, Strings{"docs/readme.md"});
}

TEST(PreCommit, TheWorkingDirectoryCanBeTheBundleFolder) {
  aimodel::testing::ScratchDir dir;
  dir.write("metadata.json", R"({"metadata_version": "0.2"})");
  dir.write("sub/notes.txt", "");
  dir.write("other/.keep", "");
  InDirectory in(dir.path("other"));
  Strings ignored;
  // ".." is above the working directory: reached only when spelt.
  EXPECT_EQ(bundlesForFiles({"../sub/notes.txt", ".keep"}, ignored),
            Strings{".."});
  EXPECT_EQ(ignored, Strings{".keep"});
  InDirectory up(dir.root);
  ignored.clear();
  EXPECT_EQ(bundlesForFiles({"notes.txt", "sub/notes.txt", "./x"}, ignored),
            (Strings{"."}));
  EXPECT_TRUE(ignored.empty());
}

TEST(PreCommit, AssetsThatAreNotFoldersStillReachTheAudit) {
  Tree tree;
  tree.write("odd.aimodel", "a file named like an asset");
  ASSERT_EQ(::symlink("models/a.aimodel", tree.path("link.aimodel").c_str()),
            0);
  Strings ignored;
  EXPECT_EQ(bundlesForFiles({tree.path("odd.aimodel"),
                             tree.path("link.aimodel/main.mlirb")},
                            ignored),
            (Strings{tree.path("link.aimodel"), tree.path("odd.aimodel")}));
  EXPECT_TRUE(ignored.empty());
}
