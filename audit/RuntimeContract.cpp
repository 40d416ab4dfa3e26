//===- RuntimeContract.cpp - What the runtime needs of an asset -----------===//

#include "audit/RuntimeContract.h"
#include "audit/ThirdPartyFacts.h"

#include "bundle/Bundle.h"
#include "bundle/Metadata.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>

using namespace aimodel;
using namespace aimodel::audit;
using namespace aimodel::audit::contract;
using bundle::BundleKind;
using bundle::DirEntry;
using bytecode::EntryGraphFacts;
using bytecode::PortFacts;

void Outcome::add(const Rule &rule, std::string message, std::string file) {
  ranRule(rule);
  report(rule, std::move(message), std::move(file));
}

void Outcome::report(const Rule &rule, std::string message, std::string file) {
  findings.push_back(
      {&rule, rule.severity, std::move(message), std::move(file)});
}

void Outcome::ranRule(const Rule &rule) {
  if (!llvm::is_contained(ran, &rule))
    ran.push_back(&rule);
}

std::string contract::detail::cite(llvm::StringRef what) {
  return (" (" + what + "; " + facts::kUnverified + ")").str();
}

std::string contract::detail::inQuotes(llvm::StringRef text) {
  return "'" + text.str() + "'";
}

namespace {

using contract::detail::cite;
using contract::detail::inQuotes;

/// "@main", or "the entry graph" when it has no readable name.
std::string graphName(const EntryGraphFacts &graph) {
  return graph.name.empty() ? std::string("the entry graph") : "@" + graph.name;
}

/// "`logits`", or "output 2" for an unnamed port.
std::string portName(const PortFacts &port, const char *what, size_t index) {
  return port.name.empty() ? llvm::formatv("{0} {1}", what, index).str()
                           : "`" + port.name + "`";
}

bool isStatic(const bytecode::Shape &shape) {
  return llvm::none_of(shape,
                       [](int64_t d) { return d == bytecode::kDynamicDim; });
}

} // namespace

std::vector<std::string> contract::aneRegionHashes(llvm::StringRef manifest) {
  // <key>ANERegionsHash</key><dict><key>h18p</key><string>...</string>...
  std::vector<std::string> out;
  for (size_t at = manifest.find("<key>ANERegionsHash</key>");
       at != llvm::StringRef::npos;
       at = manifest.find("<key>ANERegionsHash</key>", at + 1)) {
    llvm::StringRef rest = manifest.substr(at);
    size_t end = rest.find("</dict>");
    llvm::StringRef dict = rest.take_front(end);
    for (size_t open = dict.find("<string>"); open != llvm::StringRef::npos;
         open = dict.find("<string>", open + 1)) {
      size_t close = dict.find("</string>", open);
      if (close == llvm::StringRef::npos)
        break;
      out.push_back(dict.slice(open + strlen("<string>"), close).trim().str());
    }
  }
  return out;
}

