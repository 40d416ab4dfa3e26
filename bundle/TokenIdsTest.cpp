//===- TokenIdsTest.cpp - tokenizer.json's highest id, in one pass --------===//
//
// The scanner must accept exactly what the JSON parser the rest of the
// audit uses accepts, and find the same highest id a whole-document read
// does: checked on random tokenizers and on tens of thousands of mutations
// of them (bytes flipped, cut, inserted: quotes, escapes, brackets, UTF-8
// fragments).
//
//===----------------------------------------------------------------------===//

#include "bundle/TokenIds.h"
#include "testing/TokenIdsReference.h"

#include <nlohmann/json.hpp>

#include <gtest/gtest.h>

#include <random>

using namespace aimodel::bundle;
using Json = nlohmann::json;

namespace {

std::string randomTokenizer(std::mt19937 &random) {
  static const char *pieces[] = {"a",
                                 "\\u0120",
                                 "\\\"",
                                 "\\\\",
                                 "\xE2\x96\x81x",
                                 "{",
                                 "}",
                                 "[",
                                 "]",
                                 ":",
                                 "id",
                                 "vocab",
                                 ",",
                                 "\\n",
                                 "\xF0\x9D\x84\x9E",
                                 "\\ud83d\\ude00"};
  auto token = [&] {
    std::string text;
    for (int n = 1 + random() % 3; n > 0; --n)
      text += pieces[random() % std::size(pieces)];
    return text;
  };
  std::string added;
  for (int n = random() % 4; n > 0; --n)
    added += std::string(added.empty() ? "" : ", ") +
             "{\"id\": " + std::to_string(random() % 1000) +
             ", \"content\": \"" + token() +
             "\", \"special\": true, \"lstrip\": false}";
  bool list = random() % 2;
  std::string vocab;
  for (int i = 0, n = random() % 60; i < n; ++i)
    vocab += std::string(i ? ", " : "") +
             (list ? "[\"" + token() + "\", -" + std::to_string(i) + ".25e0]"
                   : "\"" + token() + std::to_string(i) +
                         "\": " + std::to_string(random() % 9000));
  return "{\"version\": \"1.0\", \"truncation\": null, \"padding\": {\"id\": "
         "77777}, \"added_tokens\": [" +
         added +
         "], \"model\": {\"type\": \"x\", \"vocab\": " + (list ? "[" : "{") +
         vocab + (list ? "]" : "}") +
         ", \"merges\": [\"a b\", [\"c\", \"d\"]]}, \"decoder\": {\"vocab\": "
         "[123456], \"flag\": true, \"x\": -0.5E+3}}";
}

std::optional<uint64_t> referenceHighest(const std::string &text) {
  aimodel::testing::TokenIdsReference reference;
  EXPECT_TRUE(reference.parse(text));
  return reference.highest;
}

} // namespace

TEST(TokenIds, AgreesWithTheDocumentParserOnRandomAndMutatedTokenizers) {
  std::mt19937 random(42);
  const char *insertions[] = {"\"",
                              "\\",
                              "{",
                              "}",
                              "[",
                              "]",
                              ",",
                              ":",
                              "\xC3",
                              "\xE2\x82",
                              "\xF0\x9F\x98\x80",
                              "\xED\xA0\x80",
                              "\\u",
                              "\\ud800",
                              "\\udc00x",
                              "1e",
                              "-",
                              "00",
                              "true",
                              "nul",
                              " ",
                              "\x01",
                              "\x7F"};
  int accepted = 0, refused = 0;
  for (int trial = 0; trial < 400; ++trial) {
    std::string text = randomTokenizer(random);
    TokenIdScan scan = scanTokenIds(text);
    ASSERT_EQ(scan.error, "") << text;
    EXPECT_EQ(scan.highest, referenceHighest(text)) << text;
    for (int m = 0; m < 100; ++m) {
      std::string mutated = text;
      size_t at = random() % (mutated.size() + 1);
      switch (random() % 3) {
      case 0:
        mutated.insert(at, insertions[random() % std::size(insertions)]);
        break;
      case 1:
        mutated.erase(at, 1 + random() % 3);
        break;
      default:
        if (at < mutated.size())
          mutated[at] = char(random() % 256);
        break;
      }
      if (mutated.find('\0') != std::string::npos)
        continue; // nlohmann ends its input at a NUL; the scanner refuses it
      bool valid = Json::accept(mutated);
      TokenIdScan got = scanTokenIds(mutated);
      ASSERT_EQ(got.error.empty(), valid)
          << "at " << at << ": " << got.error << "\n"
          << mutated;
      if (valid) {
        ++accepted;
        EXPECT_EQ(got.highest, referenceHighest(mutated)) << mutated;
      } else {
        ++refused;
      }
    }
  }
  // Both kinds were exercised, many times.
  EXPECT_GT(accepted, 1000);
  EXPECT_GT(refused, 10000);
}

TEST(TokenIds, RefusesWhatTheRestOfTheAuditRefuses) {
  for (const char *bad :
       {"", "{", "{\"a\": 1,}", "[1 2]", "{\"a\" 1}", "01", "1.", "-", "+1",
        "\"\\x\"", "\"\\ud800\"", "\"\\udc00\"", "\"\xC0\xAF\"",
        "\"\xED\xA0\x80\"", "\"\xF4\x90\x80\x80\"", "\"a\nb\"", "{} {}", "nul",
        "[1]]"})
    EXPECT_NE(scanTokenIds(bad).error, "") << bad;
  EXPECT_EQ(scanTokenIds(std::string(64, '[') + std::string(64, ']')).error,
            "");
  EXPECT_EQ(scanTokenIds(std::string(65, '[') + std::string(65, ']')).error,
            "nests too deep");
  TokenIdScan scan = scanTokenIds("{\"model\": {\"vocab\": {\"a\": 5, "
                                  "\"b\": 18446744073709551616}}}");
  EXPECT_EQ(scan.error, "");
  EXPECT_EQ(scan.highest, 5u); // too large to be an id: not one
  scan = scanTokenIds("{\"x\": 1}  \n");
  EXPECT_EQ(scan.error, "");
  EXPECT_EQ(scan.highest, std::nullopt);
}
