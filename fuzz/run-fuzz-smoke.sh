#!/usr/bin/env bash
# Fuzz smoke test of the MLIR bytecode decoder (bytecode/), of the merge
# of audit shard reports (audit/Shard.cpp, `aimodel audit --merge`) and of
# tokenizer.json's scanner (bundle/TokenIds.cpp, against nlohmann's parser).
#
#   fuzz/run-fuzz-smoke.sh BUILD_DIR SOURCE_DIR
#
# Builds fuzz/CMakeLists.txt as a separate clang project in
# BUILD_DIR/fuzz-build (libFuzzer + ASan + UBSan; the main build uses g++),
# seeds a corpus from every MLIR bytecode file (any name: *.mlirb, the
# *.mpsgraph delegates, ...; recognised by the "ML\xEFR" magic, < 8 MiB) in
# SOURCE_DIR/../shared/corpus (when present), the fixtures the build wrote
# (BUILD_DIR/fixtures) and
# fuzz/seeds/*.mlir converted with mlir-opt-22, then fuzzes for
# AIMODEL_FUZZ_SECONDS (default 45) seconds.
#
# Exit 0: no crash, or clang missing ("clang not found, skipping").
# Exit 1: the fuzzer crashed (reproducer saved under BUILD_DIR/fuzz-build/
#         crashes/, its path printed), or the build failed.
# Exit 2: usage error.
#
# Environment: AIMODEL_FUZZ_SECONDS, CC/CXX (used when they are clang;
# default clang/clang++), AIMODEL_FUZZ_ARGS (extra libFuzzer flags).
# Replay a reproducer: BUILD_DIR/fuzz-build/aimodel-bytecode-fuzzer FILE
set -euo pipefail

