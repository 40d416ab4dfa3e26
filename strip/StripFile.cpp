//===- StripFile.cpp - Stripping debug payload from one bytecode file -----===//

#include "strip/StripFile.h"

#include "bundle/FileReading.h"
#include "bytecode/BytecodeWriter.h"
#include "strip/OutputTree.h"
#include "strip/StripPlan.h"
#include "support/FileSystem.h"

#include <algorithm>
#include <cerrno>
#include <condition_variable>
#include <fcntl.h>
#include <future>
#include <mutex>
#include <optional>
#include <sys/stat.h>
#include <thread>
#include <unistd.h>

using namespace aimodel;
using namespace aimodel::strip;

namespace {

using support::ioError;

/// Reads `range` of `fd` whole.
llvm::Expected<std::string> readAt(int fd, bytecode::Span range) {
  std::string bytes(range.size, '\0');
  uint64_t done = 0;
  while (done < range.size) {
    ssize_t n = ::pread(fd, bytes.data() + done, range.size - done,
                        off_t(range.offset + done));
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      return ioError("cannot read the input", n < 0 ? errno : EIO);
    done += uint64_t(n);
  }
  return bytes;
}

/// Counts bytes: a dry run's exact output size, reading only blob headers.
class CountingSink : public bytecode::ByteSink {
public:
  explicit CountingSink(int inputFd) : inputFd(inputFd) {}
  llvm::Expected<std::string> readInput(bytecode::Span range) override {
    return readAt(inputFd, range);
  }
  llvm::Error write(llvm::StringRef bytes) override {
    count += bytes.size();
    return llvm::Error::success();
  }
  llvm::Error copyRange(bytecode::Span range) override {
    count += range.size;
    return llvm::Error::success();
  }
  uint64_t written() const override { return count; }

private:
  int inputFd;
  uint64_t count = 0;
};

/// Writes to a file descriptor. The SHA-256 is of the bytes written, read
/// back from the output by a second thread that follows the writer: the
/// bytes main.hash records are the bytes in the file, whatever the input
/// did meanwhile. Ranges of the input (the weights) are copied by the
/// kernel where it can, in chunks, so the read-back overlaps the copy.
class FileSink : public bytecode::ByteSink {
public:
  FileSink(int inputFd, int outputFd)
      : inputFd(inputFd), outputFd(outputFd),
        hasher([this] { hashWritten(); }) {}
  ~FileSink() { stopHashing(); }

  llvm::Error write(llvm::StringRef bytes) override {
    if (llvm::Error err = support::writeAll(outputFd, bytes)) {
      writeFailed = true;
      return err;
    }
    advance(bytes.size());
    return llvm::Error::success();
  }

  llvm::Error copyRange(bytecode::Span range) override {
    if (range.size < kKernelCopyBytes)
      return readRange(range, [&](llvm::StringRef bytes) -> llvm::Error {
        return write(bytes);
      });
    for (uint64_t at = range.offset; at < range.end();) {
      uint64_t size = std::min<uint64_t>(kChunkBytes, range.end() - at);
      support::IOSide side = support::IOSide::Read;
      if (llvm::Error err =
              support::copyRange(inputFd, at, size, outputFd, &side)) {
        writeFailed = side == support::IOSide::Write;
        return err;
      }
      advance(size);
      at += size;
    }
    return llvm::Error::success();
  }

  uint64_t written() const override { return count; }
  llvm::Expected<std::string> readInput(bytecode::Span range) override {
    return readAt(inputFd, range);
  }

  /// The last error was the output's, not the input's.
  bool failedWriting() const { return writeFailed; }

  /// The SHA-256 of the file as written, once read back.
  llvm::Expected<bundle::Sha256Digest> finish() {
    stopHashing();
    if (hashError)
      return std::move(*hashError);
    return hash.finish();
  }

private:
  /// Ranges from this size on are copied by the kernel, in chunks of this.
  static constexpr uint64_t kKernelCopyBytes = 16 << 20;
  static constexpr uint64_t kChunkBytes = 64 << 20;

