"""rlzoo.make_vec: batched envs on numpy. The batch equals N single envs stepped one by one,
same-step autoreset and final observations included; copies and zero-copy views; actions of
any integer dtype; errors that leave the batch untouched; threads give identical results."""

import gc
import unittest

import numpy as np

import rlzoo


def step_singles(envs, actions):
    """What the vector env should return, from single envs stepped one by one with same-step
    autoreset: (obs, rewards, terminations, truncations, final_obs, episodes)."""
    rows, rewards, terms, truncs, final_obs, episodes = [], [], [], [], {}, {}
    for i, (env, action) in enumerate(zip(envs, actions)):
        obs, reward, terminated, truncated, info = env.step(int(action))
        if terminated or truncated:
            final_obs[i] = obs
            episodes[i] = info["episode"]
            obs, _ = env.reset()  # seed None: the env's stream goes on, as the vector env's does
        rows.append(obs)
        rewards.append(reward)
        terms.append(terminated)
        truncs.append(truncated)
    return np.stack(rows), np.array(rewards), np.array(terms), np.array(truncs), final_obs, episodes


class Batching(unittest.TestCase):
    N = 8

    def test_spaces_and_metadata(self):
        envs = rlzoo.make_vec("CartPole-v1", self.N)
        self.assertEqual(envs.num_envs, self.N)
        self.assertEqual(envs.metadata["autoreset_mode"], "same_step")
        self.assertEqual(envs.single_observation_space.shape, (4,))
        self.assertEqual(envs.single_action_space, rlzoo.spaces.Discrete(2))
        self.assertEqual((envs.observation_space.shape, envs.observation_space.dtype), ((self.N, 4), np.float32))
        self.assertEqual(envs.action_space, rlzoo.spaces.MultiDiscrete([2] * self.N))
        self.assertEqual(envs.spec.max_episode_steps, 500)
        envs.action_space.seed(0)
        self.assertEqual(envs.action_space.sample().shape, (self.N,))

    def check_equals_singles(self, threads, copy=True):
        limit = 15  # short episodes: both time-limit truncations and terminations happen
        envs = rlzoo.make_vec("CartPole-v1", self.N, threads=threads, max_episode_steps=limit, episode_info=True,
                              copy=copy)
        singles = [rlzoo.make("CartPole-v1", max_episode_steps=limit, episode_info=True) for _ in range(self.N)]
        obs, info = envs.reset(seed=10)
        self.assertEqual(info, {})
        np.testing.assert_array_equal(obs, np.stack([e.reset(seed=10 + i)[0] for i, e in enumerate(singles)]))
        rng = np.random.default_rng(1)
        ended = truncated_seen = terminated_seen = 0
        for t in range(120):
            actions = rng.integers(0, 2, size=self.N)
            obs, rewards, terms, truncs, info = envs.step(actions)
            e_obs, e_rewards, e_terms, e_truncs, e_final, e_episodes = step_singles(singles, actions)
            np.testing.assert_array_equal(obs, e_obs, f"step {t}")
            np.testing.assert_array_equal(rewards, e_rewards)
            np.testing.assert_array_equal(terms, e_terms)
            np.testing.assert_array_equal(truncs, e_truncs)
            self.assertEqual((obs.dtype, rewards.dtype, terms.dtype, truncs.dtype),
                             (np.float32, np.float64, np.bool_, np.bool_))
            done = terms | truncs
            if not done.any():
                self.assertNotIn("final_obs", info)
                continue
            for key in ("_final_obs", "_final_info", "_episode"):
                np.testing.assert_array_equal(info[key], done)
            np.testing.assert_array_equal(info["final_info"]["_episode"], done)
            for i in range(self.N):
                if done[i]:
                    np.testing.assert_array_equal(info["final_obs"][i], e_final[i])
                    self.assertEqual(info["episode"]["r"][i], e_episodes[i]["r"])
                    self.assertEqual(info["episode"]["l"][i], e_episodes[i]["l"])
                    self.assertEqual(info["final_info"]["episode"]["l"][i], e_episodes[i]["l"])
                elif copy:  # copy=True: rows of envs that did not finish are zero
                    self.assertFalse(info["final_obs"][i].any())
                    self.assertEqual(info["episode"]["l"][i], 0)
            ended += int(done.sum())
            truncated_seen += int(truncs.sum())
            terminated_seen += int(terms.sum())
        self.assertGreater(truncated_seen, 0)
        self.assertGreater(terminated_seen, 0)

    def test_batch_equals_single_envs(self):
        self.check_equals_singles(threads=1)

    def test_threaded_batch_equals_single_envs(self):
        self.check_equals_singles(threads=2)

    def test_threaded_batch_without_copies_equals_single_envs(self):
        # copy=False: the threads that step the rows also copy them into the returned buffers
        self.check_equals_singles(threads=2, copy=False)

    def test_actions_of_any_integer_dtype(self):
        rng = np.random.default_rng(2)
        actions = [rng.integers(0, 2, size=self.N) for _ in range(40)]
        results = []
        for dtype in (np.int64, np.int8, np.uint16, np.int32, bool):
            envs = rlzoo.make_vec("CartPole-v1", self.N)
            envs.reset(seed=3)
            results.append(np.stack([envs.step(a.astype(dtype))[0] for a in actions]))
        envs = rlzoo.make_vec("CartPole-v1", self.N)
        envs.reset(seed=3)
        results.append(np.stack([envs.step(a.tolist())[0] for a in actions]))  # a list of ints
        # int64 arrays that cannot be used in place: byte-swapped, strided, another type number
        for convert in (lambda a: a.astype(">i8"), lambda a: np.repeat(a, 2)[::2], lambda a: a.astype(np.longlong)):
            envs = rlzoo.make_vec("CartPole-v1", self.N)
            envs.reset(seed=3)
            results.append(np.stack([envs.step(convert(a))[0] for a in actions]))
        for r in results[1:]:
            np.testing.assert_array_equal(r, results[0])

    def test_bad_actions_raise_and_leave_the_batch_as_it_was(self):
        envs = rlzoo.make_vec("CartPole-v1", self.N)
        twin = rlzoo.make_vec("CartPole-v1", self.N)
        envs.reset(seed=4)
        twin.reset(seed=4)
        bad = np.zeros(self.N, dtype=np.int64)
        bad[5] = 2
        with self.assertRaises(rlzoo.UserError) as caught:
            envs.step(bad)
        self.assertIn("actions[5]: env CartPole-v1: invalid action 2 for action space Discrete(2): it is out of range",
                      str(caught.exception))
        with self.assertRaises(rlzoo.UserError) as caught:
            envs.step(np.zeros(self.N + 1, dtype=np.int64))
        self.assertIn("expected shape (8,)", str(caught.exception))
        with self.assertRaises(rlzoo.UserError) as caught:
            envs.step(np.zeros(self.N, dtype=np.float32))
        self.assertIn("expected integers", str(caught.exception))
        ones = np.ones(self.N, dtype=np.int64)
        np.testing.assert_array_equal(envs.step(ones)[0], twin.step(ones)[0])

    def test_continuous_actions(self):
        envs = rlzoo.make_vec("Pendulum-v1", 4)
        obs, _ = envs.reset(seed=0)
        self.assertEqual((obs.shape, obs.dtype), ((4, 3), np.float32))
        singles = [rlzoo.make("Pendulum-v1", episode_info=True) for _ in range(4)]
        for i, e in enumerate(singles):
            e.reset(seed=i)
        actions = np.linspace(-2, 2, 4)[:, None]  # float64 [4, 1]
        obs, rewards, *_ = envs.step(actions)
        expected = [e.step(a) for e, a in zip(singles, actions)]
        np.testing.assert_array_equal(obs, np.stack([x[0] for x in expected]))
        np.testing.assert_array_equal(rewards, [x[1] for x in expected])
        with self.assertRaises(rlzoo.UserError):
            envs.step(np.zeros(4))  # [4] where [4, 1] is expected

    def test_turn_based_games_report_the_acting_agent(self):
        envs = rlzoo.make_vec("DouDizhu-v0", 3)
        obs, info = envs.reset(seed=0)
        self.assertEqual((obs.shape, obs.dtype), ((3, 1240), np.uint8))
        np.testing.assert_array_equal(info["acting_agent"], [0, 0, 0])  # the landlord leads
        obs, _, _, _, info = envs.step(np.zeros(3, dtype=np.int64))     # each plays its first legal move
        np.testing.assert_array_equal(info["acting_agent"], [1, 1, 1])
        self.assertTrue(info["_acting_agent"].all())


