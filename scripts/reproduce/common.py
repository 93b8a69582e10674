"""What every reproduction script shares: its options (--quick, --jobs, --out, ...), resumable
`rlzoo train` runs, per-seed CSV files, Markdown tables, statistics over seeds, plots rendered
with Debian's python3-matplotlib, and the provenance (commit, machine, wall clock) of a report.

A script imports it with

    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from common import ...
"""
import argparse
import csv
import math
import os
import platform
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DEBIAN_PYTHON = "/usr/bin/python3"


# ---------------------------------------------------------------------------------------------
# options


def add_run_args(p: argparse.ArgumentParser, out_name: str, jobs: int = 2) -> None:
    """--quick, --jobs, --nice, --out (runs/reproduce/<name>, or runs/reproduce/quick/<name> with
    --quick), --rlzoo (the built CLI) and --report-only."""
    p.add_argument("--quick", action="store_true",
                   help="the smoke version (minutes): fewer steps and seeds, written under runs/reproduce/quick/")
    p.add_argument("--jobs", type=int, default=jobs, help="runs at a time")
    p.add_argument("--nice", type=int, default=0, help="niceness of the runs")
    p.add_argument("--out", default=None, help=f"output folder (default runs/reproduce/[quick/]{out_name})")
    p.add_argument("--rlzoo", default=str(ROOT / "build" / "apps" / "rlzoo"), help="the rlzoo binary")
    p.add_argument("--report-only", action="store_true", help="rewrite the report from the finished runs")
    p.set_defaults(_out_name=out_name)


def parse_run_args(p: argparse.ArgumentParser, script: str) -> argparse.Namespace:
    """Parses, fills in --out, and stops with a message when the rlzoo binary is missing."""
    args = p.parse_args()
    if args.out is None:
        base = ROOT / "runs" / "reproduce"
        args.out = str(base / "quick" / args._out_name if args.quick else base / args._out_name)
    args.rlzoo = str(Path(args.rlzoo).resolve())
    if not Path(args.rlzoo).exists():
        sys.exit(f"{script}: {args.rlzoo} not found; build first (scripts/setup)")
    Path(args.out).mkdir(parents=True, exist_ok=True)
    return args


# ---------------------------------------------------------------------------------------------
# running rlzoo


def rlzoo(args, *argv, log=None, check=True):
    """Runs `rlzoo argv...` in the source tree at --nice; stdout+stderr go to `log` (appended) or
    are returned. A Ctrl-C reaches rlzoo too (it writes a checkpoint); the script then stops."""
    cmd = ([] if not args.nice else ["nice", "-n", str(args.nice)]) + [args.rlzoo, *map(str, argv)]
    out = open(log, "a") if log else subprocess.PIPE
    try:
        proc = subprocess.Popen(cmd, cwd=ROOT, stdout=out, stderr=subprocess.STDOUT, text=True)
        try:
            text, _ = proc.communicate()
        except KeyboardInterrupt:
            proc.wait()
            sys.exit("interrupted: runs in progress wrote a checkpoint; run the script again to resume")
    finally:
        if log:
            out.close()
    if proc.returncode in (130, -signal.SIGINT):  # Ctrl-C reached rlzoo in a worker thread
        raise SystemExit("interrupted: runs in progress wrote a checkpoint; run the script again to resume")
    if check and proc.returncode != 0:
        where = f"; log: {log}" if log else ":\n" + (text or "")[-3000:]
        raise RuntimeError(f"`rlzoo {' '.join(map(str, argv))}` exited with {proc.returncode}{where}")
    return text or ""


def train(args, run: Path, preset, seed: int, sets=(), extra=()):
    """Trains `preset` with `seed` into run directory `run`, or resumes it from its latest
    checkpoint when an earlier invocation was stopped. Returns True when it trained, False when
    `run/final` already existed. `sets` are `--set key=value` overrides (first start only: a
    resumed run keeps the configuration it was started with)."""
    run = Path(run)
    if (run / "final").exists():
        return False
    run.parent.mkdir(parents=True, exist_ok=True)
    log = run.parent / f"{run.name}.log"
    if (run / "checkpoints" / "latest").exists():
        rlzoo(args, "train", "--resume", run, "-q", *extra, log=log)
    else:
        if run.exists():  # stopped before its first checkpoint: nothing to continue from
            shutil.rmtree(run)
        sets = [x for kv in sets for x in ("--set", kv)]
        rlzoo(args, "train", "--preset", preset, "--seed", seed, "--run-dir", run, "-q", *sets, *extra, log=log)
    return True


