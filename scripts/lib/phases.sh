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
  RLZOO_PHASES+=("$(printf '%-34s %3dm%02ds  %s' "$name" $((took / 60)) $((took % 60)) "$result")")
  return $rc
}

phases_report() {
  local total=$((SECONDS - RLZOO_PHASES_T0))
  ((${#RLZOO_PHASES[@]})) || return 0
  echo
  echo "==> phase timings ($(basename "$0"))"
  printf '  %s\n' "${RLZOO_PHASES[@]}"
  printf '  %-34s %3dm%02ds\n' "total" $((total / 60)) $((total % 60))
}
