//===- StripFile.cpp - Stripping debug payload from one bytecode file -----===//

#include "strip/StripFile.h"

#include "bundle/FileReading.h"
#include "bytecode/BytecodeWriter.h"
#include "strip/StripPlan.h"

#include <cerrno>
#include <fcntl.h>
#include <future>
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

/// Writes to a file descriptor, hashing every byte on its way. Ranges of
/// the input (the weights) are copied by the kernel (copy_file_range) while
/// a second thread hashes the same range with pread: weights pass through a
/// few MiB of this process's memory, never through the input's mapping.
/// That hash may still run when the file is complete (finish() waits for
/// it), so the caller can verify the written file meanwhile; bytes written
/// after such a range are hashed once it is done.
class FileSink : public bytecode::ByteSink {
public:
  FileSink(int inputFd, int outputFd) : inputFd(inputFd), outputFd(outputFd) {}
  ~FileSink() {
    if (hasher.joinable())
      hasher.join();
    if (hashed)
      llvm::consumeError(std::move(*hashed));
  }

  llvm::Error write(llvm::StringRef bytes) override {
    if (hasher.joinable())
      hashLater.append(bytes.begin(), bytes.end());
    else
      hash.update(bytes);
    count += bytes.size();
    return support::writeAll(outputFd, bytes);
  }

  llvm::Error copyRange(bytecode::Span range) override {
    if (range.size < kKernelCopyBytes)
      return readRange(range, [&](llvm::StringRef bytes) -> llvm::Error {
        return write(bytes);
      });
    if (llvm::Error err = waitForHash())
      return err;
    hasher = std::thread([this, range] {
      hashed.emplace(
          readRange(range, [&](llvm::StringRef bytes) -> llvm::Error {
            hash.update(bytes);
            return llvm::Error::success();
          }));
    });
    if (llvm::Error err =
            support::copyRange(inputFd, range.offset, range.size, outputFd))
      return err;
    count += range.size;
    return llvm::Error::success();
  }

  uint64_t written() const override { return count; }
  llvm::Expected<std::string> readInput(bytecode::Span range) override {
    return readAt(inputFd, range);
  }

  /// The SHA-256 of everything written, once the hashing is done.
  llvm::Expected<bundle::Sha256Digest> finish() {
    if (llvm::Error err = waitForHash())
      return err;
    return hash.finish();
  }

private:
  /// Ranges from this size on are copied by the kernel.
  static constexpr uint64_t kKernelCopyBytes = 16 << 20;

  /// Waits for the hash of a copied range, then hashes what was written
  /// after it.
  llvm::Error waitForHash() {
    if (!hasher.joinable())
      return llvm::Error::success();
    hasher.join();
    llvm::Error err = std::move(*hashed);
    hashed.reset();
    if (err)
      return err;
    hash.update(hashLater);
    hashLater.clear();
    return llvm::Error::success();
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
  bundle::Sha256 hash;
  std::thread hasher;
  std::optional<llvm::Error> hashed;
  std::string hashLater;
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

llvm::Expected<FileStripResult>
aimodel::strip::stripFile(const support::RegularFile &input,
                          llvm::StringRef name, int outputFd,
                          const StripOptions &options) {
  // The input's hash (for the report) on a second core from the start: it
  // overlaps decoding, planning and verifying, where this core works alone.
  std::future<llvm::Expected<bundle::Sha256Digest>> inputDigest;
  if (outputFd >= 0 && options.hashInput) {
    support::RegularFile copy{
        support::UniqueFd(::fcntl(input.fd.get(), F_DUPFD_CLOEXEC, 0)),
        input.size};
    if (!copy.fd)
      return ioError("cannot duplicate a descriptor", errno);
    inputDigest = std::async(
        std::launch::async,
        [](support::RegularFile file) { return bundle::sha256File(file); },
        std::move(copy));
  }
  auto file = decode(input.fd.get(), input.size, name);
  if (!file)
    return file.takeError();
  StripPlan plan = planStrip(**file, options);
  FileStripResult result;
  result.bytesBefore = input.size;
  result.refused = plan.refused;
  result.opLocations = plan.opLocations;
  result.blockArgumentLocations = plan.blockArgumentLocations;
  result.opIdLocations = plan.opIdLocations;
  result.entriesRemoved = plan.entriesRemoved;
  result.stringsRemoved = plan.stringsRemoved;
  result.stringsKept = plan.stringsKept;
  result.keptReason = plan.keptReason;
  result.keptExamples = plan.keptExamples;
  if (plan.refused)
    return result;

  if (outputFd < 0) {
    CountingSink sink(input.fd.get());
    if (auto err = bytecode::writeBytecode(**file, plan.edits, sink))
      return err;
    result.bytesAfter = sink.written();
    return result;
  }

  // No fsync: like cp, the copy survives a killed process (the rename
  // comes after verification) but is not forced to disk.
  FileSink sink(input.fd.get(), outputFd);
  if (auto err = bytecode::writeBytecode(**file, plan.edits, sink))
    return err;
  // Verification needs only this record of the input: release the input's
  // tables before the output's are built.
  StripExpectation expected = StripExpectation::record(**file, plan);
  file->reset();
  plan.edits = bytecode::BytecodeEdits();
  result.bytesAfter = sink.written();

  struct stat st;
  if (::fstat(outputFd, &st) != 0)
    return ioError("cannot stat the output", errno);
  if (uint64_t(st.st_size) != result.bytesAfter)
    return llvm::createStringError(
        "verification failed: the output holds %llu bytes, %llu were written",
        (unsigned long long)st.st_size, (unsigned long long)result.bytesAfter);
  auto reread = decode(outputFd, result.bytesAfter, name);
  if (!reread)
    return llvm::createStringError(
        "verification failed: the written file cannot be decoded: " +
        llvm::toString(reread.takeError()));
  if (auto err = expected.check(**reread, options))
    return err;
  // The weights' hash ran while the file was read back and checked.
  llvm::Expected<bundle::Sha256Digest> written = sink.finish();
  if (!written)
    return written.takeError();
  result.outputDigest = *written;
  result.outputSha256 = bundle::toHex(result.outputDigest);
  if (inputDigest.valid()) {
    llvm::Expected<bundle::Sha256Digest> digest = inputDigest.get();
    if (!digest)
      return digest.takeError();
    result.inputSha256 = bundle::toHex(*digest);
  }
  result.verified = true;
  return result;
}
