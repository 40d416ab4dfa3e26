//===- LanguageBundleChecks.cpp - A bundle folder's runtime contract ------===//
//
// The rules a coreai-models bundle folder answers for itself (AIM022-AIM026):
// what its metadata and tokenizer folder promise the language runtime; and
// where an asset stands in the folder that names it, for the asset's own
// rules (RuntimeContract.cpp).
//
//===----------------------------------------------------------------------===//

#include "audit/RuntimeContract.h"
#include "audit/ThirdPartyFacts.h"

#include "bundle/Metadata.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

using namespace aimodel;
using namespace aimodel::audit;
using namespace aimodel::audit::contract;
using bundle::BundleKind;
using bundle::DirEntry;
using contract::detail::cite;
using contract::detail::inQuotes;

namespace {

/// Whether a Jinja template uses the variable `name` in an expression or a
/// statement: inside `{{ }}` or `{% %}`, outside string literals (which may
/// hold a closer), never in its literal text or a `{# #}` comment.
bool usesVariable(llvm::StringRef text, llvm::StringRef name) {
  auto isWordChar = [](char c) { return llvm::isAlnum(c) || c == '_'; };
  size_t i = 0, n = text.size();
  while (i + 1 < n) {
    llvm::StringRef rest = text.substr(i);
    if (rest.starts_with("{#")) { // a comment
      size_t close = text.find("#}", i + 2);
      i = close == llvm::StringRef::npos ? n : close + 2;
      continue;
    }
    if (!rest.starts_with("{{") && !rest.starts_with("{%")) {
      ++i;
      continue;
    }
    char closing = rest[1] == '{' ? '}' : '%';
    for (i += 2; i < n; ++i) {
      char c = text[i];
      if (c == '\'' || c == '"') { // a string literal: skip it
        for (++i; i < n && text[i] != c; ++i)
          if (text[i] == '\\')
            ++i;
        continue;
      }
      if (c == closing && i + 1 < n && text[i + 1] == '}') {
        i += 2;
        break;
      }
      if (text.substr(i).starts_with(name) && !isWordChar(text[i - 1]) &&
          (i + name.size() == n || !isWordChar(text[i + name.size()])))
        return true;
    }
  }
  return false;
}

bool problemAbout(const bundle::TokenizerFacts &tokenizer,
                  llvm::StringRef file) {
  return llvm::any_of(tokenizer.problems,
                      [&](const bundle::TokenizerProblem &p) {
                        return llvm::StringRef(p.file).ends_with(file);
                      });
}

void checkTokenizerClass(const bundle::TokenizerFacts &tokenizer,
                         Outcome &out) {
  const Rule &rule = rules::TokenizerClassUnregistered;
  std::string config =
      bundle::kTokenizerFolder.str() + "/tokenizer_config.json";
  std::string why = cite("doctor TOKENIZER-CLASS-UNREGISTERED; the list: " +
                         facts::kKnownTokenizersSource.str());
  if (tokenizer.configMissing) {
    out.add(rule,
            config +
                " is missing: swift-transformers reads tokenizer_class "
                "from it and loads no tokenizer without one" +
                why,
            bundle::kTokenizerFolder.str());
    return;
  }
  if (!tokenizer.tokenizerClass) {
    out.add(rule,
            "tokenizer_config.json has no tokenizer_class (as a string): "
            "swift-transformers throws missingTokenizerClassInConfig" +
                why,
            config);
    return;
  }
  // The library removes every "Fast", not only a suffix.
  std::string name = *tokenizer.tokenizerClass;
  for (size_t at = name.find("Fast"); at != std::string::npos;
       at = name.find("Fast", at))
    name.erase(at, 4);
  if (llvm::is_contained(facts::knownTokenizerClasses(), name))
    out.ranRule(rule);
  else
    out.add(rule,
            llvm::formatv("tokenizer_class \"{0}\" (looked up as \"{1}\") is "
                          "not one swift-transformers knows: a strict load "
                          "throws unsupportedTokenizer, the lenient one "
                          "tokenizes it as BPE, which is wrong for a Unigram "
                          "or WordPiece model{2}",
                          *tokenizer.tokenizerClass, name, why),
            config);
}

void checkChatTemplate(const bundle::BundleFolderFacts &folder,
                       const bundle::TokenizerFacts &tokenizer, Outcome &out) {
  // What the template is cannot be known when a file that may hold it
  // could not be read.
  bool configUnusable = problemAbout(tokenizer, "tokenizer_config.json");
  if (problemAbout(tokenizer, "chat_template.jinja") ||
      problemAbout(tokenizer, "chat_template.json") ||
      (configUnusable && !tokenizer.chatTemplate))
    return;
  out.ranRule(rules::ChatTemplateMissing);
  out.ranRule(rules::ChatTemplateAbsent);
  if (!tokenizer.chatTemplate) {
    bool instruct = folder.sourceModelId &&
                    facts::looksInstructionTuned(*folder.sourceModelId);
    std::string source =
        folder.sourceModelId
            ? "the source model " + inQuotes(*folder.sourceModelId) +
                  (instruct ? " looks instruction-tuned"
                            : " does not look instruction-tuned") +
                  " (by its name: a heuristic)"
            : std::string("no source.hf_model_id says what the source model "
                          "is");
    out.add(instruct ? rules::ChatTemplateMissing : rules::ChatTemplateAbsent,
            "no chat template: no tokenizer/chat_template.jinja, no "
            "chat_template.json, no chat_template in tokenizer_config.json; " +
                source +
                "; the runtime then applies none and runs raw completion, "
                "without a warning" +
                cite(instruct ? "doctor CHAT-TEMPLATE-MISSING"
                              : "doctor CHAT-TEMPLATE-ABSENT"),
            bundle::kTokenizerFolder.str());
    return;
  }
  if (!tokenizer.eosToken || configUnusable)
    return;
  out.ranRule(rules::EosNotInTemplate);
  const std::string &text = tokenizer.chatTemplate->text;
  const std::string &eos = *tokenizer.eosToken;
  if (eos.empty() || llvm::StringRef(text).contains(eos) ||
      usesVariable(text, "eos_token"))
    return;
  std::vector<std::string> emitted;
  for (const std::string &token : tokenizer.specialTokens)
    if (token != eos && token.size() > 2 &&
        llvm::StringRef(text).contains(token) && emitted.size() < 6)
      emitted.push_back("'" + token + "'");
  out.add(rules::EosNotInTemplate,
          llvm::formatv("eos_token '{0}' never appears in the chat template "
                        "({1}), which never uses the eos_token variable "
                        "either; it emits {2}: an app that stops on the eos "
                        "token's id alone runs to the token cap{3}",
                        eos, tokenizer.chatTemplate->file,
                        emitted.empty() ? std::string("no other special token")
                                        : llvm::join(emitted, ", "),
                        cite("doctor EOS-NOT-EMITTED-BY-TEMPLATE")),
          tokenizer.chatTemplate->file);
}

} // namespace

