# Man pages and shell completion, made at build time from the built
# binaries' own --help (cmake/ManPage.cmake, cmake/Completions.cmake), so
# they never disagree with the binary; installed with it, and so in the
# Debian package and the release archive.
set(_docs ${PROJECT_BINARY_DIR}/share)
set(_pages "")
# NAME|what to run|summary|see also
set(_sub_pages
  "aimodel-audit|audit|check Core AI bundles, their metadata, hash and IR (reads, never writes)"
  "aimodel-diff|diff|compare the graphs of two models structurally"
  "aimodel-show|show|print the IR of a bundle or an IR file as MLIR generic text"
  "aimodel-stats|stats|per-file facts about IR: version, producer, dialects, ops"
  "aimodel-strip|strip|write a shipping copy of assets without debug payload")
set(_all_see_also "aimodel(1)")
foreach(_page IN LISTS _sub_pages)
  string(REPLACE "|" ";" _page "${_page}")
  list(GET _page 0 _name)
  string(APPEND _all_see_also ", ${_name}(1)")
endforeach()
string(APPEND _all_see_also ", aimodel-opt(1)")

function(_aimodel_man_page name target args summary seealso)
  set(out ${_docs}/man/man1/${name}.1)
  add_custom_command(OUTPUT ${out}
    COMMAND ${CMAKE_COMMAND} -E make_directory ${_docs}/man/man1
    COMMAND ${CMAKE_COMMAND} -DBIN=$<TARGET_FILE:${target}> "-DARGS=${args}"
            -DNAME=${name} "-DSUMMARY=${summary}" -DVERSION=${AIMODEL_VERSION}
            "-DSEEALSO=${seealso}" -DOUT=${out}
            -P ${PROJECT_SOURCE_DIR}/cmake/ManPage.cmake
    DEPENDS ${target} aimodel-mlir ${PROJECT_SOURCE_DIR}/cmake/ManPage.cmake
    COMMENT "Man page ${name}(1) from its --help" VERBATIM)
  set(_pages ${_pages} ${out} PARENT_SCOPE)
endfunction()

_aimodel_man_page(aimodel aimodel "--help"
  "audit, inspect and compare Apple Core AI model assets" "${_all_see_also}")
foreach(_page IN LISTS _sub_pages)
  string(REPLACE "|" ";" _page "${_page}")
  list(GET _page 0 _name)
  list(GET _page 1 _cmd)
  list(GET _page 2 _summary)
  _aimodel_man_page(${_name} aimodel "${_cmd},--help" "${_summary}" "${_all_see_also}")
endforeach()
_aimodel_man_page(aimodel-opt aimodel-opt "--help"
  "run aimodel's IR passes on Core AI bytecode or MLIR text" "${_all_see_also}")

set(_bash ${_docs}/bash-completion/completions/aimodel)
set(_zsh ${_docs}/zsh/vendor-completions/_aimodel)
add_custom_command(OUTPUT ${_bash} ${_zsh}
  COMMAND ${CMAKE_COMMAND} -DBIN=$<TARGET_FILE:aimodel> -DBASH=${_bash}
          -DZSH=${_zsh} -P ${PROJECT_SOURCE_DIR}/cmake/Completions.cmake
  DEPENDS aimodel ${PROJECT_SOURCE_DIR}/cmake/Completions.cmake
  COMMENT "bash and zsh completion from aimodel's --help" VERBATIM)

add_custom_target(aimodel-user-docs ALL DEPENDS ${_pages} ${_bash} ${_zsh})
install(FILES ${_pages} DESTINATION share/man/man1)
install(FILES ${_bash} DESTINATION share/bash-completion/completions)
install(FILES ${_zsh} DESTINATION share/zsh/vendor-completions)
