//===- MLIRCommands.h - Commands that need MLIR ----------------*- C++ -*-===//
//
// Loading the shared MLIR and LLVM libraries costs a process ~80 MiB of
// resident memory and their relocation time. Commands that need only the
// bytecode decoder (audit, stats) must not pay it, so everything that needs
// MLIR is built into a module (lib/aimodel/aimodel-mlir.so, beside the
// executable's bin/) that the executable loads when such a command runs.
// Only C types cross the boundary: the module carries its own copy of LLVM's
// Support library.
//
//===----------------------------------------------------------------------===//
#ifndef AIMODEL_TOOLS_AIMODEL_MLIRCOMMANDS_H
#define AIMODEL_TOOLS_AIMODEL_MLIRCOMMANDS_H

extern "C" {

struct AIModelShowOptions {
  const char *path; ///< a bytecode or MLIR text file
  int debugInfo;    ///< print locations
  int structure;    ///< print the dialect-neutral structure dump
  int insideBundle; ///< `path` is a bundle member: never follow a symlink
};

/// Prints the IR; returns the process exit code. Errors go to stderr.
typedef int (*AIModelShowFn)(const AIModelShowOptions *options);

#define AIMODEL_SHOW_SYMBOL "aimodelShow"
}

namespace aimodel::cli {

/// argv[0], for finding the module where the system cannot name the
/// running executable.
void setProgramName(const char *name);

/// The module's entry point `symbol`, or null with a message on stderr.
void *findMLIRCommand(const char *symbol);

} // namespace aimodel::cli

#endif // AIMODEL_TOOLS_AIMODEL_MLIRCOMMANDS_H