namespace {

/// "2.0 GiB (2147483648 bytes)".
std::string sizeText(uint64_t bytes) {
  return llvm::formatv("{0:f1} GiB ({1} bytes)", double(bytes) / (1 << 30),
                       bytes);
}

void checkCompiled(const AssetFacts &asset,
                   const std::optional<BundleContext> &context, Outcome &out) {
  std::string arch = asset.arch.empty() ? std::string("an unknown architecture")
                                        : inQuotes(asset.arch);
  out.add(rules::CompiledLoadContract,
          "compiled for " + arch +
              " (a device identifier's major version: iPhone18,x is h18p, "
              "Mac16,x h16c; coreai-build accepts any name); load it with "
              "SpecializationOptions.default() or .cpuOnly(): asking for a "
              "compute unit re-specializes it on the device" +
              cite("doctor AOTC-ARCH-NAME, AOTC-LOAD-OPTIONS"));

  if (!asset.delegatesListed ||
      llvm::any_of(asset.delegateEntries, [](const std::string &name) {
        return llvm::StringRef(name).contains(facts::kANERegionMarker);
      }))
    return;
  std::vector<std::string> kinds;
  std::string prefix = asset.delegatesFolder + "/";
  for (const std::string &entry : asset.delegateEntries) {
    llvm::StringRef rest = llvm::StringRef(entry);
    if (!rest.consume_front(prefix))
      continue;
    std::string kind = rest.split('/').first.str();
    if (!llvm::is_contained(kinds, kind))
      kinds.push_back(kind);
  }
  std::string found =
      asset.delegateEntries.empty()
          ? "no " + asset.delegatesFolder + " folder at all"
          : "no " + facts::kANERegionMarker.str() + " file below " +
                asset.delegatesFolder +
                (kinds.empty()
                     ? std::string()
                     : " (delegates: " + llvm::join(kinds, ", ") + ")");
  bool emptyHashes =
      !asset.aneRegionHashes.empty() &&
      llvm::all_of(asset.aneRegionHashes, [](const std::string &hash) {
        return llvm::StringRef(hash).ends_with_insensitive(facts::kEmptySha256);
      });
  if (emptyHashes)
    found += "; its MPSGraph manifest's ANERegionsHash ends in the SHA-256 "
             "of nothing";
  std::string why = "; coreai-build writes such a bundle and exits 0 when its "
                    "ANE compile fails" +
                    cite("apple/coreai-models#205");
  if (context) {
    out.ranRule(rules::ANERequestedNotCompiled);
    if (context->facts.aneRequest) {
      out.add(rules::ANERequestedNotCompiled,
              "the bundle folder " + inQuotes(context->folder) +
                  " asks for the "
                  "Neural Engine (" +
                  *context->facts.aneRequest +
                  "), yet this compiled bundle holds no ANE region: " + found +
                  why,
              asset.delegatesFolder);
      return;
    }
  }
  out.add(rules::NoANERegion,
          "no ANE region: " + found + "; it runs on the GPU or CPU only" + why,
          asset.delegatesFolder);
}

/// The logits outputs of the readable graphs: (graph, port, width).
struct Logits {
  const EntryGraphFacts *graph;
  const PortFacts *port;
  int64_t width;
};

std::vector<Logits> logitsOf(const std::vector<EntryGraphFacts> &graphs) {
  std::vector<Logits> out;
  for (const EntryGraphFacts &graph : graphs) {
    if (!graph.readable())
      continue;
    for (const PortFacts &port : graph.outputs)
      if (llvm::StringRef(port.name).contains_insensitive("logit") &&
          port.shape && !port.shape->empty() &&
          port.shape->back() != bytecode::kDynamicDim)
        out.push_back({&graph, &port, port.shape->back()});
  }
  return out;
}

std::string logitsText(const Logits &logits) {
  return llvm::formatv("{0}'s `{1}` ({2}) is {3} wide",
                       graphName(*logits.graph), logits.port->name,
                       logits.port->type, logits.width);
}

void checkGraphs(const AssetFacts &asset,
                 const std::optional<BundleContext> &context, Outcome &out) {
  const std::vector<EntryGraphFacts> &graphs = *asset.graphs;
  // The language rules judge the main asset of a language bundle only: a
  // segmenter's "logits" are no vocabulary.
  const bundle::BundleFolderFacts *folder =
      context && context->role == "main" &&
              (context->facts.kind == "llm" || context->facts.kind == "vlm")
          ? &context->facts
          : nullptr;
  bool readable = false;
  bool irStates = false;
  std::vector<std::string> dynamicStates;
  for (const EntryGraphFacts &graph : graphs) {
    if (!graph.readable())
      continue;
    readable = true;
    size_t states = graph.states();
    irStates |= states > 0;
    // The states as EntryGraphFacts::states() counts them: the inputs that
    // are states, or failing those the outputs.
    bool inputStates =
        llvm::any_of(graph.inputs, [](const PortFacts &p) { return p.state; });
    const std::vector<PortFacts> &stateSide =
        inputStates ? graph.inputs : graph.outputs;
    const char *side = inputStates ? "input" : "output";
    std::vector<std::string> names;
    for (size_t i = 0; i < stateSide.size(); ++i) {
      const PortFacts &port = stateSide[i];
      if (!port.state)
        continue;
      names.push_back(portName(port, side, i));
      if (port.shape && !isStatic(*port.shape))
        dynamicStates.push_back(graphName(graph) + " " + names.back() + " " +
                                port.type);
    }
    if (states && states != facts::kSequentialEngineStates)
      out.add(rules::StateCount,
              llvm::formatv("{0} declares {1} states ({2}): Apple's "
                            "sequential engine requires exactly {3} and fails "
                            "at engine creation (\"Expected {3} states ... "
                            "got {1}\"); it needs the pipelined engine{4}",
                            graphName(graph), states, llvm::join(names, ", "),
                            facts::kSequentialEngineStates,
                            cite("doctor GRAPH-STATE-COUNT")),
              asset.irFile);
    for (size_t i = 0; i < graph.inputs.size(); ++i) {
      const PortFacts &port = graph.inputs[i];
      if (port.name == "input_ids" && port.shape && !port.shape->empty() &&
          isStatic(*port.shape) && port.shape->back() == 1)
        out.add(rules::SingleTokenGraph,
                llvm::formatv(
                    "{0}'s input_ids is static, {1}: one token per call; the "
                    "engine's default warmup prefills 256 tokens and a "
                    "multi-token prefill chunk is refused; set "
                    "COREAI_CHUNK_THRESHOLD=1 before the engine is created, "
                    "skip engine.warmup(), run llm-runner with --warmup "
                    "exact --warmup-length 1{2}",
                    graphName(graph), port.type,
                    cite("doctor GRAPH-S1-RUN-CONTRACT")),
                asset.irFile);
    }
  }
  if (readable) {
    out.ranRule(rules::StateCount);
    out.ranRule(rules::SingleTokenGraph);
  }
  // The bundle folder's language.states, where the IR shows none.
  if (folder && !irStates && !folder->stateKinds.empty()) {
    size_t states = folder->stateKinds.size();
    std::vector<std::string> names;
    for (auto &[name, kind] : folder->stateKinds) {
      names.push_back(name + " (" + kind + ")");
      if (kind == "kv_cache")
        dynamicStates.push_back(name + " (kv_cache in language.states)");
    }
    if (states != facts::kSequentialEngineStates)
      out.add(rules::StateCount,
              llvm::formatv("the bundle folder {0} declares {1} states in "
                            "language.states ({2}): Apple's sequential engine "
                            "requires exactly {3}; it needs the pipelined "
                            "engine{4}",
                            inQuotes(context->folder), states,
                            llvm::join(names, ", "),
                            facts::kSequentialEngineStates,
                            cite("doctor GRAPH-STATE-COUNT")));
    else
      out.ranRule(rules::StateCount);
  }
  if (!folder)
    return;

  // Dynamic KV state with a long context.
  if (folder->maxContextLength && (irStates || !folder->stateKinds.empty())) {
    out.ranRule(rules::DynamicKVLongContext);
    if (!dynamicStates.empty() &&
        *folder->maxContextLength >= facts::kDynamicKVContextLimit)
      out.add(rules::DynamicKVLongContext,
              llvm::formatv(
                  "dynamic-length KV state ({0}) with language."
                  "max_context_length {1} (at least {2}): the iOS on-device "
                  "compiler is reported to miscompile this graph once the KV "
                  "bound reaches {2}, giving garbage from the first token on "
                  "iPhone while a Mac is exact; cap the KV capacity at 1024 "
                  "on iOS{3}",
                  llvm::join(dynamicStates, ", "), *folder->maxContextLength,
                  facts::kDynamicKVContextLimit,
                  cite("doctor GRAPH-DYNAMIC-KV-IOS-2048, "
                       "apple/coreai-models#124")),
              asset.irFile);
  }

  std::vector<Logits> logits = logitsOf(graphs);
  if (logits.empty())
    return;
  if (folder->vocabSize) {
    out.ranRule(rules::VocabSizeMismatch);
    std::vector<std::string> differ;
    for (const Logits &l : logits)
      if (l.width != *folder->vocabSize)
        differ.push_back(logitsText(l));
    if (!differ.empty())
      out.add(rules::VocabSizeMismatch,
              llvm::formatv("the bundle folder {0} says language.vocab_size "
                            "{1}, but {2}: the engine sizes its sampler from "
                            "the metadata and indexes the real logits, so "
                            "tokens come out wrong without an error{3}",
                            inQuotes(context->folder), *folder->vocabSize,
                            llvm::join(differ, "; "),
                            cite("doctor GRAPH-VOCAB-MISMATCH")),
              asset.irFile);
  }

  // The tokenizer's highest id against the narrowest head.
  llvm::Expected<support::UniqueFd> tokenizerDir = support::openDirectory(
      context->dir.get(), bundle::kTokenizerFolder, support::Symlinks::Refuse);
  if (!tokenizerDir) {
    llvm::consumeError(tokenizerDir.takeError()); // none, or the folder's
    return;
  }
  std::vector<bundle::TokenizerProblem> problems;
  std::optional<uint64_t> highest =
      bundle::maxTokenId(tokenizerDir->get(), problems);
  // tokenizer.json is read for this rule alone; the folder's audit reports
  // the small files.
  bool unreadable = false;
  for (const bundle::TokenizerProblem &problem : problems) {
    unreadable = true;
    if (!problem.symlink &&
        llvm::StringRef(problem.file).ends_with("/tokenizer.json"))
      out.report(rules::UnreadableMetadata,
                 "in the bundle folder " + inQuotes(context->folder) + ", " +
                     problem.message +
                     ", so AIM020 (tokenizer-overflow) did not "
                     "run");
  }
  if (unreadable || !highest)
    return;
  out.ranRule(rules::TokenizerOverflow);
  const Logits &narrowest =
      *llvm::min_element(logits, [](const Logits &a, const Logits &b) {
        return a.width < b.width;
      });
  if (int64_t(*highest) >= narrowest.width)
    out.add(rules::TokenizerOverflow,
            llvm::formatv("the tokenizer of the bundle folder {0} has token "
                          "id {1}, but {2}: ids from {3} up can never be "
                          "produced, and "
                          "fed back they index past the embedding; harmless "
                          "only for markers the port never sees{4}",
                          inQuotes(context->folder), *highest,
                          logitsText(narrowest), narrowest.width,
                          cite("doctor GRAPH-TOKENIZER-OVERFLOW")),
            asset.irFile);
}

} // namespace

