// Tests of support/ (the one safe open, paths as report text); they run in
// BundleTest because support/ has no test binary of its own.
#include "support/SafeFile.h"
#include "bundle/Bundle.h"
#include "bundle/FileTestSupport.h"
#include "support/PathText.h"
#include "testing/TestFiles.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cerrno>
#include <climits>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

using namespace aimodel::support;

namespace {
std::string errorOf(llvm::Error error) {
  return llvm::toString(std::move(error));
}

template <typename T> std::string errorOf(llvm::Expected<T> &result) {
  return result ? std::string("(no error)") : errorOf(result.takeError());
}
} // namespace

TEST(SafeFile, RefusedSymlinksAreRefusedByTheOpenAtEveryComponent) {
  aimodel::testing::ScratchDir dir;
  dir.write("real/f", "data");
  ASSERT_EQ(::symlink("real", dir.path("link").c_str()), 0);
  ASSERT_EQ(::symlink("f", dir.path("real/lf").c_str()), 0);
  UniqueFd root(::open(dir.root.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  ASSERT_TRUE(bool(root));

  llvm::Expected<RegularFile> plain =
      openRegularFile(root.get(), "real/f", Symlinks::Refuse);
  ASSERT_TRUE(bool(plain)) << errorOf(plain.takeError());
  EXPECT_EQ(plain->size(), 4u);
  // O_NOFOLLOW guards only the last component: a folder on the way must be
  // refused too.
  llvm::Expected<RegularFile> through =
      openRegularFile(root.get(), "link/f", Symlinks::Refuse);
  EXPECT_EQ(errorOf(through), "'link' is a symlink; not followed");
  llvm::Expected<RegularFile> last =
      openRegularFile(root.get(), "real/lf", Symlinks::Refuse);
  ASSERT_FALSE(bool(last));
  EXPECT_EQ(llvm::errorToErrorCode(last.takeError()).value(), ELOOP);
  EXPECT_EQ(
      errorOf(
          openRegularFile(dir.path("real/lf"), Symlinks::Refuse).takeError()),
      "is a symlink; not followed");
  EXPECT_EQ(
      errorOf(openDirectory(root.get(), "link", Symlinks::Refuse).takeError()),
      "is a symlink; not followed");
  EXPECT_EQ(
      errorOf(openRegularFile(root.get(), "real/../real/f", Symlinks::Refuse)
                  .takeError()),
      "'..' leaves the folder; not followed");

  // Followed when asked: paths the user names.
  EXPECT_TRUE(bool(openRegularFile(root.get(), "link/lf", Symlinks::Follow)));
  llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>> mapped =
      mapRegularFile(dir.path("link/lf"));
  ASSERT_TRUE(bool(mapped)) << errorOf(mapped.takeError());
  EXPECT_EQ((*mapped)->getBuffer(), "data");
  EXPECT_EQ(
      errorOf(
          mapRegularFile(dir.path("real/lf"), Symlinks::Refuse).takeError()),
      "is a symlink; not followed");
  llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>> below =
      mapRegularFile(root.get(), "real/f");
  ASSERT_TRUE(bool(below));
  EXPECT_EQ((*below)->getBuffer(), "data");
}

TEST(SafeFile, ErrorsSayWhatHappened) {
  aimodel::testing::ScratchDir dir;
  ASSERT_EQ(::mkfifo(dir.path("fifo").c_str(), 0644), 0);
  dir.mkdir("sub");
  dir.write("file", "x");
  // A FIFO with no writer would block a plain open(): this must return.
  EXPECT_EQ(
      errorOf(openRegularFile(dir.path("fifo"), Symlinks::Refuse).takeError()),
      "is not a regular file");
  EXPECT_EQ(
      errorOf(openRegularFile(dir.path("sub"), Symlinks::Follow).takeError()),
      "is a directory");
  EXPECT_EQ(
      errorOf(openRegularFile(dir.path("none"), Symlinks::Refuse).takeError()),
      "cannot open: no such file or directory");
  EXPECT_EQ(
      errorOf(openDirectory(dir.path("file"), Symlinks::Refuse).takeError()),
      "is not a directory");
  EXPECT_EQ(
      errorOf(openDirectory(dir.path("none"), Symlinks::Follow).takeError()),
      "cannot read directory: no such file or directory");

  dir.write("locked/f", "x");
  aimodel::testing::shareWithNobody(dir.root);
  ASSERT_EQ(::chmod(dir.path("locked/f").c_str(), 0), 0);
  ASSERT_EQ(::chmod(dir.path("locked").c_str(), 0), 0);
  EXPECT_EQ(
      aimodel::testing::runAsNobody([&]() -> std::string {
        std::string file =
            errorOf(openRegularFile(dir.path("locked/f"), Symlinks::Refuse)
                        .takeError());
        std::string folder = errorOf(
            openDirectory(dir.path("locked"), Symlinks::Refuse).takeError());
        return file == "cannot read directory: permission denied" &&
                       folder == "cannot read directory: permission denied"
                   ? ""
                   : file + " / " + folder;
      }),
      "");
  ASSERT_EQ(::chmod(dir.path("locked").c_str(), 0755), 0);
  EXPECT_EQ(aimodel::testing::runAsNobody([&]() -> std::string {
              std::string file = errorOf(
                  openRegularFile(dir.path("locked/f"), Symlinks::Refuse)
                      .takeError());
              return file == "cannot open: permission denied" ? "" : file;
            }),
            "");
}

TEST(SafeFile, PathsPastPathMaxOpenComponentByComponent) {
  aimodel::testing::ScratchDir dir;
  aimodel::testing::DeepCleanup cleanup{dir.root}; // runs before ~ScratchDir
  const std::string name(200, 'd');
  std::string deep = dir.root;
  UniqueFd fd(::open(dir.root.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  while (deep.size() <= PATH_MAX) {
    ASSERT_EQ(::mkdirat(fd.get(), name.c_str(), 0755), 0);
    fd.reset(::openat(fd.get(), name.c_str(), O_RDONLY | O_DIRECTORY));
    ASSERT_TRUE(bool(fd));
    deep += "/" + name;
  }
  int file = ::openat(fd.get(), "f", O_WRONLY | O_CREAT, 0644);
  ASSERT_GE(file, 0);
  ASSERT_EQ(::write(file, "abc", 3), 3);
  ::close(file);
  llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>> mapped =
      mapRegularFile(deep + "/f");
  ASSERT_TRUE(bool(mapped)) << errorOf(mapped.takeError());
  EXPECT_EQ((*mapped)->getBuffer(), "abc");
  EXPECT_TRUE(bool(openRegularFile(deep + "/f", Symlinks::Refuse)));
  llvm::Expected<UniqueFd> folder = openDirectory(deep, Symlinks::Refuse);
  ASSERT_TRUE(bool(folder)) << errorOf(folder.takeError());
  llvm::Expected<std::vector<aimodel::bundle::DirEntry>> entries =
      aimodel::bundle::listDirectory(folder->get());
  ASSERT_TRUE(bool(entries));
  ASSERT_EQ(entries->size(), 1u);
  EXPECT_EQ((*entries)[0].name, "f");
}

TEST(PathText, JsonKeepsValidUtf8ExactlyAndHexesTheRest) {
  JsonPath tab = jsonPath("models/a\tb/x.aimodel");
  EXPECT_EQ(tab.text, "models/a\tb/x.aimodel");
  EXPECT_FALSE(tab.bytesHex);
  JsonPath backslash = jsonPath("a\\b");
  EXPECT_EQ(backslash.text, "a\\b"); // JSON escapes it itself
  JsonPath invalid = jsonPath("a\xff/b");
  EXPECT_EQ(invalid.text, "a\\xff/b");
  EXPECT_EQ(invalid.bytesHex, "61ff2f62");
  // The check must agree with the JSON writer, or a dump would throw.
  for (const char *bytes :
       {"caf\xc3\xa9", "\xf0\x9f\x98\x80", "\xed\xa0\x80", "\xc0\xaf",
        "\xf4\x90\x80\x80", "\xe2\x82", "\xef\xbf\xbf", "a\x01"}) {
    bool writable = true;
    try {
      (void)nlohmann::json(std::string(bytes)).dump();
    } catch (const nlohmann::json::exception &) {
      writable = false;
    }
    EXPECT_EQ(isValidUtf8(bytes), writable) << printablePath(bytes);
  }
}
