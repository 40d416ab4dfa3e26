// Tests of support/ReadGuard.h: a mapped file truncated under the reader is
// read as zeros and reported, never a SIGBUS. In BundleTest, as the other
// support/ tests.
#include "support/ReadGuard.h"
#include "support/SafeFile.h"
#include "testing/TestFiles.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <fcntl.h>
#include <unistd.h>

using namespace aimodel::support;

namespace {
bool listed(const std::string &needle) {
  std::vector<std::string> changed = filesChangedWhileRead();
  return std::any_of(changed.begin(), changed.end(), [&](const auto &name) {
    return llvm::StringRef(name).ends_with(needle);
  });
}
} // namespace

TEST(ReadGuard, ATruncatedMappingReadsAsZerosAndIsReported) {
  aimodel::testing::ScratchDir dir;
  // Large enough to be mapped, not read.
  std::string bytes(1 << 20, '\x5a');
  dir.write("shrinking.bin", bytes);
  auto buffer = mapRegularFile(dir.path("shrinking.bin"));
  ASSERT_TRUE(bool(buffer));
  ASSERT_EQ((*buffer)->getBufferKind(), llvm::MemoryBuffer::MemoryBuffer_MMap);
  EXPECT_FALSE(listed("shrinking.bin"));
  ASSERT_EQ(::truncate(dir.path("shrinking.bin").c_str(), 4096), 0);
  // Every page past the new end faults; the reader carries on over zeros.
  llvm::StringRef data = (*buffer)->getBuffer();
  size_t nonZero = 0;
  for (size_t i = 0; i < data.size(); i += 1024)
    nonZero += data[i] != 0;
  EXPECT_EQ(data[0], '\x5a');
  EXPECT_EQ(data.back(), '\0');
  EXPECT_LE(nonZero, 4096u / 1024);
  EXPECT_TRUE(listed("shrinking.bin"));
}

TEST(ReadGuard, ARewriteOfTheSameSizeIsReportedOnceTheBufferIsGone) {
  aimodel::testing::ScratchDir dir;
  std::string bytes(64 << 10, 'a');
  dir.write("rewritten.bin", bytes);
  {
    auto buffer = mapRegularFile(dir.path("rewritten.bin"));
    ASSERT_TRUE(bool(buffer));
    EXPECT_FALSE(listed("rewritten.bin"));
    // Another program writes other bytes in place (a later mtime).
    UniqueFd fd(::open(dir.path("rewritten.bin").c_str(), O_WRONLY));
    ASSERT_TRUE(bool(fd));
    struct timespec later[2] = {{0, UTIME_OMIT}, {2000000000, 0}};
    ASSERT_EQ(::pwrite(fd.get(), "b", 1, 100), 1);
    ASSERT_EQ(::futimens(fd.get(), later), 0);
  }
  EXPECT_TRUE(listed("rewritten.bin"));
}

TEST(ReadGuard, AFaultOutsideEveryMappingIsNotSwallowed) {
  // A SIGBUS that is not a guarded mapping's still ends the process.
  EXPECT_EXIT(
      {
        aimodel::testing::ScratchDir dir;
        dir.write("f", std::string(1 << 20, 'x'));
        (void)mapRegularFile(dir.path("f")); // installs the handler
        ::raise(SIGBUS);
      },
      ::testing::KilledBySignal(SIGBUS), "");
}

TEST(ReadGuard, AnUntouchedFileIsNotReported) {
  aimodel::testing::ScratchDir dir;
  dir.write("calm.bin", std::string(1 << 20, 'c'));
  {
    auto buffer = mapRegularFile(dir.path("calm.bin"));
    ASSERT_TRUE(bool(buffer));
    EXPECT_EQ((*buffer)->getBuffer().back(), 'c');
  }
  EXPECT_FALSE(listed("calm.bin"));
}
