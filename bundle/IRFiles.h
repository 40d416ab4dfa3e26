//===- IRFiles.h - Which bytecode files a PATH stands for -------*- C++ -*-===//
//
// A PATH named on the command line is followed; nothing inside a bundle is.
// The bundle's files are opened below its directory descriptor with the
// no-follow open, so a symlinked member is refused by the open itself, and
// what was checked is what is read.
//
//===----------------------------------------------------------------------===//
#ifndef AIMODEL_BUNDLE_IRFILES_H
#define AIMODEL_BUNDLE_IRFILES_H

#include "support/SafeFile.h"

#include "llvm/Support/Error.h"
#include "llvm/Support/MemoryBuffer.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace aimodel::bundle {

/// The IR files of a PATH: a bytecode or text file is itself; an asset is
/// its mlirb, followed (when asked) by every .mpsgraph inside it, sorted.
class IRFiles {
public:
  /// Opens PATH: a plain file, or an asset's folder and its mlirb (refused
  /// if a symlink: "is a symlink inside the bundle; not followed"). Every
  /// folder inside an asset that cannot be read is an error naming it.
  static llvm::Expected<IRFiles> open(const std::string &path,
                                      bool withDelegates);

  /// The files' paths as reported (raw bytes), the IR file first.
  const std::vector<std::string> &paths() const { return paths_; }
  /// The same files relative to the bundle ("main.mlirb", delegates'
  /// paths below it); "" for a PATH that is a file itself.
  const std::vector<std::string> &names() const { return names_; }

  /// Maps file `index`: the one PATH or mlirb opened by open(), the
  /// delegates below the bundle's descriptor, never following a symlink.
  llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>> map(size_t index);

private:
  IRFiles() = default;

  support::UniqueFd bundle_;                  ///< the asset's folder, if any
  std::optional<support::RegularFile> first_; ///< PATH or the mlirb, open
  std::vector<std::string> paths_;
  std::vector<std::string> names_; ///< relative to bundle_
};

/// The paths of IRFiles::open(path, withDelegates), for callers that open
/// the files themselves. Anything else is an input error.
llvm::Expected<std::vector<std::string>> irFilesOf(const std::string &path,
                                                   bool withDelegates);

} // namespace aimodel::bundle

#endif // AIMODEL_BUNDLE_IRFILES_H
