#!/usr/bin/env bash
# Installs the build into a temporary prefix, moves the prefix (it must work
# wherever it lands), runs the installed aimodel, then builds the Debian
# package and checks its contents (stripped binaries, man pages generated
# from --help, shell completion: scripts/check-user-docs.sh), its control
# fields and its dependencies.
#   scripts/check-install.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build=$(cd "$1" && pwd)
src=$(cd "$2" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "check-install: $*" >&2; exit 1; }

cmake --install "$build" --prefix "$work/prefix" > /dev/null
mv "$work/prefix" "$work/moved"
aimodel="$work/moved/bin/aimodel"
[ -x "$aimodel" ] || fail "no bin/aimodel in the install"
fixture="$src/fixtures/trees/demo/bundles/tiny-llm/tiny.aimodel"

# Every command of the installed binary, compared with the built one.
for cmd in "audit --fail-on never $src/fixtures/trees/demo" "stats $fixture" "show $fixture"; do
  # shellcheck disable=SC2086
  "$aimodel" $cmd > "$work/installed.out" || fail "installed 'aimodel $cmd' failed"
  # shellcheck disable=SC2086
  "$build/bin/aimodel" $cmd > "$work/built.out" || fail "built 'aimodel $cmd' failed"
  cmp -s "$work/installed.out" "$work/built.out" ||
    fail "installed and built 'aimodel $cmd' differ"
done

# The Debian package: what it holds, what it needs, and that it runs.
(cd "$work" && cpack -G DEB --config "$build/CPackConfig.cmake" > cpack.log 2>&1) ||
  { cat "$work/cpack.log" >&2; fail "cpack -G DEB failed"; }
deb=$(ls "$work"/*.deb 2>/dev/null | head -n1)
[ -n "$deb" ] || fail "cpack made no .deb"
depends=$(dpkg-deb -f "$deb" Depends)
for need in libmlir-22 libllvm22; do
  [[ "$depends" == *"$need"* ]] || fail "package Depends lacks $need: $depends"
done
dpkg-deb -x "$deb" "$work/deb"
[ -x "$work/deb/usr/bin/aimodel" ] || fail "package has no usr/bin/aimodel"
[ -f "$work/deb/usr/lib/aimodel/aimodel-mlir.so" ] || fail "package has no usr/lib/aimodel/aimodel-mlir.so"
"$work/deb/usr/bin/aimodel" show "$fixture" > "$work/deb.out" || fail "packaged aimodel show failed"
cmp -s "$work/deb.out" "$work/built.out" || fail "packaged and built 'aimodel show' differ"

# A real Maintainer and Homepage, not a placeholder.
maintainer=$(dpkg-deb -f "$deb" Maintainer)
homepage=$(dpkg-deb -f "$deb" Homepage)
[[ "$maintainer" =~ ^[^\<]+\ \<[^@\>]+@[^@\>]+\.[a-z]+\>$ && "$maintainer" != *localhost* ]] ||
  fail "package Maintainer is not a name and an address: $maintainer"
[[ "$homepage" == https://* ]] || fail "package Homepage is not a URL: $homepage"
# What it holds: man pages for aimodel, each command and aimodel-opt, and
# bash and zsh completion where those shells look.
dpkg-deb -c "$deb" | awk '{print $NF}' > "$work/contents"
for f in bin/aimodel bin/aimodel-opt lib/aimodel/aimodel-mlir.so \
         share/man/man1/aimodel.1 share/man/man1/aimodel-audit.1 share/man/man1/aimodel-diff.1 \
         share/man/man1/aimodel-show.1 share/man/man1/aimodel-stats.1 share/man/man1/aimodel-strip.1 \
         share/man/man1/aimodel-opt.1 share/bash-completion/completions/aimodel \
         share/zsh/vendor-completions/_aimodel share/doc/aimodel/README.md \
         share/doc/aimodel/docs/audit.md share/doc/aimodel/docs/rules.md; do
  grep -qx "./usr/$f" "$work/contents" || fail "dpkg-deb -c lists no /usr/$f"
done
# Stripped: no symbol table, no debug information in the package.
for f in bin/aimodel bin/aimodel-opt lib/aimodel/aimodel-mlir.so; do
  what=$(file -b "$work/deb/usr/$f")
  [[ "$what" == *", stripped"* ]] || fail "/usr/$f is not stripped: $what"
  if readelf -S "$work/deb/usr/$f" | grep -q -E '\.debug_|\.symtab'; then
    fail "/usr/$f still has debug or symbol sections"
  fi
done
"$src/scripts/check-user-docs.sh" "$work/deb/usr" || fail "the package's man pages or completion are wrong"
size=$(stat -c %s "$deb")
echo "check-install: install prefix (moved) and $(basename "$deb") OK ($((size / 1024)) KiB, stripped); Maintainer: $maintainer; Homepage: $homepage; Depends: $depends"
