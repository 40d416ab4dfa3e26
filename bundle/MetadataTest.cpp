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
