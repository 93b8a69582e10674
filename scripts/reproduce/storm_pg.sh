#!/usr/bin/env bash
# STORM-PG against SVRPG, SRVR-PG and GPOMDP at equal trajectory budgets (arXiv 2003.04302's
# sample-efficiency comparison) on CartPole-v1 and MountainCarContinuous-v0: a tuning sweep,
# 10 seeds per algorithm, a table and a PNG plot. Resumable: run it again to continue.
#
#   scripts/reproduce/storm_pg.sh                    # sweep (if not done), runs, report
#   scripts/reproduce/storm_pg.sh --envs CartPole-v1 --seeds 3 --jobs 2
#   scripts/reproduce/storm_pg.sh --report-only
#
# Details and options: scripts/reproduce/storm_pg.py --help
exec python3 "$(dirname "$0")/storm_pg.py" "$@"
