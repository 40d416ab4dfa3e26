//===- LanguageBundle.cpp - What a bundle folder promises its runtime -----===//

#include "bundle/LanguageBundle.h"
#include "bundle/Bundle.h"
#include "bundle/FileReading.h"
#include "bundle/Metadata.h"
#include "bundle/TokenIds.h"

#include "support/SafeFile.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"

#include <algorithm>

using namespace aimodel;
using namespace aimodel::bundle;
using Json = nlohmann::json;

namespace {

/// Tokenizer files other than tokenizer.json are small; a config with a
/// long chat template and every added token is a few hundred KB.
constexpr uint64_t kSmallTokenizerFileBytes = 16 << 20;
/// tokenizer.json holds the whole vocabulary and its merges (tens of MB for
/// a 256k vocabulary); it is streamed, never held as a document.
constexpr uint64_t kTokenizerJsonBytes = 1ull << 30;
/// The JSON nesting tokenizer.json needs is a handful of levels.
constexpr unsigned kTokenizerJsonDepth = 64;

std::optional<int64_t> integerField(const Json &object, const char *key) {
  auto it = object.find(key);
  if (it == object.end() || !it->is_number_integer())
    return std::nullopt;
  return it->get<int64_t>();
}

/// "neural-engine", "ANE", "neural_engine", "NeuralEngine": the ANE, named
/// the ways coreai-build's --preferred-compute and people write it.
bool namesTheANE(llvm::StringRef text) {
  std::string folded;
  for (char c : text)
    if (llvm::isAlnum(c))
      folded.push_back(llvm::toLower(c));
  return folded == "ane" || folded == "neuralengine" ||
         llvm::StringRef(folded).starts_with("neuralengine");
}

/// The first string at or below `value` that names the ANE, with its path.
std::optional<std::string> aneRequestIn(const Json &value,
                                        const std::string &path) {
  if (value.is_string())
    return namesTheANE(value.get<std::string>())
               ? std::optional<std::string>(path + " = " + value.dump())
               : std::nullopt;
  if (value.is_array()) {
    for (size_t i = 0; i < value.size(); ++i)
      if (auto found =
              aneRequestIn(value[i], llvm::formatv("{0}[{1}]", path, i)))
        return found;
  } else if (value.is_object()) {
    for (auto &[key, member] : value.items())
      if (auto found = aneRequestIn(member, path + "." + key))
        return found;
  }
  return std::nullopt;
}

} // namespace

std::optional<std::string> aimodel::bundle::tokenText(const Json &value) {
  if (value.is_string())
    return value.get<std::string>();
  if (value.is_object())
    if (auto content = value.find("content");
        content != value.end() && content->is_string())
      return content->get<std::string>();
  return std::nullopt;
}

BundleFolderFacts aimodel::bundle::readBundleFolderFacts(const Json &metadata) {
  BundleFolderFacts facts;
  facts.kind = stringField(metadata, "kind");
  if (auto assets = metadata.find("assets");
      assets != metadata.end() && assets->is_object())
    for (auto &[role, path] : assets->items())
      if (path.is_string())
        facts.assets[role] = path.get<std::string>();
  auto language = metadata.find("language");
  facts.hasLanguage = language != metadata.end() && language->is_object();
  for (const char *key : kRequiredLanguageKeys)
    if (!facts.hasLanguage || !language->contains(key))
      facts.missingLanguageKeys.push_back(key);
  if (facts.hasLanguage) {
    facts.vocabSize = integerField(*language, "vocab_size");
    facts.maxContextLength = integerField(*language, "max_context_length");
    if (auto embedded = language->find("embedded_tokenizer");
        embedded != language->end() && embedded->is_boolean())
      facts.embeddedTokenizer = embedded->get<bool>();
    if (auto states = language->find("states");
        states != language->end() && states->is_object())
      for (auto &[name, kind] : states->items())
        if (kind.is_string())
          facts.stateKinds[name] = kind.get<std::string>();
  }
  if (auto source = metadata.find("source");
      source != metadata.end() && source->is_object())
    facts.sourceModelId = stringField(*source, "hf_model_id");
  if (auto compilation = metadata.find("compilation");
      compilation != metadata.end())
    facts.aneRequest = aneRequestIn(*compilation, "compilation");
  return facts;
}

namespace {

/// One tokenizer file, parsed as an object; a problem when it is there but
/// cannot be used. Absent: nullopt and no problem.
std::optional<Json> loadTokenizerJson(int dirFd, llvm::StringRef name,
                                      std::vector<TokenizerProblem> &problems,
                                      bool *missing = nullptr) {
  MetadataLimits limits;
  limits.maxBytes = kSmallTokenizerFileBytes;
  MetadataResult parsed = loadMetadata(dirFd, name, limits);
  if (parsed.object)
    return std::move(parsed.object);
  std::string file = (kTokenizerFolder + "/" + name).str();
  if (parsed.problem == MetadataProblem::Unreadable &&
      llvm::StringRef(parsed.message).ends_with("no such file or directory")) {
    if (missing)
      *missing = true;
    return std::nullopt;
  }
  problems.push_back({file, file + " " + parsed.message,
                      llvm::StringRef(parsed.message).contains("symlink")});
  return std::nullopt;
}

void addTokens(const Json &value, std::set<std::string> &out) {
  if (std::optional<std::string> text = tokenText(value))
    out.insert(std::move(*text));
  else if (value.is_array())
    for (const Json &element : value)
      if (std::optional<std::string> text = tokenText(element))
        out.insert(std::move(*text));
}

} // namespace

