#!/usr/bin/env python3
"""Decision Transformer against BC and %BC on datasets made here (Hopper-v4, HalfCheetah-v4).

Stages (each resumable: run the script again and finished work is kept):

1. Data. A PPO run per env (configs/ppo/<preset>.yaml) records every training episode
   (`record_episodes` wrapper) and keeps a checkpoint every --ckpt-every steps. Every checkpoint
   is evaluated; the best of them and the final agent is the "expert", and the "medium" agent is
   the checkpoint whose return is closest to --medium-fraction (default 0.4, i.e. between a third
   and a half) of the expert's.
   * medium: whole episodes of that agent until --medium-steps steps, actions sampled
     (`rlzoo dataset collect --stochastic --steps`);
   * medium-replay: the recorded training episodes up to that checkpoint (`rlzoo dataset slice`);
   * random and expert returns (for normalised scores): a uniform random policy's and the expert's
     mean return over --score-episodes episodes.
2. Training. dt (configs/dt), bc and %BC (bc with pct_traj 0.1, configs/bc) on each dataset,
   --seeds seeds, --steps gradient steps each (the paper's 1e5 steps take ~6 h per run on one
   core here: --steps 100000 is the long mode, for a GPU: --set hyperparams.device=cuda).
   Warm-up: min(10000, steps / 10) steps.
3. Evaluation. Every final agent for --eval-episodes episodes: normalised score
   100 (R - R_random) / (R_expert - R_random). DT is asked for the expert's return, and also for
   1/3 and 2/3 of it (the target-return curve).

Writes <out>/dt.md (tables, with the DT paper's D4RL table beside ours for reference: different
data, so no like-for-like bar) and <out>/dt_target.png. Standard library only.
"""
import argparse
import json
import re
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from png_plot import mean_ci, plot  # noqa: E402
from run_args import ROOT, add_run_args, parse_run_args  # noqa: E402

ENVS = {"Hopper-v4": {"ppo_preset": "Hopper-v4-cleanrl", "d4rl": "hopper"},
        "HalfCheetah-v4": {"ppo_preset": "HalfCheetah-v4", "d4rl": "halfcheetah"}}
DATASETS = ["medium", "medium-replay"]
METHODS = {"dt": ("dt", []), "bc": ("bc", []), "pct_bc": ("bc", ["hyperparams.pct_traj=0.1"])}
# DT paper, Table 2 (D4RL v2 normalised scores; ../shared/notes/algorithms.md §3.6): DT, BC.
PAPER = {("halfcheetah", "medium"): ("42.6 ± 0.1", "43.1"), ("hopper", "medium"): ("67.6 ± 1.0", "63.9"),
         ("halfcheetah", "medium-replay"): ("36.6 ± 0.8", "4.3"), ("hopper", "medium-replay"): ("82.7 ± 7.0", "27.6")}
EVAL_RE = re.compile(r"mean return (\S+) \+/- (\S+) over (\d+) episodes")


def sh(args, cmd, log=None, capture=False):
    full = ["nice", "-n", str(args.nice)] + [str(c) for c in cmd]
    if capture:
        return subprocess.run(full, cwd=ROOT, check=True, capture_output=True, text=True).stdout
    with open(log, "a") as fh:
        subprocess.run(full, cwd=ROOT, check=True, stdout=fh, stderr=fh)


def cached(path, compute):
    """compute() once, its JSON result kept in path."""
    path = Path(path)
    if path.exists():
        return json.loads(path.read_text())
    value = compute()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(value, indent=1))
    return value


def eval_return(args, agent_dir, episodes, sets=()):
    cmd = [args.rlzoo, "eval", agent_dir, "-n", episodes]
    for s in sets:
        cmd += ["--set", s]
    out = sh(args, cmd, capture=True)
    m = EVAL_RE.search(out)
    if not m:
        sys.exit(f"dt: cannot read the evaluation of {agent_dir}:\n{out}")
    return float(m.group(1))


def train_run(args, run_dir, cmd_new, log):
    """Trains into run_dir, resuming from its checkpoints when it was started before."""
    run_dir = Path(run_dir)
    if (run_dir / "final").exists():
        return
    if (run_dir / "preset.yaml").exists():
        sh(args, [args.rlzoo, "train", "--resume", run_dir, "-q"], log)
    else:
        run_dir.parent.mkdir(parents=True, exist_ok=True)
        sh(args, cmd_new + ["--run-dir", run_dir, "-q"], log)


