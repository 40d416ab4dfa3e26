//===- audit-merge-fuzzer.cpp - libFuzzer target for `audit --merge` ------===//
//
// Feeds arbitrary bytes to the merge as a shard report file: whatever they
// are, mergeReports answers with a report or one short error line, never a
// crash, an exception escaping, an allocation sized from an unchecked count
// or a hang (a count in a report sizes nothing before it is bounded).
//
// Built only by fuzz/CMakeLists.txt (clang, -fsanitize=fuzzer,address,
// undefined), driven by fuzz/run-fuzz-smoke.sh.
//
//===----------------------------------------------------------------------===//

#include "audit/Shard.h"

#include "llvm/Support/Error.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace {
/// One scratch file for the whole run, rewritten for each input.
const std::string &scratchFile() {
  static const std::string path = [] {
    llvm::SmallString<128> name;
    if (llvm::sys::fs::createTemporaryFile("aimodel-merge-fuzz", "json",
                                           name)) {
      std::fprintf(stderr, "cannot create a scratch file\n");
      std::abort();
    }
    return std::string(name);
  }();
  return path;
}
} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const std::string &path = scratchFile();
  {
    std::error_code error;
    llvm::raw_fd_ostream out(path, error);
    if (error)
      std::abort();
    out.write(reinterpret_cast<const char *>(data), size);
  }
  // The project's version, as the shards the smoke test seeds with name.
  llvm::Expected<aimodel::audit::AuditReport> merged =
      aimodel::audit::mergeReports({path}, AIMODEL_VERSION);
  if (!merged) {
    std::string message = llvm::toString(merged.takeError());
    // One line, and short: a list of what is missing is capped.
    if (message.find('\n') != std::string::npos || message.size() > 65536) {
      std::fprintf(stderr, "merge error is not one short line: %zu bytes\n",
                   message.size());
      std::abort();
    }
  }
  return 0;
}
