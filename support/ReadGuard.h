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

/// The state of the open file `fd` when a read starts, checked when it
/// ends.
class ReadWatch {
public:
  /// `name` names the file in the report (made absolute from the open file
  /// where the system can tell).
  ReadWatch(int fd, llvm::StringRef name);
  /// True (and the file recorded as changed) when its state is no longer
  /// the one it had, or it cannot be checked.
  bool changed();
  /// Records the file as changed (the reader saw it: fewer bytes than
  /// fstat said); true.
  bool markChanged();

private:
  int fd_;
  std::string name_;
  std::optional<FileState> before_;
};

/// `buffer` (mapped or read from `file`) guarded: a fault inside a mapping
/// is survived, and the file is checked for change when the buffer is
/// destroyed and whenever filesChangedWhileRead() asks. Keeps `file` open.
std::unique_ptr<llvm::MemoryBuffer>
guardBuffer(std::unique_ptr<llvm::MemoryBuffer> buffer, RegularFile file,
            const FileState &opened, llvm::StringRef name);

/// Records that `name` changed while it was read (a reader that saw it
/// itself: a short read, another size than fstat said).
void noteChangedWhileRead(llvm::StringRef name);

/// Every file recorded as changed, and every guarded buffer still alive
/// whose file has changed by now: sorted, each once.
std::vector<std::string> filesChangedWhileRead();

/// The one-line message for such a file: "NAME changed while it was read".
std::string changedWhileReadMessage(llvm::StringRef name);

} // namespace aimodel::support

#endif // AIMODEL_SUPPORT_READGUARD_H
