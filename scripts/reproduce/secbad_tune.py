#!/usr/bin/env python3
"""SeCBAD's tuning effort on one env: the two hyper-parameters that govern the segment inference.

* vae.kl_weight (training): how strongly each latent is pulled towards the one before it, i.e. how
  fast the belief may move when a segment starts. Each value is trained for --seeds seeds with the
  preset otherwise unchanged (the preset's own value reuses the runs of scripts/reproduce/secbad).
* likelihood_std (inference only): the std of the Gaussian reward likelihood that weighs the
  segment-length hypotheses. Every trained agent is evaluated with each value (`rlzoo eval --set`).

Writes <out>/secbad_tune_<env>.md: final evaluation return and the segment-length accuracy (most
likely length within ±2 steps of the truth, against a prior-only guess) per (kl_weight,
likelihood_std), mean ± 95% interval over seeds. Resumable: trained runs and evaluations are kept.
Options --out, --quick (the quick study's budgets and folder), --jobs, --nice, --rlzoo as
scripts/reproduce/secbad; --report-only writes the table from the evaluations already cached.
"""
import argparse
import importlib.machinery
import importlib.util
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import ROOT, Timer, add_run_args, mean_ci, parallel, parse_run_args, provenance_line, rlzoo  # noqa: E402


def _load_study():
    """The secbad study script (no .py extension) as a module: its ENVS, budgets and run()."""
    path = str(Path(__file__).resolve().parent / "secbad")
    loader = importlib.machinery.SourceFileLoader("secbad_study", path)
    spec = importlib.util.spec_from_loader("secbad_study", loader)
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


STUDY = _load_study()
ENVS, run = STUDY.ENVS, STUDY.run

EVAL_RE = re.compile(r"mean return (\S+) \+/- (\S+) over (\d+) episodes")
METRIC_RE = re.compile(r"(segment_\w+): (\S+)")


def preset_kl(env):
    text = (ROOT / "configs" / "secbad" / f"{env}.yaml").read_text()
    return float(re.search(r"^\s*kl_weight:\s*(\S+)", text, re.M).group(1))


def run_dir(args, env, kl, seed):
    if kl == preset_kl(env):
        return Path(args.out) / env / "secbad" / f"seed_{seed}"
    return Path(args.out) / env / "tune" / f"kl_weight_{kl:g}" / f"seed_{seed}"


def train(args, env, kl, seed):
    return run(args, "secbad", env, seed, run_dir(args, env, kl, seed), [f"hyperparams.vae.kl_weight={kl}"])


def evaluate(args, d, std):
    """{return, segment_* metrics} of d/final with likelihood_std = std, cached in d."""
    cache = d / f"tune_eval_std_{std:g}_n{args.episodes}.txt"
    if not cache.exists():
        out = rlzoo(args, "eval", d / "final", "-n", args.episodes, "--set", f"hyperparams.likelihood_std={std}")
        cache.write_text(out)
    text = cache.read_text()
    m = EVAL_RE.search(text)
    if not m:
        sys.exit(f"secbad_tune: cannot read {cache}")
    return {"return": float(m.group(1)), **{k: float(v) for k, v in METRIC_RE.findall(text)}}


def fmt(values):
    mean, ci = mean_ci([[v] for v in values])
    return f"{mean[0]:.2f} ± {ci[0]:.2f}" if abs(mean[0]) >= 1 else f"{mean[0]:.3f} ± {ci[0]:.3f}"


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--env", default="SecbadGrid-v0", choices=list(ENVS))
    p.add_argument("--kl", nargs="+", type=float, default=[0.001, 0.01, 0.1])
    p.add_argument("--std", nargs="+", type=float, default=[0.1, 0.3, 1.0])
    p.add_argument("--seeds", type=int, default=0, help="seeds per kl_weight (default 3, --quick 2)")
    p.add_argument("--episodes", type=int, default=64, help="evaluation episodes per agent and likelihood_std")
    add_run_args(p, "secbad")
    args = parse_run_args(p, "secbad_tune")
    args.seeds = args.seeds or (2 if args.quick else 3)
    env, timer = args.env, Timer()
    keys = [(kl, s) for kl in args.kl for s in range(args.seeds)]
    cells = [(kl, s, std) for kl, s in keys for std in args.std]
    if args.report_only:  # only what is already measured: finished runs with a cached evaluation
        dirs = {k: run_dir(args, env, *k) for k in keys}
        cells = [c for c in cells if (dirs[c[:2]] / f"tune_eval_std_{c[2]:g}_n{args.episodes}.txt").exists()]
    else:
        dirs = dict(zip(keys, parallel(args.jobs, lambda k: train(args, env, *k), keys)))
    scores = dict(zip(cells, parallel(args.jobs, lambda c: evaluate(args, dirs[c[:2]], c[2]), cells)))

    lines = [f"# SeCBAD tuning on {env}", "",
             provenance_line("secbad_tune.py", args, None if args.report_only else timer.seconds()), "",
             f"Up to {args.seeds} seeds per kl_weight (trained {STUDY.budget_of(args, env):,} frames with the preset "
             f"otherwise unchanged; preset value {preset_kl(env):g}); every final agent evaluated on {args.episodes} "
             "deterministic episodes per likelihood_std, segments inferred. Mean ± 95% interval over seeds.", "",
             "Segment-length accuracy: the most likely length within ±2 steps of the truth (MAP) against a "
             "prior-only guess; \"changed\": the same against segments that start only where the context really "
             "changed (a redraw may repeat the context).", "",
             "| kl_weight | likelihood_std | seeds | eval return | MAP within ±2 | prior-only | MAP, changed | "
             "prior-only, changed |",
             "|---|---|---|---|---|---|---|---|"]
    metrics = ["return", "segment_map_within_2", "segment_prior_within_2", "segment_map_within_2_changed",
               "segment_prior_within_2_changed"]
    for kl in args.kl:
        for std in args.std:
            v = [scores[(kl, s, std)] for s in range(args.seeds) if (kl, s, std) in scores]
            if not v:
                continue  # a row exists only once it has been measured
            row = [fmt([x[k] for x in v]) if all(k in x for x in v) else "—" for k in metrics]
            lines.append(f"| {kl:g} | {std:g} | {len(v)} | " + " | ".join(row) + " |")
    if lines[-1].startswith("|---"):  # no row measured yet: no empty table
        lines[-2:] = ["Nothing measured yet: no finished run has a cached evaluation."]
    out = Path(args.out) / f"secbad_tune_{env}.md"
    out.write_text("\n".join(lines) + "\n")
    print(f"[secbad_tune] report: {out}", flush=True)


if __name__ == "__main__":
    main()
