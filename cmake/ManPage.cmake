# cmake -DBIN=... -DARGS=audit,--help -DNAME=aimodel-audit -DSUMMARY=...
#       -DVERSION=... -DSEEALSO=... -DOUT=... -P ManPage.cmake
#
# A man page made at build time from the built binary's --help, kept
# verbatim (no fill) so the page says exactly what the binary prints:
# scripts/check-install.sh compares the two. Only roff's own characters are
# escaped: '\', '-', quotes, '^', '~' and a leading '.'.
string(REPLACE "," ";" ARGS "${ARGS}")
execute_process(COMMAND ${BIN} ${ARGS} OUTPUT_VARIABLE help
                RESULT_VARIABLE rc ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${BIN} ${ARGS} failed (${rc}): ${err}")
endif()

function(roff_escape var text)
  string(REPLACE "\\" "\\e" text "${text}")
  string(REPLACE "-" "\\-" text "${text}")
  string(REPLACE "'" "\\(aq" text "${text}")
  string(REPLACE "`" "\\(ga" text "${text}")
  string(REPLACE "^" "\\(ha" text "${text}")
  string(REPLACE "~" "\\(ti" text "${text}")
  set(${var} "${text}" PARENT_SCOPE)
endfunction()

string(REGEX REPLACE "\n+$" "" help "${help}")
# Lines one by one ('[' and ';' must not split a CMake list).
string(REPLACE ";" "\\;" help "${help}")
string(REPLACE "\n" ";" lines "${help}")
set(body "")
foreach(line IN LISTS lines)
  roff_escape(line "${line}")
  # A control character at a line's start would make it a request.
  # An empty line as an empty text line, not a blank line (a request to
  # space, which groff may merge with the next).
  if(line MATCHES "^[.]" OR line STREQUAL "")
    set(line "\\&${line}")
  endif()
  string(APPEND body "${line}\n")
endforeach()

get_filename_component(program "${BIN}" NAME)
list(JOIN ARGS " " arguments)
string(TOUPPER "${NAME}" title)
roff_escape(title "${title}")
roff_escape(name "${NAME}")
roff_escape(summary "${SUMMARY}")
roff_escape(seealso "${SEEALSO}")
file(WRITE "${OUT}.tmp"
".\\\" -*- coding: UTF-8 -*-
.\\\" Generated from `${program} ${arguments}` at build time; do not edit.
.TH ${title} 1 \"\" \"aimodel ${VERSION}\" \"User Commands\"
.SH NAME
${name} \\- ${summary}
.SH DESCRIPTION
.nf
${body}.fi
.SH SEE ALSO
${seealso}
")
file(RENAME "${OUT}.tmp" "${OUT}")
