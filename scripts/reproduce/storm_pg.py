#!/usr/bin/env python3
"""STORM-PG, SVRPG, SRVR-PG and GPOMDP at equal trajectory budgets, as the STORM-PG paper compares
them (x: trajectories sampled; y: average return of each iteration's batch; mean and 95%
confidence band over seeds).

Tuning, as the paper did, on 3 seeds per setting, scored by the area under the learning curve
(the mean batch return over the whole budget):
  * SVRPG: mini-batch B in {5, 10, 20} and Adam step in {0.003, 0.01, 0.03, 0.1}; its best B is
    then used by every algorithm (the paper fixes B to SVRPG's best);
  * GPOMDP and SRVR-PG: the Adam step in {0.003, 0.01, 0.03, 0.1};
  * STORM-PG: step {0.003, 0.01, 0.03, 0.1} x alpha {0.5, 0.8, 0.95} x S0 {10, 25, 50, 100}.
The chosen values go to <out>/tuned.json and every sweep score to <out>/sweep_scores.json (the
report lists STORM-PG's best score for each value of each of its hyper-parameters). A sweep runs
again when tuned.json lacks an env or was made with another grid; final runs of an algorithm whose
chosen settings changed are redone. The final runs use the chosen settings with
--seeds seeds (10 by default). Each run is `rlzoo train` in its own directory (resumable: a run
with final/ is kept, one without is resumed). Standard library only (the PNG is written by hand).
"""
import argparse
import itertools
import json
import math
import os
import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from png_plot import mean_ci, plot  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
ALGOS = ["storm_pg", "svrpg", "srvrpg", "gpomdp"]
ENVS = {"CartPole-v1": {"budget": 3000, "max": 100.0}, "MountainCarContinuous-v0": {"budget": 2000, "max": None}}
LRS = [0.003, 0.01, 0.03, 0.1]
ALPHAS = [0.5, 0.8, 0.95]
S0S = [10, 25, 50, 100]
SWEEP_GRID = {"lr": LRS, "alpha": ALPHAS, "s0": S0S, "svrpg_batch": [5, 10, 20]}
GRID = 50  # trajectories between curve points
COLORS = {"storm_pg": (214, 39, 40), "svrpg": (31, 119, 180), "srvrpg": (44, 160, 44), "gpomdp": (255, 127, 14)}


def run(args, tag, algo, env, seed, sets):
    d = Path(args.out) / tag / algo / env / f"seed_{seed}"
    if (d / "final").exists():
        return d
    exe = args.rlzoo
    if (d / "preset.yaml").exists():
        cmd = [exe, "train", "--resume", str(d), "-q"]
    else:
        d.parent.mkdir(parents=True, exist_ok=True)
        cmd = [exe, "train", "--preset", str(ROOT / "configs" / algo / f"{env}.yaml"), "--run-dir", str(d), "-q",
               "--seed", str(seed), "--set", f"hyperparams.max_trajectories={ENVS[env]['budget']}"]
        for k, v in sets.items():
            cmd += ["--set", f"hyperparams.{k}={v}"]
        if args.horizon:
            cmd += ["--set", f"hyperparams.horizon={args.horizon}"]
    subprocess.run(["nice", "-n", str(args.nice)] + cmd, cwd=ROOT, check=True, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)
    return d


def curve(d, budget):
    """Batch-mean return on a grid of trajectory counts (the last iteration at or before each point)."""
    rows = {}
    with open(d / "logs" / "curve.csv") as f:
        next(f)
        for line in f:
            it, traj, _steps, ret = line.split(",")[:4]
            rows[int(it)] = (int(traj), float(ret))  # a resumed run may repeat iterations: keep the last
    pts = sorted(rows.values())
    out, j, last = [], 0, pts[0][1]
    for x in range(GRID, budget + 1, GRID):
        while j < len(pts) and pts[j][0] <= x:
            last = pts[j][1]
            j += 1
        out.append(last)
    return out


