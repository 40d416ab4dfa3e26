# cmake -DBIN=path/to/aimodel -DBASH=... -DZSH=... -P Completions.cmake
#
# bash and zsh completion for aimodel, made at build time from the built
# binary's --help (the subcommands and each one's options and choices), so
# they complete what the binary takes.
function(help_of var)
  execute_process(COMMAND ${BIN} ${ARGN} --help OUTPUT_VARIABLE out
                  RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${BIN} ${ARGN} --help failed")
  endif()
  string(REPLACE ";" "," out "${out}")
  string(REPLACE "\n" ";" out "${out}")
  set(${var} "${out}" PARENT_SCOPE)
endfunction()

# The options of one help text ("-j,--jobs", "--format") and the choices of
# those that list them ("--format TEXT:{text,json}").
function(options_of help optsVar choicesVar)
  set(opts "")
  set(choices "")
  foreach(line IN LISTS help)
    if(line MATCHES "^  ((-[A-Za-z0-9],)*--?[A-Za-z0-9][A-Za-z0-9-]*)( [A-Z]+:\\{([^}]*)\\})?")
      string(REPLACE "," ";" names "${CMAKE_MATCH_1}")
      list(APPEND opts ${names})
      if(CMAKE_MATCH_4)
        string(REPLACE "," " " values "${CMAKE_MATCH_4}")
        foreach(n IN LISTS names)
          list(APPEND choices "${n}=${values}")
        endforeach()
      endif()
    endif()
  endforeach()
  set(${optsVar} "${opts}" PARENT_SCOPE)
  set(${choicesVar} "${choices}" PARENT_SCOPE)
endfunction()

help_of(top)
set(commands "")
set(inSubcommands OFF)
foreach(line IN LISTS top)
  if(line STREQUAL "Subcommands:")
    set(inSubcommands ON)
  elseif(inSubcommands AND line MATCHES "^  ([a-z]+) ")
    list(APPEND commands "${CMAKE_MATCH_1}")
  endif()
endforeach()
if(NOT commands)
  message(FATAL_ERROR "no subcommands in ${BIN} --help")
endif()
options_of("${top}" topOpts topChoices)
list(JOIN commands " " commandWords)
list(JOIN commands "|" commandAlternatives)
list(JOIN topOpts " " topWords)

set(bashCases "")
set(zshCases "")
foreach(cmd IN LISTS commands)
  help_of(sub ${cmd})
  options_of("${sub}" opts choices)
  list(JOIN opts " " words)
  set(valueCases "")
  set(zshValues "")
  foreach(choice IN LISTS choices)
    string(REGEX REPLACE "=.*" "" option "${choice}")
    string(REGEX REPLACE "^[^=]*=" "" values "${choice}")
    string(APPEND valueCases "        ${option}) values=\"${values}\" ;;\n")
    string(APPEND zshValues "        ${option}) values=(${values}) ;;\n")
  endforeach()
  string(APPEND bashCases "    ${cmd})\n      opts=\"${words}\"\n      case $prev in\n${valueCases}      esac\n      ;;\n")
  string(APPEND zshCases "    ${cmd})\n      opts=(${words})\n      case $words[CURRENT-1] in\n${zshValues}      esac\n      ;;\n")
endforeach()

file(WRITE "${BASH}" "# bash completion for aimodel: generated from its --help at build time.
_aimodel() {
  local cur=\${COMP_WORDS[COMP_CWORD]} prev=\${COMP_WORDS[COMP_CWORD-1]}
  local cmd= opts= values= i
  for ((i = 1; i < COMP_CWORD; i++)); do
    case \${COMP_WORDS[i]} in
      ${commandAlternatives}) cmd=\${COMP_WORDS[i]}; break ;;
    esac
  done
  case $cmd in
    '')
      opts=\"${topWords} ${commandWords}\"
      ;;
${bashCases}  esac
  if [[ -n $values ]]; then
    mapfile -t COMPREPLY < <(compgen -W \"$values\" -- \"$cur\")
  elif [[ -z $cmd || $cur == -* ]]; then
    mapfile -t COMPREPLY < <(compgen -W \"$opts\" -- \"$cur\")
  else
    COMPREPLY=() # files and folders: complete's -o default
  fi
}
complete -o default -F _aimodel aimodel
")

file(WRITE "${ZSH}" "#compdef aimodel
# zsh completion for aimodel: generated from its --help at build time.
_aimodel() {
  local -a opts values
  if (( CURRENT == 2 )); then
    if [[ $PREFIX == -* ]]; then
      compadd -- ${topWords}
    else
      compadd -- ${commandWords}
    fi
    return
  fi
  case $words[2] in
${zshCases}  esac
  if (( \${#values} )); then
    compadd -a values
  elif [[ $PREFIX == -* ]]; then
    compadd -a opts
  else
    _files
  fi
}
_aimodel \"$@\"
")
