//===- IRFiles.cpp - Which bytecode files a PATH stands for ---------------===//

#include "bundle/IRFiles.h"

#include "bundle/Bundle.h"
#include "bundle/FileReading.h"
#include "support/PathText.h"

#include <algorithm>
#include <cerrno>

using namespace aimodel;
using support::printablePath;
using support::Symlinks;

static llvm::Error inputError(const std::string &path,
                              const llvm::Twine &message) {
  return llvm::createStringError(printablePath(path) + ": " + message);
}

/// "permission denied", without the "cannot open: " the open puts first.
static std::string reasonOf(llvm::Error error) {
  std::string message = llvm::toString(std::move(error));
  llvm::StringRef text(message);
  if (!text.consume_front("cannot open: "))
    text.consume_front("cannot read directory: ");
  return text.str();
}

llvm::Expected<bundle::IRFiles> bundle::IRFiles::open(const std::string &path,
                                                      bool withDelegates) {
  IRFiles files;
  // The user named PATH: it is followed, and it may be a file.
  llvm::Expected<support::RegularFile> file =
      support::openRegularFile(path, Symlinks::Follow);
  if (file) {
    files.first_ = std::move(*file);
    files.paths_.push_back(path);
    files.names_.push_back("");
    return files;
  }
  std::error_code code = llvm::errorToErrorCode(file.takeError());
  if (code != std::errc::is_a_directory) {
    if (code == std::errc::invalid_argument)
      return inputError(path, "is not a regular file");
    return inputError(path, support::errnoReason(code.value()));
  }
  if (!assetKindFromName(namedPathKindName(path)))
    return inputError(
        path,
        "is a folder; expected a .aimodel/.aimodelc bundle or an IR file");
  llvm::Expected<support::UniqueFd> dir =
      support::openDirectory(path, Symlinks::Follow);
  if (!dir)
    return inputError(path, reasonOf(dir.takeError()));
  llvm::Expected<std::vector<DirEntry>> entries = listDirectory(dir->get());
  if (!entries)
    return inputError(path, llvm::toString(entries.takeError()));
  std::string name = namedPathKindName(path);
  AssetLayout layout =
      resolveAssetLayout(*assetKindFromName(name), name, *entries);
  if (layout.ir.empty())
    return inputError(path, layout.problem);
  std::string irPath = joinPath(path, layout.ir);
  // The open itself refuses a symlink: no lstat that a rename could outrun.
  llvm::Expected<support::RegularFile> ir =
      support::openRegularFile(dir->get(), layout.ir, Symlinks::Refuse);
  if (!ir) {
    std::string message = reasonOf(ir.takeError());
    if (message == "is a symlink; not followed")
      message = "is a symlink inside the bundle; not followed";
    return inputError(irPath, message);
  }
  files.bundle_ = std::move(*dir);
  files.first_ = std::move(*ir);
  files.paths_.push_back(irPath);
  files.names_.push_back(layout.ir);
  if (!withDelegates)
    return files;
  // Delegate graphs are MLIR bytecode too: every *.mpsgraph in the asset.
  std::vector<std::string> graphs;
  std::vector<WalkError> errors =
      forEachEntryBelow(files.bundle_.get(), [&](const DirEntry &e) {
        if (e.type == DirEntry::Type::File &&
            llvm::StringRef(e.name).ends_with(".mpsgraph"))
          graphs.push_back(e.name);
      });
  if (!errors.empty()) // a folder that cannot be read would hide graphs
    return inputError(joinPath(path, errors.front().name),
                      "cannot read directory: " + errors.front().reason);
  std::sort(graphs.begin(), graphs.end());
  for (std::string &graph : graphs) {
    files.paths_.push_back(joinPath(path, graph));
    files.names_.push_back(std::move(graph));
  }
  return files;
}

/// Below this size the IR file is read into memory rather than mapped.
static constexpr uint64_t kReadNotMapBytes = 1 << 20;

llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>>
bundle::IRFiles::map(size_t index) {
  if (index == 0 && first_) {
    support::RegularFile file = std::move(*first_);
    first_.reset();
    // A small file is read, not mapped: a read costs less than a mapping
    // and its unmapping. A read that fails is retried as a mapping, which
    // meets (and reports) whatever stopped it as before.
    if (file.size() < kReadNotMapBytes) {
      llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>> read =
          readWholeFile(file, paths_[0]);
      if (read)
        return read;
      llvm::consumeError(read.takeError());
    }
    return support::mapRegularFile(std::move(file), paths_[0]);
  }
  if (!bundle_) // a plain PATH is mapped once
    return llvm::createStringError("already mapped");
  return support::mapRegularFile(bundle_.get(), names_[index],
                                 Symlinks::Refuse);
}

llvm::Expected<std::vector<std::string>>
bundle::irFilesOf(const std::string &path, bool withDelegates) {
  llvm::Expected<IRFiles> files = IRFiles::open(path, withDelegates);
  if (!files)
    return files.takeError();
  return files->paths();
}
