"""rlzoo.doudizhu: the engine from Python (hand-worked legal moves, a scripted game, records)
and the env DouDizhu-v0 through rlzoo.make, whose actions index the game's legal moves."""

import unittest

import numpy as np

import rlzoo
from rlzoo import doudizhu as dd


def small_deal():
    """The hand-made deal of tests/envs/doudizhu/game_test.cpp."""
    return {
        "landlord": "3333 44 5 6 7 8 9 T J Q K A 22 B R",
        "landlord_down": "44 555 666 777 888 99 T",
        "landlord_up": "9 TT JJJ QQQ KKK AAA 22",
        "three_landlord_cards": "B R 3",
    }


class Cards(unittest.TestCase):
    def test_parse_and_format(self):
        self.assertEqual(dd.parse_cards("33 10 j Q k A 2 B R t"), [3, 3, 10, 10, 11, 12, 13, 14, 17, 20, 30])
        self.assertEqual(dd.format_cards("33 10 j Q k A 2 B R t"), "R B 2 A K Q J TT 33")
        self.assertEqual(dd.format_cards([3, 3, 17]), "2 33")
        self.assertEqual(dd.format_cards("pass"), "pass")
        with self.assertRaises(rlzoo.UserError) as caught:
            dd.parse_cards("33X")
        self.assertIn("'x'", str(caught.exception))
        with self.assertRaises(rlzoo.UserError) as caught:
            dd.format_cards([3, 16])
        self.assertIn("cards[1] = 16 is not a card", str(caught.exception))

    def test_classify_move(self):
        self.assertEqual(dd.classify_move("333 4"), {"type": "TYPE_6_3_1", "type_id": 6, "rank": 3, "length": 0})
        self.assertEqual(dd.classify_move("34567")["type"], "TYPE_8_SERIAL_SINGLE")
        self.assertEqual(dd.classify_move("34567")["length"], 5)
        self.assertEqual(dd.classify_move("B R")["type"], "TYPE_5_KING_BOMB")


class LegalMoves(unittest.TestCase):
    def test_leads_of_hand_worked_hands(self):
        # Engine order: solos, pairs, trios, bombs, rocket, 3+1, 3+2, chains ...; by rank within.
        self.assertEqual(dd.legal_moves("33 44 55"), ["3", "4", "5", "33", "44", "55", "55 44 33"])
        self.assertEqual(dd.legal_moves("B R"), ["B", "R", "R B"])        # jokers never pair
        self.assertEqual(dd.legal_moves("3333"), ["3", "33", "333", "3333"])
        self.assertEqual(dd.legal_moves("34567"), ["3", "4", "5", "6", "7", "7 6 5 4 3"])
        self.assertEqual(dd.legal_moves("J Q K A 2 B"), ["J", "Q", "K", "A", "2", "B"])  # no chain over the 2
        moves = dd.legal_moves("333 444 5 6")
        self.assertEqual(len(moves), 18)
        self.assertIn("6 5 444 333", moves)
        self.assertEqual(len(set(moves)), len(moves))
        # Every solo chain of a 12-rank straight: lengths 5..12, 8 + 7 + ... + 1 = 36.
        self.assertEqual(sum(len(dd.parse_cards(m)) >= 5 for m in dd.legal_moves("3456789TJQKA")), 36)

    def test_answers(self):
        self.assertEqual(dd.legal_moves("AA 22 3333", rival="KK"), ["AA", "22", "3333", "pass"])
        self.assertEqual(dd.legal_moves("4444 B R", rival="A"), ["B", "R", "4444", "R B", "pass"])
        self.assertEqual(dd.legal_moves("4444 6666 B R", rival="5555"), ["6666", "R B", "pass"])
        self.assertEqual(dd.legal_moves("7777 2222", rival="B R"), ["pass"])
        self.assertEqual(dd.legal_moves("45678 9", rival="34567"), ["8 7 6 5 4", "9 8 7 6 5", "pass"])
        self.assertEqual(dd.legal_moves([14, 14, 17, 17], rival=[13, 13]), ["AA", "22", "pass"])  # DouZero integers