if [[ $# -ne 2 ]]; then
  echo "usage: $0 BUILD_DIR SOURCE_DIR" >&2
  exit 2
fi
BUILD_DIR=$(cd "$1" && pwd)
SOURCE_DIR=$(cd "$2" && pwd)
SECONDS_BUDGET=${AIMODEL_FUZZ_SECONDS:-45}

find_tool() { # first of the names on PATH
  local name
  for name in "$@"; do
    if command -v "$name" >/dev/null 2>&1; then
      command -v "$name"
      return 0
    fi
  done
  return 1
}

CC_BIN=${CC:-}
CXX_BIN=${CXX:-}
# Only accept CC/CXX from the environment when they are clang.
[[ -n $CXX_BIN && $($CXX_BIN --version 2>/dev/null) == *clang* ]] || CXX_BIN=""
[[ -n $CC_BIN && $($CC_BIN --version 2>/dev/null) == *clang* ]] || CC_BIN=""
[[ -n $CXX_BIN ]] || CXX_BIN=$(find_tool clang++ clang++-14 clang++-22) || true
[[ -n $CC_BIN ]] || CC_BIN=$(find_tool clang clang-14 clang-22) || true
if [[ -z $CXX_BIN || -z $CC_BIN ]]; then
  echo "clang not found, skipping"
  exit 0
fi

FUZZ_BUILD="$BUILD_DIR/fuzz-build"
mkdir -p "$FUZZ_BUILD"
GENERATOR=()
command -v ninja >/dev/null 2>&1 && GENERATOR=(-G Ninja)
# A cache from a different generator cannot be reused.
if [[ -f $FUZZ_BUILD/CMakeCache.txt ]] &&
   ! grep -q "CMAKE_CXX_COMPILER:.*=$CXX_BIN\$" "$FUZZ_BUILD/CMakeCache.txt"; then
  rm -rf "$FUZZ_BUILD/CMakeCache.txt" "$FUZZ_BUILD/CMakeFiles"
fi

echo "== configuring $FUZZ_BUILD with $CXX_BIN"
if ! CC=$CC_BIN CXX=$CXX_BIN cmake -S "$SOURCE_DIR/fuzz" -B "$FUZZ_BUILD" \
    "${GENERATOR[@]}" -DCMAKE_BUILD_TYPE=RelWithDebInfo >"$FUZZ_BUILD/configure.log" 2>&1; then
  cat "$FUZZ_BUILD/configure.log" >&2
  echo "error: configuring the fuzzer failed" >&2
  exit 1
fi
echo "== building aimodel-bytecode-fuzzer, aimodel-merge-fuzzer and aimodel-tokenizer-fuzzer"
if ! cmake --build "$FUZZ_BUILD" >"$FUZZ_BUILD/build.log" 2>&1; then
  tail -n 60 "$FUZZ_BUILD/build.log" >&2
  echo "error: building the fuzzer failed (full log: $FUZZ_BUILD/build.log)" >&2
  exit 1
fi
FUZZER="$FUZZ_BUILD/aimodel-bytecode-fuzzer"

# --- Seed corpus ---------------------------------------------------------------
# Fresh each run (deduplicated by content hash) so runs are reproducible;
# what the fuzzer discovers goes to a separate, throw-away directory.
SEEDS="$FUZZ_BUILD/seeds"
WORK="$FUZZ_BUILD/corpus"
CRASHES="$FUZZ_BUILD/crashes"
rm -rf "$SEEDS" "$WORK"
mkdir -p "$SEEDS" "$WORK" "$CRASHES"

add_seed() { # copy a file starting with the bytecode magic "ML\xEFR"
  local file=$1 magic
  [[ -f $file && ! -L $file && -r $file ]] || return 0
  magic=$(head -c 4 "$file" | od -An -tx1 | tr -d ' \n')
  [[ $magic == 4d4cef52 ]] || return 0
  cp "$file" "$SEEDS/$(sha1sum "$file" | cut -c1-40)"
}

count_from() { # where, then files
  local where=$1 before after
  shift
  before=$(find "$SEEDS" -type f | wc -l)
  for f in "$@"; do add_seed "$f"; done
  after=$(find "$SEEDS" -type f | wc -l)
  echo "   $((after - before)) seed(s) from $where"
}

SHARED_CORPUS="$SOURCE_DIR/../shared/corpus"
if [[ -d $SHARED_CORPUS ]]; then
  mapfile -d '' files < <(find "$SHARED_CORPUS" -type f -size -8M -print0)
  count_from "$SHARED_CORPUS" "${files[@]}"
else
  echo "   (no $SHARED_CORPUS)"
fi
if [[ -d $BUILD_DIR/fixtures ]]; then
  mapfile -d '' files < <(find "$BUILD_DIR/fixtures" -type f -size -8M -print0)
  count_from "$BUILD_DIR/fixtures" "${files[@]}"
fi
MLIR_OPT=$(find_tool mlir-opt-22 "$(llvm-config-22 --bindir 2>/dev/null)/mlir-opt") || true
if [[ -n $MLIR_OPT ]]; then
  GEN="$FUZZ_BUILD/generated-seeds"
  mkdir -p "$GEN"
  files=()
  for input in "$SOURCE_DIR"/fuzz/seeds/*.mlir; do
    [[ -f $input ]] || continue
    out="$GEN/$(basename "$input" .mlir).mlirb"
    if "$MLIR_OPT" --allow-unregistered-dialect --emit-bytecode "$input" -o "$out"; then
      files+=("$out")
      # The same IR in bytecode version 5 (the oldest the decoder accepts).
      if "$MLIR_OPT" --allow-unregistered-dialect --emit-bytecode \
           --emit-bytecode-version=5 "$input" -o "$GEN/$(basename "$input" .mlir).v5.mlirb" 2>/dev/null; then
        files+=("$GEN/$(basename "$input" .mlir).v5.mlirb")
      fi
    else
      echo "warning: mlir-opt could not convert $input" >&2
    fi
  done
  count_from "fuzz/seeds/*.mlir" "${files[@]}"
else
  echo "   (mlir-opt-22 not found: no seeds from fuzz/seeds)"
fi
NSEEDS=$(find "$SEEDS" -type f | wc -l)
echo "== $NSEEDS distinct seed file(s)"
if [[ $NSEEDS -eq 0 ]]; then
  # Never fuzz from nothing silently: one valid header is enough to start.
  printf 'ML\xefR\x06\x00' >"$SEEDS/minimal-header"
fi

# --- Fuzz ---------------------------------------------------------------------
# -max_len: above the largest seed so mutations can grow it, but small
# enough to keep the executions fast. -timeout: a single input taking
# seconds is a hang worth reporting. -rss_limit_mb: the decoder must not
# allocate from unchecked counts.
MAXLEN=$(find "$SEEDS" -type f -printf '%s\n' | sort -n | tail -1)
MAXLEN=$(( MAXLEN * 2 > 16384 ? MAXLEN * 2 : 16384 ))
# A small dictionary of bytecode tokens: the magic, builtin names and the
# varints of common section ids / counts.
DICT="$FUZZ_BUILD/mlir-bytecode.dict"
cat >"$DICT" <<'DICT_EOF'
magic="ML\xefR"
v5="\x05"
v6="\x06"
builtin="builtin\x00"
coreai="coreai\x00"
unknown="unknown\x00"
loc="loc\x00"
varint2="\x02\x01"
varint8="\x00\xff\xff\xff\xff\xff\xff\xff\xff"
aligned_section="\x85"
blob_align="\x04\x00\x00\x00"
DICT_EOF
DICT_ARGS=(-dict="$DICT")

# run_fuzzer WHAT FUZZER LOG SECONDS ARTIFACT_PREFIX [CORPUS|FLAG]...:
# fuzzes for SECONDS; on a crash, the log's tail and the reproducers, exit 1.
run_fuzzer() {
  local what=$1 fuzzer=$2 log=$3 budget=$4 prefix=$5 status
  shift 5
  echo "== fuzzing $what for ${budget}s"
  set +e
  # shellcheck disable=SC2086
  "$fuzzer" "$@" -max_total_time="$budget" -timeout=10 \
    -rss_limit_mb=2048 -malloc_limit_mb=1024 \
    -artifact_prefix="$prefix" -print_final_stats=1 \
    ${AIMODEL_FUZZ_ARGS:-} >"$log" 2>&1
  status=$?
  set -e
  grep -E '^stat::(number_of_executed_units|average_exec_per_sec|peak_rss_mb)' "$log" | tail -n 3 || true
  if [[ $status -ne 0 ]]; then
    echo "---- $what fuzzer log (tail) ----" >&2
    tail -n 80 "$log" >&2
    echo "error: the $what fuzzer failed with status $status; reproducer(s):" >&2
    find "$CRASHES" -type f -newer "$FUZZ_BUILD/configure.log" -print >&2
    echo "replay: $fuzzer <reproducer>" >&2
    exit 1
  fi
  echo "== no crash of $what in ${budget}s (full log: $log)"
}

export ASAN_OPTIONS=${ASAN_OPTIONS:-abort_on_error=1:detect_leaks=1:allocator_may_return_null=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
run_fuzzer "the decoder" "$FUZZER" "$FUZZ_BUILD/fuzz.log" "$SECONDS_BUDGET" \
  "$CRASHES/" "$WORK" "$SEEDS" -max_len="$MAXLEN" -use_value_profile=1 \
  "${DICT_ARGS[@]}"

# --- The merge of shard reports ------------------------------------------------
# Seeded with real shard reports the built aimodel writes of the fixtures.
MERGE_SECONDS=${AIMODEL_MERGE_FUZZ_SECONDS:-15}
MERGE_FUZZER="$FUZZ_BUILD/aimodel-merge-fuzzer"
MERGE_SEEDS="$FUZZ_BUILD/merge-seeds"
MERGE_WORK="$FUZZ_BUILD/merge-corpus"
rm -rf "$MERGE_SEEDS" "$MERGE_WORK"
mkdir -p "$MERGE_SEEDS" "$MERGE_WORK"
AIMODEL_BIN="$BUILD_DIR/bin/aimodel"
if [[ -x $AIMODEL_BIN && -d $BUILD_DIR/fixtures/audit ]]; then
  for dir in "$BUILD_DIR"/fixtures/audit/*/; do
    "$AIMODEL_BIN" audit --no-config --fail-on never --format json \
      --shard 1/1 "$dir" >"$MERGE_SEEDS/$(basename "$dir").json" 2>/dev/null || true
  done
fi
echo "== $(find "$MERGE_SEEDS" -type f -size +0 | wc -l) shard report seed(s)"
[[ -n $(find "$MERGE_SEEDS" -type f -size +0) ]] ||
  printf '{"schema": "aimodel-audit/1"}' >"$MERGE_SEEDS/minimal"
run_fuzzer "the merge" "$MERGE_FUZZER" "$FUZZ_BUILD/merge-fuzz.log" \
  "$MERGE_SECONDS" "$CRASHES/merge-" "$MERGE_WORK" "$MERGE_SEEDS" \
  -max_len=65536

# --- tokenizer.json's scanner ------------------------------------------------
# Seeded with the fixtures' tokenizer files; checked against nlohmann.
TOKENIZER_SECONDS=${AIMODEL_TOKENIZER_FUZZ_SECONDS:-10}
TOKENIZER_SEEDS="$FUZZ_BUILD/tokenizer-seeds"
TOKENIZER_WORK="$FUZZ_BUILD/tokenizer-corpus"
rm -rf "$TOKENIZER_SEEDS" "$TOKENIZER_WORK"
mkdir -p "$TOKENIZER_SEEDS" "$TOKENIZER_WORK"
while IFS= read -r -d '' file; do
  cp "$file" "$TOKENIZER_SEEDS/$(sha1sum "$file" | cut -c1-40)"
done < <(find "$SOURCE_DIR/fixtures/trees" "$BUILD_DIR/fixtures/audit" \
           -path '*/tokenizer/*.json' -type f -size -64k -print0 2>/dev/null)
printf '{"added_tokens": [{"id": 3}], "model": {"vocab": [["a", -1.5], ["b", 0]]}}' \
  >"$TOKENIZER_SEEDS/list"
echo "== $(find "$TOKENIZER_SEEDS" -type f | wc -l) tokenizer seed(s)"
run_fuzzer "tokenizer.json's scanner" "$FUZZ_BUILD/aimodel-tokenizer-fuzzer" \
  "$FUZZ_BUILD/tokenizer-fuzz.log" "$TOKENIZER_SECONDS" "$CRASHES/tokenizer-" \
  "$TOKENIZER_WORK" "$TOKENIZER_SEEDS" -max_len=16384
exit 0
