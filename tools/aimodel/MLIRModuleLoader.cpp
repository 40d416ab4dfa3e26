//===- MLIRModuleLoader.cpp - Finding aimodel-mlir.so ---------------------===//

#include "tools/aimodel/MLIRCommands.h"

#include "llvm/Support/raw_ostream.h"

#include <climits>
#include <dlfcn.h>
#include <string>
#include <unistd.h>

void *aimodel::cli::findMLIRCommand(const char *symbol) {
  // At the same place relative to the executable wherever it was built or
  // installed (bin/aimodel, lib/aimodel/aimodel-mlir.so), so a moved install
  // prefix still works.
  char self[PATH_MAX];
  ssize_t n = ::readlink("/proc/self/exe", self, sizeof(self) - 1);
  if (n <= 0) {
    llvm::errs() << "aimodel: error: cannot locate the aimodel executable\n";
    return nullptr;
  }
  std::string dir(self, static_cast<size_t>(n));
  dir.resize(dir.rfind('/') + 1);
  std::string module = dir + AIMODEL_PLUGIN_FROM_BIN "/aimodel-mlir.so";
  // RTLD_LOCAL keeps the module's LLVM copy from interposing on ours.
  void *handle = ::dlopen(module.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    llvm::errs() << "aimodel: error: cannot load " << module << ": "
                 << ::dlerror() << "\n";
    return nullptr;
  }
  void *entry = ::dlsym(handle, symbol);
  if (!entry)
    llvm::errs() << "aimodel: error: " << module << " has no " << symbol
                 << "\n";
  return entry;
}
