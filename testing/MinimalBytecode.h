//===- MinimalBytecode.h - The smallest clean IR file -----------*- C++ -*-===//
//
// `module {}` as MLIR 22 writes it (mlir-opt-22 --emit-bytecode), located at
// "e.mlir":1:1: valid bytecode on which no IR rule fires, for tests of the
// checks around the IR.
//
//===----------------------------------------------------------------------===//
#ifndef AIMODEL_TESTING_MINIMALBYTECODE_H
#define AIMODEL_TESTING_MINIMALBYTECODE_H

#include "llvm/ADT/StringRef.h"

namespace aimodel::testing {

inline llvm::StringRef minimalBytecode() {
  static const char bytes[] =
      "\x4d\x4c\xef\x52\x0d\x4d\x4c\x49\x52\x32\x32\x2e\x31\x2e\x38\x00"
      "\x01\x0d\x03\x01\x03\x01\x03\x07\x03\x0d\x05\x01\x01\x05\x13\x0b"
      "\x02\x0d\x17\x03\x03\x03\x05\x05\x04\x17\x05\x01\x50\x01\x01\x07"
      "\x04\x07\x03\x01\x01\x06\x03\x01\x05\x01\x00\x35\x07\x0f\x0f\x11"
      "\x62\x75\x69\x6c\x74\x69\x6e\x00\x6d\x6f\x64\x75\x6c\x65\x00\x65"
      "\x2e\x6d\x6c\x69\x72\x00\x08\x09\x03\x05\x01\x01";
  return llvm::StringRef(bytes, sizeof(bytes) - 1);
}

} // namespace aimodel::testing

#endif // AIMODEL_TESTING_MINIMALBYTECODE_H