def score(curves):
    return sum(sum(c) / len(c) for c in curves) / len(curves)


def pmap(args, jobs):
    with ThreadPoolExecutor(max_workers=args.jobs) as ex:
        return list(ex.map(lambda j: run(args, *j), jobs))


def sweep(args, env):
    budget = ENVS[env]["budget"]
    seeds = range(100, 103)
    results = {}

    def evaluate(algo, sets):
        tag = "sweep/" + "_".join(f"{k}{v}" for k, v in sorted(sets.items()))
        dirs = pmap(args, [(tag, algo, env, s, sets) for s in seeds])
        sc = score([curve(d, budget) for d in dirs])
        results.setdefault(algo, []).append({"settings": sets, "score": sc})
        print(f"[storm_pg] sweep {env} {algo} {sets}: {sc:.2f}", flush=True)
        return sc

    best = {}
    b_scores = {(b, lr): evaluate("svrpg", {"batch_size": b, "learning_rate": lr}) for b in SWEEP_GRID["svrpg_batch"] for lr in LRS}
    b, lr = max(b_scores, key=b_scores.get)
    best["svrpg"] = {"batch_size": b, "learning_rate": lr}
    for algo in ("gpomdp", "srvrpg"):
        s = {lr: evaluate(algo, {"batch_size": b, "learning_rate": lr}) for lr in LRS}
        best[algo] = {"batch_size": b, "learning_rate": max(s, key=s.get)}
    grid = list(itertools.product(LRS, ALPHAS, S0S))
    s = {g: evaluate("storm_pg", {"batch_size": b, "learning_rate": g[0], "alpha": g[1], "initial_batch": g[2]})
         for g in grid}
    lr, alpha, s0 = max(s, key=s.get)
    best["storm_pg"] = {"batch_size": b, "learning_rate": lr, "alpha": alpha, "initial_batch": s0}
    return best, results


def sensitivity(out, env):
    """STORM-PG's sweep: the best score (area under the curve, 3 seeds) for each value of each hyper-parameter."""
    f = out / "sweep_scores.json"
    rows = json.loads(f.read_text()).get(env, {}).get("storm_pg", []) if f.exists() else []
    if not rows:
        return []
    lines = [f"STORM-PG sweep on {env} ({len(rows)} settings x 3 seeds; best mean return over the budget for each value):", ""]
    for key, name in (("learning_rate", "step"), ("alpha", "alpha"), ("initial_batch", "S0")):
        vals = sorted({r["settings"][key] for r in rows})
        best = {v: max(r["score"] for r in rows if r["settings"][key] == v) for v in vals}
        lines.append(f"* {name}: " + ", ".join(f"{v}: {best[v]:.1f}" for v in vals))
    return lines + [""]


