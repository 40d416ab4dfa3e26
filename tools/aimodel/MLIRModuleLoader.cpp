//===- MLIRModuleLoader.cpp - Finding aimodel-mlir.so ---------------------===//

#include "tools/aimodel/MLIRCommands.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"

#include <dlfcn.h>
#include <mutex>
#include <string>

namespace {
const char *argv0 = nullptr;

/// The module, loaded once per process: commands ask from several threads
/// (diff loads both sides at once), and a failure is said once.
void *moduleHandle() {
  static std::once_flag once;
  static void *handle = nullptr;
  std::call_once(once, [] {
    // At the same place relative to the executable wherever it was built
    // or installed (bin/aimodel, lib/aimodel/aimodel-mlir.so), so a moved
    // install prefix still works.
    // (LLVM asks the system, or resolves argv[0] as a shell would.)
    std::string self = llvm::sys::fs::getMainExecutable(
        argv0, reinterpret_cast<void *>(&moduleHandle));
    if (self.empty()) {
      llvm::errs() << "aimodel: error: cannot locate the aimodel executable\n";
      return;
    }
    self.resize(self.rfind('/') + 1);
    std::string module = self + AIMODEL_PLUGIN_FROM_BIN "/aimodel-mlir.so";
    // RTLD_LOCAL keeps the module's LLVM copy from interposing on ours.
    handle = ::dlopen(module.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!handle)
      llvm::errs() << "aimodel: error: cannot load " << module << ": "
                   << ::dlerror() << "\n";
  });
  return handle;
}
} // namespace

void aimodel::cli::setProgramName(const char *name) { argv0 = name; }

void *aimodel::cli::findMLIRCommand(const char *symbol) {
  void *handle = moduleHandle();
  if (!handle)
    return nullptr;
  void *entry = ::dlsym(handle, symbol);
  if (!entry)
    llvm::errs() << "aimodel: error: the aimodel-mlir module has no " << symbol
                 << "\n";
  return entry;
}
