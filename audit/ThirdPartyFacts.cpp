//===- ThirdPartyFacts.cpp - Facts other projects report ------------------===//

#include "audit/ThirdPartyFacts.h"

#include "llvm/ADT/StringExtras.h"

using namespace aimodel::audit;

llvm::ArrayRef<llvm::StringLiteral> facts::knownTokenizerClasses() {
  // TokenizerModel.knownTokenizers of swift-transformers 1.3.3, in its order.
  static const llvm::StringLiteral known[] = {
      "BertTokenizer",     "CodeGenTokenizer",    "CodeLlamaTokenizer",
      "CohereTokenizer",   "DistilbertTokenizer", "DistilBertTokenizer",
      "FalconTokenizer",   "GemmaTokenizer",      "GPT2Tokenizer",
      "LlamaTokenizer",    "RobertaTokenizer",    "T5Tokenizer",
      "TokenizersBackend", "PreTrainedTokenizer", "Qwen2Tokenizer",
      "WhisperTokenizer",  "XLMRobertaTokenizer", "Xlm-RobertaTokenizer"};
  return known;
}

bool facts::looksInstructionTuned(llvm::StringRef modelId) {
  std::string id = modelId.lower();
  llvm::StringRef text(id);
  auto isWordChar = [](char c) { return llvm::isAlnum(c) || c == '_'; };
  // "-it" or "-chat" ending a word: at the end, or before a non-word byte.
  auto endsWord = [&](llvm::StringRef needle) {
    for (size_t at = text.find(needle); at != llvm::StringRef::npos;
         at = text.find(needle, at + 1)) {
      size_t after = at + needle.size();
      if (after == text.size() || !isWordChar(text[after]))
        return true;
    }
    return false;
  };
  return endsWord("-it") || text.contains("-it-") ||
         text.contains("instruct") || endsWord("-chat") ||
         text.contains("chat-");
}
