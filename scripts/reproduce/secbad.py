#!/usr/bin/env python3
"""SeCBAD against VariBAD, RL², PPO (and the true-context oracle, for reference) at equal frame
budgets on SeCBAD's grid world and on HalfCheetah with a piecewise direction.

Every run is `rlzoo train` with the preset configs/<method>/<env>.yaml (rl2: recurrent PPO with
the previous action and reward in the observation), --seeds seeds each, evaluated every
budget/20 frames (deterministic episodes; secbad infers the segments there). A run is kept once
it has final/, resumed from its checkpoints otherwise (run the script again to continue).

The report (<out>/secbad.md, <out>/secbad.png) has the evaluation return against frames (mean
and 95% band over seeds), the final return per method, and SeCBAD's segment-length diagnostic:
how often the most likely length is within 2 steps of the true one, against a prior-only guess.
Standard library only.
"""
import argparse
import csv
import math
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from png_plot import mean_ci, plot  # noqa: E402
from run_args import ROOT, add_run_args, parse_run_args  # noqa: E402

METHODS = ["secbad", "varibad", "rl2", "belief_ppo", "belief_oracle"]
ENVS = {"SecbadGrid-v0": {"budget": 2_000_000, "episodes": 32},
        "HalfCheetahDirPiecewise-v0": {"budget": 2_000_000, "episodes": 10}}
COLORS = {"secbad": (214, 39, 40), "varibad": (31, 119, 180), "rl2": (44, 160, 44), "belief_ppo": (255, 127, 14),
          "belief_oracle": (120, 120, 120)}
POINTS = 20


def run(args, method, env, seed, d=None, sets=()):
    """Trains (or resumes) one run in d (default <out>/<env>/<method>/seed_<seed>) with extra --set overrides."""
    d = d or Path(args.out) / env / method / f"seed_{seed}"
    if (d / "final").exists():
        return d
    budget = ENVS[env]["budget"]
    if (d / "preset.yaml").exists():
        cmd = [args.rlzoo, "train", "--resume", str(d), "-q"]
    else:
        d.parent.mkdir(parents=True, exist_ok=True)
        cmd = [args.rlzoo, "train", "--preset", str(ROOT / "configs" / method / f"{env}.yaml"), "--run-dir", str(d),
               "-q", "--seed", str(seed), "--set", f"n_timesteps={budget}",
               "--set", f"eval.every={budget // POINTS}", "--set", f"eval.episodes={ENVS[env]['episodes']}"]
        for kv in sets:
            cmd += ["--set", kv]
    with open(d.parent / f"seed_{seed}.log", "a") as log:
        subprocess.run(["nice", "-n", str(args.nice)] + cmd, cwd=ROOT, check=True, stdout=log, stderr=log)
    return d


def evaluations(d):
    """Rows of logs/evaluations.csv keyed by steps (a resumed run may repeat steps: keep the last)."""
    f = d / "logs" / "evaluations.csv"
    if not f.exists():
        return {}
    with open(f) as fh:
        return {int(r["timesteps"]): r for r in csv.DictReader(fh)}


def report(args):
    out = Path(args.out)
    lines = ["# SeCBAD and its baselines at equal frame budgets", "",
             f"{args.seeds} seeds per method; evaluation every budget/{POINTS} frames (deterministic episodes; "
             "SeCBAD infers the segments there, its training rollouts use the true change points as the released "
             "code). Made by scripts/reproduce/secbad.sh.", ""]
    panels = {}
    for env in args.envs:
        budget = ENVS[env]["budget"]
        grid = [budget // POINTS * (i + 1) for i in range(POINTS)]
        lines += [f"## {env} ({budget:,} frames per run)", "",
                  "| method | seeds done | final eval return | best eval return | segment length within ±2: MAP | prior-only |",
                  "|---|---|---|---|---|---|"]
        series = {}
        for m in METHODS:
            runs = [evaluations(out / env / m / f"seed_{s}") for s in range(args.seeds)]
            runs = [r for r in runs if r]
            if not runs:
                continue
            curves = []
            for r in runs:  # eval return at each grid point (the last evaluation at or before it)
                steps = sorted(r)
                c, j, last = [], 0, float(r[steps[0]]["mean_return"])
                for x in grid:
                    while j < len(steps) and steps[j] <= x + budget // (10 * POINTS):
                        last = float(r[steps[j]]["mean_return"])
                        j += 1
                    c.append(last)
                curves.append(c)
            mean, ci = mean_ci(curves)
            series[m] = (mean, ci, len(curves))
            done = sum((out / env / m / f"seed_{s}" / "final").exists() for s in range(args.seeds))
            finals = [r[max(r)] for r in runs]
            seg = ["—", "—"]
            if "segment_map_within_2" in finals[0]:
                for k, key in enumerate(("segment_map_within_2", "segment_prior_within_2")):
                    v = [float(f[key]) for f in finals]
                    seg[k] = f"{sum(v) / len(v):.3f}"
            best = max(mean)
            lines.append(f"| {m} | {done}/{args.seeds} | {mean[-1]:.2f} ± {ci[-1]:.2f} | {best:.2f} | {seg[0]} | {seg[1]} |")
        panels[env] = series
        lines.append("")
    lines += ["![evaluation return against frames](secbad.png)", "",
              "Colours: SeCBAD red, VariBAD blue, RL² green, PPO orange, oracle grey; bands are 95% intervals.", ""]
    (out / "secbad.md").write_text("\n".join(lines))
    if any(panels.values()):
        plot(out / "secbad.png", {e: s for e, s in panels.items() if s}, COLORS)
    print(f"[secbad] report: {out / 'secbad.md'}", flush=True)


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--envs", nargs="+", default=list(ENVS))
    p.add_argument("--methods", nargs="+", default=METHODS)
    p.add_argument("--seeds", type=int, default=3)
    p.add_argument("--budget", type=int, default=0, help="frames per run for every env (quick checks)")
    p.add_argument("--report-only", action="store_true")
    add_run_args(p, "secbad")
    args = parse_run_args(p, "secbad")
    if args.budget:
        for e in ENVS.values():
            e["budget"] = args.budget
    Path(args.out).mkdir(parents=True, exist_ok=True)
    if not args.report_only:
        jobs = [(m, e, s) for e in args.envs for s in range(args.seeds) for m in args.methods]
        with ThreadPoolExecutor(max_workers=args.jobs) as ex:
            for f in [ex.submit(run, args, *j) for j in jobs]:
                f.result()
    report(args)


if __name__ == "__main__":
    main()
