//===- FileReading.h - Safe reads of untrusted bundle members ---*- C++ -*-===//
//
// Every read of a bundle member goes through support::openRegularFile so
// that the same rules hold everywhere: never follow a symlink, never block
// on a FIFO or device, never read more than the caller allows, and stream
// large files instead of loading them.
//
//===----------------------------------------------------------------------===//
#ifndef AIMODEL_BUNDLE_FILEREADING_H
#define AIMODEL_BUNDLE_FILEREADING_H

#include "support/SafeFile.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/MemoryBuffer.h"

#include <array>
#include <cstdint>
#include <memory>
#include <string>

namespace aimodel::bundle {

using Sha256Digest = std::array<uint8_t, 32>;

/// Reads a whole regular file of at most `maxBytes` bytes: `name` below the
/// directory `dirFd`, no component followed. Fails (with a message naming
/// the reason, not the path) on symlinks, non-regular files, files over the
/// cap (error code file_too_large) and I/O errors.
llvm::Expected<std::string> readSmallFile(int dirFd, llvm::StringRef name,
                                          uint64_t maxBytes);

/// The same for `path`, whose last component is never followed.
llvm::Expected<std::string> readSmallFile(llvm::StringRef path,
                                          uint64_t maxBytes);

/// The whole of the open regular file `file`, read into memory (no mapping:
/// for small files, where a read is cheaper than a map and an unmap). A
/// file that changes meanwhile is an error ("changed while it was read"),
/// recorded as such (support/ReadGuard.h); `name` names it there and is
/// the buffer's identifier.
llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>>
readWholeFile(support::RegularFile &file, llvm::StringRef name);

/// SHA-256 of a stream of bytes.
class Sha256 {
public:
  Sha256();
  ~Sha256();
  Sha256(const Sha256 &) = delete;
  Sha256 &operator=(const Sha256 &) = delete;
  void update(llvm::StringRef bytes);
  Sha256Digest finish();

private:
  void *context; ///< EVP_MD_CTX
};

/// SHA-256 of an open regular file, streamed in fixed-size chunks so that a
/// multi-gigabyte weights file costs constant memory. A file that changes
/// meanwhile is an error ("changed while it was read"), and recorded as
/// such (support/ReadGuard.h); `name` names it there.
llvm::Expected<Sha256Digest> sha256File(support::RegularFile &file,
                                        llvm::StringRef name);

/// SHA-256 of `name` below `dirFd` (no component followed).
llvm::Expected<Sha256Digest> sha256File(int dirFd, llvm::StringRef name);

/// SHA-256 of `path`, whose last component is never followed.
llvm::Expected<Sha256Digest> sha256File(llvm::StringRef path);

/// Lower-case hex of a byte string.
std::string toHex(llvm::ArrayRef<uint8_t> bytes);

} // namespace aimodel::bundle

#endif // AIMODEL_BUNDLE_FILEREADING_H
