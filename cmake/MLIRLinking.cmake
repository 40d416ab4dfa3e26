# How the code that needs MLIR (ir/, mlir-passes/, the aimodel-mlir module,
# aimodel-opt) links MLIR and LLVM, as one interface target,
# AIModelMLIRLink:
#  - development: Debian's shared libMLIR and libLLVM;
#  - AIMODEL_STATIC_RELEASE: the static archives Debian also ships, so the
#    release archive needs no LLVM at all. Debian builds them with
#    LLVM_LINK_LLVM_DYLIB, so each exported MLIR target names the *shared*
#    libLLVM in its interface: the targets used here are pointed at LLVM's
#    static Support archives instead (MLIR's core needs nothing else of LLVM).
#
# AIModelLLVMStatic is LLVM's static Support archives and what they need:
# the aimodel executable links it in every build (it needs no MLIR).
find_package(Threads REQUIRED)
add_library(AIModelLLVMStatic INTERFACE)
target_link_libraries(AIModelLLVMStatic INTERFACE
  ${AIMODEL_LLVM_SUPPORT_A} ${AIMODEL_LLVM_DEMANGLE_A} Threads::Threads
  ${CMAKE_DL_LIBS} rt m)

add_library(AIModelMLIRLink INTERFACE)
if(NOT AIMODEL_STATIC_RELEASE)
  target_link_libraries(AIModelMLIRLink INTERFACE MLIR LLVM)
  return()
endif()

set_property(GLOBAL PROPERTY AIMODEL_STATIC_VISITED "")
function(aimodel_point_at_static_llvm target)
  get_property(visited GLOBAL PROPERTY AIMODEL_STATIC_VISITED)
  if(target IN_LIST visited)
    return()
  endif()
  set_property(GLOBAL APPEND PROPERTY AIMODEL_STATIC_VISITED ${target})
  get_target_property(libs ${target} INTERFACE_LINK_LIBRARIES)
  if(NOT libs)
    return()
  endif()
  list(TRANSFORM libs REPLACE "^LLVM$" "AIModelLLVMStatic")
  set_target_properties(${target} PROPERTIES INTERFACE_LINK_LIBRARIES "${libs}")
  foreach(lib IN LISTS libs)
    if(TARGET ${lib} AND lib MATCHES "^MLIR")
      aimodel_point_at_static_llvm(${lib})
    endif()
  endforeach()
endfunction()

set(_aimodel_mlir_libs MLIRIR MLIRParser MLIRAsmParser MLIRBytecodeReader
    MLIRBytecodeWriter MLIRPass MLIRSupport MLIRFuncDialect MLIRArithDialect
    MLIRMathDialect MLIRControlFlowDialect)
foreach(lib IN LISTS _aimodel_mlir_libs)
  aimodel_point_at_static_llvm(${lib})
endforeach()
target_link_libraries(AIModelMLIRLink INTERFACE ${_aimodel_mlir_libs})
