# The bytecode decoder's sources (LLVMSupport only, no MLIR), in one list
# shared by the main build and the fuzzer's standalone clang build.
set(AIMODEL_DECODER_SOURCES
  BuiltinAttrDecoder.cpp
  BuiltinTypeDecoder.cpp
  BytecodeFileMapping.cpp
  BytecodeIR.cpp
  BytecodeReader.cpp
)
