"""DouDizhu for programs outside rlzoo: Python opponents in every seat of `rlzoo doudizhu eval`
through the seat protocol; two outside seats against a dmc agent, whose moves (from the games
the outside seats recorded) and Q-values from Python equal the CLI's; bad answers named."""

import json
import os
import subprocess
import sys
import tempfile
import unittest

import numpy as np

import rlzoo
from rlzoo import doudizhu

CLI = os.environ.get("RLZOO_CLI")
SOURCE = os.environ.get("RLZOO_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", ".."))
OPPONENT = os.path.join(SOURCE, "examples", "doudizhu", "random_opponent.py")
RECORDER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "doudizhu_seat_recorder.py")
DOUZERO = os.path.join(SOURCE, "..", "shared", "data", "douzero", "q_sample")


def outside(script: str, *args: str) -> str:
    return "exec:" + " ".join([sys.executable, script, *args])


def cli(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([CLI, "doudizhu", *args], input=stdin, capture_output=True, text=True, timeout=600)


class OutsideSeats(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        if not CLI:
            raise unittest.SkipTest("RLZOO_CLI is not set (CTest sets it to the rlzoo executable)")
        cls.tmp = tempfile.TemporaryDirectory()
        # A trained dmc agent where DouZero's checkpoints are at hand (imported), else a fresh
        # one: the comparisons below hold for any weights.
        cls.agent_dir = os.path.join(cls.tmp.name, "agent")
        if os.path.exists(os.path.join(DOUZERO, "landlord.ckpt")):
            r = cli("import-douzero", DOUZERO, cls.agent_dir)
            assert r.returncode == 0, r.stderr
            cls.trained = True
        else:
            rlzoo.make_agent("dmc", "DouDizhu-v0", {"seed": 5}).save(cls.agent_dir)
            cls.trained = False
        cls.agent = rlzoo.load_agent(cls.agent_dir)

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def test_a_python_random_opponent_in_every_seat(self):
        r = cli("eval", "--json", "--deals", "25", "--swap", "--seed", "3",
                "--landlord", outside(OPPONENT, "--seed", "1"), "--peasants", outside(OPPONENT, "--seed", "2"))
        self.assertEqual(r.returncode, 0, r.stderr)
        result = json.loads(r.stdout)
        self.assertEqual(result["a_as_landlord"]["games"], 25)
        self.assertEqual(result["b_as_landlord"]["games"], 25)
        self.assertEqual(result["a_overall"]["games"], 50)
        self.assertAlmostEqual(result["a_overall"]["adp"], -result["b_overall"]["adp"])

    def test_two_outside_seats_against_a_dmc_agent_that_plays_as_from_python(self):
        log = tempfile.mkdtemp(dir=self.tmp.name)
        r = cli("eval", "--json", "--deals", "30", "--seed", "11", "--landlord", self.agent_dir,
                "--peasants", outside(RECORDER, log, "7"))
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(json.loads(r.stdout)["a_as_landlord"]["games"], 30)
        # Each peasant process kept its own seat's messages; the game_over ones hold whole games.
        games = []
        for seat in ("landlord_down", "landlord_up"):
            with open(os.path.join(log, f"{seat}.jsonl")) as f:
                messages = [json.loads(line) for line in f]
            self.assertEqual({m["seat"] for m in messages}, {seat})
            if seat == "landlord_down":
                games = [m for m in messages if m["type"] == "game_over"]
        self.assertEqual(len(games), 30)
        # Replay every game; wherever the landlord (the agent) moved, Python's choice is the
        # move `rlzoo doudizhu eval` played, and its Q-values are `rlzoo doudizhu q-values`'.
        positions, checked = [], 0
        for record in games:
            game = doudizhu.Game(deal=record["deal"])
            for k, move in enumerate(record["history"]):
                if game.acting == "landlord" and len(game.legal_moves()) > 1:
                    played = game.legal_move_cards().index(sorted(move))
                    self.assertEqual(self.agent.choose(game), played, f"game {record['game']}, move {k + 1}")
                    self.assertEqual(self.agent.move(game), game.legal_moves()[played])
                    checked += 1
                    if len(positions) < 40:
                        positions.append((game.copy(), record, k))
                game.play(move)
            self.assertTrue(game.over)
            self.assertEqual(game.winner, record["winner"])
        self.assertGreater(checked, 100)
        lines = "".join(json.dumps({"deal": rec["deal"], "history": rec["history"][:k], "position": "landlord"}) + "\n"
                        for _, rec, k in positions)
        r = cli("q-values", "--agent", self.agent_dir, stdin=lines)
        self.assertEqual(r.returncode, 0, r.stderr)
        answers = [json.loads(line) for line in r.stdout.splitlines()]
        self.assertEqual(len(answers), len(positions))
        for (game, _, _), answer in zip(positions, answers):
            self.assertEqual(answer["legal_actions"], game.legal_move_cards())
            np.testing.assert_array_equal(self.agent.q_values(game), np.array(answer["q"], dtype=np.float32))

    def test_an_outside_seat_beside_an_rlzoo_agent_on_the_peasant_side(self):
        r = cli("eval", "--json", "--deals", "10", "--landlord", "rule", "--landlord-down", self.agent_dir,
                "--landlord-up", outside(OPPONENT))
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(json.loads(r.stdout)["b_as_peasants"]["games"], 10)

    def test_a_bad_answer_names_the_seat_and_the_line(self):
        bad = os.path.join(self.tmp.name, "bad_bot.py")
        with open(bad, "w") as f:
            f.write("import json, sys\n"
                    "for n, line in enumerate(sys.stdin):\n"
                    "    m = json.loads(line)\n"
                    "    if m['type'] == 'move':\n"
                    "        print(json.dumps({'index': 0} if n < 2 else {'move': 'BR 2222'}), flush=True)\n")
        r = cli("eval", "--deals", "5", "--landlord", "rule", "--peasants", outside(bad))
        self.assertEqual(r.returncode, 2)
        self.assertRegex(r.stderr, r"seat landlord_(down|up) \(`[^`]*bad_bot\.py`\): answer line \d+ \(game \d+, move "
                                   r"\d+\): illegal move \[17,17,17,17,20,30\] \(R B 2222\)")
        self.assertIn("no result is reported", r.stderr)


class PythonSideOfDmc(unittest.TestCase):
    def test_predict_takes_the_candidates_and_returns_the_move_choose_picks(self):
        agent = rlzoo.make_agent("dmc", "DouDizhu-v0", {"seed": 2})
        env = rlzoo.make("DouDizhu-v0")
        obs, info = env.reset(seed=4)
        batch_obs, batch_cands, batch_acting, expected = [], [], [], []
        while len(expected) < 12:
            action, _ = agent.predict(obs, candidates=info["candidates"], acting_agent=info["acting_agent"])
            game = env.game
            self.assertEqual(action, agent.choose(game) if len(game.legal_moves()) > 1 else 0)
            batch_obs.append(obs)
            batch_cands.append(info["candidates"])
            batch_acting.append(info["acting_agent"])
            expected.append(action)
            obs, _, terminated, _, info = env.step(action)
            if terminated:
                obs, info = env.reset()
        # A batch of observations with different numbers of candidates.
        actions, _ = agent.predict(np.stack(batch_obs), candidates=batch_cands, acting_agent=batch_acting)
        np.testing.assert_array_equal(actions, expected)
        with self.assertRaisesRegex(ValueError, "acting_agent"):
            agent.predict(obs, candidates=info["candidates"])
        with self.assertRaisesRegex(Exception, "candidate"):
            agent.predict(obs)

    def test_only_dmc_agents_value_moves_and_only_while_the_game_runs(self):
        with self.assertRaisesRegex(Exception, "only dmc agents"):
            rlzoo.make_agent("ppo", "CartPole-v1").q_values(doudizhu.Game(seed=1))
        agent = rlzoo.make_agent("dmc", "DouDizhu-v0")
        game = doudizhu.Game(seed=1)
        while not game.over:
            game.play(game.legal_moves()[0])
        with self.assertRaisesRegex(Exception, "the game is over"):
            agent.q_values(game)
        with self.assertRaisesRegex(Exception, "the game is over"):
            agent.choose(game)

if __name__ == "__main__":
    unittest.main()