def make_data(args, env):
    out, spec = Path(args.out), ENVS[env]
    ppo = out / "ppo" / env
    training = out / "datasets" / f"{env}-training"
    train_run(args, ppo, [args.rlzoo, "train", "--preset", ROOT / "configs" / "ppo" / f"{spec['ppo_preset']}.yaml",
                          "--set", "eval.every=0", "--set", f"checkpoint.every={args.ckpt_every}",
                          "--set", "checkpoint.keep=1000",
                          "--set", f"env_kwargs={{wrappers: [{{record_episodes: {{dir: {training}}}}}]}}"],
              out / "ppo" / f"{env}.log")
    ckpts = sorted((ppo / "checkpoints").glob("ckpt_*"))
    ckpt_scores = cached(out / "scores" / f"{env}-checkpoints.json",
                         lambda: {c.name: eval_return(args, c, args.ckpt_episodes) for c in ckpts})
    # The expert: the best of the run's checkpoints and its final agent (PPO's return does not
    # grow monotonically), re-evaluated on more episodes.
    final_score = cached(out / "scores" / f"{env}-final.json", lambda: eval_return(args, ppo / "final", args.ckpt_episodes))
    best = max(ckpt_scores, key=ckpt_scores.get)
    expert_dir = ppo / "final" if final_score >= ckpt_scores[best] else ppo / "checkpoints" / best
    scores = cached(out / "scores" / f"{env}.json", lambda: {
        "expert_agent": expert_dir.name,
        "expert": eval_return(args, expert_dir, args.score_episodes),
        "random": random_return(args, env)})
    want = args.medium_fraction * scores["expert"]
    medium = min(ckpt_scores, key=lambda k: abs(ckpt_scores[k] - want))
    medium_steps = int(medium.split("_")[1])
    data = {"medium_checkpoint": medium, "medium_checkpoint_return": ckpt_scores[medium],
            "medium_checkpoint_steps": medium_steps, **scores}
    medium_dir = out / "datasets" / f"{env}-medium"
    if not (medium_dir / "dataset.json").exists():
        sh(args, [args.rlzoo, "dataset", "collect", "--agent", ppo / "checkpoints" / medium, "--steps",
                  args.medium_steps, "--stochastic", "--seed", 1, "--out", medium_dir, "--overwrite"],
           out / "datasets" / "log")
    replay_dir = out / "datasets" / f"{env}-medium-replay"
    if not (replay_dir / "dataset.json").exists():
        sh(args, [args.rlzoo, "dataset", "slice", training, "--first-steps", medium_steps, "--out", replay_dir,
                  "--overwrite"], out / "datasets" / "log")
    for name in DATASETS:
        info = json.loads(sh(args, [args.rlzoo, "dataset", "info", out / "datasets" / f"{env}-{name}", "--json"],
                             capture=True))
        data[name] = {"episodes": info["episodes"], "steps": info["steps"], "return": info["return"]}
    return data


def random_return(args, env):
    d = Path(args.out) / "datasets" / f"{env}-random"
    if not (d / "dataset.json").exists():
        sh(args, [args.rlzoo, "dataset", "collect", "--env", env, "--episodes", args.score_episodes, "--seed", 1,
                  "--out", d, "--overwrite"], Path(args.out) / "datasets" / "log")
    info = json.loads(sh(args, [args.rlzoo, "dataset", "info", d, "--json"], capture=True))
    return info["return"]["mean"]


def run_dir(args, env, dataset, method, seed):
    return Path(args.out) / "runs" / env / dataset / method / f"seed_{seed}"


def train(args, env, dataset, method, seed):
    algo, sets = METHODS[method]
    d = run_dir(args, env, dataset, method, seed)
    cmd = [args.rlzoo, "train", "--preset", ROOT / "configs" / algo / f"{env}.yaml", "--seed", seed,
           "--set", f"hyperparams.dataset={Path(args.out) / 'datasets' / f'{env}-{dataset}'}",
           "--set", f"n_timesteps={args.steps}", "--set", f"hyperparams.warmup_steps={min(10000, args.steps // 10)}",
           "--set", "eval.every=0", "--set", f"checkpoint.every={max(100, args.steps // 10)}"]
    for s in sets + args.set:
        cmd += ["--set", s]
    train_run(args, d, cmd, d.parent / f"seed_{seed}.log")
    return d


def evaluate(args, env, dataset, method, seed, target=None):
    d = run_dir(args, env, dataset, method, seed)
    name = f"eval_{args.eval_episodes}" + (f"_target_{target:.0f}" if target is not None else "")
    sets = [f"hyperparams.target_return={target}"] if target is not None else []
    return cached(d / f"{name}.json", lambda: eval_return(args, d / "final", args.eval_episodes, sets))


def normalised(r, data):
    return 100.0 * (r - data["random"]) / (data["expert"] - data["random"])