  void advance(uint64_t bytes) {
    count += bytes;
    {
      std::lock_guard<std::mutex> lock(mutex);
      published = count;
    }
    ready.notify_one();
  }

  void stopHashing() {
    if (!hasher.joinable())
      return;
    {
      std::lock_guard<std::mutex> lock(mutex);
      done = true;
    }
    ready.notify_one();
    hasher.join();
  }

  /// The read-back: hashes [hashed, published) as it grows.
  void hashWritten() {
    std::vector<char> buffer(4 << 20);
    uint64_t hashed = 0;
    while (true) {
      uint64_t until;
      bool finished;
      {
        std::unique_lock<std::mutex> lock(mutex);
        ready.wait(lock, [&] { return done || published > hashed; });
        until = published;
        finished = done;
      }
      while (hashed < until) {
        size_t want = size_t(std::min<uint64_t>(buffer.size(), until - hashed));
        ssize_t n = ::pread(outputFd, buffer.data(), want, off_t(hashed));
        if (n < 0 && errno == EINTR)
          continue;
        if (n <= 0) {
          hashError.emplace(
              ioError("cannot read the output back", n < 0 ? errno : EIO));
          return;
        }
        hash.update(llvm::StringRef(buffer.data(), size_t(n)));
        hashed += uint64_t(n);
      }
      if (finished && hashed >= until)
        return;
    }
  }

  template <typename Consume>
  llvm::Error readRange(bytecode::Span range, Consume consume) {
    std::vector<char> buffer(4 << 20);
    uint64_t offset = range.offset, end = range.end();
    while (offset < end) {
      size_t want = size_t(std::min<uint64_t>(buffer.size(), end - offset));
      ssize_t n = ::pread(inputFd, buffer.data(), want, off_t(offset));
      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        return ioError("cannot read the input", n < 0 ? errno : EIO);
      if (auto err = consume(llvm::StringRef(buffer.data(), size_t(n))))
        return err;
      offset += uint64_t(n);
    }
    return llvm::Error::success();
  }

  int inputFd, outputFd;
  uint64_t count = 0;
  bool writeFailed = false;
  bundle::Sha256 hash;
  std::optional<llvm::Error> hashError;
  std::mutex mutex;
  std::condition_variable ready;
  uint64_t published = 0;
  bool done = false;
  std::thread hasher; ///< last: started once the rest exists
};

llvm::Expected<std::unique_ptr<bytecode::BytecodeFile>>
decode(int fd, uint64_t size, llvm::StringRef name) {
  support::UniqueFd copy(::fcntl(fd, F_DUPFD_CLOEXEC, 0));
  if (!copy)
    return ioError("cannot duplicate a descriptor", errno);
  auto buffer = support::mapRegularFile(
      support::RegularFile{std::move(copy), size}, name);
  if (!buffer)
    return buffer.takeError();
  return bytecode::BytecodeFile::fromBuffer(std::move(*buffer));
}

} // namespace

