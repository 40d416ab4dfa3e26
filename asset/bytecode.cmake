# Dialect-agnostic MLIR bytecode decoder ("section walker"), part of AIModelAsset.
# Included from asset/CMakeLists.txt after AIModelAsset is defined.
# Depends on LLVMSupport only (MemoryBuffer, Error, xxhash).
target_sources(AIModelAsset PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/BytecodeReader.cpp
  ${CMAKE_CURRENT_LIST_DIR}/BytecodeIR.cpp
  ${CMAKE_CURRENT_LIST_DIR}/BuiltinAttrDecoder.cpp
)

aimodel_unittest(BytecodeReaderTest
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/BytecodeReaderTest.cpp
          ${CMAKE_CURRENT_LIST_DIR}/BytecodeCorpusTest.cpp
  LIBS AIModelAsset)
# Lets the test find mlir-opt-22 when AIMODEL_MLIR_OPT is not set.
find_program(AIMODEL_MLIR_OPT_22 NAMES mlir-opt-22 mlir-opt
  HINTS ${LLVM_TOOLS_BINARY_DIR})
if(AIMODEL_MLIR_OPT_22)
  target_compile_definitions(BytecodeReaderTest PRIVATE
    AIMODEL_DEFAULT_MLIR_OPT="${AIMODEL_MLIR_OPT_22}")
endif()
target_compile_definitions(BytecodeReaderTest PRIVATE
  AIMODEL_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