def fmt(values):
    mean, ci = mean_ci([[v] for v in values])
    return f"{mean[0]:.1f} ± {ci[0]:.1f}"


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--envs", nargs="+", default=list(ENVS), choices=list(ENVS))
    p.add_argument("--methods", nargs="+", default=list(METHODS), choices=list(METHODS))
    p.add_argument("--seeds", type=int, default=3)
    p.add_argument("--steps", type=int, default=2000, help="gradient steps per run (the paper: 100000)")
    p.add_argument("--set", action="append", default=[], help="extra preset override for every dt/bc run")
    p.add_argument("--ckpt-every", type=int, default=50000)
    p.add_argument("--ckpt-episodes", type=int, default=5)
    p.add_argument("--medium-fraction", type=float, default=0.4)
    p.add_argument("--medium-steps", type=int, default=200000)
    p.add_argument("--score-episodes", type=int, default=20)
    p.add_argument("--eval-episodes", type=int, default=10)
    add_run_args(p, "dt")
    args = parse_run_args(p, "dt")
    Path(args.out).mkdir(parents=True, exist_ok=True)
    with ThreadPoolExecutor(max_workers=args.jobs) as ex:
        data = dict(zip(args.envs, ex.map(lambda e: make_data(args, e), args.envs)))
        jobs = [(e, d, m, s) for e in args.envs for d in DATASETS for m in args.methods for s in range(args.seeds)]
        list(ex.map(lambda j: train(args, *j), jobs))
        scores = dict(zip(jobs, ex.map(lambda j: evaluate(args, *j), jobs)))
        curve_jobs = [(e, d, s, f) for e in args.envs for d in DATASETS for s in range(args.seeds)
                      for f in (1 / 3, 2 / 3, 1.0)] if "dt" in args.methods else []
        curve = dict(zip(curve_jobs, ex.map(
            lambda j: evaluate(args, j[0], j[1], "dt", j[2], j[3] * data[j[0]]["expert"]), curve_jobs)))

    lines = ["# Decision Transformer, BC and %BC on datasets made here", "",
             f"Normalised score 100 (R − R_random) / (R_expert − R_random), mean ± 95% interval over {args.seeds} "
             f"seeds, {args.eval_episodes} evaluation episodes each, after {args.steps:,} gradient steps "
             "(the paper: 100,000). DT asks for the expert's return. %BC: bc on the best 10% of the steps. "
             "Made by scripts/reproduce/dt.sh.", "",
             "## Data", "",
             "| env | expert (PPO final) | random | medium agent | medium | medium-replay |", "|---|---|---|---|---|---|"]
    for e in args.envs:
        d = data[e]
        lines.append(f"| {e} | {d['expert']:.0f} | {d['random']:.0f} | {d['medium_checkpoint']} "
                     f"({d['medium_checkpoint_return']:.0f}) | {d['medium']['episodes']} episodes, "
                     f"{d['medium']['steps']:,} steps, return {d['medium']['return']['mean']:.0f} | "
                     f"{d['medium-replay']['episodes']} episodes, {d['medium-replay']['steps']:,} steps, "
                     f"return {d['medium-replay']['return']['mean']:.0f} |")
    lines += ["", "Expert: the best of the PPO run's checkpoints and final agent (" +
              ", ".join(f"{e}: {data[e]['expert_agent']}" for e in args.envs) + ").", "", "## Scores", "",
              "| env | dataset | " + " | ".join(args.methods) + " | paper DT (D4RL) | paper BC (D4RL) |",
              "|---|---|" + "---|" * len(args.methods) + "---|---|"]
    for e in args.envs:
        for ds in DATASETS:
            cells = [fmt([normalised(scores[(e, ds, m, s)], data[e]) for s in range(args.seeds)]) for m in args.methods]
            ref = PAPER.get((ENVS[e]["d4rl"], ds), ("—", "—"))
            lines.append(f"| {e} | {ds} | " + " | ".join(cells) + f" | {ref[0]} | {ref[1]} |")
    panels = {}
    if curve:
        lines += ["", "## DT's return against the target return", "",
                  "| env | dataset | target 1/3 expert | 2/3 | expert |", "|---|---|---|---|---|"]
        for e in args.envs:
            series = {}
            for ds in DATASETS:
                per_seed = [[normalised(curve[(e, ds, s, f)], data[e]) for f in (1 / 3, 2 / 3, 1.0)]
                            for s in range(args.seeds)]
                mean, ci = mean_ci(per_seed)
                series[ds] = (mean, ci, args.seeds)
                lines.append(f"| {e} | {ds} | " + " | ".join(f"{m:.1f} ± {c:.1f}" for m, c in zip(mean, ci)) + " |")
            panels[e] = series
        lines += ["", "![normalised return against the target (1/3, 2/3, 1 x expert)](dt_target.png)"]
        plot(Path(args.out) / "dt_target.png", panels,
             {"medium": (214, 39, 40), "medium-replay": (31, 119, 180)})
    (Path(args.out) / "dt.md").write_text("\n".join(lines) + "\n")
    print(f"[dt] report: {Path(args.out) / 'dt.md'}", flush=True)


if __name__ == "__main__":
    main()
