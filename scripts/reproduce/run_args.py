"""The command-line options every reproduction script shares (standard library only)."""
import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def add_run_args(p: argparse.ArgumentParser, out_name: str, jobs: int = 2) -> None:
    """--jobs, --nice, --out (runs/reproduce/<out_name>) and --rlzoo (the built CLI)."""
    p.add_argument("--jobs", type=int, default=jobs, help="runs at a time")
    p.add_argument("--nice", type=int, default=0, help="niceness of the runs")
    p.add_argument("--out", default=str(ROOT / "runs" / "reproduce" / out_name))
    p.add_argument("--rlzoo", default=str(ROOT / "build" / "apps" / "rlzoo"))


def parse_run_args(p: argparse.ArgumentParser, script: str) -> argparse.Namespace:
    """Parses, and stops with a message when the rlzoo binary is missing."""
    args = p.parse_args()
    if not Path(args.rlzoo).exists():
        sys.exit(f"{script}: {args.rlzoo} not found; build first (scripts/setup)")
    return args
