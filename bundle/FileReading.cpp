//===- FileReading.cpp - Safe reads of untrusted bundle members -----------===//

#include "bundle/FileReading.h"

#include <openssl/evp.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <memory>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

using namespace aimodel::bundle;

namespace {

/// Closes a file descriptor on scope exit.
struct FdGuard {
  int fd;
  ~FdGuard() {
    if (fd >= 0)
      ::close(fd);
  }
};

llvm::Error errnoError(const char *what) {
  return llvm::createStringError(
      std::error_code(errno, std::generic_category()), "%s: %s", what,
      std::strerror(errno));
}

/// Opens `path` for reading if, and only if, it is a regular file reached
/// without following a symlink. O_NONBLOCK keeps a FIFO from hanging the open.
llvm::Expected<int> openRegularFile(llvm::StringRef path, uint64_t &size) {
  std::string p = path.str();
  int fd = ::open(p.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ELOOP)
      return llvm::createStringError("is a symlink; not followed");
    return errnoError("cannot open");
  }
  struct stat st;
  if (::fstat(fd, &st) != 0) {
    llvm::Error err = errnoError("cannot stat");
    ::close(fd);
    return err;
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd);
    return llvm::createStringError(S_ISDIR(st.st_mode)
                                       ? "is a directory, not a file"
                                       : "is not a regular file");
  }
  // Regular files never block; clear O_NONBLOCK for ordinary read semantics.
  ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
  size = static_cast<uint64_t>(st.st_size);
  return fd;
}

/// Reads up to `want` bytes, retrying short reads and EINTR.
llvm::Expected<size_t> readFully(int fd, char *buffer, size_t want) {
  size_t got = 0;
  while (got < want) {
    ssize_t n = ::read(fd, buffer + got, want - got);
    if (n < 0) {
      if (errno == EINTR)
        continue;
      return errnoError("read failed");
    }
    if (n == 0)
      break;
    got += static_cast<size_t>(n);
  }
  return got;
}

} // namespace

llvm::Expected<std::string> aimodel::bundle::readSmallFile(llvm::StringRef path,
                                                           uint64_t maxBytes) {
  uint64_t size = 0;
  llvm::Expected<int> fd = openRegularFile(path, size);
  if (!fd)
    return fd.takeError();
  FdGuard guard{*fd};
  if (size > maxBytes)
    return llvm::createStringError(
        std::make_error_code(std::errc::file_too_large),
        "is %llu bytes, over the %llu-byte limit", (unsigned long long)size,
        (unsigned long long)maxBytes);
  // Read one byte past the cap so a file that grew after fstat is caught.
  std::string data(static_cast<size_t>(std::min(size, maxBytes)) + 1, '\0');
  llvm::Expected<size_t> got = readFully(*fd, data.data(), data.size());
  if (!got)
    return got.takeError();
  if (*got > maxBytes)
    return llvm::createStringError(
        std::make_error_code(std::errc::file_too_large),
        "is over the %llu-byte limit", (unsigned long long)maxBytes);
  data.resize(*got);
  return data;
}

llvm::Expected<Sha256Digest> aimodel::bundle::sha256File(llvm::StringRef path) {
  uint64_t size = 0;
  llvm::Expected<int> fd = openRegularFile(path, size);
  if (!fd)
    return fd.takeError();
  FdGuard guard{*fd};
  ::posix_fadvise(*fd, 0, 0, POSIX_FADV_SEQUENTIAL);

  std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> ctx(EVP_MD_CTX_new(),
                                                              EVP_MD_CTX_free);
  if (!ctx || EVP_DigestInit_ex(ctx.get(), EVP_sha256(), nullptr) != 1)
    return llvm::createStringError("cannot initialise SHA-256");
  std::vector<char> chunk(1 << 20);
  while (true) {
    llvm::Expected<size_t> got = readFully(*fd, chunk.data(), chunk.size());
    if (!got)
      return got.takeError();
    if (*got == 0)
      break;
    EVP_DigestUpdate(ctx.get(), chunk.data(), *got);
    if (*got < chunk.size())
      break;
  }
  Sha256Digest digest;
  unsigned int length = 0;
  if (EVP_DigestFinal_ex(ctx.get(), digest.data(), &length) != 1 ||
      length != digest.size())
    return llvm::createStringError("cannot finish SHA-256");
  return digest;
}

std::string aimodel::bundle::toHex(llvm::ArrayRef<uint8_t> bytes) {
  static const char digits[] = "0123456789abcdef";
  std::string out;
  out.reserve(bytes.size() * 2);
  for (uint8_t b : bytes) {
    out.push_back(digits[b >> 4]);
    out.push_back(digits[b & 15]);
  }
  return out;
}
