# Shared by the benchmark scripts: timing whole commands. Sourced.
#
# measure NAME CMD...: runs CMD $REPEAT times (stdout discarded); sets
# MED_TIME (s) and MED_RSS (MiB) to the medians and RUN_TIMES to every run's
# time, in order; returns 1 when a run fails (its stderr is shown). Needs GNU
# time (ensure_gnu_time installs it).

median() { sort -g | awk '{a[NR]=$1} END {if (NR) print a[int((NR+1)/2)]}'; }

ensure_gnu_time() {
  if [[ -x /usr/bin/time ]] && /usr/bin/time -f "%e %M" true >/dev/null 2>&1; then
    return 0
  fi
  if [[ $(id -u) -eq 0 ]] && command -v apt-get >/dev/null; then
    echo "installing GNU time" >&2
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq time >/dev/null && return 0
  fi
  echo "GNU time is missing: sudo apt-get install -y time" >&2
  return 1
}

measure() {
  local name=$1 i times=() rss=() out t0 t1 t m
  shift
  for ((i = 1; i <= REPEAT; i++)); do
    out=$(mktemp)
    # Wall time from our own nanosecond clock (GNU time's %e has 10 ms
    # resolution); peak RSS (%M, KiB) from GNU time.
    t0=$(date +%s%N)
    if ! /usr/bin/time -o "$out.time" -f "%e %M" "$@" >/dev/null 2>"$out"; then
      echo "'$name' failed:" >&2
      tail -n 5 "$out" >&2
      rm -f "$out" "$out.time"
      return 1
    fi
    t1=$(date +%s%N)
    read -r _ m <"$out.time"
    t=$(awk -v a="$t0" -v b="$t1" 'BEGIN{printf "%.3f", (b - a) / 1e9}')
    times+=("$t")
    rss+=("$m")
    rm -f "$out" "$out.time"
    printf '  %-40s run %d: %7.3f s %8.1f MiB\n' "$name" "$i" "$t" "$(awk -v k="$m" 'BEGIN{print k/1024}')" >&2
  done
  RUN_TIMES="${times[*]}"
  MED_TIME=$(printf '%s\n' "${times[@]}" | median)
  MED_RSS=$(printf '%s\n' "${rss[@]}" | median | awk '{printf "%.1f", $1 / 1024}')
}
