//===- FileReading.cpp - Safe reads of untrusted bundle members -----------===//

#include "bundle/FileReading.h"

#include "support/FileSystem.h"
#include "support/ReadGuard.h"

#include "llvm/Support/ErrorHandling.h"

#include <openssl/evp.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <fcntl.h>
#include <memory>
#include <unistd.h>
#include <vector>

using namespace aimodel::bundle;
using aimodel::support::RegularFile;
using aimodel::support::Symlinks;
namespace support = aimodel::support;

/// Reads up to `want` bytes, retrying short reads and EINTR; stops early
/// once `enough` bytes are in (a file's size: whether more follow, the
/// state the caller checks after the read says, one read(2) fewer).
static llvm::Expected<size_t> readFully(int fd, char *buffer, size_t want,
                                        size_t enough = SIZE_MAX) {
  size_t got = 0;
  while (got < want && got != enough) {
    ssize_t n = ::read(fd, buffer + got, want - got);
    if (n < 0) {
      if (errno == EINTR)
        continue;
      return llvm::createStringError(
          std::error_code(errno, std::generic_category()),
          "read failed: " + aimodel::support::errnoReason(errno));
    }
    if (n == 0)
      break;
    got += static_cast<size_t>(n);
  }
  return got;
}

static llvm::Error changedError() {
  return llvm::createStringError(
      std::make_error_code(std::errc::resource_unavailable_try_again),
      "changed while it was read");
}

static llvm::Expected<std::string>
readAll(RegularFile &file, llvm::StringRef name, uint64_t maxBytes) {
  if (file.size() > maxBytes)
    return llvm::createStringError(
        std::make_error_code(std::errc::file_too_large),
        "is %llu bytes, over the %llu-byte limit",
        (unsigned long long)file.size(), (unsigned long long)maxBytes);
  support::ReadWatch watch(file, name);
  // One byte past its size, so a file that grew since it was opened shows
  // (or its state after the read, when the read ends at the size).
  std::string data(static_cast<size_t>(file.size()) + 1, '\0');
  llvm::Expected<size_t> got =
      readFully(file.fd.get(), data.data(), data.size(), file.size());
  if (!got)
    return got.takeError();
  if (*got > maxBytes)
    return llvm::createStringError(
        std::make_error_code(std::errc::file_too_large),
        "is over the %llu-byte limit", (unsigned long long)maxBytes);
  if (watch.changedAfterReading(*got))
    return changedError();
  data.resize(*got);
  return data;
}

llvm::Expected<std::string> aimodel::bundle::readSmallFile(int dirFd,
                                                           llvm::StringRef name,
                                                           uint64_t maxBytes) {
  llvm::Expected<RegularFile> file =
      support::openRegularFile(dirFd, name, Symlinks::Refuse);
  if (!file)
    return file.takeError();
  return readAll(*file, name, maxBytes);
}

llvm::Expected<std::string> aimodel::bundle::readSmallFile(llvm::StringRef path,
                                                           uint64_t maxBytes) {
  llvm::Expected<RegularFile> file =
      support::openRegularFile(path, Symlinks::Refuse);
  if (!file)
    return file.takeError();
  return readAll(*file, path, maxBytes);
}

llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>>
aimodel::bundle::readWholeFile(support::RegularFile &file,
                               llvm::StringRef name) {
  support::ReadWatch watch(file, name);
  std::unique_ptr<llvm::WritableMemoryBuffer> buffer =
      llvm::WritableMemoryBuffer::getNewUninitMemBuffer(
          static_cast<size_t>(file.size()), name);
  if (!buffer)
    return llvm::createStringError(
        std::make_error_code(std::errc::not_enough_memory),
        "is too large to be read");
  // Exactly its size: a file that grew or shrank meanwhile has another
  // state after the read, or fewer bytes. With pread, so a caller that
  // falls back to reading it otherwise finds its position untouched.
  char *data = buffer->getBufferStart();
  size_t got = 0, want = buffer->getBufferSize();
  while (got < want) {
    ssize_t n = ::pread(file.fd.get(), data + got, want - got, off_t(got));
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0)
      return llvm::createStringError(
          std::error_code(errno, std::generic_category()),
          "read failed: " + aimodel::support::errnoReason(errno));
    if (n == 0)
      break;
    got += size_t(n);
  }
  if (watch.changedAfterReading(got))
    return changedError();
  return std::unique_ptr<llvm::MemoryBuffer>(std::move(buffer));
}

aimodel::bundle::Sha256::Sha256() : context(EVP_MD_CTX_new()) {
  // Allocation failure of a few bytes is fatal anyway; digest init of
  // SHA-256 cannot fail otherwise.
  if (!context || EVP_DigestInit_ex(static_cast<EVP_MD_CTX *>(context),
                                    EVP_sha256(), nullptr) != 1)
    llvm::report_fatal_error("cannot initialise SHA-256");
}

aimodel::bundle::Sha256::~Sha256() {
  EVP_MD_CTX_free(static_cast<EVP_MD_CTX *>(context));
}

void aimodel::bundle::Sha256::update(llvm::StringRef bytes) {
  EVP_DigestUpdate(static_cast<EVP_MD_CTX *>(context), bytes.data(),
                   bytes.size());
}

aimodel::bundle::Sha256Digest aimodel::bundle::Sha256::finish() {
  Sha256Digest digest{};
  unsigned int length = 0;
  if (EVP_DigestFinal_ex(static_cast<EVP_MD_CTX *>(context), digest.data(),
                         &length) != 1 ||
      length != digest.size())
    llvm::report_fatal_error("cannot finish SHA-256");
  return digest;
}

llvm::Expected<Sha256Digest>
aimodel::bundle::sha256File(support::RegularFile &file, llvm::StringRef name) {
  int fd = file.fd.get();
  support::ReadWatch watch(file, name);
  support::adviseSequentialRead(fd);
  Sha256 hash;
  // A chunk of at most 1 MiB, one byte past a smaller file (so one read
  // takes it whole), left uninitialised: reads fill what is used.
  size_t size = size_t(std::min<uint64_t>(file.size() + 1, 1 << 20));
  std::unique_ptr<char[]> chunk(new char[size]);
  uint64_t total = 0;
  while (true) {
    // Up to the size it had when opened (what follows, the state after
    // the read says): no read(2) that can only return 0.
    uint64_t left = file.size() > total ? file.size() - total : 0;
    llvm::Expected<size_t> got = readFully(
        fd, chunk.get(), size, size_t(std::min<uint64_t>(left, SIZE_MAX)));
    if (!got)
      return got.takeError();
    if (*got == 0)
      break;
    total += *got;
    hash.update(llvm::StringRef(chunk.get(), *got));
    if (*got < size)
      break;
  }
  // Other bytes than the file had when opened: the digest is of no file
  // that ever existed.
  if (watch.changedAfterReading(total))
    return changedError();
  return hash.finish();
}

llvm::Expected<Sha256Digest> aimodel::bundle::sha256File(int dirFd,
                                                         llvm::StringRef name) {
  llvm::Expected<RegularFile> file =
      support::openRegularFile(dirFd, name, Symlinks::Refuse);
  if (!file)
    return file.takeError();
  return sha256File(*file, name);
}

llvm::Expected<Sha256Digest> aimodel::bundle::sha256File(llvm::StringRef path) {
  llvm::Expected<RegularFile> file =
      support::openRegularFile(path, Symlinks::Refuse);
  if (!file)
    return file.takeError();
  return sha256File(*file, path);
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
