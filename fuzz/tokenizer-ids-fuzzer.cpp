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

#include <nlohmann/json.hpp>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {
using Json = nlohmann::json;

/// The ids the scanner keeps, from nlohmann's SAX events.
class Reference : public nlohmann::json_sax<Json> {
public:
  std::optional<uint64_t> highest;
  bool null() override { return scalar(); }
  bool boolean(bool) override { return scalar(); }
  bool number_integer(number_integer_t) override { return scalar(); }
  bool number_unsigned(number_unsigned_t n) override {
    if ((inVocab() && !isArray[2]) ||
        (path.size() == 3 && path[0] == "added_tokens" && isArray[1] &&
         !isArray[2] && path[2] == "id"))
      note(n);
    return scalar();
  }
  bool number_float(number_float_t, const string_t &) override {
    return scalar();
  }
  bool string(string_t &) override { return scalar(); }
  bool binary(binary_t &) override { return scalar(); }
  bool start_object(std::size_t) override { return open(false); }
  bool key(string_t &name) override {
    path.back() = name;
    return true;
  }
  bool end_object() override { return close(); }
  bool start_array(std::size_t) override { return open(true); }
  bool end_array() override { return close(); }
  bool parse_error(std::size_t, const std::string &,
                   const nlohmann::detail::exception &) override {
    return false;
  }

private:
  std::vector<std::string> path;
  std::vector<bool> isArray;
  std::vector<uint64_t> counts;
  void note(uint64_t id) { highest = std::max(highest.value_or(0), id); }
  bool inVocab() const {
    return path.size() == 3 && path[0] == "model" && path[1] == "vocab";
  }
  bool scalar() {
    if (inVocab() && isArray[2])
      ++counts.back();
    return true;
  }
  bool open(bool array) {
    if (inVocab() && isArray[2])
      ++counts.back();
    if (path.size() >= 64) // the scanner's depth limit
      return false;
    path.emplace_back();
    isArray.push_back(array);
    counts.push_back(0);
    return true;
  }
  bool close() {
    if (inVocab() && isArray[2] && counts.back())
      note(counts.back() - 1);
    path.pop_back();
    isArray.pop_back();
    counts.pop_back();
    return true;
  }
};
} // namespace

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
  Reference reference;
  bool accepted = false;
  try {
    accepted = Json::sax_parse(text, &reference);
  } catch (const Json::exception &) {
    accepted = false;
  }
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
