# Phase timing for the scripts: `phase NAME COMMAND...` runs COMMAND, records how long it took
# and whether it passed; `phases_report` prints the table. Sourced, not run:
#
#   source scripts/lib/phases.sh
#   trap phases_report EXIT       # the table is printed even when a phase fails
#   phase "build" cmake --build build
#
# Nested scripts that source it too print their own (inner) table; the outer one stays the
# summary of record at the end of the log.
RLZOO_PHASES=()
RLZOO_PHASES_T0=$SECONDS

phase() {
  local name=$1 t0=$SECONDS rc=0
  shift
  echo "==> ${name}: $*"
  "$@" || rc=$?
  local took=$((SECONDS - t0)) result=ok
  ((rc == 0)) || result="FAILED (exit $rc)"
  RLZOO_PHASES+=("$(printf '%-46s %3dm%02ds  %s' "$name" $((took / 60)) $((took % 60)) "$result")")
  return $rc
}

phases_report() {
  local total=$((SECONDS - RLZOO_PHASES_T0))
  ((${#RLZOO_PHASES[@]})) || return 0
  echo
  echo "==> phase timings ($(basename "$0"))"
  printf '  %s\n' "${RLZOO_PHASES[@]}"
  printf '  %-46s %3dm%02ds\n' "total" $((total / 60)) $((total % 60))
}

# ccache's hits and misses over a stretch of the script: `ccache_mark` before a build,
# `ccache_report LABEL` after it prints "LABEL: ccache N hits (direct D), M misses" (nothing
# when ccache is absent). CI logs thus show whether the cache carried over.
ccache_count() {
  command -v ccache >/dev/null || return 0
  ccache --print-stats 2>/dev/null |
    awk -v k="$1" '$1 == k {print $2; found = 1} END {if (!found) print 0}'
}
ccache_mark() {
  RLZOO_CCACHE_MARK=("$(ccache_count direct_cache_hit)" "$(ccache_count preprocessed_cache_hit)"
                     "$(ccache_count cache_miss)")
}
ccache_report() {
  command -v ccache >/dev/null && ((${#RLZOO_CCACHE_MARK[@]})) || return 0
  local d=$(($(ccache_count direct_cache_hit) - RLZOO_CCACHE_MARK[0]))
  local p=$(($(ccache_count preprocessed_cache_hit) - RLZOO_CCACHE_MARK[1]))
  local m=$(($(ccache_count cache_miss) - RLZOO_CCACHE_MARK[2]))
  echo "$1: ccache $((d + p)) hits (direct $d), $m misses"
}
