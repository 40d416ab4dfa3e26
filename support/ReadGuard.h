//===- ReadGuard.h - Files that change while they are read ------*- C++ -*-===//
//
// An exporter or `cp` may rewrite a file while aimodel reads it. A mapped
// file that shrinks faults (SIGBUS) on the pages past its new end; a read
// returns fewer bytes; a rewrite of the same size returns other bytes. None
// of that may kill the process or become a verdict. So every mapping made by
// support::mapRegularFile is guarded: a fault inside it is answered by
// mapping zero pages over the rest of it (the reader carries on over
// zeros), and every file read records its state (identity, size, change
// times) when opened. A file whose mapping faulted, or whose state differs
// later, "changed while it was read": the command reports that, exit 2,
// whatever it concluded from the bytes.
//
// Each copy of this library (the executable's and the aimodel-mlir
// module's) keeps its own record; their fault handlers chain.
//
//===----------------------------------------------------------------------===//
#ifndef AIMODEL_SUPPORT_READGUARD_H
#define AIMODEL_SUPPORT_READGUARD_H

#include "support/FileSystem.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/MemoryBuffer.h"

#include <memory>
#include <string>
#include <vector>

namespace aimodel::support {

/// A file's state when it was opened, checked when a read of it ends.
/// `name` names the file in the report (made absolute from the open file
/// where the system can tell).
class ReadWatch {
public:
  ReadWatch(const RegularFile &file, llvm::StringRef name);
  /// The open file `fd`, its state now.
  ReadWatch(int fd, llvm::StringRef name);
  /// True (and the file recorded as changed) when its state is no longer
  /// the one it had, or it cannot be checked.
  bool changed();
  /// The same, after reading it whole: reading another number of bytes
  /// than it held is a change too.
  bool changedAfterReading(uint64_t bytesRead);

private:
  int fd_;
  std::string name_;
  std::optional<FileState> before_;
};

/// `buffer` (mapped or read from `file`) guarded: a fault inside a mapping
/// is survived, and the file is checked against its state when opened as
/// the buffer is destroyed and whenever filesChangedWhileRead() asks.
/// Keeps `file` open. A mapping the fault handler cannot take on (its
/// table is full) is read into memory instead.
llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>>
guardBuffer(std::unique_ptr<llvm::MemoryBuffer> buffer, RegularFile file,
            llvm::StringRef name);

/// Every file recorded as changed, and every guarded buffer still alive
/// whose file has changed by now: sorted, each once.
std::vector<std::string> filesChangedWhileRead();

/// The one-line message for such a file: "NAME changed while it was read".
std::string changedWhileReadMessage(llvm::StringRef name);

} // namespace aimodel::support

#endif // AIMODEL_SUPPORT_READGUARD_H
