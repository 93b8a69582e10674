"""A study that trains shipped presets over seeds and sets the results beside published ones:
the engine of dqn_classic, ppo_classic and ppo_mujoco.

For each (task, seed): `rlzoo train --preset configs/<algo>/<task>.yaml --seed S` into
<out>/<task>/seed_<S>/ (resumed from its latest checkpoint when an earlier invocation stopped;
kept once it has final/), then `rlzoo eval final --episodes N` (deterministic) into
<out>/<task>/seed_<S>/result.json. Per-seed CSV: <out>/csv/<task>_seed<S>.csv (the training
curve: env steps, mean training return of the last 100 episodes) and <out>/<study>_seeds.csv
(one row per finished seed). Report: <out>/<study>.md (table beside the published numbers,
per-seed table, provenance) and <out>/<study>.png (mean and 95% band over seeds, references as
dashed lines). The report is rewritten after every finished run.
"""
import argparse
import json
import re
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from common import (ROOT, Timer, git_commit, write_text_atomic, add_run_args, ensure_matplotlib, evaluate, md_table, mean_ci, mean_std, on_grid,
                    parallel, parse_run_args, plot, progress_curve, provenance_line, train, write_csv)


@dataclass
class Task:
    preset: str            # configs/<algo>/<preset>.yaml
    quick_steps: int       # env steps in --quick mode
    steps: int = 0         # env steps in full mode (0: the preset's n_timesteps)
    env: str = ""          # the env id the references are keyed by (default: the preset's env)


@dataclass
class Reference:
    label: str             # column header, e.g. "rl-baselines3-zoo (1 run, eval)"
    source: str            # citation: where the numbers are published and how they were measured
    values: dict = field(default_factory=dict)   # env id -> "mean ± std" (preset name with by_preset)
    by_preset: bool = False  # values are keyed by preset name (measured per preset file, not per env)

    def value_for(self, preset, env):
        return self.values.get(preset if self.by_preset else env)


@dataclass
class Study:
    name: str              # script name and output file stem
    algo: str              # configs/<algo>/
    title: str
    tasks: list
    references: list
    seeds: int = 5
    quick_seeds: int = 2
    eval_episodes: int = 10
    notes: str = ""        # what the numbers say; appended to the report when given

    def preset_path(self, task):
        return ROOT / "configs" / self.algo / f"{task.preset}.yaml"

    def env_of(self, task):
        if task.env:
            return task.env
        m = re.search(r"^env:\s*(\S+)", self.preset_path(task).read_text(), re.M)
        return m.group(1) if m else task.preset

    def steps_of(self, task, args):
        if args.steps:
            return args.steps
        if args.quick:
            return task.quick_steps
        if task.steps:
            return task.steps
        m = re.search(r"^n_timesteps:\s*([0-9.e+]+)", self.preset_path(task).read_text(), re.M)
        return int(float(m.group(1)))


def run_one(study, args, task, seed, lock):
    d = Path(args.out) / task.preset / f"seed_{seed}"
    result = d / "result.json"
    if result.exists():
        return json.loads(result.read_text())
    steps = study.steps_of(task, args)
    timer = Timer()
    print(f"[{study.name}] {task.preset} seed {seed}: {steps:,} steps in {d}", flush=True)
    train(args, d, study.preset_path(task), seed,
          sets=[f"n_timesteps={steps}", f"checkpoint.every={max(10_000, steps // 10)}",
                f"log_every={max(1_000, steps // 50)}"])  # ~50 points on each curve
    seconds = _add_seconds(d, timer.seconds())
    mean, std = evaluate(args, d / "final", study.eval_episodes)
    curve = progress_curve(d)
    res = {"task": task.preset, "env": study.env_of(task), "seed": seed, "steps": steps, "eval_mean": mean,
           "eval_std": std, "eval_episodes": study.eval_episodes,
           "train_return_last100": curve[-1][1] if curve else None, "train_seconds": round(seconds, 1),
           "commit": git_commit(), "finished": time.strftime("%Y-%m-%d %H:%M %Z")}
    write_text_atomic(result, json.dumps(res, indent=2) + "\n")
    print(f"[{study.name}] {task.preset} seed {seed}: eval {mean:.1f} ± {std:.1f} after {seconds / 60:.1f} min",
          flush=True)
    with lock:
        report(study, args)
    return res


def _add_seconds(run, seconds):
    """Training wall clock summed over the invocations that worked on the run."""
    f = run.parent / f"{run.name}.seconds"
    total = (float(f.read_text()) if f.exists() else 0.0) + seconds
    f.write_text(f"{total:.1f}\n")
    return total


def results_of(study, args, seeds):
    out = {}
    for task in study.tasks:
        for s in seeds:
            f = Path(args.out) / task.preset / f"seed_{s}" / "result.json"
            if f.exists():
                out.setdefault(task.preset, []).append(json.loads(f.read_text()))
    return out


def _cell(values, digits=1):
    m, s = mean_std(values)
    return f"{m:.{digits}f} ± {s:.{digits}f}"