class Copies(unittest.TestCase):
    def test_copy_true_returns_fresh_writable_arrays(self):
        envs = rlzoo.make_vec("CartPole-v1", 4)
        self.assertTrue(envs.copy)
        first, _ = envs.reset(seed=0)
        second = envs.step(np.zeros(4, dtype=np.int64))[0]
        self.assertFalse(np.shares_memory(first, second))
        self.assertTrue(second.flags.writeable)
        second[:] = 0  # ours to change

    def test_copy_false_alternates_two_read_only_buffers(self):
        envs = rlzoo.make_vec("CartPole-v1", 4, copy=False)
        copied = rlzoo.make_vec("CartPole-v1", 4)
        obs, _ = envs.reset(seed=0)
        copied.reset(seed=0)
        self.assertFalse(obs.flags.writeable)
        with self.assertRaises(ValueError):
            obs[0, 0] = 1.0
        before = obs.copy()
        out = envs.step(np.ones(4, dtype=np.int64))
        self.assertIsNot(out[0], obs)  # the other buffer: the reset's observations still hold
        np.testing.assert_array_equal(obs, before)
        expected = copied.step(np.ones(4, dtype=np.int64))
        for got, want in zip(out[:4], expected[:4]):
            np.testing.assert_array_equal(got, want)
        third = envs.step(np.ones(4, dtype=np.int64))
        self.assertIs(third[0], obs)  # the step after next reuses the first buffer
        self.assertFalse(np.array_equal(obs, before))

    def test_named_values_are_masked_where_an_env_holds_none(self):
        envs = rlzoo.make_vec("HalfCheetah-v4", 2, max_episode_steps=2)
        envs.reset(seed=0)
        actions = np.zeros((2, 6), np.float32)
        info = envs.step(actions)[4]
        np.testing.assert_array_equal(info["_x_velocity"], [True, True])
        info = envs.step(actions)[4]  # both episodes end; same-step: both envs were just reset
        self.assertIn("x_velocity", info)  # the key stays
        np.testing.assert_array_equal(info["_x_velocity"], [False, False])
        info = envs.step(actions)[4]
        np.testing.assert_array_equal(info["_x_velocity"], [True, True])

    def test_next_step_autoreset(self):
        envs = rlzoo.make_vec("CartPole-v1", 2, autoreset_mode="next_step", max_episode_steps=3)
        self.assertEqual(envs.metadata["autoreset_mode"], "next_step")  # the name without Gymnasium
        envs.reset(seed=0)
        single = rlzoo.make("CartPole-v1", max_episode_steps=3)
        single.reset(seed=0)
        for _ in range(3):
            obs, rewards, term, trunc, info = envs.step(np.zeros(2, np.int64))
            expected = single.step(0)
        np.testing.assert_array_equal(trunc, [True, True])
        np.testing.assert_array_equal(obs[0], expected[0])  # the final observation itself
        self.assertNotIn("final_obs", info)
        obs, rewards, term, trunc, info = envs.step(np.array([5, 5]))  # a reset step: actions ignored
        np.testing.assert_array_equal(rewards, [0.0, 0.0])
        np.testing.assert_array_equal(term | trunc, [False, False])
        np.testing.assert_array_equal(obs[0], single.reset()[0])  # the env's stream goes on
        with self.assertRaises(rlzoo.UserError):
            envs.step(np.array([5, 5]))  # now a real step, and 5 is no action

    def test_views_keep_the_envs_alive_after_close(self):
        envs = rlzoo.make_vec("CartPole-v1", 4, copy=False)
        obs, _ = envs.reset(seed=1)
        expected = obs.copy()
        envs.close()
        self.assertTrue(envs.closed)
        with self.assertRaises(rlzoo.UserError):
            envs.step(np.zeros(4, dtype=np.int64))
        del envs
        gc.collect()
        np.testing.assert_array_equal(obs, expected)

    def test_copy_can_be_switched(self):
        envs = rlzoo.make_vec("CartPole-v1", 2, copy=False)
        reference = rlzoo.make_vec("CartPole-v1", 2)
        envs.reset(seed=0)
        reference.reset(seed=0)
        zeros = np.zeros(2, dtype=np.int64)
        envs.copy = True
        a = envs.step(zeros)[0]
        b = envs.step(zeros)[0]
        self.assertFalse(np.shares_memory(a, b))
        np.testing.assert_array_equal(a, reference.step(zeros)[0])
        np.testing.assert_array_equal(b, reference.step(zeros)[0])
        envs.copy = False  # and back: views again, with the same values as fresh copies
        for _ in range(3):
            got, want = envs.step(zeros)[0], reference.step(zeros)[0]
            self.assertFalse(got.flags.writeable)
            np.testing.assert_array_equal(got, want)


if __name__ == "__main__":
    unittest.main()
