#!/usr/bin/env python3
"""A DouDizhu seat outside rlzoo: plays a uniformly random legal move (the seat protocol of
docs/envs/doudizhu.md#outside-programs), with the standard library only.

    rlzoo doudizhu eval --landlord runs/dmc/DouDizhu-v0_1 \
        --peasants "exec:python3 examples/doudizhu/random_opponent.py --seed 1"

rlzoo starts one process per seat it plays and writes one JSON object per line to its
standard input; every "move" request gets one answer line. Write nothing else to standard
output (print diagnostics to standard error) and flush after each answer.
"""

import argparse
import json
import random
import sys


def choose(request: dict, rng: random.Random) -> dict:
    """The answer to one "move" request: here a random legal move, given by its cards (an
    {"index": i} into request["legal_moves"] works as well)."""
    return {"move": rng.choice(request["legal_moves"])}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--summary", action="store_true", help="print the seat's results to standard error at the end")
    args = parser.parse_args()
    rng = random.Random(args.seed)
    seat, games, score = None, 0, 0.0
    for line in sys.stdin:  # ends when rlzoo closes our input: the evaluation is over
        message = json.loads(line)
        if message["type"] == "move":
            seat = message["seat"]
            sys.stdout.write(json.dumps(choose(message, rng)) + "\n")
            sys.stdout.flush()
        elif message["type"] == "game_over":  # the whole game (deal + history) and our score
            games += 1
            score += message["score"]
    if args.summary:
        print(f"random_opponent ({seat}): {games} games, total score {score:+g}", file=sys.stderr)


if __name__ == "__main__":
    main()