def report(args, tuned):
    out = Path(args.out)
    lines = ["# STORM-PG and its comparison family at equal trajectory budgets", "",
             f"{args.seeds} seeds per algorithm; x = trajectories sampled, y = mean return of each iteration's batch "
             f"(the paper's protocol); settings tuned by the sweep (tuned.json). Made by scripts/reproduce/storm_pg.sh.",
             ""]
    panels = {}
    for env in args.envs:
        budget = ENVS[env]["budget"]
        series = {}
        for algo in ALGOS:
            dirs = [Path(args.out) / "final" / algo / env / f"seed_{s}" for s in range(args.seeds)]
            dirs = [d for d in dirs if (d / "logs" / "curve.csv").exists()]
            if not dirs:
                continue
            m, ci = mean_ci([curve(d, budget) for d in dirs])
            series[algo] = (m, ci, len(dirs))
        panels[env] = series
        target = ENVS[env]["max"]
        lines += [f"## {env} (budget {budget} trajectories; settings: "
                  + "; ".join(f"{a} {tuned.get(env, {}).get(a, {})}" for a in ALGOS) + ")", "",
                  "| algorithm | seeds | return at 500 | at 1000 | at 1500 | final | trajectories to reach 95% of the max (mean curve) |"
                  if target else
                  "| algorithm | seeds | return at 500 | at 1000 | at 1500 | final | trajectories to go 95% of the way from the start to the best mean |",
                  "|---|---|---|---|---|---|---|"]
        for algo, (m, ci, n) in series.items():
            at = lambda t: f"{m[t // GRID - 1]:.1f} ± {ci[t // GRID - 1]:.1f}" if t // GRID - 1 < len(m) else "—"
            reach = "—"
            if target:
                goal = 0.95 * target
            else:  # 95% of the way from the worst starting point to the best mean reached by any algorithm
                lo = min(s[0][0] for s in series.values())
                goal = lo + 0.95 * (max(max(s[0]) for s in series.values()) - lo)
            for i, v in enumerate(m):
                if v >= goal:
                    reach = str((i + 1) * GRID)
                    break
            lines.append(f"| {algo} | {n} | {at(500)} | {at(1000)} | {at(1500)} | {m[-1]:.1f} ± {ci[-1]:.1f} | {reach} |")
        lines.append("")
        lines += sensitivity(out, env)
    lines += ["![return against trajectories](storm_pg.png)", "",
              "Colours: STORM-PG red, SVRPG blue, SRVR-PG green, GPOMDP orange; bands are 95% intervals.", ""]
    (out / "storm_pg.md").write_text("\n".join(lines))
    plot(out / "storm_pg.png", panels, COLORS)
    print(f"[storm_pg] report: {out / 'storm_pg.md'} and {out / 'storm_pg.png'}", flush=True)


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--envs", nargs="+", default=list(ENVS))
    p.add_argument("--seeds", type=int, default=10)
    p.add_argument("--jobs", type=int, default=2)
    p.add_argument("--nice", type=int, default=0)
    p.add_argument("--out", default=str(ROOT / "runs" / "reproduce" / "storm_pg_h500"))
    p.add_argument("--rlzoo", default=str(ROOT / "build" / "apps" / "rlzoo"))
    p.add_argument("--report-only", action="store_true")
    p.add_argument("--budget", type=int, default=0, help="trajectories per run for every env (quick checks)")
    p.add_argument("--horizon", type=int, default=500,
                   help="steps per trajectory for every run (0: the presets' own, 100 for CartPole as rllab); "
                        "CartPole's maximum is the horizon")
    args = p.parse_args()
    if args.horizon:
        ENVS["CartPole-v1"]["max"] = float(args.horizon)
    if args.budget:
        for e in ENVS.values():
            e["budget"] = args.budget
    if not Path(args.rlzoo).exists():
        sys.exit(f"storm_pg: {args.rlzoo} not found; build first (scripts/setup)")
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    tuned_file = out / "tuned.json"
    tuned = json.loads(tuned_file.read_text()) if tuned_file.exists() else {}
    if not args.report_only:
        for env in args.envs:
            if env not in tuned or tuned.get("grid", {}).get(env) != SWEEP_GRID:
                best, results = sweep(args, env)
                for algo in ALGOS:  # a changed choice makes the old final runs stale
                    if tuned.get(env, {}).get(algo) not in (None, best[algo]):
                        shutil.rmtree(out / "final" / algo / env, ignore_errors=True)
                        print(f"[storm_pg] {env} {algo}: tuned settings changed; final runs redone", flush=True)
                tuned[env] = best
                tuned.setdefault("grid", {})[env] = SWEEP_GRID
                sweeps = json.loads((out / "sweep_scores.json").read_text()) if (out / "sweep_scores.json").exists() else {}
                sweeps[env] = results
                (out / "sweep_scores.json").write_text(json.dumps(sweeps, indent=1))
                tuned_file.write_text(json.dumps(tuned, indent=1))
            pmap(args, [("final", algo, env, s, tuned[env][algo]) for algo in ALGOS for s in range(args.seeds)])
    report(args, tuned)


if __name__ == "__main__":
    main()
