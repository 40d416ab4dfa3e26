//===- Rules.cpp - The audit rule catalogue -------------------------------===//

#include "audit/Rules.h"

using namespace aimodel::audit;

namespace aimodel::audit::rules {
const Rule MissingProducer{
    "AIM001",
    "missing-producer",
    Severity::Warning,
    "metadata.json of a .aimodel has no producer (written by coreai-core "
    "1.0.0b1 / coreai-torch 0.4.0): a triage hint, not proof",
    "Check the IR (AIM002 is the authority); re-export with coreai-torch >= "
    "0.4.1 to get a producer stamp.",
    Evidence::Measured,
    "real 0.4.0-era assets (saved by coreai-core 1.0.0b1) carry no "
    "producer; coreai-core 1.0.0b2 and coreai-build stamp one"};
const Rule LegacyDebugLocation{
    "AIM002",
    "legacy-debug-location",
    Severity::Error,
    "the IR of a .aimodel has coreai-torch 0.4.0 fused call-stack locations, "
    "which current Core AI compilers abort on",
    "Re-export with coreai-torch >= 0.4.1, or make a shipping copy with "
    "`aimodel strip`.",
    Evidence::Measured,
    "apple/coreai-torch#37, #44 (OS 27 beta 2+ compilers abort); the form "
    "as found in real coreai-torch 0.4.0 IR"};
const Rule HashMismatch{
    "AIM003",
    "hash-mismatch",
    Severity::Error,
    "main.hash is missing, not a regular file, not 32 "
    "bytes, or not the SHA-256 of the bundle's mlirb",
    "Rewrite main.hash as the raw 32-byte SHA-256 of the "
    "mlirb, or re-save the asset.",
    Evidence::Measured,
    "main.hash is the raw SHA-256 of the mlirb in every real asset seen (6 "
    "portable, 5 compiled); the runtime refuses a missing one "
    "(apple/coreai-models#230)"};
const Rule MissingFile{
    "AIM004",
    "missing-file",
    Severity::Error,
    "the mlirb or metadata.json is missing, the mlirb is "
    "not a regular file, the bundle path is not a "
    "directory, a bundle folder's asset is not there, or "
    "something inside an asset cannot be read",
    "Restore the missing member or fix the bundle "
    "folder's assets entry.",
    Evidence::Measured,
    "the members of every real asset seen; bundle folders as "
    "apple/coreai-models ModelBundle.swift reads them"};
const Rule UnreadableMetadata{"AIM005",
                              "unreadable-metadata",
                              Severity::Error,
                              "metadata.json (or a compiled bundle's "
                              "stats.json) is not a regular file, not "
                              "usable JSON (trailing bytes, a key twice in "
                              "one object), not an object, too large, too "
                              "deep, or unreadable",
                              "Rewrite the file as one JSON object.",
                              Evidence::Measured,
                              "metadata.json is one JSON object in every real "
                              "asset seen"};
const Rule UnreadableIR{
    "AIM006",
    "unreadable-ir",
    Severity::Error,
    "an IR file of the bundle (the mlirb, or a delegate "
    ".mpsgraph) cannot be decoded",
    "Re-export or recompile the asset; the file is "
    "damaged or not MLIR bytecode.",
    Evidence::Measured,
    "the MLIR bytecode format; every real IR file seen decodes"};
const Rule DebugPayload{"AIM007",
                        "debug-payload",
                        Severity::Warning,
                        "the IR carries absolute source paths, home-directory "
                        "user names or source-file hashes",
                        "Ship a copy made with `aimodel strip`, or export in "
                        "RELEASE mode.",
                        Evidence::Measured,
                        "absolute paths and user names found in real "
                        "0.4.0 IR and compiled delegates"};
const Rule CompiledBundle{"AIM008",
                          "compiled-bundle",
                          Severity::Info,
                          "a compiled .aimodelc: its compiler, source hash, "
                          "and whether its IR still has legacy call-stack "
                          "locations",
                          "Compiled bundles cannot be stripped: recompile "
                          "from a fixed .aimodel.",
                          Evidence::Measured,
                          "real compiled bundles; that they cannot be "
                          "stripped, community-reported "
                          "(john-rocky/coreai-model-zoo)"};
const Rule UnexpectedFile{"AIM009",
                          "unexpected-file",
                          Severity::Info,
                          "a file not known to belong to the bundle kind",
                          "Remove the file if it is not meant to ship.",
                          Evidence::Measured,
                          "the members real assets hold"};
const Rule Symlink{"AIM010",
                   "symlink",
                   Severity::Error,
                   "a symlink inside a bundle (never followed)",
                   "Replace the symlink with the file itself.",
                   Evidence::Inferred,
                   "project policy: a shipped asset that follows a link "
                   "outside itself is not the asset that was audited"};
const Rule UnknownAssetVersion{
    "AIM011",
    "unknown-asset-version",
    Severity::Warning,
    "assetVersion missing or not \"2.0\" "
    "(metadata_version not \"0.2\" for a "
    "bundle folder)",
    "Re-save the asset with current Core AI tools.",
    Evidence::Measured,
    "\"2.0\" and \"0.2\" are the only versions seen in real files"};
const Rule UnverifiedLocation{
    "AIM012",
    "unverified-location",
    Severity::Warning,
    "the IR of a .aimodel has builtin locations (a bare op-id NameLoc or a "
    "plain FusedLoc) that current compilers were never shown to accept",
    "Re-export with coreai-torch >= 0.4.1, or `aimodel strip` (which writes "
    "loc(unknown)).",
    Evidence::Inferred,
    "no public report says whether current compilers accept a bare op-id "
    "NameLoc or a plain FusedLoc"};
const Rule StaleCompiler{
    "AIM013",
    "stale-compiler",
    Severity::Warning,
    "a compiled .aimodelc whose producer, coreai-build-<version>, is older "
    "than a known floor (default coreai-build-3600.75.3, Xcode 27 beta 3): "
    "reported to fail to specialize on beta 3 and later",
    "Recompile from the source .aimodel with a current coreai-build (Xcode "
    "27 beta 3 or later). Reported, not verified here; Apple's iOS 27 RC "
    "notes list the failure (181264112) as fixed on device.",
    Evidence::ThirdParty,
    "Apple radar 181264112 as quoted by john-rocky/coreai-model-zoo "
    "cli/DOCTOR_RULES.md (AOTC-STALE-TOOLCHAIN)"};
const Rule CompiledWithoutSource{
    "AIM014",
    "compiled-without-source",
    Severity::Info,
    "a compiled .aimodelc for which the audited paths hold no source "
    ".aimodel: none whose main.hash is its sourceHash, none of the same name "
    "stem",
    "Compiled bundles cannot be stripped: keep or find the source .aimodel, "
    "strip it, and recompile.",
    Evidence::Inferred,
    "a compiled bundle's sourceHash names its source; what it hashes is not "
    "documented, so a link is tried by main.hash and by name"};
const Rule GraphTrap{
    "AIM015",
    "graph-trap",
    Severity::Info,
    "a graph holds op kinds public reports say compute wrongly or cannot run "
    "on some compute units: floor / trunc / ceil (identity on the GPU "
    "delegate), round (ties away from zero on the GPU delegate), custom "
    "Metal kernels (GPU only)",
    "Check the outputs of these ops on the GPU delegate against CPU, or keep "
    "them off the GPU; a custom Metal kernel cannot run on the CPU or ANE.",
    Evidence::ThirdParty,
    "apple/coreai-torch#10 (floor, trunc, ceil, round on the GPU delegate); "
    "john-rocky/coreai-model-zoo cli/DOCTOR_RULES.md "
    "GRAPH-CUSTOM-METAL-KERNEL"};
const Rule StripRecordMismatch{
    "AIM016",
    "strip-record-mismatch",
    Severity::Warning,
    "metadata.json of a .aimodel carries a \"strip\" record the asset "
    "contradicts: its IR is not the main.mlirb the record names, or still "
    "holds debug payload, or the record is malformed",
    "The asset was changed after it was stripped: strip the original again "
    "(`aimodel strip --in-place`), or remove the record if the IR is meant.",
    Evidence::Measured,
    "the record `aimodel strip` writes (docs/architecture.md, \"The strip "
    "record\"), checked against the bytes"};
// The runtime contract. Each rule's source names the doctor rule it
// follows (john-rocky/coreai-model-zoo cli/DOCTOR_RULES.md) and what that
// rule cites; the numbers and lists are in audit/ThirdPartyFacts.h.
const Rule StateCount{
    "AIM017",
    "state-count",
    Severity::Info,
    "an entry graph declares a number of states other than 2 (state-typed "
    "inputs, or the bundle folder's language.states): Apple's sequential "
    "engine requires exactly two",
    "Drive it with the pipelined engine (with its extra-states support), "
    "not the sequential one.",
    Evidence::ThirdParty,
    "doctor GRAPH-STATE-COUNT (knowledge/pipelined-engine.md, "
    "knowledge/stateful-kv-cache.md)"};
const Rule SingleTokenGraph{
    "AIM018",
    "single-token-graph",
    Severity::Info,
    "an entry graph's input_ids is static with a sequence of 1 ([1, 1]): "
    "the engine's default 256-token warmup and multi-token prefill cannot "
    "run it",
    "Set COREAI_CHUNK_THRESHOLD=1 before the engine is created, skip "
    "engine.warmup(), and run llm-runner with --warmup exact "
    "--warmup-length 1.",
    Evidence::ThirdParty,
    "doctor GRAPH-S1-RUN-CONTRACT (knowledge/pipelined-engine.md)"};
const Rule VocabSizeMismatch{
    "AIM019",
    "vocab-size-mismatch",
    Severity::Error,
    "the bundle folder's language.vocab_size differs from the last "
    "dimension of the main asset's logits output: the engine sizes its "
    "sampler from the metadata and indexes the real logits",
    "Set language.vocab_size to the logits width the graph produces.",
    Evidence::ThirdParty,
    "doctor GRAPH-VOCAB-MISMATCH (knowledge/pipelined-engine.md)"};
const Rule TokenizerOverflow{
    "AIM020",
    "tokenizer-overflow",
    Severity::Info,
    "the highest token id of the bundle's tokenizer files is at least the "
    "logits width: those tokens can never be produced, and fed back they "
    "index past the embedding",
    "Widen the head and embedding to cover the added tokens, or map them in "
    "the app; harmless only for markers the port never sees.",
    Evidence::ThirdParty,
    "doctor GRAPH-TOKENIZER-OVERFLOW (knowledge/gliner2-pii.md)"};
const Rule DynamicKVLongContext{
    "AIM021",
    "dynamic-kv-long-context",
    Severity::Info,
    "a dynamic-length KV state with language.max_context_length of 2048 or "
    "more: the iOS on-device compiler is reported to miscompile this graph "
    "once the KV bound reaches 2048",
    "On iOS cap the KV capacity at 1024 in the engine (or keep prompt plus "
    "generated tokens under 1024); test on a device past 256 generated "
    "tokens.",
    Evidence::ThirdParty,
    "doctor GRAPH-DYNAMIC-KV-IOS-2048 (apple/coreai-models#124)"};
const Rule IncompleteLanguageBundle{
    "AIM022",
    "incomplete-language-bundle",
    Severity::Error,
    "a bundle folder of kind llm lacks what the language runtime loads: "
    "assets.main, language.{tokenizer, vocab_size, max_context_length, "
    "function_map}, or its tokenizer folder",
    "Write the missing keys and ship the tokenizer/ folder beside "
    "metadata.json.",
    Evidence::ThirdParty,
    "doctor BUNDLE-INCOMPLETE (knowledge/pipelined-engine.md); "
    "apple/coreai-models LanguageConfig.swift decodes those keys"};
const Rule ChatTemplateMissing{
    "AIM023",
    "chat-template-missing",
    Severity::Warning,
    "a language bundle whose source model looks instruction-tuned has no "
    "chat template (no tokenizer/chat_template.jinja, no chat_template "
    "key): the runtime silently runs raw completion",
    "Copy the source model's chat template into tokenizer/ (as "
    "chat_template.jinja).",
    Evidence::ThirdParty,
    "doctor CHAT-TEMPLATE-MISSING "
    "(knowledge/cross-runtime-quality-benchmarking.md); which model looks "
    "instruction-tuned is the doctor's heuristic on source.hf_model_id"};
const Rule ChatTemplateAbsent{
    "AIM024",
    "chat-template-absent",
    Severity::Info,
    "a language bundle has no chat template and its source model does not "
    "look instruction-tuned: expected for an ASR, OCR or drafter decoder, a "
    "defect for a chat model",
    "If the model is meant to chat, copy its chat template into tokenizer/.",
    Evidence::ThirdParty,
    "doctor CHAT-TEMPLATE-ABSENT "
    "(knowledge/cross-runtime-quality-benchmarking.md); the doctor's "
    "heuristic on source.hf_model_id"};
const Rule EosNotInTemplate{
    "AIM025",
    "eos-not-in-template",
    Severity::Warning,
    "the tokenizer's eos_token never appears in the chat template, which "
    "never uses the eos_token variable either: generation runs to the token "
    "cap",
    "Set eos_token to the turn terminator the template emits (stopping is "
    "on the eos token id only).",
    Evidence::ThirdParty,
    "doctor EOS-NOT-EMITTED-BY-TEMPLATE (GEMMA4_12B_STATE.md)"};
const Rule TokenizerClassUnregistered{
    "AIM026",
    "tokenizer-class-unregistered",
    Severity::Error,
    "tokenizer_config.json's tokenizer_class (\"Fast\" removed) is not one "
    "swift-transformers knows, or is missing: a strict load throws, the "
    "fallback tokenizes everything as BPE",
    "Retag tokenizer_class to a registered class of the right algorithm "
    "(XLMRobertaTokenizer for Unigram, BertTokenizer for WordPiece, a BPE "
    "one for byte-level BPE).",
    Evidence::ThirdParty,
    "doctor TOKENIZER-CLASS-UNREGISTERED (knowledge/ship-playbook.md); "
    "the list: huggingface/swift-transformers 1.3.3 "
    "Sources/Tokenizers/Tokenizer.swift"};
const Rule LargePortableGraph{
    "AIM027",
    "large-portable-graph",
    Severity::Info,
    "a portable .aimodel of 1 GiB or more with no compiled .aimodelc beside "
    "it: its on-device specialization is reported to stall or abort for "
    "some graphs of this size",
    "Time a cold on-device specialization before shipping it as portable "
    "IR; if it aborts, ship a compiled bundle (coreai-build compile).",
    Evidence::ThirdParty,
    "doctor IOS-LARGE-GRAPH-JIT (knowledge/aot-and-specialization.md)"};
const Rule MemoryEntitlement{
    "AIM028",
    "memory-entitlement",
    Severity::Info,
    "an asset of 2 GiB or more: cold specialization on an iPhone is "
    "reported to exceed the default memory limit",
    "Ship the app with com.apple.developer.kernel.increased-memory-limit.",
    Evidence::ThirdParty,
    "doctor IPHONE-MEMORY-ENTITLEMENT (knowledge/pipelined-engine.md)"};
const Rule SymlinkedAssetPath{
    "AIM029",
    "symlinked-asset-path",
    Severity::Error,
    "the asset was reached through a symlink: the PATH given, or a folder "
    "between it and the asset; Swift's AIModel(contentsOf:) is reported not "
    "to follow it",
    "Load (and ship) the asset by its real path.",
    Evidence::ThirdParty,
    "doctor ASSET-SYMLINK (GLM_IMAGE_KICKOFF.md); a symlink inside an "
    "audited tree is AIM010"};
const Rule CompiledLoadContract{
    "AIM030",
    "compiled-load-contract",
    Severity::Info,
    "every compiled .aimodelc: the architecture it was compiled for (a "
    "device identifier's major version, not a marketing name) and how it "
    "must be loaded",
    "Load it with SpecializationOptions.default() or .cpuOnly(); asking for "
    "a compute unit re-specializes it on the device.",
    Evidence::ThirdParty,
    "doctor AOTC-ARCH-NAME, AOTC-LOAD-OPTIONS "
    "(knowledge/aot-and-specialization.md, GLM_IMAGE_KICKOFF.md)"};
const Rule NoANERegion{
    "AIM031",
    "no-ane-region",
    Severity::Info,
    "a compiled .aimodelc holds no ANE region: every delegate is MPSGraph "
    "(GPU) or BNNS (CPU); coreai-build writes such a bundle, exit 0, when "
    "its ANE compile fails",
    "If the bundle is meant for the Neural Engine, compile again and read "
    "coreai-build's stderr for ANECCompileOffline errors.",
    Evidence::ThirdParty,
    "apple/coreai-models#205 (count of *ANE_region* files); the manifest's "
    "empty ANERegionsHash, MEASURED on the corpus bundles"};
const Rule ANERequestedNotCompiled{
    "AIM032",
    "ane-requested-not-compiled",
    Severity::Warning,
    "a compiled .aimodelc with no ANE region in a bundle folder whose "
    "metadata asks for the Neural Engine",
    "Compile again for the Neural Engine and check coreai-build's stderr: "
    "it exits 0 when the ANE compile fails.",
    Evidence::ThirdParty,
    "apple/coreai-models#205; the request read from the bundle folder's "
    "compilation entry (INFERRED: no non-empty one seen)"};
} // namespace aimodel::audit::rules

