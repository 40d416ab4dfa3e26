//===- IRInputs.h - Which bytecode files a PATH stands for ------*- C++ -*-===//
#ifndef AIMODEL_BUNDLE_IRFILES_H
#define AIMODEL_BUNDLE_IRFILES_H

#include "llvm/Support/Error.h"

#include <string>
#include <vector>

namespace aimodel::bundle {

/// The IR files of PATH: a bytecode or text file is itself; an asset is its
/// mlirb, followed (when `withDelegates`) by every .mpsgraph inside it,
/// sorted. Anything else is an input error.
llvm::Expected<std::vector<std::string>> irFilesOf(const std::string &path,
                                                   bool withDelegates);

} // namespace aimodel::bundle

#endif // AIMODEL_BUNDLE_IRFILES_H
