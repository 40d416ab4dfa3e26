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
    Evidence::CommunityReported,
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
    Evidence::CommunityReported,
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
} // namespace aimodel::audit::rules

llvm::ArrayRef<const Rule *> aimodel::audit::allRules() {
  static const Rule *const all[] = {
      &rules::MissingProducer,     &rules::LegacyDebugLocation,
      &rules::HashMismatch,        &rules::MissingFile,
      &rules::UnreadableMetadata,  &rules::UnreadableIR,
      &rules::DebugPayload,        &rules::CompiledBundle,
      &rules::UnexpectedFile,      &rules::Symlink,
      &rules::UnknownAssetVersion, &rules::UnverifiedLocation,
      &rules::StaleCompiler,       &rules::CompiledWithoutSource,
      &rules::GraphTrap,           &rules::StripRecordMismatch};
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
  case Evidence::CommunityReported:
    return "community-reported";
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
