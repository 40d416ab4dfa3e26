//===- StripSinks.cpp - Where a stripped file's bytes go ------------------===//

#include "strip/StripSinks.h"

#include "support/SafeFile.h"

#include <algorithm>
#include <cerrno>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <optional>
#include <thread>
#include <unistd.h>
#include <vector>

using namespace aimodel;
using namespace aimodel::strip;
using support::ioError;

llvm::Expected<std::string> aimodel::strip::readAt(int fd,
                                                   bytecode::Span range) {
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

llvm::Expected<std::string> CountingSink::readInput(bytecode::Span range) {
  return readAt(inputFd, range);
}

llvm::Error CountingSink::write(llvm::StringRef bytes) {
  count += bytes.size();
  return llvm::Error::success();
}

llvm::Error CountingSink::copyRange(bytecode::Span range) {
  count += range.size;
  return llvm::Error::success();
}

namespace {
/// Copied ranges pass through buffers of this size; a few at a time are
/// in flight (the writer waits when a hash falls behind).
constexpr size_t kChunkBytes = 2 << 20;
constexpr size_t kChunksInFlight = 2;
} // namespace

/// One SHA-256 fed in order on its own thread: shared buffers, owned bytes,
/// or ranges of a file it reads itself.
class HashingSink::Worker {
public:
  using Chunk = std::shared_ptr<const char[]>;

  explicit Worker(int readFd) : readFd(readFd), thread([this] { run(); }) {}
  ~Worker() { stop(); }

  void push(Chunk chunk, size_t size) {
    enqueue(Item{std::move(chunk), size, {}, {}});
  }
  void push(std::string bytes) { enqueue(Item{{}, 0, std::move(bytes), {}}); }
  void pushRead(bytecode::Span range) {
    if (range.size)
      enqueue(Item{{}, 0, {}, range});
  }

  llvm::Expected<bundle::Sha256Digest> finish() {
    stop();
    if (error)
      return std::move(*error);
    return hash.finish();
  }

private:
  struct Item {
    Chunk chunk;
    size_t chunkSize = 0;
    std::string owned;
    bytecode::Span read;
  };

  void enqueue(Item item) {
    std::unique_lock<std::mutex> lock(mutex);
    // Bounded: a hash that falls behind holds the writer back, so memory
    // stays a few chunks whatever the file's size.
    room.wait(lock, [&] { return chunks < kChunksInFlight || failed; });
    chunks += bool(item.chunk);
    queue.push_back(std::move(item));
    ready.notify_one();
  }

  void stop() {
    if (!thread.joinable())
      return;
    {
      std::lock_guard<std::mutex> lock(mutex);
      done = true;
    }
    ready.notify_one();
    thread.join();
  }

  void run() {
    std::vector<char> buffer;
    while (true) {
      Item item;
      {
        std::unique_lock<std::mutex> lock(mutex);
        ready.wait(lock, [&] { return done || !queue.empty(); });
        if (queue.empty())
          return;
        item = std::move(queue.front());
        queue.pop_front();
      }
      if (!failed) {
        if (item.chunk)
          hash.update(llvm::StringRef(item.chunk.get(), item.chunkSize));
        else if (item.read.size)
          readInto(item.read, buffer);
        else
          hash.update(item.owned);
      }
      std::lock_guard<std::mutex> lock(mutex);
      chunks -= bool(item.chunk);
      room.notify_one();
    }
  }

  void readInto(bytecode::Span range, std::vector<char> &buffer) {
    buffer.resize(kChunkBytes);
    for (uint64_t at = range.offset; at < range.end();) {
      size_t want = size_t(std::min<uint64_t>(buffer.size(), range.end() - at));
      ssize_t n = ::pread(readFd, buffer.data(), want, off_t(at));
      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0) {
        std::lock_guard<std::mutex> lock(mutex);
        error.emplace(ioError("cannot read the input", n < 0 ? errno : EIO));
        failed = true;
        room.notify_all();
        return;
      }
      hash.update(llvm::StringRef(buffer.data(), size_t(n)));
      at += uint64_t(n);
    }
  }

  int readFd;
  bundle::Sha256 hash;
  std::mutex mutex;
  std::condition_variable ready, room;
  std::deque<Item> queue;
  size_t chunks = 0;
  bool done = false, failed = false;
  std::optional<llvm::Error> error;
  std::thread thread; ///< last: started once the rest exists
};

HashingSink::HashingSink(int inputFd, uint64_t inputSize, int outputFd,
                         bool hashInput)
    : inputFd(inputFd), outputFd(outputFd), inputSize(inputSize),
      outputHash(std::make_unique<Worker>(-1)) {
  if (hashInput)
    inputHash = std::make_unique<Worker>(inputFd);
}

HashingSink::~HashingSink() = default;

llvm::Error HashingSink::write(llvm::StringRef bytes) {
  if (llvm::Error err = support::writeAll(outputFd, bytes)) {
    writeFailed = true;
    return err;
  }
  outputHash->push(bytes.str());
  count += bytes.size();
  return llvm::Error::success();
}

llvm::Error HashingSink::copyRange(bytecode::Span range) {
  // The input hash takes the input in file order: what lies between copied
  // ranges is read for it; a range behind what it has taken (never, for
  // the writer's section order) makes it hash the whole input afresh.
  bool inOrder = inputHash && !inputFinished && range.offset >= inputHashedTo;
  if (inputHash && !inputFinished && !inOrder) {
    inputHash.reset(new Worker(inputFd));
    inputHash->pushRead(bytecode::Span{0, inputSize});
    inputFinished = true;
  }
  if (inOrder)
    inputHash->pushRead(
        bytecode::Span{inputHashedTo, range.offset - inputHashedTo});
  for (uint64_t at = range.offset; at < range.end();) {
    size_t size = size_t(std::min<uint64_t>(kChunkBytes, range.end() - at));
    // Not zeroed: every byte is read into it.
    std::shared_ptr<char[]> chunk(new char[size]);
    size_t done = 0;
    while (done < size) {
      ssize_t n =
          ::pread(inputFd, chunk.get() + done, size - done, off_t(at + done));
      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0)
        return ioError("cannot read the input", errno);
      if (n == 0)
        return llvm::createStringError(
            std::make_error_code(std::errc::io_error),
            "shrank while it was copied");
      done += size_t(n);
    }
    if (llvm::Error err =
            support::writeAll(outputFd, llvm::StringRef(chunk.get(), size))) {
      writeFailed = true;
      return err;
    }
    Worker::Chunk shared = std::move(chunk);
    outputHash->push(shared, size);
    if (inOrder)
      inputHash->push(shared, size);
    count += size;
    at += size;
  }
  if (inOrder)
    inputHashedTo = range.end();
  return llvm::Error::success();
}

llvm::Expected<std::string> HashingSink::readInput(bytecode::Span range) {
  return readAt(inputFd, range);
}

llvm::Expected<bundle::Sha256Digest> HashingSink::outputDigest() {
  return outputHash->finish();
}

llvm::Expected<bundle::Sha256Digest> HashingSink::inputDigest() {
  if (!inputHash)
    return llvm::createStringError("the input was not hashed");
  if (!inputFinished) {
    inputHash->pushRead(
        bytecode::Span{inputHashedTo, inputSize - inputHashedTo});
    inputFinished = true;
  }
  return inputHash->finish();
}