TokenizerFacts aimodel::bundle::readTokenizerFolder(int dirFd) {
  TokenizerFacts facts;
  facts.config = loadTokenizerJson(dirFd, "tokenizer_config.json",
                                   facts.problems, &facts.configMissing);
  if (facts.config) {
    const Json &config = *facts.config;
    facts.tokenizerClass = stringField(config, "tokenizer_class");
    if (auto eos = config.find("eos_token"); eos != config.end())
      facts.eosToken = tokenText(*eos);
    if (auto decoder = config.find("added_tokens_decoder");
        decoder != config.end() && decoder->is_object())
      for (auto &[id, token] : decoder->items())
        addTokens(token, facts.specialTokens);
    for (auto &[key, value] : config.items())
      if (llvm::StringRef(key).ends_with("_token") ||
          key == "additional_special_tokens")
        addTokens(value, facts.specialTokens);
  }
  if (std::optional<Json> added =
          loadTokenizerJson(dirFd, "added_tokens.json", facts.problems))
    for (auto &[text, id] : added->items())
      facts.specialTokens.insert(text);
  if (std::optional<Json> map =
          loadTokenizerJson(dirFd, "special_tokens_map.json", facts.problems))
    for (auto &[key, value] : map->items())
      addTokens(value, facts.specialTokens);

  // The template swift-transformers 1.3.3 uses: chat_template.jinja, else
  // chat_template.json, else tokenizer_config.json's own.
  std::string folder = kTokenizerFolder.str() + "/";
  llvm::Expected<std::string> jinja =
      readSmallFile(dirFd, "chat_template.jinja", kSmallTokenizerFileBytes);
  if (jinja) {
    facts.chatTemplate = {std::move(*jinja), folder + "chat_template.jinja"};
    return facts;
  }
  std::string why = llvm::toString(jinja.takeError());
  if (!llvm::StringRef(why).ends_with("no such file or directory"))
    facts.problems.push_back({folder + "chat_template.jinja",
                              folder + "chat_template.jinja " + why,
                              llvm::StringRef(why).contains("symlink")});
  if (std::optional<Json> json =
          loadTokenizerJson(dirFd, "chat_template.json", facts.problems))
    if (std::optional<std::string> text = stringField(*json, "chat_template")) {
      facts.chatTemplate = {std::move(*text), folder + "chat_template.json"};
      return facts;
    }
  if (!facts.config)
    return facts;
  auto embedded = facts.config->find("chat_template");
  if (embedded == facts.config->end())
    return facts;
  std::string where = folder + "tokenizer_config.json";
  if (embedded->is_string()) {
    facts.chatTemplate = {embedded->get<std::string>(), where};
  } else if (embedded->is_array() && !embedded->empty()) {
    // Named templates: [{"name": "default", "template": "..."}, ...].
    std::string joined;
    for (const Json &named : *embedded)
      if (named.is_object())
        if (std::optional<std::string> text = stringField(named, "template"))
          joined += *text + "\n";
    facts.chatTemplate = {std::move(joined), where};
  }
  return facts;
}

std::optional<uint64_t>
aimodel::bundle::maxTokenId(int dirFd,
                            std::vector<TokenizerProblem> &problems) {
  std::optional<uint64_t> highest;
  auto note = [&](uint64_t id) { highest = std::max(highest.value_or(0), id); };
  if (std::optional<Json> config =
          loadTokenizerJson(dirFd, "tokenizer_config.json", problems))
    if (auto decoder = config->find("added_tokens_decoder");
        decoder != config->end() && decoder->is_object())
      for (auto &[id, token] : decoder->items()) {
        uint64_t value = 0;
        if (!llvm::StringRef(id).getAsInteger(10, value))
          note(value);
      }
  if (std::optional<Json> added =
          loadTokenizerJson(dirFd, "added_tokens.json", problems))
    for (auto &[text, id] : added->items())
      if (id.is_number_unsigned())
        note(id.get<uint64_t>());

  std::string file = kTokenizerFolder.str() + "/tokenizer.json";
  llvm::Expected<support::RegularFile> opened = support::openRegularFile(
      dirFd, "tokenizer.json", support::Symlinks::Refuse);
  if (!opened) {
    std::string why = llvm::toString(opened.takeError());
    if (!llvm::StringRef(why).ends_with("no such file or directory"))
      problems.push_back(
          {file, file + " " + why, llvm::StringRef(why).contains("symlink")});
    return highest;
  }
  if (opened->size() > kTokenizerJsonBytes) {
    problems.push_back(
        {file, llvm::formatv("{0} is {1} bytes, over the {2}-byte limit", file,
                             opened->size(), kTokenizerJsonBytes)});
    return highest;
  }
  llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>> buffer =
      support::mapRegularFile(std::move(*opened), file);
  if (!buffer) {
    problems.push_back({file, file + " " + llvm::toString(buffer.takeError())});
    return highest;
  }
  TokenIdScan scan = scanTokenIds((*buffer)->getBuffer(), kTokenizerJsonDepth);
  if (!scan.error.empty()) {
    problems.push_back(
        {file, llvm::formatv("{0} is not valid JSON at byte {1}: {2}", file,
                             scan.errorOffset, scan.error)});
    return highest;
  }
  if (scan.highest)
    note(*scan.highest);
  return highest;
}
