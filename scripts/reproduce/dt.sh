#!/usr/bin/env bash
# Decision Transformer (Chen et al. 2021) against BC and %BC on medium and medium-replay datasets
# made here from PPO agents (Hopper-v4, HalfCheetah-v4): 3 seeds, normalised scores with the
# paper's D4RL table beside them for reference, and DT's return against the target return.
# Resumable: run it again.
#
#   scripts/reproduce/dt.sh                         # data, then 2,000 gradient steps per run (docs/results/dt.md)
#   scripts/reproduce/dt.sh --steps 100000 --set hyperparams.device=cuda   # the paper's length, on a GPU
#
# Details and options: scripts/reproduce/dt.py --help
exec python3 "$(dirname "$0")/dt.py" "$@"
