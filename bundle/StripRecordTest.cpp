#include "bundle/StripRecord.h"
#include "bundle/Metadata.h"

#include <gtest/gtest.h>

#include <random>

using namespace aimodel::bundle;

namespace {

StripRecord sampleRecord() {
  StripRecord r;
  r.tool = "aimodel strip";
  r.version = "1.2.3";
  r.date = "20261203T084512Z";
  r.from = {1000, std::string(64, 'a')};
  r.to = {900, std::string(64, 'b')};
  r.opLocations = 7;
  r.strings = 2;
  return r;
}

nlohmann::json parsed(const std::string &text) {
  MetadataResult r = parseMetadata(text);
  EXPECT_TRUE(r.object) << r.message << "\n" << text;
  return r.object ? *r.object : nlohmann::json();
}

} // namespace

TEST(StripRecord, AddedInApplesSpacingWithEveryOtherByteKept) {
  std::string apple = "{\n  \"creationDate\" : \"20260622T044112Z\",\n"
                      "  \"author\" : \"A \\/ B\",\n"
                      "  \"assetVersion\" : \"2.0\"\n}";
  llvm::Expected<std::string> edited = withStripRecord(apple, sampleRecord());
  ASSERT_TRUE(bool(edited)) << llvm::toString(edited.takeError());
  // Everything up to the last value, and the closing brace, as they were.
  size_t last = apple.find("\"2.0\"") + 5;
  EXPECT_EQ(edited->substr(0, last), apple.substr(0, last));
  EXPECT_EQ(edited->substr(edited->size() - 2), "\n}");
  EXPECT_NE(edited->find(",\n  \"strip\" : {\n    \"what\" : "),
            std::string::npos)
      << *edited;
  EXPECT_NE(edited->find("\n      \"bytes\" : 1000,"), std::string::npos);
  nlohmann::json after = parsed(*edited);
  EXPECT_EQ(after["author"], "A / B");
  ReadRecord read = readStripRecord(after);
  ASSERT_TRUE(read.record);
  EXPECT_EQ(read.record->from.sha256, std::string(64, 'a'));
  EXPECT_EQ(read.record->to.bytes, 900u);
  EXPECT_EQ(read.record->opLocations, 7u);
  EXPECT_EQ(read.record->version, "1.2.3");
}

TEST(StripRecord, ASecondRecordReplacesTheFirstInPlace) {
  std::string text = "{\"a\": 1, \"strip\": {\"old\": [1, {\"}\": 2}]}, "
                     "\"z\": \"x\"}";
  StripRecord r = sampleRecord();
  r.rehashed = "main.hash is missing";
  llvm::Expected<std::string> edited = withStripRecord(text, r);
  ASSERT_TRUE(bool(edited));
  EXPECT_EQ(edited->substr(0, 18), "{\"a\": 1, \"strip\": ");
  EXPECT_EQ(edited->substr(edited->size() - 11), ", \"z\": \"x\"}");
  EXPECT_EQ(edited->find('\n'), std::string::npos) << "one line stays one";
  nlohmann::json after = parsed(*edited);
  EXPECT_EQ(after.size(), 3u);
  EXPECT_EQ(readStripRecord(after).record->rehashed, "main.hash is missing");
}

TEST(StripRecord, AnEmptyObjectGetsOne) {
  llvm::Expected<std::string> edited =
      withStripRecord(" { } \n", sampleRecord());
  ASSERT_TRUE(bool(edited));
  EXPECT_TRUE(readStripRecord(parsed(*edited)).record);
  EXPECT_EQ(edited->substr(0, 3), " {\n");
}

TEST(StripRecord, MalformedRecordsAreSaidNotTrusted) {
  EXPECT_FALSE(readStripRecord(nlohmann::json::object()).problem);
  EXPECT_TRUE(readStripRecord(parsed("{\"strip\": 1}")).problem);
  EXPECT_TRUE(readStripRecord(parsed("{\"strip\": {\"main_mlirb\": "
                                     "{\"bytes\": 1, \"sha256\": \"zz\"}}}"))
                  .problem);
}

// Any object, any spacing: the edit adds exactly one key, and removing the
// inserted text gives the file back byte for byte.
TEST(StripRecord, RandomObjectsKeepEveryOtherByte) {
  std::mt19937 rng(42);
  const char *spaces[] = {"", " ", "\n", "\n  ", "\t", "\r\n    "};
  const char *values[] = {"1",          "-2.5e3",    "true",
                          "null",       "\"}\"",     "\"a\\\"{\\\\\"",
                          "[1,[2,{}]]", "{\"k\":[]}"};
  for (int trial = 0; trial < 500; ++trial) {
    auto sp = [&] { return std::string(spaces[rng() % 6]); };
    unsigned n = rng() % 5;
    std::string text = sp() + "{";
    for (unsigned i = 0; i < n; ++i)
      text += (i ? "," : "") + sp() + "\"k" + std::to_string(i) + "\"" + sp() +
              ":" + sp() + values[rng() % 8] + sp();
    text += "}" + sp();
    nlohmann::json before = parsed(text);
    llvm::Expected<std::string> edited = withStripRecord(text, sampleRecord());
    ASSERT_TRUE(bool(edited)) << text;
    nlohmann::json after = parsed(*edited);
    ASSERT_TRUE(after.contains("strip")) << *edited;
    after.erase("strip");
    EXPECT_EQ(after, before) << text;
    // The edit is one insertion: a common prefix and suffix cover the rest.
    size_t prefix = 0;
    while (prefix < text.size() && text[prefix] == (*edited)[prefix])
      ++prefix;
    size_t suffix = 0;
    while (suffix < text.size() - prefix &&
           text[text.size() - 1 - suffix] ==
               (*edited)[edited->size() - 1 - suffix])
      ++suffix;
    EXPECT_EQ(prefix + suffix, text.size()) << text << "\n" << *edited;
  }
}
