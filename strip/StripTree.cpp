//===- StripTree.cpp - Stripping whole assets and trees -------------------===//
//
// A run plans first (one walk of SRC, nothing written: a folder that cannot
// be read stops it before any output exists), then builds the output in a
// temporary sibling of DST: folders in walk order, then assets and files by
// a pool of workers, then folders' permission bits, deepest first. Only
// when every asset verified is it renamed into place.
//
//===----------------------------------------------------------------------===//

#include "strip/StripTree.h"
#include "support/Parallel.h"

#include "bundle/Bundle.h"
#include "strip/LooseFile.h"
#include "strip/OutputTree.h"
#include "strip/StripAsset.h"
#include "strip/TreePlan.h"
#include "support/PathText.h"

#include "llvm/ADT/ScopeExit.h"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <fcntl.h>
#include <mutex>
#include <set>
#include <sys/stat.h>
#include <thread>
#include <unistd.h>

using namespace aimodel;
using namespace aimodel::strip;
using bundle::DirEntry;
using support::printablePath;
using support::Symlinks;
using support::UniqueFd;

bool StripReport::anyKept() const {
  return std::any_of(assets.begin(), assets.end(), [](const AssetOutcome &a) {
    return !a.skipped && a.result.kept.count;
  });
}

bool StripReport::anySkipped() const {
  return !skipped.empty() ||
         std::any_of(assets.begin(), assets.end(),
                     [](const AssetOutcome &a) { return a.skipped; });
}

