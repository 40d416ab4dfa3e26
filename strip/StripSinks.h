//===- StripSinks.h - Where a stripped file's bytes go (internal) -*- C++
//-*-===//
//
// The two sinks strip writes through (bytecode/BytecodeWriter.h): one that
// only counts (a dry run's exact size) and one that writes a file and
// hashes it. Not a public header.
//
//===----------------------------------------------------------------------===//
#ifndef AIMODEL_STRIP_STRIPSINKS_H
#define AIMODEL_STRIP_STRIPSINKS_H

#include "bundle/FileReading.h"
#include "bytecode/BytecodeWriter.h"

#include <memory>

namespace aimodel::strip {

/// Reads `range` of `fd` whole (pread, never through a mapping).
llvm::Expected<std::string> readAt(int fd, bytecode::Span range);

/// Counts bytes: a dry run's exact output size, reading only blob headers.
class CountingSink : public bytecode::ByteSink {
public:
  explicit CountingSink(int inputFd) : inputFd(inputFd) {}
  llvm::Expected<std::string> readInput(bytecode::Span range) override;
  llvm::Error write(llvm::StringRef bytes) override;
  llvm::Error copyRange(bytecode::Span range) override;
  uint64_t written() const override { return count; }

private:
  int inputFd;
  uint64_t count = 0;
};

/// Writes to a file descriptor and hashes what it writes: main.hash must be
/// the SHA-256 of the bytes in the file. Ranges of the input (the weights)
/// pass through a few buffers of this process: read once with pread,
/// written, and handed to a hashing thread, so no byte is read twice.
/// Optionally the input is hashed on a second thread from the same
/// buffers (the ranges between copied ones read with pread), in file order,
/// so checking the input's main.hash costs no second read either.
class HashingSink : public bytecode::ByteSink {
public:
  HashingSink(int inputFd, uint64_t inputSize, int outputFd, bool hashInput);
  ~HashingSink() override;

  llvm::Error write(llvm::StringRef bytes) override;
  llvm::Error copyRange(bytecode::Span range) override;
  uint64_t written() const override { return count; }
  llvm::Expected<std::string> readInput(bytecode::Span range) override;

  /// The last error was the output's, not the input's.
  bool failedWriting() const { return writeFailed; }

  /// The SHA-256 of everything written.
  llvm::Expected<bundle::Sha256Digest> outputDigest();
  /// The SHA-256 of the whole input (hashInput only).
  llvm::Expected<bundle::Sha256Digest> inputDigest();

private:
  class Worker;
  int inputFd, outputFd;
  uint64_t inputSize, count = 0;
  /// Input bytes up to here are on their way into the input hash.
  uint64_t inputHashedTo = 0;
  bool writeFailed = false, inputFinished = false;
  std::unique_ptr<Worker> outputHash, inputHash;
};

} // namespace aimodel::strip

#endif // AIMODEL_STRIP_STRIPSINKS_H
