//===- LanguageBundle.h - What a bundle folder promises its runtime -*- C++
//-*-//
//
// A coreai-models bundle folder tells the runtime that loads it what it
// holds: its kind, its assets by role, and for language models the
// `language` block (vocabulary, context, tokenizer, states) and a
// `tokenizer/` folder in Hugging Face's layout. This reads those facts,
// leniently (a field that is absent or of another type is left unset: the
// audit's rules say what is missing), so that every rule reads them alike.
//
// Sources: apple/coreai-models `ModelBundle.swift`, `LanguageConfig.swift`,
// `StateHandlerFactory.swift`, `export/bundle.py` (coreai-format.md §2.2);
// huggingface/swift-transformers 1.3.3 `Sources/Hub/Hub.swift` (which
// chat template file wins).
//
//===----------------------------------------------------------------------===//
#ifndef AIMODEL_BUNDLE_LANGUAGEBUNDLE_H
#define AIMODEL_BUNDLE_LANGUAGEBUNDLE_H

#include "llvm/ADT/StringRef.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace aimodel::bundle {

/// The keys of `language` a language bundle must have (LanguageConfig.swift
/// decodes them without a default).
inline constexpr const char *kRequiredLanguageKeys[] = {
    "tokenizer", "vocab_size", "max_context_length", "function_map"};

/// The folder a bundle's own tokenizer lives in, beside metadata.json.
inline constexpr llvm::StringLiteral kTokenizerFolder = "tokenizer";

struct BundleFolderFacts {
  std::optional<std::string> kind;           ///< "llm", "vlm", ...
  std::map<std::string, std::string> assets; ///< role -> path (strings only)
  bool hasLanguage = false;                  ///< `language` is an object
  /// kRequiredLanguageKeys the `language` object lacks (all when absent).
  std::vector<std::string> missingLanguageKeys;
  std::optional<int64_t> vocabSize, maxContextLength;
  /// `language.embedded_tokenizer`: false when the runtime fetches the
  /// tokenizer by its id instead of reading `tokenizer/` (default true).
  bool embeddedTokenizer = true;
  /// `language.states`: state name -> kind ("kv_cache", "sliding_cache",
  /// "fixed"), string values only.
  std::map<std::string, std::string> stateKinds;
  /// `source.hf_model_id`, when a string.
  std::optional<std::string> sourceModelId;
  /// Where the folder asks its assets be compiled for the ANE: the first
  /// string under `compilation` naming it ("compilation.targets[0] =
  /// \"neural-engine\""), if any.
  std::optional<std::string> aneRequest;
};

/// The facts of a bundle folder's parsed metadata.json.
BundleFolderFacts readBundleFolderFacts(const nlohmann::json &metadata);

/// A file of the tokenizer folder that exists but cannot be used.
struct TokenizerProblem {
  std::string file;    ///< relative to the bundle folder: "tokenizer/x.json"
  std::string message; ///< one line, starting with the file's name
  /// A symlink, not followed: reported as one already (AIM010), so not
  /// again, yet what it would have said stays unknown.
  bool symlink = false;
};

/// What the tokenizer folder says, as swift-transformers would read it.
struct TokenizerFacts {
  /// tokenizer_config.json, when it is there and parses.
  std::optional<nlohmann::json> config;
  bool configMissing = false;
  std::optional<std::string> tokenizerClass; ///< when a string
  struct ChatTemplate {
    std::string text;
    std::string file; ///< where it came from, relative to the bundle folder
  };
  /// chat_template.jinja, else chat_template.json's "chat_template", else
  /// tokenizer_config.json's "chat_template" (a string, or the named
  /// templates' texts joined), as swift-transformers 1.3.3 prefers them.
  std::optional<ChatTemplate> chatTemplate;
  std::optional<std::string> eosToken; ///< a string or an AddedToken
  /// The special and added tokens' texts the small files name.
  std::set<std::string> specialTokens;
  std::vector<TokenizerProblem> problems;
};

/// Reads the tokenizer folder open as `dirFd` (never following a link);
/// the large tokenizer.json is not read here.
TokenizerFacts readTokenizerFolder(int dirFd);

/// The highest token id the tokenizer folder open as `dirFd` can produce:
/// tokenizer_config.json's `added_tokens_decoder` keys, added_tokens.json's
/// values, and tokenizer.json's `added_tokens` ids and `model.vocab` (a
/// map's highest id, a list's last index), streamed without building the
/// document. nullopt when no file says; a file that cannot be read is a
/// problem.
std::optional<uint64_t> maxTokenId(int dirFd,
                                   std::vector<TokenizerProblem> &problems);

/// The text of a tokenizer_config.json token field: a string, or an
/// AddedToken object's "content".
std::optional<std::string> tokenText(const nlohmann::json &value);

} // namespace aimodel::bundle

#endif // AIMODEL_BUNDLE_LANGUAGEBUNDLE_H
