//===- SafeFile.cpp - Open and map regular files without blocking --------===//
//
// MemoryBuffer::getFile opens with a blocking open(2) and reads what it
// cannot map: a FIFO hangs the open and /dev/zero is read forever. This opens
// non-blocking, refuses anything but a regular file, and maps the file with
// the size fstat reported.
//
//===----------------------------------------------------------------------===//

#include "support/SafeFile.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <string>
#include <sys/stat.h>
#include <system_error>
#include <unistd.h>

namespace aimodel::support {

static llvm::Error errnoError(const char *what, int errorNumber) {
  std::error_code code(errorNumber, std::generic_category());
  return llvm::createStringError(code,
                                 llvm::Twine(what) + ": " + code.message());
}

llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>>
mapRegularFile(llvm::StringRef path) {
  std::string pathText = path.str();
  int fd;
  do
    fd = ::open(pathText.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  while (fd < 0 && errno == EINTR);
  if (fd < 0)
    return errnoError("cannot open", errno);
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{fd};
  struct stat st;
  if (::fstat(fd, &st) != 0)
    return errnoError("cannot stat", errno);
  if (S_ISDIR(st.st_mode))
    return llvm::createStringError(
        std::make_error_code(std::errc::is_a_directory), "is a directory");
  if (!S_ISREG(st.st_mode))
    return llvm::createStringError(
        std::make_error_code(std::errc::invalid_argument),
        "is not a regular file");
  // A regular file never blocks; reads of a file too small to map are
  // ordinary blocking reads again.
  int flags = ::fcntl(fd, F_GETFL);
  if (flags >= 0)
    ::fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
  auto buffer = llvm::MemoryBuffer::getOpenFile(
      fd, path, uint64_t(st.st_size), /*RequiresNullTerminator=*/false);
  if (!buffer)
    return llvm::createStringError(
        buffer.getError(), "cannot read: " + buffer.getError().message());
  return std::move(*buffer);
}

} // namespace aimodel::support
