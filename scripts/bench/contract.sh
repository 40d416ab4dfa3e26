# Sourced by bench-audit (after its measurements): what the runtime-contract
# rules (AIM017-AIM032) add to a full audit. The baseline is the same
# sources built without them (CMake option
# AIMODEL_BENCH_WITHOUT_RUNTIME_CONTRACT, never set for a build that
# ships), built here once into BENCH_DIR and rebuilt incrementally, timed
# in the same run on the same trees:
#   - the realistic 10k tree (no bundle folder: the graph facts alone);
#   - 1,000 language bundle folders as an LLM export writes them
#     (bench/gen_llm_tree.py: metadata, a Hugging Face tokenizer folder with
#     a 1.5 MB tokenizer.json, the 87-op graph with an LLM's interface), once
#     with a 64 MiB weight blob in each main.mlirb (LLM_WEIGHTS_MIB; a real
#     LLM's is hundreds of MB at least) and once with none (the IR alone,
#     where reading the tokenizer is all there is).
# Target: at most 10% added to a full audit. Wall times on a shared machine
# drift: the instruction counts of the two builds over one folder of each
# tree (valgrind --tool=callgrind, when it is there) are printed too.

LLM_BUNDLES=${LLM_BUNDLES:-1000}
LLM_WEIGHTS_MIB=${LLM_WEIGHTS_MIB:-64}
BASE_BUILD="$BENCH_DIR/build-without-contract"
if [[ ! -f $BASE_BUILD/build.ninja ]]; then
  cmake -S "$ROOT_DIR" -B "$BASE_BUILD" -G Ninja \
    -DMLIR_DIR="$(llvm-config-22 --libdir)/cmake/mlir" \
    -DAIMODEL_BUILD_TESTS=OFF -DAIMODEL_BENCH_WITHOUT_RUNTIME_CONTRACT=ON >&2 ||
    die "cannot configure the baseline build"
fi
echo "building the baseline (no runtime-contract rules) in $BASE_BUILD" >&2
cmake --build "$BASE_BUILD" --target aimodel >&2 || die "baseline build failed"
BASE="$BASE_BUILD/bin/aimodel"

LKEY=$( { echo "$LLM_BUNDLES $LLM_WEIGHTS_MIB"; "$MLIR_OPT" --version 2>&1;
          cat "$SCRIPT_DIR/bench/gen_llm_tree.py" "$SCRIPT_DIR/bench/gen_small_ir.py"; } |
        sha1sum | cut -c1-12)
LLM_SMALL="$BENCH_DIR/llm-$LLM_BUNDLES-ir-$LKEY"
LLM_HEAVY="$BENCH_DIR/llm-$LLM_BUNDLES-w$LLM_WEIGHTS_MIB-$LKEY"
make_llm_tree() { # DIR WEIGHTS_MIB
  [[ -f $1/.complete ]] && return 0
  rm -rf "$1" "$1.tmp" && mkdir -p "$1.tmp"
  python3 "$SCRIPT_DIR/bench/gen_small_ir.py" "$1.tmp/small.mlir" --form release \
    --variant 0 || die "gen_small_ir.py failed"
  python3 "$SCRIPT_DIR/bench/gen_llm_tree.py" "$1.tmp/tree" --bundles "$LLM_BUNDLES" \
    --weights-mib "$2" --graph "$1.tmp/small.mlir" --mlir-opt "$MLIR_OPT" ||
    die "gen_llm_tree.py failed"
  mv "$1.tmp/tree" "$1" && touch "$1/.complete" && rm -rf "$1.tmp"
}
make_llm_tree "$LLM_SMALL" 0
make_llm_tree "$LLM_HEAVY" "$LLM_WEIGHTS_MIB"
# Hard links: one read of each file warms every bundle's.
find "$LLM_SMALL/llm-0000" "$LLM_HEAVY/llm-0000" -type f -exec cat {} + > /dev/null

# Each pair is timed alternately, run by run (with, without, with, ...): a
# machine whose load drifts then weighs on both alike, where timing one
# binary's runs before the other's would hand the drift to one side.
pair() { # NAME_WITH NAME_WITHOUT TREE
  local i with=() without=()
  for ((i = 1; i <= REPEAT; i++)); do
    REPEAT=1 measure "$1" "$AIMODEL" audit --fail-on never --format json "$3" || return 1
    with+=("$MED_TIME")
    REPEAT=1 measure "$2" "$BASE" audit --fail-on never --format json "$3" || return 1
    without+=("$MED_TIME")
  done
  T[$1]=$(printf '%s\n' "${with[@]}" | median)
  T[$2]=$(printf '%s\n' "${without[@]}" | median)
}
pair contract-real base-real "$REAL"
pair contract-llm-ir base-llm-ir "$LLM_SMALL"
pair contract-llm-heavy base-llm-heavy "$LLM_HEAVY"
RAN=$("$AIMODEL" audit --fail-on never --format json "$LLM_SMALL/llm-0000" |
  python3 -c 'import json,sys; print(" ".join(sorted({r for b in json.load(sys.stdin)["bundles"] for r in b.get("rules_run", [])})))')

echo
printf 'runtime-contract rules (AIM017-AIM032) against a build without them, same run:\n'
printf 'llm trees: %s bundle folders; rules run on each: %s\n' "$LLM_BUNDLES" "$RAN"
printf '%-58s %10s %10s %8s\n' "tree" "with (s)" "without" "added"
added() {
  [[ -n ${T[$1]:-} && -n ${T[$2]:-} ]] || { printf '%-58s n/a\n' "$3"; return; }
  awk -v a="${T[$1]}" -v b="${T[$2]}" -v what="$3" \
    'BEGIN { printf "%-58s %10.3f %10.3f %7.1f%%\n", what, a, b, 100 * (a - b) / b }'
}
added contract-real base-real "realistic 10k tree (graph facts only)"
added contract-llm-heavy base-llm-heavy "llm folders, ${LLM_WEIGHTS_MIB} MiB weights per main.mlirb"
added contract-llm-ir base-llm-ir "llm folders, IR alone (no weights)"
[[ -n ${T[contract-llm-ir]:-} && -n ${T[base-llm-ir]:-} ]] &&
  awk -v a="${T[contract-llm-ir]}" -v b="${T[base-llm-ir]}" -v n="$LLM_BUNDLES" \
    -v cores="$(nproc)" 'BEGIN { printf "per bundle folder: %.2f ms of wall time for its rules (%d cores)\n", 1000 * (a - b) / n, cores }'
# Instructions: the same for any load.
if command -v valgrind >/dev/null; then
  instructions() {
    valgrind --tool=callgrind --callgrind-out-file=/dev/null "$@" 2>&1 >/dev/null |
      awk '/refs:/ {gsub(",", "", $NF); print $NF}'
  }
  for sample in "$REAL/group-000" "$LLM_SMALL/llm-0000" "$LLM_HEAVY/llm-0000"; do
    a=$(instructions "$AIMODEL" audit -j 1 --fail-on never --format json "$sample")
    b=$(instructions "$BASE" audit -j 1 --fail-on never --format json "$sample")
    awk -v a="$a" -v b="$b" -v what="$sample" \
      'BEGIN { printf "instructions, %s: %d with, %d without: %+.1f%%\n", what, a, b, 100 * (a - b) / b }'
  done
fi
