//===- SafeFile.h - Open and map untrusted regular files --------*- C++ -*-===//
//
// Every read and every mapping of a file the user did not write goes through
// here, so the same rules hold everywhere: never block on a FIFO or device,
// refuse anything but a regular file, and decide on the open descriptor
// (fstat), never on an earlier lstat that a rename could invalidate.
//
//===----------------------------------------------------------------------===//
#ifndef AIMODEL_SUPPORT_SAFEFILE_H
#define AIMODEL_SUPPORT_SAFEFILE_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/MemoryBuffer.h"

#include <memory>

namespace aimodel::support {

/// Maps the regular file `path` (no copy) without ever blocking: it is opened
/// O_NONBLOCK and anything but a regular file is refused ("is a directory",
/// "is not a regular file") before a byte is read. Other errors: "cannot
/// open: <OS reason>".
llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>>
mapRegularFile(llvm::StringRef path);

} // namespace aimodel::support

#endif // AIMODEL_SUPPORT_SAFEFILE_H
