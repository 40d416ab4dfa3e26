// Tests of support/ReadGuard.h: a mapped file truncated under the reader is
// read as zeros and reported, never a SIGBUS. In BundleTest, as the other
// support/ tests.
#include "support/ReadGuard.h"
#include "support/SafeFile.h"
#include "testing/TestFiles.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <fcntl.h>
#include <sys/resource.h>
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

TEST(ReadGuard, MoreMappingsThanTheHandlerHoldsAreReadAndStillSafe) {
  // The fault handler's table is fixed (a handler cannot allocate): past
  // it, a file is read into memory, so a truncation is still never SIGBUS.
  constexpr size_t kBuffers = 4096 + 8;
  struct rlimit limit;
  ASSERT_EQ(::getrlimit(RLIMIT_NOFILE, &limit), 0);
  if (limit.rlim_max != RLIM_INFINITY && limit.rlim_max < kBuffers + 64)
    GTEST_SKIP() << "needs " << kBuffers + 64 << " open files; the hard "
                 << "limit is " << limit.rlim_max;
  struct rlimit raised = limit;
  raised.rlim_cur = std::max<rlim_t>(limit.rlim_cur, kBuffers + 64);
  ASSERT_EQ(::setrlimit(RLIMIT_NOFILE, &raised), 0);
  aimodel::testing::ScratchDir dir;
  dir.write("many.bin", std::string(64 << 10, 'm'));
  {
    std::vector<std::unique_ptr<llvm::MemoryBuffer>> buffers;
    for (size_t i = 0; i < kBuffers; ++i) {
      auto buffer = mapRegularFile(dir.path("many.bin"));
      ASSERT_TRUE(bool(buffer)) << i;
      buffers.push_back(std::move(*buffer));
    }
    EXPECT_EQ(buffers.back()->getBufferKind(),
              llvm::MemoryBuffer::MemoryBuffer_Malloc);
    ASSERT_EQ(::truncate(dir.path("many.bin").c_str(), 0), 0);
    size_t sum = 0;
    for (const auto &buffer : buffers)
      sum += static_cast<unsigned char>(buffer->getBuffer().back());
    EXPECT_LE(sum, 8u * 'm'); // the read copies keep their bytes
    EXPECT_TRUE(listed("many.bin"));
  }
  ::setrlimit(RLIMIT_NOFILE, &limit);
}

TEST(ReadGuard, AWatchComparesWithTheFileAsOpened) {
  // A change between the open and the read counts: the baseline is the
  // open, not the moment the read starts.
  aimodel::testing::ScratchDir dir;
  dir.write("grown.json", "{}");
  llvm::Expected<RegularFile> file =
      openRegularFile(dir.path("grown.json"), Symlinks::Refuse);
  ASSERT_TRUE(bool(file));
  {
    UniqueFd out(::open(dir.path("grown.json").c_str(), O_WRONLY | O_APPEND));
    ASSERT_EQ(::write(out.get(), " ", 1), 1);
  }
  ReadWatch watch(*file, "grown.json");
  EXPECT_TRUE(watch.changed());
  EXPECT_TRUE(listed("grown.json"));

  // Reading another number of bytes than the file held is a change too,
  // even when its state looks the same.
  dir.write("same.json", "{}");
  llvm::Expected<RegularFile> same =
      openRegularFile(dir.path("same.json"), Symlinks::Refuse);
  ASSERT_TRUE(bool(same));
  ReadWatch calm(*same, "same.json");
  EXPECT_FALSE(calm.changedAfterReading(2));
  EXPECT_FALSE(listed("same.json"));
  EXPECT_TRUE(calm.changedAfterReading(1));
  EXPECT_TRUE(listed("same.json"));
}
