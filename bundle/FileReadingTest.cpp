#include "bundle/FileReading.h"
#include "testing/TestFiles.h"

#include <gtest/gtest.h>

#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

using namespace aimodel::bundle;

TEST(FileReading, Sha256MatchesKnownDigests) {
  aimodel::testing::ScratchDir dir;
  llvm::Expected<Sha256Digest> empty = sha256File(dir.write("empty", ""));
  ASSERT_TRUE(bool(empty));
  EXPECT_EQ(toHex(*empty),
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  // Larger than one read chunk, so the streaming loop runs more than once.
  std::string big(3 * (1 << 20) + 17, 'a');
  llvm::Expected<Sha256Digest> digest = sha256File(dir.write("big", big));
  ASSERT_TRUE(bool(digest));
  EXPECT_EQ(toHex(*digest),
            "8cb91458835f2fefeb12cf01e67a7ea18523a0567d4835a974dc04c2ddbb955b");
  llvm::Expected<Sha256Digest> again = sha256File(dir.path("big"));
  ASSERT_TRUE(bool(again));
  EXPECT_EQ(*digest, *again);
  EXPECT_NE(*digest, *empty);
}

TEST(FileReading, RefusesSymlinksFifosAndDirectories) {
  aimodel::testing::ScratchDir dir;
  std::string target = dir.write("real", "data");
  ASSERT_EQ(::symlink(target.c_str(), dir.path("link").c_str()), 0);
  ASSERT_EQ(::mkfifo(dir.path("fifo").c_str(), 0644), 0);
  dir.mkdir("sub");

  llvm::Expected<std::string> viaLink = readSmallFile(dir.path("link"), 100);
  ASSERT_FALSE(bool(viaLink));
  EXPECT_EQ(llvm::toString(viaLink.takeError()), "is a symlink; not followed");
  // A FIFO with no writer would block a plain open(): this must return.
  llvm::Expected<Sha256Digest> fifo = sha256File(dir.path("fifo"));
  ASSERT_FALSE(bool(fifo));
  EXPECT_EQ(llvm::toString(fifo.takeError()), "is not a regular file");
  llvm::Expected<std::string> sub = readSmallFile(dir.path("sub"), 100);
  ASSERT_FALSE(bool(sub));
  EXPECT_EQ(llvm::toString(sub.takeError()), "is a directory");
}

TEST(FileReading, SmallFileCapIsEnforced) {
  aimodel::testing::ScratchDir dir;
  std::string path = dir.write("f", "0123456789");
  llvm::Expected<std::string> ok = readSmallFile(path, 10);
  ASSERT_TRUE(bool(ok));
  EXPECT_EQ(*ok, "0123456789");
  llvm::Expected<std::string> over = readSmallFile(path, 9);
  ASSERT_FALSE(bool(over));
  EXPECT_EQ(llvm::toString(over.takeError()),
            "is 10 bytes, over the 9-byte limit");
}

TEST(FileReading, NothingBelowADirectoryDescriptorIsFollowed) {
  aimodel::testing::ScratchDir dir;
  dir.write("real/hash", std::string(32, 'h'));
  ASSERT_EQ(::symlink("real", dir.path("link").c_str()), 0);
  int fd = ::open(dir.root.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  ASSERT_GE(fd, 0);
  aimodel::support::UniqueFd root(fd);
  llvm::Expected<std::string> ok = readSmallFile(fd, "real/hash", 100);
  ASSERT_TRUE(bool(ok));
  EXPECT_EQ(ok->size(), 32u);
  llvm::Expected<std::string> through = readSmallFile(fd, "link/hash", 100);
  ASSERT_FALSE(bool(through));
  EXPECT_EQ(llvm::toString(through.takeError()),
            "'link' is a symlink; not followed");
  llvm::Expected<Sha256Digest> hashed = sha256File(fd, "link/hash");
  ASSERT_FALSE(bool(hashed));
  EXPECT_EQ(llvm::toString(hashed.takeError()),
            "'link' is a symlink; not followed");
}

TEST(FileReading, AFileChangedAfterItWasOpenedIsNeverReadAsWhole) {
  // Reads stop at the size the file had when opened (no read(2) that can
  // only return 0): what changed since shows in its state after the read.
  aimodel::testing::ScratchDir dir;
  std::string path = dir.write("f", "0123456789");
  auto open = [&] {
    return aimodel::support::openRegularFile(
        path, aimodel::support::Symlinks::Refuse);
  };
  llvm::Expected<aimodel::support::RegularFile> same = open();
  ASSERT_TRUE(bool(same));
  llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>> whole =
      readWholeFile(*same, "f");
  ASSERT_TRUE(bool(whole)) << llvm::toString(whole.takeError());
  EXPECT_EQ((*whole)->getBuffer(), "0123456789");
  EXPECT_EQ((*whole)->getBufferIdentifier(), "f");
  llvm::Expected<std::string> small = readSmallFile(path, 100);
  ASSERT_TRUE(bool(small));
  EXPECT_EQ(*small, "0123456789");

  for (const char *now : {"0123456789abc", "01234", "9876543210"}) {
    llvm::Expected<aimodel::support::RegularFile> before = open();
    llvm::Expected<aimodel::support::RegularFile> hashed = open();
    ASSERT_TRUE(bool(before) && bool(hashed));
    // Rewritten in place: another size or, for the same size, another
    // modification time (set apart from the first, whatever the clock).
    {
      int fd = ::open(path.c_str(), O_WRONLY | O_TRUNC);
      ASSERT_GE(fd, 0);
      ASSERT_EQ(::write(fd, now, std::strlen(now)), ssize_t(std::strlen(now)));
      struct timespec times[2] = {{0, UTIME_OMIT}, {12345, 0}};
      ASSERT_EQ(::futimens(fd, times), 0);
      ::close(fd);
    }
    llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>> changed =
        readWholeFile(*before, "f");
    ASSERT_FALSE(bool(changed)) << now;
    EXPECT_EQ(llvm::toString(changed.takeError()), "changed while it was read");
    llvm::Expected<Sha256Digest> digest = sha256File(*hashed, "f");
    ASSERT_FALSE(bool(digest)) << now;
    EXPECT_EQ(llvm::toString(digest.takeError()), "changed while it was read");
  }
}
