//===- TokenIdsReference.h - What bundle/TokenIds.h must answer -*- C++ -*-===//
//
// The reference the tokenizer.json scanner is checked against, by its unit
// test and its fuzzer: nlohmann's own SAX events, with every id the scanner
// keeps (`added_tokens[].id`, `model.vocab`'s ids: a map's values, a list's
// indices; a key twice counts twice, as in the scanner) and its depth limit.
// Header-only, no GoogleTest: the fuzzer builds it alone.
//
//===----------------------------------------------------------------------===//
#ifndef AIMODEL_TESTING_TOKENIDSREFERENCE_H
#define AIMODEL_TESTING_TOKENIDSREFERENCE_H

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace aimodel::testing {

class TokenIdsReference : public nlohmann::json_sax<nlohmann::json> {
public:
  std::optional<uint64_t> highest;

  /// Whether nlohmann accepts `text` (as the scanner must), filling highest.
  bool parse(const std::string &text) {
    try {
      return nlohmann::json::sax_parse(text, this);
    } catch (const nlohmann::json::exception &) {
      return false;
    }
  }

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
  std::vector<std::string> path; ///< each open level's current key
  std::vector<bool> isArray;
  std::vector<uint64_t> counts; ///< elements seen, per open level

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

} // namespace aimodel::testing

#endif // AIMODEL_TESTING_TOKENIDSREFERENCE_H