namespace {

std::string under(const std::string &root, llvm::StringRef rel) {
  return rel.empty() ? root : bundle::joinPath(root, rel);
}

//===----------------------------------------------------------------------===//
// A tree
//===----------------------------------------------------------------------===//

/// Removes what a job left of `rel` below the output `outFd`, if anything.
llvm::Error removePartial(int outFd, llvm::StringRef rel,
                          const RemovalGuard &guard, const std::string &shown) {
  auto [parent, name] = splitRel(rel);
  llvm::Expected<UniqueFd> folder = openBelow(outFd, parent);
  if (!folder)
    return fileError(shown, folder.takeError());
  llvm::Expected<std::optional<support::FileState>> left =
      support::stateAt(folder->get(), name);
  if (!left)
    return fileError(shown, left.takeError());
  if (!*left)
    return llvm::Error::success();
  if (llvm::Error err = removeTree(folder->get(), name, guard))
    return fileError(shown, std::move(err));
  return llvm::Error::success();
}

/// Opens the folders of `plan` below `rootFd` in walk order, each through
/// its parent's descriptor (any depth), calling `enter` as each is opened
/// or created and `leave` once everything below it was.
llvm::Error forEachFolder(
    int rootFd, const std::string &shownRoot, const std::vector<Item> &folders,
    llvm::function_ref<llvm::Expected<UniqueFd>(int, llvm::StringRef)> open,
    llvm::function_ref<llvm::Error(int, const Item &)> leave) {
  struct Frame {
    UniqueFd fd;
    const Item *item;
  };
  std::vector<Frame> stack;
  auto top = [&] { return stack.empty() ? rootFd : stack.back().fd.get(); };
  auto pop = [&]() -> llvm::Error {
    Frame frame = std::move(stack.back());
    stack.pop_back();
    if (llvm::Error err = leave(frame.fd.get(), *frame.item))
      return fileError(under(shownRoot, frame.item->rel), std::move(err));
    return llvm::Error::success();
  };
  for (const Item &folder : folders) {
    llvm::StringRef parent = splitRel(folder.rel).first;
    while (!stack.empty() && stack.back().item->rel != parent)
      if (llvm::Error err = pop())
        return err;
    llvm::Expected<UniqueFd> fd = open(top(), splitRel(folder.rel).second);
    if (!fd) // named as the user sees it: the folder that failed
      return fileError(under(shownRoot, folder.rel), fd.takeError());
    stack.push_back({std::move(*fd), &folder});
  }
  while (!stack.empty())
    if (llvm::Error err = pop())
      return err;
  return llvm::Error::success();
}

void noteStale(OutputSlot &slot, StripReport &report) {
  std::vector<std::string> failures;
  for (const std::string &name : slot.removeStale(failures))
    report.notes.push_back("removed " + printablePath(name) +
                           ", left by an interrupted run");
  for (const std::string &failure : failures)
    report.notes.push_back("cannot remove a stale temporary: " + failure);
}

llvm::Error publish(OutputSlot &slot, StripReport &report,
                    std::optional<mode_t> folderMode = std::nullopt) {
  std::string warning;
  if (llvm::Error err = slot.publish(warning, folderMode))
    return err;
  report.written = true;
  if (!warning.empty())
    report.notes.push_back(warning);
  return llvm::Error::success();
}

/// SRC is one .aimodel: DST is its stripped copy. One that cannot be
/// stripped is an error: nothing is written.
llvm::Error stripRootAsset(int sourceFd, const std::string &kindName,
                           const InputGuard &guard, const TreeOptions &options,
                           StripReport &report) {
  AssetOutcome outcome{report.input, report.output, "aimodel"};
  mode_t folderMode = 0700;
  llvm::Expected<AssetScan> scan = scanAsset(sourceFd, kindName, report.input);
  if (!scan)
    return scan.takeError();
  if (scan->skip)
    return fileError(report.input, "cannot be stripped: " + *scan->skip);
  llvm::Expected<OutputSlot> slot =
      OutputSlot::prepare(report.output, guard, options.force);
  if (!slot)
    return slot.takeError();
  if (options.dryRun) {
    if (llvm::Error err = stripAsset(sourceFd, *scan, -1, options, outcome))
      return err;
  } else {
    noteStale(*slot, report);
    llvm::Expected<UniqueFd> out = slot->createTempFolder();
    if (!out)
      return fileError(report.output, out.takeError());
    if (llvm::Error err = stripAsset(sourceFd, *scan, out->get(), options,
                                     outcome, &folderMode))
      return err;
  }
  if (outcome.skipped)
    return fileError(report.input, "cannot be stripped: " + *outcome.skipped);
  if (!options.dryRun)
    if (llvm::Error err = publish(*slot, report, folderMode))
      return err;
  if (options.progress)
    options.progress(1, 1);
  report.assets.push_back(std::move(outcome));
  return llvm::Error::success();
}

/// SRC is a folder: DST mirrors it.
llvm::Error stripRootTree(int sourceFd, const InputGuard &guard,
                          const TreeOptions &options, StripReport &report) {
  llvm::Expected<TreePlan> plan = planTree(sourceFd, report.input);
  if (!plan)
    return plan.takeError();
  llvm::Expected<OutputSlot> slot =
      OutputSlot::prepare(report.output, guard, options.force);
  if (!slot)
    return slot.takeError();

  UniqueFd outRoot;
  if (!options.dryRun) {
    noteStale(*slot, report);
    llvm::Expected<UniqueFd> out = slot->createTempFolder();
    if (!out)
      return fileError(report.output, out.takeError());
    outRoot = std::move(*out);
    if (llvm::Error made = forEachFolder(
            outRoot.get(), report.output, plan->folders,
            [](int parent, llvm::StringRef name) {
              return makeFolder(parent, name);
            },
            [](int, const Item &) { return llvm::Error::success(); }))
      return made;
  }

  const std::vector<Item> &work = plan->work;
  std::vector<AssetOutcome> outcomes(work.size());
  std::vector<CopiedFile> copies(work.size());
  size_t totalAssets =
      size_t(std::count_if(work.begin(), work.end(), [](const Item &i) {
        return i.kind == Item::Asset;
      }));
  std::atomic<size_t> assetsDone{0};
  int outFd = outRoot ? outRoot.get() : -1;
  // A file or asset the input does not let us use is skipped with the
  // reason; anything else (a write error, a changed input) stops the run.
  auto skipUnusable = [](llvm::Error err, std::optional<std::string> &why,
                         const std::string &path) {
    return takeUnusableReason(std::move(err), path, why);
  };
  std::vector<std::optional<std::string>> fileSkips(work.size());
  auto job = [&](size_t i) -> llvm::Error {
    const Item &item = work[i];
    std::string in = under(report.input, item.rel);
    std::string out = under(report.output, item.rel);
    if (item.kind == Item::File) {
      llvm::Expected<LooseFileOutcome> done = copyOrStripLooseFile(
          sourceFd, item.rel, outFd, in, out, options.file);
      if (!done) {
        if (llvm::Error err = skipUnusable(done.takeError(), fileSkips[i], in))
          return err;
        // Nothing of a file skipped half way is kept.
        return outFd < 0 ? llvm::Error::success()
                         : removePartial(outFd, item.rel, slot->guard(), out);
      }
      if (done->kind == LooseFileOutcome::Kind::Skipped) {
        fileSkips[i] = done->reason;
      } else if (done->kind == LooseFileOutcome::Kind::Stripped) {
        outcomes[i] = {in, out, "file"};
        outcomes[i].result = std::move(done->result);
      } else {
        copies[i] = {in, out, done->bytes};
      }
      return llvm::Error::success();
    }
    if (item.kind != Item::Asset)
      return llvm::Error::success();
    AssetOutcome &outcome = outcomes[i];
    llvm::scope_exit done([&] {
      if (options.progress)
        options.progress(++assetsDone, totalAssets);
    });
    if (!beginAsset(item, in, out, outcome))
      return llvm::Error::success();
    llvm::Expected<UniqueFd> asset = openBelow(sourceFd, item.rel);
    if (!asset)
      return skipUnusable(unusableInput(in, asset.takeError()), outcome.skipped,
                          in);
    llvm::StringRef name = bundle::baseName(item.rel);
    llvm::Expected<AssetScan> scan = scanAsset(asset->get(), name, in);
    if (!scan)
      return skipUnusable(scan.takeError(), outcome.skipped, in);
    if (scan->skip) {
      outcome.skipped = *scan->skip;
      return llvm::Error::success();
    }
    if (outFd < 0)
      return skipUnusable(stripAsset(asset->get(), *scan, -1, options, outcome),
                          outcome.skipped, in);
    llvm::StringRef parent = splitRel(item.rel).first;
    llvm::Expected<UniqueFd> target = openBelow(outFd, parent);
    llvm::Expected<UniqueFd> made =
        target ? makeFolder(target->get(), name) : target.takeError();
    if (!made)
      return fileError(out, made.takeError());
    if (llvm::Error err = skipUnusable(
            stripAsset(asset->get(), *scan, made->get(), options, outcome),
            outcome.skipped, in))
      return err;
    if (outcome.skipped) // nothing of a skipped asset is kept
      return removePartial(outFd, item.rel, slot->guard(), out);
    return llvm::Error::success();
  };
  std::vector<std::string> errors;
  runJobs(work.size(), options.jobs, job, errors);
  if (llvm::Error err = firstError(errors))
    return err;

  bool wrote = false;
  for (size_t i = 0; i < work.size(); ++i) {
    if (work[i].kind == Item::File && fileSkips[i]) {
      report.skipped.push_back(
          {under(report.input, work[i].rel), *fileSkips[i]});
    } else if (work[i].kind == Item::File && !outcomes[i].input.empty()) {
      report.assets.push_back(std::move(outcomes[i])); // stripped loose IR
      wrote = true;
    } else if (work[i].kind == Item::File) {
      report.copied.push_back(std::move(copies[i]));
      wrote = true;
    } else if (work[i].kind == Item::Asset) {
      wrote |= !outcomes[i].skipped;
      report.assets.push_back(std::move(outcomes[i]));
    } else {
      report.skipped.push_back(
          {under(report.input, work[i].rel), work[i].reason});
    }
  }
  if (options.dryRun)
    return llvm::Error::success();
  if (!wrote) {
    // A run that writes nothing creates nothing.
    slot->discard();
    report.notes.push_back("nothing was stripped or copied: " +
                           printablePath(report.output) + " not created");
    return llvm::Error::success();
  }

  // Permission bits last (a read-only folder must be filled first), then
  // the rename that makes the whole output appear at once.
  if (llvm::Error finished = forEachFolder(
          outRoot.get(), report.output, plan->folders,
          [](int parent, llvm::StringRef name) {
            return support::openDirectory(parent, name, Symlinks::Refuse);
          },
          [](int fd, const Item &folder) {
            return finishFolder(fd, "", folder.mode);
          }))
    return finished;
  return publish(*slot, report, plan->rootMode);
}

} // namespace