void contract::checkAsset(const bundle::FoundBundle &found,
                          const AssetFacts &asset,
                          std::optional<BundleContext> &context, Outcome &out) {
  bool compiled = found.kind == BundleKind::CompiledAsset;
  if (!found.viaSymlink.empty())
    out.add(rules::SymlinkedAssetPath,
            llvm::formatv("reached through {0}, a symlink to {1} (followed "
                          "because it was named): Swift's "
                          "AIModel(contentsOf:) is reported not to follow a "
                          "symlinked path and then fails to specialize, while "
                          "Python's loader follows it{2}",
                          inQuotes(found.viaSymlink),
                          inQuotes(found.viaSymlinkTarget),
                          cite("doctor ASSET-SYMLINK")));
  if (!compiled && asset.bytes >= facts::kLargeGraphBytes &&
      !asset.compiledBeside)
    out.add(rules::LargePortableGraph,
            "a portable asset of " + sizeText(asset.bytes) +
                " with no compiled .aimodelc beside it: some graphs of this "
                "size are reported to specialize on an iPhone in a minute, "
                "others to exhaust its scratch space or memory; time a cold "
                "specialization on a device, or ship a compiled bundle" +
                cite("doctor IOS-LARGE-GRAPH-JIT"));
  if (asset.bytes >= facts::kMemoryEntitlementBytes)
    out.add(rules::MemoryEntitlement,
            "an asset of " + sizeText(asset.bytes) +
                ": cold specialization on an iPhone is reported to exceed the "
                "default memory limit (std::bad_alloc, then ENOENT on every "
                "later try); the app needs "
                "com.apple.developer.kernel.increased-memory-limit" +
                cite("doctor IPHONE-MEMORY-ENTITLEMENT"));
  if (compiled)
    checkCompiled(asset, context, out);
  if (asset.graphs)
    checkGraphs(asset, context, out);
}
