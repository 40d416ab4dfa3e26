//===- StripFile.cpp - Stripping debug payload from one bytecode file -----===//

#include "strip/StripFile.h"

#include "bundle/FileReading.h"
#include "bytecode/BytecodeWriter.h"
#include "strip/OutputTree.h"
#include "strip/StripPlan.h"
#include "strip/StripSinks.h"
#include "support/FileSystem.h"
#include "support/ReadGuard.h"

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

llvm::Expected<std::unique_ptr<bytecode::BytecodeFile>>
decode(int fd, const support::FileState &state, llvm::StringRef name) {
  support::UniqueFd copy(::fcntl(fd, F_DUPFD_CLOEXEC, 0));
  if (!copy)
    return ioError("cannot duplicate a descriptor", errno);
  auto buffer = support::mapRegularFile(
      support::RegularFile{std::move(copy), state}, name);
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
  support::ReadWatch watch(input, inputName);
  auto changedError = [&] { return changedWhileStripped(inputName.str()); };
  auto changed = [&] { return watch.changed(); };
  // A file that changed explains whatever its bytes then made fail.
  auto inputError = [&](llvm::Error err) {
    if (changed()) {
      llvm::consumeError(std::move(err));
      return changedError();
    }
    return unusableInput(inputName.str(), std::move(err));
  };
  auto outputError = [&](llvm::Error err) {
    if (changed()) { // a copy of other bytes fails its checks
      llvm::consumeError(std::move(err));
      return changedError();
    }
    return fileError(outputName.str(), std::move(err));
  };
  // The input's hash (main.hash is checked against it): a second core
  // reads the file from the start, overlapping decoding and planning, which
  // would leave it idle. (Taken from the bytes copied instead, it could
  // start only once writing does.) The file's state, checked at the end,
  // says the bytes it hashed are the bytes that were stripped.
  std::future<llvm::Expected<bundle::Sha256Digest>> inputDigest;
  if (options.hashInput) {
    support::RegularFile copy{
        support::UniqueFd(::fcntl(input.fd.get(), F_DUPFD_CLOEXEC, 0)),
        input.state};
    if (!copy.fd)
      return inputError(ioError("cannot duplicate a descriptor", errno));
    inputDigest = std::async(
        std::launch::async,
        [name = inputName.str()](support::RegularFile file) {
          return bundle::sha256File(file, name);
        },
        std::move(copy));
  }
  std::optional<HashingSink> sink;
  auto inputHash = [&](FileStripResult &result) -> llvm::Error {
    if (!options.hashInput)
      return llvm::Error::success();
    llvm::Expected<bundle::Sha256Digest> digest = inputDigest.get();
    if (!digest)
      return inputError(digest.takeError());
    result.inputDigest = *digest;
    result.inputSha256 = bundle::toHex(*digest);
    return llvm::Error::success();
  };
  auto unchanged = [&]() -> llvm::Error {
    return changed() ? changedError() : llvm::Error::success();
  };

  auto file = decode(input.fd.get(), input.state, inputName);
  if (!file)
    return inputError(file.takeError());
  StripPlan plan = planStrip(**file, options);
  FileStripResult result;
  result.bytesBefore = input.size();
  result.refused = plan.refused;
  result.opLocations = plan.opLocations;
  result.blockArgumentLocations = plan.blockArgumentLocations;
  result.opIdLocations = plan.opIdLocations;
  result.entriesRemoved = plan.entriesRemoved;
  result.stringsRemoved = plan.stringsRemoved;
  result.possiblyUsedLocations = plan.possiblyUsedLocations;
  result.kept = plan.kept;
  if (plan.refused)
    return result;

  if (outputFd < 0) {
    CountingSink counter(input.fd.get());
    if (auto err = bytecode::writeBytecode(**file, plan.edits, counter))
      return inputError(std::move(err));
    result.bytesAfter = counter.written();
    if (llvm::Error err = inputHash(result))
      return err;
    if (llvm::Error err = unchanged())
      return err;
    return result;
  }

  // No fsync: like cp, the copy survives a killed process (the rename
  // comes after verification) but is not forced to disk.
  sink.emplace(input.fd.get(), outputFd);
  bytecode::WriteResult written;
  if (auto err = bytecode::writeBytecode(**file, plan.edits, *sink, &written))
    return sink->failedWriting() ? outputError(std::move(err))
                                 : inputError(std::move(err));
  // Verification needs only this record of the input: release the input's
  // tables before the output's are built.
  StripExpectation expected = StripExpectation::record(**file, plan, written);
  file->reset();
  plan.edits = bytecode::BytecodeEdits();
  result.bytesAfter = sink->written();

  struct stat st;
  if (::fstat(outputFd, &st) != 0)
    return outputError(ioError("cannot stat", errno));
  if (uint64_t(st.st_size) != result.bytesAfter)
    return outputError(llvm::createStringError(
        "verification failed: it holds %llu bytes, %llu were written",
        (unsigned long long)st.st_size, (unsigned long long)result.bytesAfter));
  auto reread = decode(outputFd, support::stateFrom(st), outputName);
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
  // The hashes ran while the file was decoded and checked.
  result.outputDigest = sink->outputDigest();
  result.outputSha256 = bundle::toHex(result.outputDigest);
  if (llvm::Error err = inputHash(result))
    return err;
  if (llvm::Error err = unchanged())
    return err;
  result.verified = true;
  return result;
}