llvm::ArrayRef<const Rule *> aimodel::audit::allRules() {
  static const Rule *const all[] = {&rules::MissingProducer,
                                    &rules::LegacyDebugLocation,
                                    &rules::HashMismatch,
                                    &rules::MissingFile,
                                    &rules::UnreadableMetadata,
                                    &rules::UnreadableIR,
                                    &rules::DebugPayload,
                                    &rules::CompiledBundle,
                                    &rules::UnexpectedFile,
                                    &rules::Symlink,
                                    &rules::UnknownAssetVersion,
                                    &rules::UnverifiedLocation,
                                    &rules::StaleCompiler,
                                    &rules::CompiledWithoutSource,
                                    &rules::GraphTrap,
                                    &rules::StripRecordMismatch,
                                    &rules::StateCount,
                                    &rules::SingleTokenGraph,
                                    &rules::VocabSizeMismatch,
                                    &rules::TokenizerOverflow,
                                    &rules::DynamicKVLongContext,
                                    &rules::IncompleteLanguageBundle,
                                    &rules::ChatTemplateMissing,
                                    &rules::ChatTemplateAbsent,
                                    &rules::EosNotInTemplate,
                                    &rules::TokenizerClassUnregistered,
                                    &rules::LargePortableGraph,
                                    &rules::MemoryEntitlement,
                                    &rules::SymlinkedAssetPath,
                                    &rules::CompiledLoadContract,
                                    &rules::NoANERegion,
                                    &rules::ANERequestedNotCompiled};
  return all;
}

const Rule *aimodel::audit::findRule(llvm::StringRef id) {
  for (const Rule *rule : allRules())
    if (rule->id == id)
      return rule;
  return nullptr;
}

llvm::StringRef aimodel::audit::evidenceName(Evidence evidence) {
  switch (evidence) {
  case Evidence::Measured:
    return "MEASURED";
  case Evidence::Inferred:
    return "INFERRED";
  case Evidence::ThirdParty:
    return "3P";
  }
  return "INFERRED";
}

llvm::StringRef aimodel::audit::severityName(Severity severity) {
  switch (severity) {
  case Severity::Info:
    return "info";
  case Severity::Warning:
    return "warning";
  case Severity::Error:
    return "error";
  }
  return "error";
}

std::optional<Severity> aimodel::audit::parseSeverity(llvm::StringRef name) {
  if (name == "info")
    return Severity::Info;
  if (name == "warning")
    return Severity::Warning;
  if (name == "error")
    return Severity::Error;
  return std::nullopt;
}