void contract::checkBundleFolder(int dirFd, const nlohmann::json &metadata,
                                 const std::vector<DirEntry> &entries,
                                 Outcome &out) {
  bundle::BundleFolderFacts folder = bundle::readBundleFolderFacts(metadata);
  auto tokenizerEntry = llvm::find_if(entries, [](const DirEntry &e) {
    return e.name == bundle::kTokenizerFolder;
  });
  bool hasTokenizer = tokenizerEntry != entries.end();
  if (folder.kind == "llm") {
    std::vector<std::string> missing;
    if (!folder.assets.count("main"))
      missing.push_back("assets.main");
    for (const std::string &key : folder.missingLanguageKeys)
      missing.push_back("language." + key);
    // A symlinked tokenizer folder is AIM010's; the runtime fetches the
    // tokenizer by its id when embedded_tokenizer is false.
    if (!hasTokenizer && folder.embeddedTokenizer)
      missing.push_back("the tokenizer/ folder");
    if (missing.empty())
      out.ranRule(rules::IncompleteLanguageBundle);
    else
      out.add(rules::IncompleteLanguageBundle,
              "a kind \"llm\" bundle folder without " +
                  llvm::join(missing, ", ") +
                  ": the language runtime (LanguageBundle, the engine "
                  "factory) cannot load it" +
                  cite("doctor BUNDLE-INCOMPLETE; the keys "
                       "apple/coreai-models LanguageConfig.swift decodes"),
              "metadata.json");
  }
  // The tokenizer rules are the language runtime's (swift-transformers'):
  // other kinds read their tokenizers otherwise, or have none.
  if ((folder.kind != "llm" && folder.kind != "vlm") || !hasTokenizer ||
      tokenizerEntry->type != DirEntry::Type::Directory)
    return;
  llvm::Expected<support::UniqueFd> tokenizerDir = support::openDirectory(
      dirFd, bundle::kTokenizerFolder, support::Symlinks::Refuse);
  if (!tokenizerDir) {
    // Reported by the walk, which meets the same folder.
    llvm::consumeError(tokenizerDir.takeError());
    return;
  }
  bundle::TokenizerFacts tokenizer =
      bundle::readTokenizerFolder(tokenizerDir->get());
  for (const bundle::TokenizerProblem &problem : tokenizer.problems)
    if (!problem.symlink)
      out.report(rules::UnreadableMetadata,
                 problem.message +
                     ", so the tokenizer rules that read it did not run",
                 problem.file);
  if (!problemAbout(tokenizer, "tokenizer_config.json"))
    checkTokenizerClass(tokenizer, out);
  checkChatTemplate(folder, tokenizer, out);
}

