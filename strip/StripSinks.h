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
/// written, and handed to a hashing thread: the hash is of the very bytes
/// written, whatever happens to the input meanwhile.
class HashingSink : public bytecode::ByteSink {
public:
  HashingSink(int inputFd, int outputFd);
  ~HashingSink() override;

  llvm::Error write(llvm::StringRef bytes) override;
  llvm::Error copyRange(bytecode::Span range) override;
  uint64_t written() const override { return count; }
  llvm::Expected<std::string> readInput(bytecode::Span range) override;

  /// The last error was the output's, not the input's.
  bool failedWriting() const { return writeFailed; }

  /// The SHA-256 of everything written.
  bundle::Sha256Digest outputDigest();

private:
  class Worker;
  int inputFd, outputFd;
  uint64_t count = 0;
  bool writeFailed = false;
  std::unique_ptr<Worker> outputHash;
};

} // namespace aimodel::strip

#endif // AIMODEL_STRIP_STRIPSINKS_H
