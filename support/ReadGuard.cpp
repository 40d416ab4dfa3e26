//===- ReadGuard.cpp - Files that change while they are read --------------===//

#include "support/ReadGuard.h"
#include "support/PathText.h"

#include "llvm/ADT/STLExtras.h"

#include <algorithm>
#include <atomic>
#include <csignal>
#include <cstdint>
#include <mutex>
#include <set>
#include <sys/mman.h>
#include <unistd.h>

namespace aimodel::support {

namespace {

/// Mapped ranges the fault handler may repair: a fixed table, because a
/// signal handler can neither lock nor allocate. A mapping that finds no
/// free slot is read into memory instead (guardBuffer).
constexpr size_t kSlots = 4096;
struct Slot {
  std::atomic<bool> used{false};
  std::atomic<uintptr_t> begin{0}, end{0};
  std::atomic<bool> faulted{false};
};
Slot slots[kSlots];
std::atomic<size_t> pageSize{0};
struct sigaction previousAction;

void onBusError(int signal, siginfo_t *info, void *context) {
  // Only a fault the kernel raised has an address (si_code > 0); a sent
  // signal's fields are the sender's.
  uintptr_t address = info && info->si_code > 0
                          ? reinterpret_cast<uintptr_t>(info->si_addr)
                          : 0;
  size_t page = pageSize.load(std::memory_order_relaxed);
  for (Slot &slot : slots) {
    uintptr_t begin = slot.begin.load(std::memory_order_acquire);
    uintptr_t end = slot.end.load(std::memory_order_acquire);
    if (!begin || address < begin || address >= end)
      continue;
    // The file ended before the mapping: what follows reads as zeros, and
    // the owner sees the slot marked. mmap is a plain system call on the
    // systems we build for, as fault handlers of runtimes rely on.
    uintptr_t from = address & ~uintptr_t(page - 1);
    void *zeros = ::mmap(reinterpret_cast<void *>(from), end - from, PROT_READ,
                         MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
    if (zeros != MAP_FAILED) {
      slot.faulted.store(true, std::memory_order_release);
      return;
    }
    break;
  }
  // Not ours: whoever handled it before, or the default (ends the process
  // as it would have).
  if (previousAction.sa_flags & SA_SIGINFO) {
    if (previousAction.sa_sigaction) {
      previousAction.sa_sigaction(signal, info, context);
      return;
    }
  } else if (previousAction.sa_handler != SIG_DFL &&
             previousAction.sa_handler != SIG_IGN) {
    previousAction.sa_handler(signal);
    return;
  }
  struct sigaction fallback = {};
  fallback.sa_handler = SIG_DFL;
  ::sigaction(SIGBUS, &fallback, nullptr);
  ::raise(signal); // a sent signal would not come again
}

void installHandler() {
  static std::once_flag once;
  std::call_once(once, [] {
    pageSize.store(size_t(::sysconf(_SC_PAGESIZE)));
    struct sigaction action = {};
    action.sa_sigaction = onBusError;
    action.sa_flags = SA_SIGINFO | SA_NODEFER;
    sigemptyset(&action.sa_mask);
    ::sigaction(SIGBUS, &action, &previousAction);
  });
}

std::mutex recordMutex;
std::set<std::string> &changedFiles() {
  static std::set<std::string> files;
  return files;
}

/// How a file is named in the report: a path the user gave as is; a name
/// below a folder descriptor by where the open file is.
std::string reportName(int fd, llvm::StringRef name) {
  if (name.contains('/'))
    return name.str();
  std::string where = pathOfOpenFile(fd);
  return where.empty() ? name.str() : where;
}

class GuardedBuffer;
std::set<GuardedBuffer *> &liveBuffers() {
  static std::set<GuardedBuffer *> buffers;
  return buffers;
}

class GuardedBuffer final : public llvm::MemoryBuffer {
public:
  /// `slot`: the fault handler's entry for a mapping, claimed already.
  GuardedBuffer(std::unique_ptr<llvm::MemoryBuffer> inner, RegularFile file,
                llvm::StringRef name, Slot *slot)
      : inner_(std::move(inner)), file_(std::move(file)), name_(name.str()),
        slot_(slot) {
    init(inner_->getBufferStart(), inner_->getBufferEnd(),
         /*RequiresNullTerminator=*/false);
    std::lock_guard<std::mutex> lock(recordMutex);
    liveBuffers().insert(this);
  }
  ~GuardedBuffer() override {
    // The check needs no lock (the file and slot are this buffer's alone):
    // a stat and a readlink stay outside the one every reader shares.
    std::optional<std::string> changedName;
    if (changedLocked())
      changedName = name();
    {
      std::lock_guard<std::mutex> lock(recordMutex);
      liveBuffers().erase(this);
      if (changedName)
        changedFiles().insert(std::move(*changedName));
    }
    if (slot_) {
      slot_->begin.store(0, std::memory_order_release);
      slot_->used.store(false, std::memory_order_release);
    }
  }
  llvm::StringRef getBufferIdentifier() const override {
    return inner_->getBufferIdentifier();
  }
  BufferKind getBufferKind() const override { return inner_->getBufferKind(); }

  /// Under recordMutex, or from the owner.
  bool changedLocked() const {
    if (slot_ && slot_->faulted.load(std::memory_order_acquire))
      return true;
    llvm::Expected<FileState> now = stateOf(file_.fd.get());
    if (!now) {
      llvm::consumeError(now.takeError());
      return true;
    }
    return *now != file_.state;
  }
  std::string name() const { return reportName(file_.fd.get(), name_); }

private:
  std::unique_ptr<llvm::MemoryBuffer> inner_;
  RegularFile file_;
  std::string name_;
  Slot *slot_;
};

/// A free slot of the fault handler's table taken for the mapping of
/// `buffer`, or nullptr when none is free.
Slot *claimSlot(const llvm::MemoryBuffer &buffer) {
  installHandler();
  size_t page = pageSize.load();
  uintptr_t begin = reinterpret_cast<uintptr_t>(buffer.getBufferStart()) &
                    ~uintptr_t(page - 1);
  uintptr_t end =
      (reinterpret_cast<uintptr_t>(buffer.getBufferEnd()) + page - 1) &
      ~uintptr_t(page - 1);
  for (Slot &slot : slots) {
    bool expected = false;
    if (slot.used.load(std::memory_order_relaxed) ||
        !slot.used.compare_exchange_strong(expected, true))
      continue;
    // begin last: a handler that sees it sees this mapping's end.
    slot.faulted.store(false);
    slot.end.store(end, std::memory_order_release);
    slot.begin.store(begin, std::memory_order_release);
    return &slot;
  }
  return nullptr;
}

void noteChangedWhileRead(llvm::StringRef name) {
  std::lock_guard<std::mutex> lock(recordMutex);
  changedFiles().insert(name.str());
}

} // namespace

ReadWatch::ReadWatch(const RegularFile &file, llvm::StringRef name)
    : fd_(file.fd.get()), name_(name.str()), before_(file.state) {}

ReadWatch::ReadWatch(int fd, llvm::StringRef name)
    : fd_(fd), name_(name.str()) {
  llvm::Expected<FileState> state = stateOf(fd);
  if (state)
    before_ = *state;
  else
    llvm::consumeError(state.takeError());
}

bool ReadWatch::changed() {
  llvm::Expected<FileState> now = stateOf(fd_);
  bool same = now && before_ && *now == *before_;
  if (!now)
    llvm::consumeError(now.takeError());
  if (!same)
    noteChangedWhileRead(reportName(fd_, name_));
  return !same;
}

bool ReadWatch::changedAfterReading(uint64_t bytesRead) {
  if (changed())
    return true;
  if (bytesRead == before_->size) // set: changed() said the state is it
    return false;
  noteChangedWhileRead(reportName(fd_, name_));
  return true;
}

llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>>
guardBuffer(std::unique_ptr<llvm::MemoryBuffer> buffer, RegularFile file,
            llvm::StringRef name) {
  Slot *slot = nullptr;
  if (buffer->getBufferKind() == llvm::MemoryBuffer::MemoryBuffer_MMap &&
      buffer->getBufferSize()) {
    slot = claimSlot(*buffer);
    if (!slot) {
      // Read, not mapped: a truncation then shows as the state changing.
      // (LLVM maps a volatile file unless a terminator is asked for too.)
      auto read = llvm::MemoryBuffer::getOpenFile(
          file.fd.get(), name, file.size(), /*RequiresNullTerminator=*/true,
          /*IsVolatile=*/true);
      if (!read)
        return llvm::createStringError(
            read.getError(), "cannot read: " + read.getError().message());
      buffer = std::move(*read);
    }
  }
  return std::make_unique<GuardedBuffer>(std::move(buffer), std::move(file),
                                         name, slot);
}

std::vector<std::string> filesChangedWhileRead() {
  std::lock_guard<std::mutex> lock(recordMutex);
  std::set<std::string> all = changedFiles();
  for (GuardedBuffer *buffer : liveBuffers())
    if (buffer->changedLocked())
      all.insert(buffer->name());
  return std::vector<std::string>(all.begin(), all.end());
}

std::string changedWhileReadMessage(llvm::StringRef name) {
  return printablePath(name) +
         " changed while it was read (rewritten or truncated by "
         "another program?); nothing was concluded from it";
}

} // namespace aimodel::support
