//===- BundleFolderTest.cpp - Bundles opened below cached folders ---------===//

#include "bundle/BundleFolder.h"
#include "support/FileSystem.h"
#include "testing/TestFiles.h"

#include <gtest/gtest.h>

#include <fcntl.h>
#include <thread>
#include <unistd.h>

using namespace aimodel::bundle;
using aimodel::support::Symlinks;
using aimodel::support::UniqueFd;

namespace {

aimodel::support::FileIdentity identityOf(const UniqueFd &fd) {
  llvm::Expected<aimodel::support::FileIdentity> id =
      aimodel::support::identityOf(fd.get());
  EXPECT_TRUE(bool(id));
  return id ? *id : aimodel::support::FileIdentity{};
}

std::string errorOf(llvm::Expected<UniqueFd> opened) {
  return opened ? "opened" : llvm::toString(opened.takeError());
}

} // namespace

TEST(BundleFolder, OpensWhatOpenDirectoryOpensAndFailsAsItFails) {
  aimodel::testing::ScratchDir dir;
  dir.mkdir("a/x.aimodel");
  dir.mkdir("a/y.aimodel");
  dir.write("a/file", "");
  ASSERT_EQ(::symlink("x.aimodel", dir.path("a/link.aimodel").c_str()), 0);
  FolderCache cache;
  for (const char *name : {"a/x.aimodel", "a/y.aimodel", "a/x.aimodel/",
                           "a/file", "a/link.aimodel", "a/none", "b/none", "a"})
    for (Symlinks symlinks : {Symlinks::Refuse, Symlinks::Follow}) {
      llvm::Expected<UniqueFd> cached =
          cache.openDirectory(dir.path(name), symlinks);
      llvm::Expected<UniqueFd> plain =
          aimodel::support::openDirectory(dir.path(name), symlinks);
      ASSERT_EQ(bool(cached), bool(plain)) << name;
      if (cached) {
        EXPECT_EQ(identityOf(*cached), identityOf(*plain)) << name;
      } else {
        EXPECT_EQ(errorOf(std::move(cached)), errorOf(std::move(plain)))
            << name;
      }
    }
}

TEST(BundleFolder, ManyFoldersThroughASmallCacheFromManyThreads) {
  aimodel::testing::ScratchDir dir;
  for (int f = 0; f < 6; ++f)
    for (int b = 0; b < 5; ++b)
      dir.write("g" + std::to_string(f) + "/m" + std::to_string(b) +
                    ".aimodel/main.hash",
                std::to_string(f * 10 + b));
  FolderCache cache(2); // fewer than the folders: entries are dropped
  std::vector<std::thread> threads;
  std::vector<std::string> problems(4);
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      for (int round = 0; round < 3; ++round)
        for (int f = 0; f < 6; ++f)
          for (int b = 0; b < 5; ++b) {
            FoundBundle found{dir.path("g" + std::to_string(f) + "/m" +
                                       std::to_string(b) + ".aimodel"),
                              BundleKind::Asset};
            llvm::Expected<OpenedBundle> opened = openBundle(found, &cache);
            if (!opened) {
              problems[t] += llvm::toString(opened.takeError()) + "\n";
              continue;
            }
            char text[8] = {};
            int fd = ::openat(opened->fd.get(), "main.hash", O_RDONLY);
            ssize_t n = fd < 0 ? -1 : ::read(fd, text, sizeof(text) - 1);
            if (fd >= 0)
              ::close(fd);
            if (n <= 0 || std::string(text) != std::to_string(f * 10 + b) ||
                opened->entries.size() != 1 ||
                opened->entries[0].name != "main.hash" ||
                !opened->entries[0].examined)
              problems[t] += found.path + ": wrong folder\n";
          }
    });
  for (std::thread &thread : threads)
    thread.join();
  for (const std::string &problem : problems)
    EXPECT_EQ(problem, "");
}

TEST(BundleFolder, AWalkedBundleThatIsASymlinkIsNotFollowedANamedOneIs) {
  aimodel::testing::ScratchDir dir;
  dir.mkdir("t/real.aimodel");
  ASSERT_EQ(::symlink("real.aimodel", dir.path("t/link.aimodel").c_str()), 0);
  FolderCache cache;
  FoundBundle walked{dir.path("t/link.aimodel"), BundleKind::Asset};
  llvm::Expected<OpenedBundle> refused = openBundle(walked, &cache);
  ASSERT_FALSE(bool(refused));
  EXPECT_EQ(llvm::toString(refused.takeError()), "is a symlink; not followed");
  FoundBundle named = walked;
  named.named = true;
  llvm::Expected<OpenedBundle> followed = openBundle(named, &cache);
  ASSERT_TRUE(bool(followed)) << llvm::toString(followed.takeError());
  EXPECT_TRUE(followed->entries.empty());
}
