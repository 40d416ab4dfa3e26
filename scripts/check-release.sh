#!/usr/bin/env bash
# The release archive, tested as a user gets it: built by scripts/release in
# its own tree, unpacked into a temporary folder, every command run from
# there with LLVM's folder hidden (a tmpfs over it, in a private mount
# namespace; said and skipped where namespaces are unavailable), each output
# compared with the development build's; ldd must name no LLVM, MLIR, C++
# runtime, OpenSSL or Boost library; the man pages and shell completion it
# ships match its binaries (scripts/check-user-docs.sh).
#   scripts/check-release.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build=$(cd "$1" && pwd)
src=$(cd "$2" && pwd)
fail() { echo "check-release: $*" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

archive=$("$src/scripts/release" "$build/release-build" 2> "$work/release.log" | tail -n1) ||
  { tail -n 40 "$work/release.log" >&2; fail "scripts/release failed"; }
grep '^release:' "$work/release.log" || true
[[ "$(basename "$archive")" =~ ^aimodel-[0-9.]+-linux-[a-z0-9_]+\.tar\.gz$ ]] ||
  fail "unexpected archive name: $archive"
mkdir "$work/unpacked"
tar -xzf "$archive" -C "$work/unpacked"
root=$(ls -d "$work"/unpacked/aimodel-*)
for f in bin/aimodel bin/aimodel-opt lib/aimodel/aimodel-mlir.so share/doc/aimodel/README.md \
         share/doc/aimodel/docs/audit.md share/doc/aimodel/docs/rules.md \
         share/man/man1/aimodel.1 share/man/man1/aimodel-opt.1 \
         share/bash-completion/completions/aimodel share/zsh/vendor-completions/_aimodel; do
  [ -e "$root/$f" ] || fail "the archive has no $f"
done
# Its man pages say what its binaries print; its completion works.
"$src/scripts/check-user-docs.sh" "$root" || fail "the archive's man pages or completion are wrong"

# What the binaries still load from the system.
for f in bin/aimodel bin/aimodel-opt lib/aimodel/aimodel-mlir.so; do
  ldd "$root/$f" > "$work/ldd" || fail "ldd $f failed"
  if grep -E -i 'libLLVM|libMLIR|libstdc\+\+|libgcc_s|libcrypto|libssl|libboost|not found' "$work/ldd"; then
    fail "$f still needs the libraries above"
  fi
  echo "check-release: $f needs: $(awk '{print $1}' "$work/ldd" | grep -v -E '^(linux-vdso|/lib64/ld-linux)' | tr '\n' ' ')"
done

# Every command, from the unpacked tree, against the development build.
fixtures="$build/fixtures"
demo="$src/fixtures/trees/demo"
legacy="$demo/legacy/classifier.aimodel"
# Each command quoted for the shell, so paths with spaces stay one word.
quoted() { printf '%q ' "$@"; }
commands=(
  "$(quoted audit --fail-on never "$demo")"
  "$(quoted audit --fail-on never --format json "$fixtures/audit/AIM002")"
  "$(quoted stats "$legacy")"
  "$(quoted show "$legacy")"
  "$(quoted show --debuginfo "$legacy/main.mlirb")"
  "$(quoted diff "$src/tests/diff/Inputs/model.mlir" "$src/tests/diff/Inputs/model-changed.mlir")"
  "$(quoted diff "$legacy" "$demo/bundles/tiny-llm/tiny.aimodel")"
  "$(quoted strip --format json "$legacy" -o "$work/OUT.aimodel")"
)
run_all() { # BIN LOGDIR
  mkdir -p "$2"
  local i=0 cmd
  for cmd in "${commands[@]}"; do
    rm -rf "$work/OUT.aimodel"
    local rc=0
    eval "\"\$1\" $cmd" > "$2/$i.out" 2> "$2/$i.err" || rc=$?
    echo "$rc" > "$2/$i.rc"
    i=$((i + 1))
  done
  local rc=0
  "$(dirname "$1")/aimodel-opt" "$legacy/main.mlirb" \
    --aimodel-legacy-debug-location > /dev/null 2> "$2/opt.err" || rc=$?
  echo "$rc" > "$2/opt.rc"
}
run_all "$build/bin/aimodel" "$work/dev"
export -f run_all
export legacy
export commands_file="$work/commands"
printf '%s\n' "${commands[@]}" > "$commands_file"
libdir=$(llvm-config-22 --libdir)
if unshare -m true 2> /dev/null; then
  # LLVM's folder hidden: nothing the release loads may come from it.
  unshare -m --propagation private bash -c '
    set -e
    mount -t tmpfs tmpfs "$1"
    [ -z "$(ls -A "$1")" ]
    mapfile -t commands < "$commands_file"
    work=$2 root=$3
    run_all "$root/bin/aimodel" "$work/release"
  ' _ "$libdir" "$work" "$root" || fail "the release failed with LLVM hidden"
  echo "check-release: ran with $libdir hidden (tmpfs, private mount namespace)"
else
  echo "check-release: no mount namespaces here: LLVM NOT hidden (ran the release as is)"
  run_all "$root/bin/aimodel" "$work/release"
fi
i=0
for cmd in "${commands[@]}"; do
  rc=$(cat "$work/release/$i.rc")
  [ "$rc" = "$(cat "$work/dev/$i.rc")" ] ||
    { cat "$work/release/$i.err" >&2; fail "'aimodel $cmd' exits $rc from the release"; }
  # JSON carries no paths of the binaries; strip's output path is the same.
  cmp -s "$work/release/$i.out" "$work/dev/$i.out" ||
    { diff "$work/dev/$i.out" "$work/release/$i.out" | head -20 >&2; fail "'aimodel $cmd' prints other output from the release"; }
  i=$((i + 1))
done
[ "$(cat "$work/release/opt.rc")" = "$(cat "$work/dev/opt.rc")" ] &&
  cmp -s "$work/release/opt.err" "$work/dev/opt.err" ||
  { cat "$work/release/opt.err" >&2; fail "aimodel-opt differs from the release"; }
echo "check-release: ${#commands[@]} commands and aimodel-opt give the development build's output"
