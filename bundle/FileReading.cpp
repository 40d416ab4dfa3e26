//===- FileReading.cpp - Safe reads of untrusted bundle members -----------===//

#include "bundle/FileReading.h"

#include "support/FileSystem.h"
#include "support/ReadGuard.h"

#include "llvm/Support/ErrorHandling.h"

#include <openssl/evp.h>

#include <algorithm>
#include <cerrno>
#include <fcntl.h>
#include <memory>
#include <unistd.h>
#include <vector>

using namespace aimodel::bundle;
using aimodel::support::RegularFile;
using aimodel::support::Symlinks;
namespace support = aimodel::support;

/// Reads up to `want` bytes, retrying short reads and EINTR.
static llvm::Expected<size_t> readFully(int fd, char *buffer, size_t want) {
  size_t got = 0;
  while (got < want) {
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
  // One byte past its size, so a file that grew since it was opened shows.
  std::string data(static_cast<size_t>(file.size()) + 1, '\0');
  llvm::Expected<size_t> got =
      readFully(file.fd.get(), data.data(), data.size());
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
  std::vector<char> chunk(1 << 20);
  uint64_t total = 0;
  while (true) {
    llvm::Expected<size_t> got = readFully(fd, chunk.data(), chunk.size());
    if (!got)
      return got.takeError();
    if (*got == 0)
      break;
    total += *got;
    hash.update(llvm::StringRef(chunk.data(), *got));
    if (*got < chunk.size())
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
