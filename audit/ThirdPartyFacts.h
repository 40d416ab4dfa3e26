//===- ThirdPartyFacts.h - Facts other projects report ----------*- C++ -*-===//
//
// The runtime-contract rules (AIM017-AIM032) rest on facts this project
// did not measure: what Apple's engines and loaders require, as the
// community's `coreai doctor` (john-rocky/coreai-model-zoo
// `cli/DOCTOR_RULES.md` and `cli/coreai_doctor.py`, each row citing the
// incident it comes from), swift-transformers and apple/coreai-models
// issues report them. Each is written here once, with where it comes from,
// so a newer or corrected fact is a change to this file and its test only.
// None is verified on a device here: every message built on one says so.
//
//===----------------------------------------------------------------------===//
#ifndef AIMODEL_AUDIT_THIRDPARTYFACTS_H
#define AIMODEL_AUDIT_THIRDPARTYFACTS_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>

namespace aimodel::audit::facts {

/// The doctor's table, as every message that relies on it cites it.
inline constexpr llvm::StringLiteral kDoctor =
    "john-rocky/coreai-model-zoo cli/DOCTOR_RULES.md";
/// How such a fact is labelled in messages: reported elsewhere, not
/// checked here.
inline constexpr llvm::StringLiteral kUnverified = "3P, not verified here";

/// GRAPH-STATE-COUNT: Apple's coreai-sequential engine requires exactly two
/// states and fails engine creation otherwise ("Expected 2 states ... got
/// N"); hybrids need the pipelined engine (the doctor, citing
/// knowledge/pipelined-engine.md and knowledge/stateful-kv-cache.md).
inline constexpr uint64_t kSequentialEngineStates = 2;

/// GRAPH-DYNAMIC-KV-IOS-2048: the iOS on-device compiler miscompiles a
/// graph with a dynamic-length KV state once its bound reaches this many
/// tokens (apple/coreai-models#124, as the doctor cites it).
inline constexpr int64_t kDynamicKVContextLimit = 2048;

/// IOS-LARGE-GRAPH-JIT: from this size a portable asset's on-device
/// specialization may stall or abort (the doctor's IOS_JIT_WATCH_BYTES).
inline constexpr uint64_t kLargeGraphBytes = uint64_t(1) << 30;

/// IPHONE-MEMORY-ENTITLEMENT: from this size cold specialization hits the
/// default memory limit (the doctor's ENTITLEMENT_BYTES).
inline constexpr uint64_t kMemoryEntitlementBytes = uint64_t(2) << 30;

/// TOKENIZER-CLASS-UNREGISTERED: the `tokenizer_class` names (with "Fast"
/// removed, as the library removes it) swift-transformers can load.
llvm::ArrayRef<llvm::StringLiteral> knownTokenizerClasses();
/// Where that list was read.
inline constexpr llvm::StringLiteral kKnownTokenizersSource =
    "huggingface/swift-transformers 1.3.3 (2fa33e1), "
    "Sources/Tokenizers/Tokenizer.swift, TokenizerModel.knownTokenizers";

/// CHAT-TEMPLATE-MISSING vs -ABSENT: the doctor's heuristic for a source
/// model that is meant to chat, by its Hugging Face id: "-it" as a word or
/// followed by "-", "instruct", "-chat" as a word, "chat-" (any case).
bool looksInstructionTuned(llvm::StringRef modelId);

/// The name part coreai-build gives an ANE region's compiled file below a
/// compiled bundle's delegates (the workaround in apple/coreai-models#205
/// counts `*ANE_region*` entries).
inline constexpr llvm::StringLiteral kANERegionMarker = "ANE_region";

/// The second half of an MPSGraph package manifest's ANERegionsHash when
/// the bundle holds no ANE region: the SHA-256 of nothing. MEASURED on the
/// corpus bundles (GPU-only); what it hashes is INFERRED.
inline constexpr llvm::StringLiteral kEmptySha256 =
    "E3B0C44298FC1C149AFBF4C8996FB92427AE41E4649B934CA495991B7852B855";

} // namespace aimodel::audit::facts

#endif // AIMODEL_AUDIT_THIRDPARTYFACTS_H
