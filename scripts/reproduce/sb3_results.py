"""Stable-Baselines3's results on this machine (scripts/reproduce/sb3_side_by_side) as a
reference column of a preset study: measured here with the same preset files, unlike the
published columns beside it."""
import json
from pathlib import Path

from common import ROOT, mean_std
from preset_study import Reference

SB3_RUNS = ROOT / "runs" / "reproduce" / "sb3_side_by_side"


def sb3_reference(algo, presets, runs=SB3_RUNS):
    """A Reference with "mean ± std (n seeds)" of SB3's final evaluations for each preset of
    `presets` (configs/<algo>/<preset>.yaml) that sb3_side_by_side has finished seeds of."""
    values, versions = {}, set()
    for preset in presets:
        results = [json.loads(p.read_text()) for p in sorted((runs / f"{algo}_{preset}").glob("seed_*.json"))]
        if results:
            m, s = mean_std([r["eval_mean"] for r in results])
            values[preset] = f"{m:.1f} ± {s:.1f} ({len(results)} seeds)"
            versions.add(f"SB3 {results[0]['sb3']}, Gymnasium {results[0]['gymnasium']}, torch {results[0]['torch']}")
    return Reference("SB3 here (same preset)",
                     "measured on this machine by `scripts/reproduce/sb3_side_by_side` "
                     f"({'; '.join(sorted(versions)) or 'no runs yet'}): Stable-Baselines3 trained with the same "
                     "preset file, one thread, final eval 10 deterministic episodes per seed; ± is the std over "
                     "seeds. Per-seed values: runs/reproduce/sb3_side_by_side/sb3_side_by_side.md.", values,
                     by_preset=True)