def report(study, args, wall=None):
    seeds = args.seed_list
    out = Path(args.out)
    results = results_of(study, args, seeds)
    lines = [f"# {study.title}", "", provenance_line(study.name, args, wall), ""]
    if args.quick:
        lines += ["Quick mode (smoke): a few percent of the full budgets and 2 seeds; the numbers check that "
                  "training, evaluation and the report work, not what the agents learn (see the full mode).", ""]
    header = ["task", "rlzoo: final eval (deterministic, mean ± std over seeds)",
              "rlzoo: training return, last 100 episodes", "seeds", "env steps", "train minutes per seed"]
    header += [r.label for r in study.references]
    rows, seed_rows = [], []
    for task in study.tasks:
        rs = results.get(task.preset)
        if not rs:
            continue  # a row exists only once it has been measured
        env = study.env_of(task)
        trains = [r["train_return_last100"] for r in rs if r.get("train_return_last100") is not None]
        secs = [r.get("train_seconds", r.get("seconds_this_session", 0.0)) for r in rs]
        rows.append([task.preset, _cell([r["eval_mean"] for r in rs]), _cell(trains) if trains else "—", len(rs),
                     f"{rs[0]['steps']:,}", f"{sum(secs) / len(secs) / 60:.1f}"]
                    + [r.value_for(task.preset, env) or "—" for r in study.references])
        for r in rs:
            seed_rows.append([task.preset, r["seed"], r["steps"], r["eval_mean"], r["eval_std"],
                              r.get("train_return_last100"), r.get("train_seconds", r.get("seconds_this_session"))])
    lines += md_table(header, rows)
    commits = sorted({r.get("commit", "not recorded") for rs in results.values() for r in rs})
    dates = sorted(r["finished"] for rs in results.values() for r in rs if "finished" in r)
    lines += ["", f"Runs trained at commit(s) {', '.join(commits)}"
              + (f", finished {dates[0]} to {dates[-1]}" if dates else "") + "."]
    lines += ["", f"Final eval: {study.eval_episodes} deterministic episodes of the final agent per seed. "
              "Published columns are references copied from their sources (not measured here):", ""]
    lines += [f"* **{r.label}**: {r.source}" for r in study.references]
    lines += ["", "Per seed (final eval / training return of the last 100 episodes):", ""]
    per_seed = []
    for task in study.tasks:
        rs = {r["seed"]: r for r in results.get(task.preset, [])}
        if rs:
            per_seed.append([task.preset] + [
                f"{rs[s]['eval_mean']:.1f} / {rs[s]['train_return_last100']:.1f}"
                if s in rs and rs[s].get("train_return_last100") is not None
                else (f"{rs[s]['eval_mean']:.1f}" if s in rs else "") for s in seeds])
    lines += md_table(["task"] + [f"seed {s}" for s in seeds], per_seed)
    lines += ["", f"![training return against env steps]({study.name}.png)", ""]
    if study.notes and not args.quick:
        lines += [study.notes.strip(), ""]
    write_text_atomic(out / f"{study.name}.md", "\n".join(lines))
    write_csv(out / f"{study.name}_seeds.csv",
              ["task", "seed", "steps", "eval_mean", "eval_std", "train_return_last100", "train_seconds"], seed_rows)
    panels, xs, refs = {}, {}, {}
    for task in study.tasks:
        curves = {}
        for s in seeds:
            c = progress_curve(out / task.preset / f"seed_{s}")
            if c:
                curves[s] = c
                write_csv(out / "csv" / f"{task.preset}_seed{s}.csv", ["env_steps", "train_return_last100"], c)
        if not curves:
            continue
        end = max(c[-1][0] for c in curves.values())
        grid = [end * (i + 1) / 50 for i in range(50)]
        mean, ci = mean_ci([on_grid(c, grid) for c in curves.values()])
        panels[task.preset] = {"rlzoo": (mean, ci, len(curves))}
        xs[task.preset] = grid
        env = study.env_of(task)
        refs[task.preset] = {r.label.split(" (")[0]: float(r.value_for(task.preset, env).split("±")[0].replace("−", "-"))
                             for r in study.references if r.value_for(task.preset, env)}
    plot(out / f"{study.name}.png", panels, x=xs, xlabel="env steps", ylabel="training return (last 100 episodes)",
         refs=refs)
    print(f"[{study.name}] report: {out / study.name}.md", flush=True)


def main(study, doc):
    p = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--tasks", nargs="+", default=[t.preset for t in study.tasks], help="presets to run")
    p.add_argument("--seeds", type=int, default=0, help=f"seeds 0..N-1 (default {study.seeds}, --quick "
                   f"{study.quick_seeds})")
    p.add_argument("--steps", type=int, default=0, help="env steps per run for every task (overrides the modes)")
    add_run_args(p, study.name)
    args = parse_run_args(p, study.name)
    ensure_matplotlib()
    unknown = set(args.tasks) - {t.preset for t in study.tasks}
    if unknown:
        raise SystemExit(f"{study.name}: unknown task(s) {sorted(unknown)}; known: {[t.preset for t in study.tasks]}")
    study.tasks = [t for t in study.tasks if t.preset in args.tasks]
    args.seed_list = list(range(args.seeds or (study.quick_seeds if args.quick else study.seeds)))
    timer, lock = Timer(), threading.Lock()
    if not args.report_only:
        parallel(args.jobs, lambda ts: run_one(study, args, ts[0], ts[1], lock),
                 [(t, s) for t in study.tasks for s in args.seed_list])
    report(study, args, None if args.report_only else timer.seconds())
