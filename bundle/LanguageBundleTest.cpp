//===- LanguageBundleTest.cpp - Bundle folder and tokenizer facts ---------===//

#include "bundle/LanguageBundle.h"
#include "support/SafeFile.h"
#include "testing/TestFiles.h"

#include <gtest/gtest.h>

#include <random>

using namespace aimodel;
using namespace aimodel::bundle;
using aimodel::testing::ScratchDir;
using Json = nlohmann::json;

namespace {

support::UniqueFd openDir(const std::string &path) {
  auto fd = support::openDirectory(path, support::Symlinks::Refuse);
  EXPECT_TRUE(bool(fd)) << path;
  return fd ? std::move(*fd) : support::UniqueFd();
}

} // namespace

TEST(LanguageBundle, FolderFactsAreReadLeniently) {
  BundleFolderFacts facts = readBundleFolderFacts(Json::parse(R"({
    "metadata_version": "0.2", "kind": "llm",
    "assets": {"main": "m.aimodel", "bad": 3},
    "language": {"vocab_size": 32000, "max_context_length": "4096",
                 "tokenizer": "x/y", "embedded_tokenizer": false,
                 "states": {"k": "kv_cache", "n": 1}},
    "source": {"hf_model_id": "x/y-Instruct"},
    "compilation": {"targets": ["gpu", {"device": "Neural Engine"}]}})"));
  EXPECT_EQ(facts.kind, "llm");
  EXPECT_EQ(facts.assets,
            (std::map<std::string, std::string>{{"main", "m.aimodel"}}));
  EXPECT_TRUE(facts.hasLanguage);
  EXPECT_EQ(facts.vocabSize, 32000);
  EXPECT_EQ(facts.maxContextLength, std::nullopt); // a string, not a number
  EXPECT_EQ(facts.missingLanguageKeys,
            std::vector<std::string>{"function_map"});
  EXPECT_FALSE(facts.embeddedTokenizer);
  EXPECT_EQ(facts.stateKinds,
            (std::map<std::string, std::string>{{"k", "kv_cache"}}));
  EXPECT_EQ(facts.sourceModelId, "x/y-Instruct");
  EXPECT_EQ(facts.aneRequest,
            "compilation.targets[1].device = \"Neural Engine\"");

  BundleFolderFacts none = readBundleFolderFacts(Json::parse(
      R"({"language": 1, "compilation": {"targets": ["gpu", "cpu", "planet"]}})"));
  EXPECT_FALSE(none.hasLanguage);
  EXPECT_EQ(none.missingLanguageKeys.size(), 4u);
  EXPECT_EQ(none.aneRequest, std::nullopt);
  for (const char *ane : {"ane", "ANE", "neural-engine", "neural_engine",
                          "NeuralEngine", "neuralEngine"})
    EXPECT_TRUE(readBundleFolderFacts(
                    Json{{"compilation", {{"preferred_compute", ane}}}})
                    .aneRequest)
        << ane;
}

TEST(LanguageBundle, ChatTemplateAsSwiftTransformersChoosesIt) {
  ScratchDir dir;
  dir.write("tokenizer_config.json",
            R"({"tokenizer_class": "GemmaTokenizerFast",
                "eos_token": {"content": "<eos>", "special": true},
                "chat_template": [{"name": "default", "template": "A"},
                                  {"name": "tool_use", "template": "B"}],
                "added_tokens_decoder": {"106": {"content": "<end_of_turn>"}}})");
  {
    TokenizerFacts facts = readTokenizerFolder(openDir(dir.root).get());
    EXPECT_EQ(facts.tokenizerClass, "GemmaTokenizerFast");
    EXPECT_EQ(facts.eosToken, "<eos>");
    EXPECT_TRUE(facts.specialTokens.count("<end_of_turn>"));
    ASSERT_TRUE(facts.chatTemplate);
    EXPECT_EQ(facts.chatTemplate->text, "A\nB\n");
    EXPECT_EQ(facts.chatTemplate->file, "tokenizer/tokenizer_config.json");
    EXPECT_TRUE(facts.problems.empty());
  }
  dir.write("chat_template.json", R"({"chat_template": "from json"})");
  EXPECT_EQ(readTokenizerFolder(openDir(dir.root).get()).chatTemplate->text,
            "from json");
  dir.write("chat_template.jinja", "from jinja");
  TokenizerFacts facts = readTokenizerFolder(openDir(dir.root).get());
  EXPECT_EQ(facts.chatTemplate->text, "from jinja");
  EXPECT_EQ(facts.chatTemplate->file, "tokenizer/chat_template.jinja");

  dir.write("special_tokens_map.json", "{\"eos_token\": ");
  facts = readTokenizerFolder(openDir(dir.root).get());
  ASSERT_EQ(facts.problems.size(), 1u);
  EXPECT_EQ(facts.problems[0].file, "tokenizer/special_tokens_map.json");
  EXPECT_FALSE(facts.problems[0].symlink);
}

TEST(LanguageBundle, MissingConfigIsSaidNotAProblem) {
  ScratchDir dir;
  TokenizerFacts facts = readTokenizerFolder(openDir(dir.root).get());
  EXPECT_TRUE(facts.configMissing);
  EXPECT_FALSE(facts.config);
  EXPECT_TRUE(facts.problems.empty());
  std::vector<TokenizerProblem> problems;
  EXPECT_EQ(maxTokenId(openDir(dir.root).get(), problems), std::nullopt);
  EXPECT_TRUE(problems.empty());
}