class GameState(unittest.TestCase):
    def test_turn_order_passes_and_the_trick(self):
        g = dd.Game(deal=small_deal())
        self.assertEqual((g.acting, g.acting_index, dd.Game.landlord), ("landlord", 0, "landlord"))
        self.assertEqual(g.hands["landlord"], "R B 22 A K Q J T 9 8 7 6 5 44 3333")
        self.assertEqual(len(g.hand_cards("landlord_down")), 17)
        self.assertEqual(g.three_landlord_cards, "R B 3")
        self.assertEqual(g.rival_move, "pass")
        with self.assertRaises(rlzoo.UserError) as caught:
            g.play("pass")
        self.assertIn("the leader cannot pass", str(caught.exception))
        g.play("4")
        self.assertEqual((g.acting, g.rival_move), ("landlord_down", "4"))
        # landlord_down holds 44 555 666 777 888 99 T: higher solos, then pass (no bombs).
        self.assertEqual(g.legal_moves(), ["5", "6", "7", "8", "9", "T", "pass"])
        self.assertEqual(g.legal_move_cards()[0], [5])
        counts = g.legal_move_counts()
        self.assertEqual((counts.shape, counts.dtype), ((7, 15), np.uint8))
        np.testing.assert_array_equal(counts.sum(axis=1), [1, 1, 1, 1, 1, 1, 0])
        self.assertEqual(counts[5, 7], 1)  # T is rank index 7
        with self.assertRaises(rlzoo.UserError) as caught:
            g.play("4")
        self.assertIn("does not beat 4", str(caught.exception))
        g.play_index(6)  # pass
        g.play("pass")
        self.assertEqual((g.acting, g.rival_move), ("landlord", "pass"))  # the landlord leads again
        self.assertEqual(g.history, ["4", "pass", "pass"])
        self.assertEqual(g.played("landlord"), "4")
        with self.assertRaises(IndexError):
            g.play_index(10_000)

    def test_a_scripted_game_to_the_end(self):
        g = dd.Game(deal=small_deal())
        for move in ["5 6 7 8 9 T J Q K A", "pass", "pass", "B R", "pass", "pass", "3333 44 22"]:
            self.assertFalse(g.over)
            g.play(move)
        self.assertTrue(g.over)
        self.assertEqual((g.winner, g.bombs), ("landlord", 1))
        self.assertEqual(g.score("landlord"), 4.0)
        self.assertEqual(g.score("landlord_down"), -2.0)
        self.assertEqual(g.reward("landlord", "adp"), 2.0)
        self.assertEqual(g.reward(2, "wp"), -1.0)
        with self.assertRaises(rlzoo.UserError):
            g.play("pass")
        again = dd.replay(dd.record(g))
        self.assertTrue(again.over)
        self.assertEqual(again.history, g.history)
        self.assertEqual(dd.record(g)["history"][0], [5, 6, 7, 8, 9, 10, 11, 12, 13, 14])

    def test_random_deals(self):
        a, b = dd.Game(seed=5), dd.Game(seed=5)
        self.assertEqual(a.hands, b.hands)
        self.assertNotEqual(a.hands, dd.Game(seed=6).hands)
        sizes = sorted(len(a.hand_cards(s)) for s in dd.SEATS)
        self.assertEqual(sizes, [17, 17, 20])
        copy = a.copy()
        copy.play_index(0)
        self.assertEqual(a.history, [])
        with self.assertRaises(rlzoo.UserError) as caught:
            dd.Game(deal={**small_deal(), "landlord_up": "9 TT JJJ QQQ KKK AAA 2"})
        self.assertIn("deal.landlord_up holds 16 cards", str(caught.exception))


class Env(unittest.TestCase):
    def test_actions_index_the_legal_moves(self):
        env = rlzoo.make("DouDizhu-v0")
        self.assertEqual((env.observation_space.shape, env.observation_space.dtype), ((1240,), np.uint8))
        self.assertEqual(env.action_space, rlzoo.spaces.Discrete(29985))
        self.assertEqual(env.rlzoo_spec.num_agents, 3)
        obs, info = env.reset(seed=3)
        game = env.game
        self.assertIsInstance(game, dd.Game)
        self.assertEqual((info["acting_agent"], game.acting), (0, "landlord"))
        moves = game.legal_moves()
        self.assertEqual(info["candidates"].shape, (len(moves), 54))
        self.assertEqual(info["candidates"].dtype, np.float32)
        # Candidate rows encode the moves: as many ones as cards.
        np.testing.assert_array_equal(info["candidates"].sum(axis=1), [len(dd.parse_cards(m)) for m in moves])
        pick = len(moves) - 1
        env.step(pick)
        self.assertEqual(env.game.history, [moves[pick]])
        self.assertEqual(env.game.acting, "landlord_down")
        self.assertEqual(game.history, [])  # env.game is a snapshot

    def test_a_whole_game_ends_with_the_returns(self):
        env = rlzoo.make("DouDizhu-v0", objective="wp", episode_info=True)
        env.reset(seed=11)
        terminated, steps = False, 0
        while not terminated:
            _, reward, terminated, truncated, info = env.step(0)
            steps += 1
            self.assertFalse(truncated)
        game = env.game
        self.assertTrue(game.over)
        landlord_return = 1.0 if game.winner == "landlord" else -1.0
        np.testing.assert_array_equal(info["agent_rewards"], [landlord_return, -landlord_return, -landlord_return])
        self.assertEqual(info["episode"]["l"], steps)
        self.assertEqual(len(game.history), steps)
        with self.assertRaises(rlzoo.UserError):
            env.step(0)

    def test_the_action_mask_is_exactly_the_legal_moves(self):
        # A generic client (Discrete.sample with a mask, MaskablePPO's action_masks()) plays
        # whole games and never picks an illegal action.
        env = rlzoo.make("DouDizhu-v0")
        _, info = env.reset(seed=21)
        env.action_space.seed(5)
        for _ in range(3):
            terminated = False
            while not terminated:
                mask = info["action_mask"]
                self.assertEqual((mask.shape, mask.dtype), ((29985,), np.int8))
                n = len(env.game.legal_moves())
                self.assertEqual(int(mask.sum()), n)
                self.assertTrue(mask[:n].all())
                np.testing.assert_array_equal(env.action_masks(), mask.astype(bool))
                _, _, terminated, _, info = env.step(env.action_space.sample(mask=mask))
            self.assertTrue(env.game.over)
            _, info = env.reset()

    def test_an_index_past_the_candidates_is_refused(self):
        env = rlzoo.make("DouDizhu-v0")
        env.reset(seed=0)
        n = len(env.game.legal_moves())
        with self.assertRaises(rlzoo.UserError) as caught:
            env.step(n)
        self.assertIn("is not a candidate index", str(caught.exception))


if __name__ == "__main__":
    unittest.main()
