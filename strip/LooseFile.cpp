//===- LooseFile.cpp - A tree's files outside assets ----------------------===//

#include "strip/LooseFile.h"

#include "bytecode/BytecodeReader.h"
#include "strip/OutputTree.h"
#include "strip/StripAsset.h"
#include "support/PathText.h"
#include "support/SafeFile.h"

using namespace aimodel;
using namespace aimodel::strip;
using support::printablePath;

namespace {

/// Whether the stripper would change anything, or finds payload it keeps:
/// a file it leaves alone ships as it is, byte for byte.
bool carriesPayload(const FileStripResult &planned) {
  return planned.opLocations || planned.blockArgumentLocations ||
         planned.entriesRemoved || planned.stringsRemoved || planned.kept.count;
}

} // namespace

llvm::Expected<LooseFileOutcome> aimodel::strip::copyOrStripLooseFile(
    int sourceDirFd, llvm::StringRef rel, int outFd, const std::string &inShown,
    const std::string &outShown, const StripOptions &options) {
  // One open: the bytes judged are the bytes copied or stripped.
  llvm::Expected<support::RegularFile> file =
      support::openRegularFile(sourceDirFd, rel, support::Symlinks::Refuse);
  if (!file)
    return unusableInput(inShown, file.takeError());
  llvm::Expected<std::string> head = support::readPrefix(*file, 4);
  if (!head)
    return unusableInput(inShown, head.takeError());

  LooseFileOutcome outcome;
  auto copyAsIs = [&]() -> llvm::Expected<LooseFileOutcome> {
    outcome.kind = LooseFileOutcome::Kind::Copied;
    outcome.bytes = file->size();
    if (outFd < 0)
      return outcome;
    llvm::Expected<uint64_t> copied =
        copyOpenFile(*file, rel, outFd, inShown, outShown);
    if (!copied)
      return copied.takeError();
    outcome.bytes = *copied;
    return outcome;
  };
  if (!bytecode::looksLikeBytecode(*head))
    return copyAsIs();

  // Planned first, as a dry run: most loose IR (a clean dump) is copied
  // byte for byte, and only what carries payload is rewritten.
  StripOptions noHash = options;
  noHash.hashInput = false; // no main.hash to check it against
  llvm::Expected<FileStripResult> planned =
      stripFile(*file, inShown, -1, outShown, noHash);
  if (!planned) {
    std::optional<std::string> why;
    if (llvm::Error err = takeUnusableReason(planned.takeError(), inShown, why))
      return err;
    outcome.kind = LooseFileOutcome::Kind::Skipped;
    outcome.reason = "MLIR bytecode that cannot be decoded (" + *why +
                     "), so it may hold debug payload: not copied";
    return outcome;
  }
  if (planned->refused) {
    outcome.kind = LooseFileOutcome::Kind::Skipped;
    outcome.reason = "MLIR bytecode whose debug payload cannot be stripped (" +
                     printablePath(*planned->refused) + "): not copied";
    return outcome;
  }
  if (!carriesPayload(*planned))
    return copyAsIs();

  outcome.kind = LooseFileOutcome::Kind::Stripped;
  if (outFd < 0) {
    outcome.result = std::move(*planned);
    return outcome;
  }
  auto [folder, base] = splitRel(rel);
  llvm::Expected<mode_t> mode = permissionsOf(file->fd.get());
  if (!mode)
    return unusableInput(inShown, mode.takeError());
  llvm::Expected<support::UniqueFd> target = openBelow(outFd, folder);
  llvm::Expected<support::UniqueFd> created =
      target ? createFile(target->get(), base, *mode) : target.takeError();
  if (!created)
    return fileError(outShown, created.takeError());
  llvm::Expected<FileStripResult> result =
      stripFile(*file, inShown, created->get(), outShown, noHash);
  if (!result)
    return result.takeError();
  if (!result->verified)
    return fileError(outShown, "verification failed: the written file was "
                               "not verified");
  outcome.result = std::move(*result);
  return outcome;
}