def evaluate(args, agent: Path, episodes: int = 10, extra=()):
    """`rlzoo eval`: (mean, std) of the return over `episodes` deterministic episodes."""
    text = rlzoo(args, "eval", agent, "--episodes", episodes, *extra)
    m = re.search(r"mean return (-?[0-9.]+(?:e[-+]?[0-9]+)?) \+/- ([0-9.]+)", text)
    if not m:
        raise RuntimeError(f"no 'mean return' in the output of rlzoo eval {agent}:\n{text}")
    return float(m.group(1)), float(m.group(2))


def parallel(jobs: int, fn, items):
    """fn(item) for every item, `jobs` at a time; returns the results in order and re-raises the
    first failure after the others finished (so one bad run does not waste the rest)."""
    with ThreadPoolExecutor(max_workers=max(1, jobs)) as ex:
        futures = [ex.submit(fn, it) for it in items]
        results, error = [], None
        for f in futures:
            try:
                results.append(f.result())
            except Exception as e:  # noqa: BLE001 - reported after the others finish
                results.append(None)
                error = error or e
    if error:
        raise error
    return results


# ---------------------------------------------------------------------------------------------
# data


def read_csv(path: Path):
    """The rows of a CSV file as dicts ([] when it does not exist)."""
    if not Path(path).exists():
        return []
    with open(path) as f:
        return list(csv.DictReader(f))


def write_text_atomic(path: Path, text: str) -> None:
    """Writes a file that parallel jobs may read meanwhile: they see the old or the new text, never a half."""
    path = Path(path)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{threading.get_ident()}.tmp")
    tmp.write_text(text)
    os.replace(tmp, path)


def write_csv(path: Path, header, rows):
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(header)
        w.writerows(rows)


def progress_curve(run: Path, y="rollout/ep_rew_mean", x="time/total_timesteps"):
    """(steps, value) points from <run>/logs/progress.csv, rows without the value skipped."""
    points = []
    for row in read_csv(Path(run) / "logs" / "progress.csv"):
        try:
            points.append((float(row[x]), float(row[y])))
        except (KeyError, ValueError):
            pass
    return points


def on_grid(points, grid):
    """The curve's last value at or before each grid point (the first value before it starts)."""
    if not points:
        return []
    out, j = [], 0
    for g in grid:
        while j + 1 < len(points) and points[j + 1][0] <= g:
            j += 1
        out.append(points[j][1])
    return out


def mean_ci(curves):
    """Mean and 95% half-interval (normal approximation, 1.96 s/sqrt(n)) of equally long curves,
    point by point; a single curve has a zero interval."""
    n = len(curves)
    m = [sum(c[i] for c in curves) / n for i in range(len(curves[0]))]
    if n < 2:
        return m, [0.0] * len(m)
    sd = [math.sqrt(sum((c[i] - m[i]) ** 2 for c in curves) / (n - 1)) for i in range(len(m))]
    return m, [1.96 * s / math.sqrt(n) for s in sd]


def mean_std(values):
    """Mean and sample standard deviation (0 for a single value)."""
    n = len(values)
    m = sum(values) / n
    return m, (math.sqrt(sum((v - m) ** 2 for v in values) / (n - 1)) if n > 1 else 0.0)



def md_table(header, rows):
    """A Markdown table as a list of lines."""
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(str(c) for c in r) + " |" for r in rows]
    return lines


# ---------------------------------------------------------------------------------------------
# plots


def _pyplot():
    import matplotlib  # noqa: PLC0415 - only scripts that plot need it
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt  # noqa: PLC0415
    return plt


