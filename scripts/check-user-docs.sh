#!/usr/bin/env bash
# The man pages and shell completion of an installed tree (a Debian
# package's, unpacked, or the release archive's), checked against its own
# binaries: every page renders with man -l and says exactly what the
# binary's --help prints (runs of blank lines aside: man squeezes them);
# the reference page each --help names is installed;
# bash completes commands, options and their choices; zsh reads its file.
#   scripts/check-user-docs.sh ROOT      (ROOT holds bin/, share/man/, ...)
set -euo pipefail
root=$(cd "$1" && pwd)
fail() { echo "check-user-docs: $*" >&2; exit 1; }

trim_blank() { cat -s | sed -e '/./,$!d' | tac | sed -e '/./,$!d' | tac; }
man_text() { # PAGE: its DESCRIPTION, as man renders it
  MANWIDTH=2000 LC_ALL=C.UTF-8 man -l "$1" 2> /dev/null | col -bx |
    awk '/^DESCRIPTION$/ {on = 1; next} /^SEE ALSO$/ {on = 0} on' |
    sed -e 's/^       //' -e 's/[[:space:]]*$//' | trim_blank
}
pages=0
for page in aimodel aimodel-audit aimodel-diff aimodel-show aimodel-stats aimodel-strip aimodel-opt; do
  file="$root/share/man/man1/$page.1"
  [ -f "$file" ] || fail "no man page $page(1)"
  LC_ALL=C.UTF-8 man -l "$file" > /dev/null 2> "$root.man.err" || fail "man -l $page.1 fails: $(cat "$root.man.err")"
  case $page in
    aimodel) help=("$root/bin/aimodel" --help) ;;
    aimodel-opt) help=("$root/bin/aimodel-opt" --help) ;;
    *) help=("$root/bin/aimodel" "${page#aimodel-}" --help) ;;
  esac
  "${help[@]}" | sed -e 's/[[:space:]]*$//' | trim_blank > "$root.help"
  [ "$(wc -l < "$root.help")" -gt 5 ] || fail "${help[*]} prints almost nothing"
  man_text "$file" > "$root.page"
  diff -u "$root.help" "$root.page" > "$root.diff" ||
    { head -20 "$root.diff" >&2; fail "man page $page(1) is not what '${help[*]#"$root/"}' prints"; }
  pages=$((pages + 1))
done
rm -f "$root.man.err" "$root.help" "$root.page" "$root.diff"

# Every help ends with its reference, installed where it says.
docs=0
for cmd in "" audit diff show stats strip; do
  # shellcheck disable=SC2086  # no command: the top-level help
  line=$("$root/bin/aimodel" $cmd --help | grep '^Reference: ' | tail -n1)
  [ -n "$line" ] || fail "aimodel $cmd --help names no reference"
  if [ -z "$cmd" ]; then
    page=share/doc/aimodel/README.md
  else
    [[ "$line" == *" PREFIX/share/doc/aimodel/docs/$cmd.md" ]] ||
      fail "aimodel $cmd --help names another page: $line"
    page=share/doc/aimodel/docs/$cmd.md
  fi
  [ -f "$root/$page" ] || fail "aimodel $cmd --help names $page, not installed"
  docs=$((docs + 1))
done
[ -f "$root/share/doc/aimodel/docs/rules.md" ] || fail "docs/rules.md is not installed"

# aimodel-opt's help shows no LLVM target flags.
[ "$("$root/bin/aimodel-opt" --help | grep -c -i -E 'amdgpu|aarch64|x86-|polly')" = 0 ] ||
  fail "aimodel-opt --help lists LLVM target flags"

bash_file="$root/share/bash-completion/completions/aimodel"
zsh_file="$root/share/zsh/vendor-completions/_aimodel"
[ -f "$bash_file" ] || fail "no bash completion"
[ -f "$zsh_file" ] || fail "no zsh completion"
complete_words() { # WORDS...: what bash offers for the last one
  bash -c 'source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _aimodel; printf "%s\n" "${COMPREPLY[@]}"' _ "$bash_file" "$@"
}
[ "$(complete_words aimodel au)" = audit ] || fail "bash does not complete 'aimodel au'"
complete_words aimodel audit --for | grep -qx -- --format || fail "bash does not complete 'aimodel audit --for'"
complete_words aimodel audit --format s | grep -qx sarif || fail "bash does not complete --format's choices"
complete_words aimodel diff --weights '' | grep -qx digest || fail "bash does not complete --weights's choices"
[ -z "$(complete_words aimodel diff mod)" ] || fail "bash offers words for a file operand (files are complete's default)"
if command -v zsh > /dev/null; then
  zsh -n "$zsh_file" || fail "zsh cannot read its completion"
  grep -q -- '--pre-commit' "$zsh_file" || fail "zsh completion lacks audit's options"
  zsh_note="zsh reads its file"
else
  zsh_note="no zsh here: its file not parsed"
fi
echo "check-user-docs: $pages man pages render and match --help; $docs reference pages installed; bash completes; $zsh_note"