llvm::Expected<StripReport>
aimodel::strip::stripPath(const std::string &source,
                          const std::string &destination,
                          const TreeOptions &options) {
  StripReport report;
  report.input = source;
  report.output = destination;
  report.dryRun = options.dryRun;
  report.locations = options.file.locations;
  llvm::Expected<RootFolder> root =
      openRootFolder(source, "use --file to strip one bytecode file");
  if (!root)
    return root.takeError();
  if (root->kind)
    report.mode = StripReport::Mode::Asset;
  llvm::Expected<InputGuard> guard = InputGuard::of(root->fd.get(), source);
  if (!guard)
    return guard.takeError();
  llvm::Error err =
      root->kind ? stripRootAsset(root->fd.get(), root->kindName, *guard,
                                  options, report)
                 : stripRootTree(root->fd.get(), *guard, options, report);
  if (err)
    return err;
  return report;
}

llvm::Expected<StripReport>
aimodel::strip::stripSingleFile(const std::string &input,
                                const std::string &output,
                                const TreeOptions &options) {
  StripReport report;
  report.input = input;
  report.output = output;
  report.mode = StripReport::Mode::File;
  report.dryRun = options.dryRun;
  report.locations = options.file.locations;
  llvm::Expected<support::RegularFile> file =
      support::openRegularFile(input, Symlinks::Follow);
  if (!file) {
    std::error_code code = llvm::errorToErrorCode(file.takeError());
    if (code == std::errc::is_a_directory)
      return fileError(input, "is a folder; --file takes one bytecode file");
    if (code == std::errc::invalid_argument)
      return fileError(input, "is not a regular file");
    return fileError(input, support::errnoReason(code.value()));
  }
  llvm::Expected<InputGuard> guard = InputGuard::of(file->fd.get(), input);
  if (!guard)
    return fileError(input, guard.takeError());
  llvm::Expected<OutputSlot> slot =
      OutputSlot::prepare(output, *guard, options.force);
  if (!slot)
    return slot.takeError();
  AssetOutcome outcome{input, output, "file"};
  UniqueFd out;
  if (!options.dryRun) {
    noteStale(*slot, report);
    llvm::Expected<mode_t> mode = permissionsOf(file->fd.get());
    llvm::Expected<UniqueFd> created =
        mode ? slot->createTempFile(*mode) : mode.takeError();
    if (!created)
      return fileError(output, created.takeError());
    out = std::move(*created);
  }
  llvm::Expected<FileStripResult> result =
      stripFile(*file, input, out ? out.get() : -1, output, options.file);
  if (!result)
    return result.takeError();
  outcome.result = std::move(*result);
  if (outcome.result.refused)
    return fileError(input, "cannot be stripped: " +
                                printablePath(*outcome.result.refused));
  if (!options.dryRun) {
    if (!outcome.result.verified)
      return fileError(output, "verification failed: the written file was "
                               "not verified");
    if (llvm::Error err = publish(*slot, report))
      return err;
  }
  if (options.progress)
    options.progress(1, 1);
  report.assets.push_back(std::move(outcome));
  return report;
}
