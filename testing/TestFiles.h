//===- TestFiles.h - Scratch directories for unit tests ---------*- C++ -*-===//
#ifndef AIMODEL_TESTING_TESTFILES_H
#define AIMODEL_TESTING_TESTFILES_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <string>

namespace aimodel::testing {

/// A fresh directory under the system temp dir, removed with its contents.
class ScratchDir {
public:
  ScratchDir() {
    llvm::SmallString<128> path;
    EXPECT_FALSE(llvm::sys::fs::createUniqueDirectory("aimodel-test", path));
    root = std::string(path);
  }
  // std::filesystem, not llvm::sys::fs: the latter leaves FIFOs behind.
  ~ScratchDir() {
    std::error_code ec;
    std::filesystem::remove_all(root, ec);
  }

  std::string path(llvm::StringRef relative) const {
    return root + "/" + relative.str();
  }
  std::string write(llvm::StringRef relative, llvm::StringRef bytes) const {
    std::string full = path(relative);
    llvm::sys::fs::create_directories(llvm::sys::path::parent_path(full));
    std::error_code ec;
    llvm::raw_fd_ostream os(full, ec);
    EXPECT_FALSE(ec) << full;
    os << bytes;
    return full;
  }
  std::string mkdir(llvm::StringRef relative) const {
    std::string full = path(relative);
    EXPECT_FALSE(llvm::sys::fs::create_directories(full));
    return full;
  }

  std::string root;
};

} // namespace aimodel::testing

#endif // AIMODEL_TESTING_TESTFILES_H
