#include "bundle/Metadata.h"
#include "testing/TestFiles.h"

#include <gtest/gtest.h>

using namespace aimodel::bundle;

TEST(Metadata, ParsesApplesFormattingAndKeepsUnknownKeys) {
  MetadataResult r = parseMetadata("{\n  \"assetVersion\" : \"2.0\",\n  "
                                   "\"license\" : \"https:\\/\\/x.org\\/l\",\n"
                                   "  \"custom\" : {\"k\" : [1, 2]}\n}");
  ASSERT_TRUE(r.object) << r.message;
  EXPECT_EQ(stringField(*r.object, "license"), "https://x.org/l");
  EXPECT_EQ((*r.object)["custom"]["k"][1], 2);
  EXPECT_EQ(stringField(*r.object, "producer"), std::nullopt);
}

TEST(Metadata, DeepNestingIsRejectedBeforeParsing) {
  std::string deep(100000, '[');
  deep += std::string(100000, ']');
  MetadataResult r = parseMetadata(deep);
  EXPECT_FALSE(r.object);
  EXPECT_EQ(r.problem, MetadataProblem::TooDeep);
  EXPECT_EQ(r.message, "nests deeper than 64 levels (byte 64)");
}

TEST(Metadata, BracketsInsideStringsDoNotCountAsNesting) {
  std::string text = "{\"s\": \"" + std::string(500, '[') + "\\\"[\"}";
  EXPECT_EQ(findExcessiveNesting(text, 64), std::nullopt);
  MetadataResult r = parseMetadata(text);
  EXPECT_TRUE(r.object) << r.message;
}

TEST(Metadata, NotAnObjectAndNotJsonAreTellable) {
  MetadataResult array = parseMetadata("[1]");
  EXPECT_EQ(array.problem, MetadataProblem::NotObject);
  EXPECT_EQ(array.message, "is a JSON array, not an object");
  MetadataResult broken = parseMetadata("{\"a\": tru}");
  EXPECT_EQ(broken.problem, MetadataProblem::NotJson);
  EXPECT_NE(broken.message.find("at byte 10"), std::string::npos)
      << broken.message;
}

TEST(Metadata, SizeCapAppliesToFiles) {
  aimodel::testing::ScratchDir dir;
  std::string path =
      dir.write("m.json", "{\"pad\": \"" + std::string(2000, 'x') + "\"}");
  MetadataLimits small;
  small.maxBytes = 1000;
  MetadataResult r = loadMetadata(path, small);
  EXPECT_EQ(r.problem, MetadataProblem::TooLarge);
  EXPECT_TRUE(loadMetadata(path).object);
}

TEST(Metadata, OutOfRangeNumbersAreAFindingNotACrash) {
  // nlohmann throws out_of_range here, not parse_error.
  MetadataResult r = parseMetadata("{\"a\": 1e400}");
  EXPECT_FALSE(r.object);
  EXPECT_EQ(r.problem, MetadataProblem::NotJson);
  EXPECT_EQ(r.message,
            "cannot be parsed at byte 11: number overflow parsing '1e400'");
  EXPECT_EQ(r.message.find('\n'), std::string::npos);
}

TEST(Metadata, BytesAfterTheDocumentAreRefusedEvenAfterANul) {
  // nlohmann's lexer takes NUL for the end of input even when given the
  // length: "{...}\0garbage" used to be accepted.
  const char withNul[] = "{\"assetVersion\":\"2.0\"}\0garbage";
  MetadataResult nul =
      parseMetadata(llvm::StringRef(withNul, sizeof withNul - 1));
  EXPECT_FALSE(nul.object);
  EXPECT_EQ(nul.problem, MetadataProblem::TrailingBytes);
  EXPECT_EQ(nul.message,
            "has trailing bytes after the JSON document at byte 22");
  const char onlyNul[] = "{\"a\": 1} \n\0";
  EXPECT_EQ(parseMetadata(llvm::StringRef(onlyNul, sizeof onlyNul - 1)).problem,
            MetadataProblem::TrailingBytes);
  MetadataResult text = parseMetadata("{\"a\": 1} x");
  EXPECT_EQ(text.problem, MetadataProblem::NotJson);
  EXPECT_TRUE(parseMetadata("{\"a\": 1} \r\n\t ").object); // whitespace is fine
  // Read from a file, the bytes count, not a C string.
  aimodel::testing::ScratchDir dir;
  std::string path =
      dir.write("m.json", llvm::StringRef(withNul, sizeof withNul - 1));
  EXPECT_EQ(loadMetadata(path).problem, MetadataProblem::TrailingBytes);
}

TEST(Metadata, AKeyTwiceInOneObjectIsRefused) {
  // nlohmann keeps the last; a loader keeping the first would read "1.0".
  MetadataResult twice =
      parseMetadata(R"({"assetVersion": "1.0", "assetVersion": "2.0"})");
  EXPECT_FALSE(twice.object);
  EXPECT_EQ(twice.problem, MetadataProblem::DuplicateKey);
  EXPECT_EQ(twice.message,
            "has the key \"assetVersion\" more than once in one object");
  MetadataResult nested =
      parseMetadata(R"({"assets": {"main": "a.aimodel", "main": "b"}})");
  EXPECT_EQ(nested.problem, MetadataProblem::DuplicateKey);
  MetadataResult inArray =
      parseMetadata(R"({"l": [{"k": 1}, {"k": 1, "k": 2}]})");
  EXPECT_EQ(inArray.problem, MetadataProblem::DuplicateKey);
  // The same key in different objects is fine.
  MetadataResult apart =
      parseMetadata(R"({"a": {"k": 1}, "b": {"k": 2}, "k": [{"k": 3}]})");
  EXPECT_TRUE(apart.object) << apart.message;
}
