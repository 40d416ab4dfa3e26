//===- Rules.cpp - The audit rule catalogue -------------------------------===//

#include "audit/Rules.h"

using namespace aimodel::audit;

namespace aimodel::audit::rules {
const Rule MissingProducer{
    "AIM001", "missing-producer", Severity::Warning,
    "metadata.json of a .aimodel has no producer (written by coreai-core "
    "1.0.0b1 / coreai-torch 0.4.0): a triage hint, not proof",
    "Check the IR (AIM002 is the authority); re-export with coreai-torch >= "
    "0.4.1 to get a producer stamp."};
const Rule LegacyDebugLocation{
    "AIM002", "legacy-debug-location", Severity::Error,
    "the IR of a .aimodel has coreai-torch 0.4.0 fused call-stack locations, "
    "which current Core AI compilers abort on",
    "Re-export with coreai-torch >= 0.4.1, or make a shipping copy with "
    "`aimodel strip`."};
const Rule HashMismatch{"AIM003", "hash-mismatch", Severity::Error,
                        "main.hash is missing, not a regular file, not 32 "
                        "bytes, or not the SHA-256 of the bundle's mlirb",
                        "Rewrite main.hash as the raw 32-byte SHA-256 of the "
                        "mlirb, or re-save the asset."};
const Rule MissingFile{"AIM004", "missing-file", Severity::Error,
                       "the mlirb or metadata.json is missing, the mlirb is "
                       "not a regular file, the bundle path is not a "
                       "directory, a bundle folder's asset is not there, or "
                       "something inside an asset cannot be read",
                       "Restore the missing member or fix the bundle "
                       "folder's assets entry."};
const Rule UnreadableMetadata{"AIM005", "unreadable-metadata", Severity::Error,
                              "metadata.json is not a regular file, not "
                              "usable JSON (trailing bytes, a key twice in "
                              "one object), not an object, too large, too "
                              "deep, or unreadable",
                              "Rewrite metadata.json as one JSON object."};
const Rule UnreadableIR{"AIM006", "unreadable-ir", Severity::Error,
                        "an IR file of the bundle (the mlirb, or a delegate "
                        ".mpsgraph) cannot be decoded",
                        "Re-export or recompile the asset; the file is "
                        "damaged or not MLIR bytecode."};
const Rule DebugPayload{"AIM007", "debug-payload", Severity::Warning,
                        "the IR carries absolute source paths, home-directory "
                        "user names or source-file hashes",
                        "Ship a copy made with `aimodel strip`, or export in "
                        "RELEASE mode."};
const Rule CompiledBundle{"AIM008", "compiled-bundle", Severity::Info,
                          "a compiled .aimodelc: its compiler, source hash, "
                          "and whether its IR still has legacy call-stack "
                          "locations",
                          "Compiled bundles cannot be stripped: recompile "
                          "from a fixed .aimodel."};
const Rule UnexpectedFile{"AIM009", "unexpected-file", Severity::Info,
                          "a file not known to belong to the bundle kind",
                          "Remove the file if it is not meant to ship."};
const Rule Symlink{"AIM010", "symlink", Severity::Error,
                   "a symlink inside a bundle (never followed)",
                   "Replace the symlink with the file itself."};
const Rule UnknownAssetVersion{"AIM011", "unknown-asset-version",
                               Severity::Warning,
                               "assetVersion missing or not \"2.0\" "
                               "(metadata_version not \"0.2\" for a "
                               "bundle folder)",
                               "Re-save the asset with current Core AI tools."};
const Rule UnverifiedLocation{
    "AIM012", "unverified-location", Severity::Warning,
    "the IR of a .aimodel has builtin locations (a bare op-id NameLoc or a "
    "plain FusedLoc) that current compilers were never shown to accept",
    "Re-export with coreai-torch >= 0.4.1, or `aimodel strip` (which writes "
    "loc(unknown))."};
} // namespace aimodel::audit::rules

llvm::ArrayRef<const Rule *> aimodel::audit::allRules() {
  static const Rule *const all[] = {
      &rules::MissingProducer,     &rules::LegacyDebugLocation,
      &rules::HashMismatch,        &rules::MissingFile,
      &rules::UnreadableMetadata,  &rules::UnreadableIR,
      &rules::DebugPayload,        &rules::CompiledBundle,
      &rules::UnexpectedFile,      &rules::Symlink,
      &rules::UnknownAssetVersion, &rules::UnverifiedLocation};
  return all;
}

const Rule *aimodel::audit::findRule(llvm::StringRef id) {
  for (const Rule *rule : allRules())
    if (rule->id == id)
      return rule;
  return nullptr;
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
