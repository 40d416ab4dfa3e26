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

/// One SHA-256 fed in order on its own thread: shared buffers or owned
/// bytes.
class HashingSink::Worker {
public:
  using Chunk = std::shared_ptr<const char[]>;

  Worker() : thread([this] { run(); }) {}
  ~Worker() { stop(); }

  void push(Chunk chunk, size_t size) {
    enqueue(Item{std::move(chunk), size, {}});
  }
  void push(std::string bytes) { enqueue(Item{{}, 0, std::move(bytes)}); }

  bundle::Sha256Digest finish() {
    stop();
    return hash.finish();
  }

private:
  struct Item {
    Chunk chunk;
    size_t chunkSize = 0;
    std::string owned;
  };

  void enqueue(Item item) {
    std::unique_lock<std::mutex> lock(mutex);
    // Bounded: a hash that falls behind holds the writer back, so memory
    // stays a few chunks whatever the file's size.
    room.wait(lock, [&] { return chunks < kChunksInFlight; });
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
      if (item.chunk)
        hash.update(llvm::StringRef(item.chunk.get(), item.chunkSize));
      else
        hash.update(item.owned);
      std::lock_guard<std::mutex> lock(mutex);
      chunks -= bool(item.chunk);
      room.notify_one();
    }
  }

  bundle::Sha256 hash;
  std::mutex mutex;
  std::condition_variable ready, room;
  std::deque<Item> queue;
  size_t chunks = 0;
  bool done = false;
  std::thread thread; ///< last: started once the rest exists
};

HashingSink::HashingSink(int inputFd, int outputFd)
    : inputFd(inputFd), outputFd(outputFd),
      outputHash(std::make_unique<Worker>()) {}

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
    outputHash->push(std::move(shared), size);
    count += size;
    at += size;
  }
  return llvm::Error::success();
}

llvm::Expected<std::string> HashingSink::readInput(bytecode::Span range) {
  return readAt(inputFd, range);
}

bundle::Sha256Digest HashingSink::outputDigest() {
  return outputHash->finish();
}
