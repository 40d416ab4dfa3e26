# The bytecode decoder's sources (LLVMSupport only, no MLIR), relative to the
# project root, in one list shared by the main build and the fuzzer's
# standalone clang build.
set(AIMODEL_DECODER_SOURCES
  bytecode/BuiltinAttrChecks.cpp
  bytecode/BuiltinAttrDecoder.cpp
  bytecode/BuiltinTypeDecoder.cpp
  bytecode/BytecodeIR.cpp
  bytecode/BytecodeReader.cpp
  bytecode/EntryGraph.cpp
  bytecode/StructuralHash.cpp
)
include("${CMAKE_CURRENT_LIST_DIR}/../support/SupportSources.cmake")
list(APPEND AIMODEL_DECODER_SOURCES ${AIMODEL_SUPPORT_SOURCES})