def ensure_matplotlib():
    """Makes sure python3-matplotlib can be imported: re-runs the script with Debian's python3
    when another interpreter lacks it, and otherwise stops with the package to install."""
    try:
        _pyplot()
    except ImportError:
        if Path(DEBIAN_PYTHON).exists() and Path(sys.executable).resolve() != Path(DEBIAN_PYTHON).resolve() \
                and not os.environ.get("RLZOO_REEXEC"):
            os.environ["RLZOO_REEXEC"] = "1"
            os.execv(DEBIAN_PYTHON, [DEBIAN_PYTHON, *sys.argv])
        sys.exit("plots need python3-matplotlib: run scripts/setup --reproduce (or apt-get install python3-matplotlib)")


def plot(path, panels, colors=None, x=None, xlabel="env steps", ylabel="return", refs=None, note=None):
    """Curves with 95% bands, one panel per title (up to three a row), written as PNG.

    panels: {title: {series: (mean, ci, n)}}; x: {title: x values} (default 1..len);
    colors: {series: (r, g, b) in 0..255}; refs: {title: {label: value}} drawn as dashed
    horizontal lines (published references)."""
    plt = _pyplot()
    panels = {t: s for t, s in panels.items() if s}
    if not panels:
        return
    cols = min(3, len(panels))
    rows = (len(panels) + cols - 1) // cols
    fig, axes = plt.subplots(rows, cols, figsize=(4.8 * cols, 3.6 * rows), squeeze=False)
    for ax in axes.flat[len(panels):]:
        ax.set_visible(False)
    for ax, (title, series) in zip(axes.flat, panels.items()):
        for name, (mean, ci, n) in series.items():
            xs = (x or {}).get(title) or list(range(1, len(mean) + 1))
            xs = xs[:len(mean)]
            c = tuple(v / 255 for v in colors[name]) if colors and name in colors else None
            line, = ax.plot(xs, mean, color=c, lw=1.6, label=f"{name} (n={n})")
            ax.fill_between(xs, [m - h for m, h in zip(mean, ci)], [m + h for m, h in zip(mean, ci)],
                            color=line.get_color(), alpha=0.18, lw=0)
        for k, (label, value) in enumerate(((refs or {}).get(title) or {}).items()):
            ax.axhline(value, color="0.35", ls=["--", ":", "-."][k % 3], lw=1, label=label)
        ax.set_title(title, fontsize=10)
        ax.set_xlabel(xlabel)
        ax.set_ylabel(ylabel)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7, loc="best")
    if note:
        fig.text(0.01, 0.01, note, fontsize=7, color="0.3")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


# ---------------------------------------------------------------------------------------------
# provenance


def git_commit():
    try:
        rev = subprocess.run(["git", "rev-parse", "--short=12", "HEAD"], cwd=ROOT, capture_output=True, text=True,
                             check=True).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=ROOT,
                               capture_output=True, text=True).stdout.strip()
        return rev + ("+changes" if dirty else "")
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def machine():
    """'<cpu model>, <n> cores, <GiB> GiB' from /proc (Linux)."""
    model = platform.processor() or "unknown CPU"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
        mem = next(int(l.split()[1]) for l in Path("/proc/meminfo").read_text().splitlines()
                   if l.startswith("MemTotal"))
        return f"{model}, {os.cpu_count()} cores, {mem / 2**20:.0f} GiB"
    except (OSError, StopIteration):
        return f"{model}, {os.cpu_count()} cores"


def provenance_line(script, args, wall_seconds=None):
    """One line for a report: when, which commit, which machine, the command, the wall clock."""
    cmd = "scripts/reproduce/" + script + "".join(" " + a for a in sys.argv[1:])
    wall = f"; wall clock of this invocation {wall_seconds / 60:.1f} min" if wall_seconds is not None else ""
    return (f"Written {time.strftime('%Y-%m-%d %H:%M %Z')} at commit {git_commit()} on {machine()} "
            f"by `{cmd}`{wall}.")


class Timer:
    """Wall-clock seconds since construction."""

    def __init__(self):
        self.start = time.time()

    def seconds(self):
        return time.time() - self.start
