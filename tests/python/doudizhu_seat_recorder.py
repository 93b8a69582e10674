"""A seat-protocol program for the tests: plays a random legal move (seeded) and appends every
message it receives to DIR/<seat>.jsonl, so a test can replay the games it took part in."""

import json
import os
import random
import sys


def main() -> None:
    directory, seed = sys.argv[1], int(sys.argv[2])
    rng = random.Random(seed)
    logs = {}
    for line in sys.stdin:
        message = json.loads(line)
        seat = message["seat"]
        if seat not in logs:
            logs[seat] = open(os.path.join(directory, f"{seat}.jsonl"), "a")
        logs[seat].write(line if line.endswith("\n") else line + "\n")
        logs[seat].flush()
        if message["type"] == "move":
            print(json.dumps({"index": rng.randrange(len(message["legal_moves"]))}), flush=True)


if __name__ == "__main__":
    main()
