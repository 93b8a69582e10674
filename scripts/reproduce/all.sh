#!/usr/bin/env bash
# Runs every reproduction study in turn and checks each report (scripts/reproduce/check_report.py:
# a table, and a measured number in every row). With --quick, the smoke versions: 11 minutes in
# all on an idle 2-core machine; `scripts/test --long` runs it, so the scripts cannot silently rot.
#
#   scripts/reproduce/all.sh --quick                     # every smoke version, checked
#   scripts/reproduce/all.sh --quick --only dqn_classic ppo_classic
#   scripts/reproduce/all.sh --quick --out-root DIR --fresh   # into DIR/<study>, old results removed first
#   scripts/reproduce/all.sh                             # the full studies (days on 2 cores; resumable)
#
# Other options (--rlzoo PATH, --jobs N, --nice N) go to every script. Exit 1 when a study fails
# or its report does not pass the check; the summary lists each study's wall clock.
set -uo pipefail
cd "$(dirname "$0")/../.."

STUDIES=(dqn_classic ppo_classic ppo_mujoco storm_pg douzero secbad dt)
QUICK=() ONLY=() PASS=() OUT_ROOT="" FRESH=0
while (($#)); do
  case "$1" in
    --quick) QUICK=(--quick) ;;
    --fresh) FRESH=1 ;;
    --out-root) OUT_ROOT=$(realpath -m "$2"); shift ;;
    --only) shift; while (($#)) && [[ "$1" != --* ]]; do ONLY+=("$1"); shift; done; continue ;;
    -h|--help) sed -n '2,13p' "$0"; exit 0 ;;
    *) PASS+=("$1") ;;
  esac
  shift
done
((${#ONLY[@]})) && STUDIES=("${ONLY[@]}")

# Debian's python3 has python3-matplotlib (scripts/setup --reproduce installs it).
PY=python3
[ -x /usr/bin/python3 ] && PY=/usr/bin/python3

failed=() summary=()
for s in "${STUDIES[@]}"; do
  [ -x "scripts/reproduce/$s" ] || { echo "all.sh: no study scripts/reproduce/$s" >&2; failed+=("$s"); continue; }
  if [ -n "$OUT_ROOT" ]; then out="$OUT_ROOT/$s"; else out="runs/reproduce/${QUICK:+quick/}$s"; fi
  [ "$FRESH" = 1 ] && rm -rf "$out"
  echo "=== $s ${QUICK[*]} -> $out"
  start=$(date +%s)
  "$PY" "scripts/reproduce/$s" "${QUICK[@]}" --out "$out" "${PASS[@]}"
  rc=$?
  minutes=$(awk "BEGIN{printf \"%.1f\", ($(date +%s) - $start) / 60}")
  if [ "$rc" = 0 ] && "$PY" scripts/reproduce/check_report.py "$out/$s.md"; then
    summary+=("$s: ok, $minutes min")
  else
    summary+=("$s: FAILED (exit $rc), $minutes min")
    failed+=("$s")
  fi
done
echo "=== summary"
printf '%s\n' "${summary[@]}"
((${#failed[@]} == 0))
