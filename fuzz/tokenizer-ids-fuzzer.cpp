//===- tokenizer-ids-fuzzer.cpp - libFuzzer target for TokenIds.h ---------===//
//
// tokenizer.json comes from anywhere and is read by a hand-written scanner
// (bundle/TokenIds.h). Whatever the bytes: no crash, no sanitizer report,
// and the same answer as the JSON parser the rest of the audit uses:
// accepted exactly when nlohmann accepts (a NUL aside: nlohmann stops
// there, the scanner refuses it), and then the same highest id as
// nlohmann's own events give (a key twice counts twice, in both).
//
// Built only by fuzz/CMakeLists.txt (clang, -fsanitize=fuzzer,address,
// undefined), driven by fuzz/run-fuzz-smoke.sh.
//
//===----------------------------------------------------------------------===//

#include "bundle/TokenIds.h"
#include "testing/TokenIdsReference.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string text(reinterpret_cast<const char *>(data), size);
  aimodel::bundle::TokenIdScan scan = aimodel::bundle::scanTokenIds(text);
  if (std::memchr(data, 0, size)) {
    if (scan.error.empty()) {
      std::fprintf(stderr, "a NUL byte was accepted\n");
      std::abort();
    }
    return 0;
  }
  aimodel::testing::TokenIdsReference reference;
  bool accepted = reference.parse(text);
  if (accepted != scan.error.empty()) {
    std::fprintf(stderr, "nlohmann %s, the scanner %s (%s at %zu)\n",
                 accepted ? "accepts" : "refuses",
                 scan.error.empty() ? "accepts" : "refuses", scan.error.c_str(),
                 scan.errorOffset);
    std::abort();
  }
  if (accepted && reference.highest != scan.highest) {
    std::fprintf(stderr, "highest ids differ\n");
    std::abort();
  }
  return 0;
}