llvm::Expected<FileStripResult> aimodel::strip::stripFile(
    const support::RegularFile &input, llvm::StringRef inputName, int outputFd,
    llvm::StringRef outputName, const StripOptions &options) {
  // The input's problems make it unusable (a tree skips its asset); that
  // it changed, and the output's, stop the run.
  auto inputError = [&](llvm::Error err) {
    return unusableInput(inputName.str(), std::move(err));
  };
  auto outputError = [&](llvm::Error err) {
    return fileError(outputName.str(), std::move(err));
  };
  llvm::Expected<support::FileState> before = support::stateOf(input.fd.get());
  if (!before)
    return inputError(before.takeError());
  // The input's hash (main.hash is checked against it) on a second core
  // from the start: it overlaps decoding, planning and verifying.
  std::future<llvm::Expected<bundle::Sha256Digest>> inputDigest;
  if (options.hashInput) {
    support::RegularFile copy{
        support::UniqueFd(::fcntl(input.fd.get(), F_DUPFD_CLOEXEC, 0)),
        input.size};
    if (!copy.fd)
      return inputError(ioError("cannot duplicate a descriptor", errno));
    inputDigest = std::async(
        std::launch::async,
        [](support::RegularFile file) { return bundle::sha256File(file); },
        std::move(copy));
  }
  auto inputHash = [&](FileStripResult &result) -> llvm::Error {
    if (!inputDigest.valid())
      return llvm::Error::success();
    llvm::Expected<bundle::Sha256Digest> digest = inputDigest.get();
    if (!digest)
      return inputError(digest.takeError());
    result.inputDigest = *digest;
    result.inputSha256 = bundle::toHex(*digest);
    return llvm::Error::success();
  };
  auto unchanged = [&]() -> llvm::Error {
    llvm::Expected<support::FileState> after = support::stateOf(input.fd.get());
    if (!after)
      return inputError(after.takeError());
    if (*after != *before || after->size != input.size)
      return fileError(inputName.str(),
                       "changed while it was stripped (an exporter still "
                       "writing it?); nothing written");
    return llvm::Error::success();
  };

  auto file = decode(input.fd.get(), input.size, inputName);
  if (!file)
    return inputError(file.takeError());
  StripPlan plan = planStrip(**file, options);
  FileStripResult result;
  result.bytesBefore = input.size;
  result.refused = plan.refused;
  result.opLocations = plan.opLocations;
  result.blockArgumentLocations = plan.blockArgumentLocations;
  result.opIdLocations = plan.opIdLocations;
  result.entriesRemoved = plan.entriesRemoved;
  result.stringsRemoved = plan.stringsRemoved;
  result.possiblyUsedLocations = plan.possiblyUsedLocations;
  result.kept = plan.kept;
  if (plan.refused) {
    if (llvm::Error err = inputHash(result))
      return err;
    return result;
  }

  if (outputFd < 0) {
    CountingSink sink(input.fd.get());
    if (auto err = bytecode::writeBytecode(**file, plan.edits, sink))
      return inputError(std::move(err));
    result.bytesAfter = sink.written();
    if (llvm::Error err = inputHash(result))
      return err;
    if (llvm::Error err = unchanged())
      return err;
    return result;
  }

  // No fsync: like cp, the copy survives a killed process (the rename
  // comes after verification) but is not forced to disk.
  FileSink sink(input.fd.get(), outputFd);
  bytecode::WriteResult written;
  if (auto err = bytecode::writeBytecode(**file, plan.edits, sink, &written))
    return sink.failedWriting() ? outputError(std::move(err))
                                : inputError(std::move(err));
  // Verification needs only this record of the input: release the input's
  // tables before the output's are built.
  StripExpectation expected = StripExpectation::record(**file, plan, written);
  file->reset();
  plan.edits = bytecode::BytecodeEdits();
  result.bytesAfter = sink.written();

  struct stat st;
  if (::fstat(outputFd, &st) != 0)
    return outputError(ioError("cannot stat", errno));
  if (uint64_t(st.st_size) != result.bytesAfter)
    return outputError(llvm::createStringError(
        "verification failed: it holds %llu bytes, %llu were written",
        (unsigned long long)st.st_size, (unsigned long long)result.bytesAfter));
  auto reread = decode(outputFd, result.bytesAfter, outputName);
  if (!reread)
    return outputError(llvm::createStringError(
        "verification failed: the written file cannot be decoded: " +
        llvm::toString(reread.takeError())));
  if (auto err = expected.check(**reread, options))
    return outputError(std::move(err));
  // What the written file still holds, found as the audit finds it.
  bytecode::Reachability reach = bytecode::findReachable(**reread);
  result.kept =
      keptPayloadOf(passes::scanPayload(**reread, reach), reach.opaque);
  reread->reset();
  // The read-back hash ran while the file was decoded and checked.
  llvm::Expected<bundle::Sha256Digest> digest = sink.finish();
  if (!digest)
    return outputError(digest.takeError());
  result.outputDigest = *digest;
  result.outputSha256 = bundle::toHex(result.outputDigest);
  if (llvm::Error err = inputHash(result))
    return err;
  if (llvm::Error err = unchanged())
    return err;
  result.verified = true;
  return result;
}
