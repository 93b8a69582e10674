#!/usr/bin/env bash
# SeCBAD (arXiv 2212.12735) against VariBAD, RL² and PPO (and a true-context oracle) at equal
# frame budgets on SecbadGrid-v0 and HalfCheetahDirPiecewise-v0: 3 seeds each, evaluation curves,
# final returns, the segment-length accuracy, a table and a PNG. Resumable: run it again.
#
#   scripts/reproduce/secbad.sh                                   # everything (hours on 2 cores)
#   scripts/reproduce/secbad.sh --envs SecbadGrid-v0 --jobs 2
#   scripts/reproduce/secbad.sh --report-only
#
# Details and options: scripts/reproduce/secbad.py --help
exec python3 "$(dirname "$0")/secbad.py" "$@"