namespace {

/// A tokenizer.json as the tokenizers library writes one, with a random
/// vocabulary (a map or a Unigram list), random added tokens, and decoys:
/// "id" and "vocab" keys where the ids are not.
struct RandomTokenizer {
  std::string json;
};

std::string randomToken(std::mt19937 &random) {
  static const char *pieces[] = {"a",  "\\u0120", "\\\"", "\\\\", "▁x",
                                 "{",  "}",       "[",    "]",    ":",
                                 "id", "vocab",   ",",    "\\n",  "𝄞"};
  std::string token;
  for (int n = 1 + random() % 4; n > 0; --n)
    token += pieces[random() % std::size(pieces)];
  return token;
}

RandomTokenizer randomTokenizer(std::mt19937 &random) {
  RandomTokenizer out;
  bool list = random() % 2;
  int entries = int(random() % 400);
  std::string added;
  for (int n = random() % 5; n > 0; --n) {
    uint64_t id = random() % 1000;
    added += std::string(added.empty() ? "" : ", ") +
             "{\"id\": " + std::to_string(id) + ", \"content\": \"" +
             randomToken(random) +
             "\", \"special\": true, \"normalized\": false}";
  }
  std::string vocab;
  for (int i = 0; i < entries; ++i) {
    if (list) {
      vocab += std::string(i ? ", " : "") + "[\"" + randomToken(random) +
               "\", -" + std::to_string(random() % 20) + ".5]";
    } else {
      uint64_t id = random() % 5000;
      vocab += std::string(i ? ",\n" : "") + "\"" + randomToken(random) +
               std::to_string(i) + "\": " + std::to_string(id);
    }
  }
  std::string model =
      std::string("{\"type\": \"") + (list ? "Unigram" : "BPE") +
      "\", \"unk_id\": 99999, \"vocab\": " + (list ? "[" : "{") + vocab +
      (list ? "]" : "}") + ", \"merges\": [[\"a\", \"b\"]]}";
  // Decoys: ids nowhere near the vocabulary or added tokens.
  out.json = "{\"version\": \"1.0\", \"truncation\": null, \"padding\": "
             "{\"id\": 77777, \"vocab\": {\"z\": 88888}}, \"added_tokens\": [" +
             added + "], \"normalizer\": {\"id\": 66666}, \"model\": " + model +
             ", \"decoder\": {\"vocab\": [1, 2, 3]}}";
  return out;
}

} // namespace

TEST(LanguageBundle, HighestTokenIdOfRandomTokenizers) {
  std::mt19937 random(2026);
  for (int trial = 0; trial < 300; ++trial) {
    SCOPED_TRACE("trial " + std::to_string(trial));
    ScratchDir dir;
    RandomTokenizer tokenizer = randomTokenizer(random);
    // The reference: nlohmann's whole document, read the obvious way.
    Json doc = Json::parse(tokenizer.json);
    std::optional<uint64_t> reference;
    for (const Json &t : doc["added_tokens"])
      reference = std::max(reference.value_or(0), t["id"].get<uint64_t>());
    const Json &vocab = doc["model"]["vocab"];
    if (vocab.is_array() && !vocab.empty())
      reference = std::max(reference.value_or(0), uint64_t(vocab.size() - 1));
    if (vocab.is_object())
      for (auto &[key, id] : vocab.items())
        reference = std::max(reference.value_or(0), id.get<uint64_t>());
    dir.write("tokenizer.json", tokenizer.json);
    std::vector<TokenizerProblem> problems;
    std::optional<uint64_t> highest =
        maxTokenId(openDir(dir.root).get(), problems);
    EXPECT_TRUE(problems.empty());
    EXPECT_EQ(highest, reference);

    // Cut anywhere, the file is never taken for a smaller vocabulary.
    size_t cut = random() % tokenizer.json.size();
    dir.write("tokenizer.json", tokenizer.json.substr(0, cut));
    problems.clear();
    maxTokenId(openDir(dir.root).get(), problems);
    ASSERT_EQ(problems.size(), 1u) << "cut at " << cut;
    EXPECT_EQ(problems[0].file, "tokenizer/tokenizer.json");
  }
}

TEST(LanguageBundle, HighestTokenIdOfTheSmallFiles) {
  ScratchDir dir;
  dir.write("tokenizer_config.json",
            R"({"added_tokens_decoder": {"5": {}, "262144": {}, "x": {}}})");
  dir.write("added_tokens.json", R"({"<a>": 7, "<b>": -1})");
  std::vector<TokenizerProblem> problems;
  EXPECT_EQ(maxTokenId(openDir(dir.root).get(), problems), 262144u);
  EXPECT_TRUE(problems.empty());

  // A NUL does not end the document: what follows it is refused.
  dir.write("tokenizer.json",
            std::string("{\"model\": {\"vocab\": {}}}\0{}", 27));
  EXPECT_EQ(maxTokenId(openDir(dir.root).get(), problems), 262144u);
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_NE(problems[0].message.find("bytes after the JSON document"),
            std::string::npos)
      << problems[0].message;

  problems.clear();
  dir.write("tokenizer.json", std::string(100, '[') + std::string(100, ']'));
  maxTokenId(openDir(dir.root).get(), problems);
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_NE(problems[0].message.find("nests too deep"), std::string::npos);
}
