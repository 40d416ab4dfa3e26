#!/usr/bin/env bash
# Installs the build into a temporary prefix, moves the prefix (it must work
# wherever it lands), runs the installed aimodel, then builds the Debian
# package and checks its contents and dependencies.
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
echo "check-install: install prefix (moved) and $(basename "$deb") OK; Depends: $depends"