/// `relative` spelt one way: empty and "." components dropped.
static std::string normalRelative(llvm::StringRef relative) {
  llvm::SmallVector<llvm::StringRef, 4> parts;
  relative.split(parts, '/', -1, /*KeepEmpty=*/false);
  std::string out;
  for (llvm::StringRef part : parts)
    if (part != ".")
      out += (out.empty() ? "" : "/") + part.str();
  return out;
}

std::optional<BundleContext>
contract::bundleContext(const bundle::FoundBundle &found) {
  const std::string &folder = found.bundleFolder;
  if (folder.empty())
    return std::nullopt;
  llvm::StringRef path(found.path);
  std::string relative;
  if (folder == "." && !path.starts_with("/") && !path.starts_with("./"))
    relative = path.str();
  else if (path.starts_with(folder) &&
           (folder.back() == '/' ||
            path.substr(folder.size()).starts_with("/")))
    relative = path.substr(folder.size()).str();
  else
    return std::nullopt;
  relative = normalRelative(relative);
  // The folder was found a bundle folder by the walk, or is the nearest
  // above a PATH the user named: followed like one.
  llvm::Expected<support::UniqueFd> dir =
      support::openDirectory(folder, support::Symlinks::Follow);
  if (!dir) {
    llvm::consumeError(dir.takeError());
    return std::nullopt;
  }
  bundle::MetadataResult parsed =
      bundle::loadMetadata(dir->get(), "metadata.json");
  if (!parsed.object || !parsed.object->contains("metadata_version"))
    return std::nullopt; // its own audit says why
  BundleContext context{folder, "",
                        bundle::readBundleFolderFacts(*parsed.object),
                        std::move(*dir)};
  llvm::StringRef name = llvm::StringRef(relative).rsplit('/').second.empty()
                             ? llvm::StringRef(relative)
                             : llvm::StringRef(relative).rsplit('/').second;
  llvm::StringRef parent = llvm::StringRef(relative).drop_back(name.size());
  auto names = [&](const std::string &declared) {
    std::string normal = normalRelative(declared);
    if (normal == relative)
      return true;
    // Apple's loader falls back from X.aimodel to X.<arch>.aimodelc beside it.
    llvm::StringRef stem(normal);
    if (found.kind != BundleKind::CompiledAsset ||
        !stem.consume_back(".aimodel"))
      return false;
    llvm::StringRef declaredName =
        stem.rsplit('/').second.empty() ? stem : stem.rsplit('/').second;
    return stem.drop_back(declaredName.size()) == parent &&
           name.starts_with(declaredName.str() + ".") &&
           name.ends_with(".aimodelc");
  };
  // "main" first: the role the language rules are about.
  if (auto main = context.facts.assets.find("main");
      main != context.facts.assets.end() && names(main->second))
    context.role = "main";
  else
    for (auto &[role, declared] : context.facts.assets)
      if (names(declared)) {
        context.role = role;
        break;
      }
  if (context.role.empty())
    return std::nullopt;
  return context;
}
