//===- Rules.cpp - The audit rule catalogue -------------------------------===//

#include "audit/Rules.h"

using namespace aimodel::audit;

namespace aimodel::audit::rules {
const Rule MissingProducer{
    "AIM001", "missing-producer", Severity::Warning,
    "metadata.json of a .aimodel has no producer (written by coreai-core "
    "1.0.0b1 / coreai-torch 0.4.0): a triage hint, not proof"};
const Rule HashMismatch{"AIM003", "hash-mismatch", Severity::Error,
                        "main.hash is missing, not a regular file, not 32 "
                        "bytes, or not the SHA-256 of the bundle's mlirb"};
const Rule MissingFile{"AIM004", "missing-file", Severity::Error,
                       "the mlirb or metadata.json is missing, the mlirb is "
                       "not a regular file, the bundle path is not a "
                       "directory, or a bundle folder's asset is not there"};
const Rule UnreadableMetadata{"AIM005", "unreadable-metadata", Severity::Error,
                              "metadata.json is not a regular file, not "
                              "usable JSON, not an object, too large, too "
                              "deep, or unreadable"};
const Rule UnexpectedFile{"AIM009", "unexpected-file", Severity::Info,
                          "a file not known to belong to the bundle kind"};
const Rule Symlink{"AIM010", "symlink", Severity::Error,
                   "a symlink inside a bundle (never followed)"};
const Rule UnknownAssetVersion{"AIM011", "unknown-asset-version",
                               Severity::Warning,
                               "assetVersion missing or not \"2.0\" "
                               "(metadata_version not \"0.2\" for a "
                               "bundle folder)"};
} // namespace aimodel::audit::rules

llvm::ArrayRef<const Rule *> aimodel::audit::allRules() {
  static const Rule *const all[] = {
      &rules::MissingProducer,    &rules::HashMismatch,   &rules::MissingFile,
      &rules::UnreadableMetadata, &rules::UnexpectedFile, &rules::Symlink,
      &rules::UnknownAssetVersion};
  return all;
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
