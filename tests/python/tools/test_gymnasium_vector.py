"""rlzoo.make_vec under Gymnasium 1.x's vector tools (Gymnasium 1.0.0 and 1.2.3): a
gymnasium.vector.VectorEnv whose two autoreset modes step exactly as Gymnasium's own
SyncVectorEnv over the same rlzoo envs, gymnasium.make_vec("rlzoo/<id>"), the vector wrappers
(RecordEpisodeStatistics among them), named info values with masks, and the copy contract
with SB3's _last_obs pattern written out."""

import unittest

import gymnasium
import numpy as np

import rlzoo

HAS_MODES = hasattr(gymnasium.vector, "AutoresetMode")  # Gymnasium 1.1 and later


def random_actions(n, steps, seed=0):
    return np.random.default_rng(seed).integers(0, 2, size=(steps, n))


class Modes(unittest.TestCase):
    def test_it_is_a_gymnasium_vector_env_with_a_truthful_autoreset_mode(self):
        envs = rlzoo.make_vec("CartPole-v1", 4)
        self.assertIsInstance(envs, gymnasium.vector.VectorEnv)
        self.assertEqual(envs.autoreset_mode, "same_step")
        nxt = rlzoo.make_vec("CartPole-v1", 4, autoreset_mode="next_step")
        if HAS_MODES:
            self.assertIs(envs.metadata["autoreset_mode"], gymnasium.vector.AutoresetMode.SAME_STEP)
            self.assertIs(nxt.metadata["autoreset_mode"], gymnasium.vector.AutoresetMode.NEXT_STEP)
            enum = rlzoo.make_vec("CartPole-v1", 2, autoreset_mode=gymnasium.vector.AutoresetMode.NEXT_STEP)
            self.assertEqual(enum.autoreset_mode, "next_step")
        with self.assertRaises(ValueError):
            rlzoo.make_vec("CartPole-v1", 2, autoreset_mode="sometimes")

    def test_next_step_matches_gymnasiums_sync_vector_env(self):
        n, steps = 4, 400
        theirs = gymnasium.vector.SyncVectorEnv([lambda: rlzoo.make("CartPole-v1", max_episode_steps=60)] * n)
        ours = rlzoo.make_vec("CartPole-v1", n, autoreset_mode="next_step", max_episode_steps=60)
        a, _ = theirs.reset(seed=5)
        b, _ = ours.reset(seed=5)
        np.testing.assert_array_equal(a, b)
        ends = 0
        for actions in random_actions(n, steps):
            x = theirs.step(actions)
            y = ours.step(actions)
            for u, v in zip(x[:4], y[:4]):
                np.testing.assert_array_equal(u, v)
            ends += int(np.sum(x[2] | x[3]))
        self.assertGreater(ends, 10)  # resets happened, terminations and truncations

    @unittest.skipUnless(HAS_MODES, "Gymnasium 1.0 has next-step autoreset only")
    def test_same_step_matches_gymnasiums_sync_vector_env(self):
        n, steps = 3, 300
        theirs = gymnasium.vector.SyncVectorEnv([lambda: rlzoo.make("CartPole-v1")] * n,
                                                autoreset_mode=gymnasium.vector.AutoresetMode.SAME_STEP)
        ours = rlzoo.make_vec("CartPole-v1", n)
        np.testing.assert_array_equal(theirs.reset(seed=1)[0], ours.reset(seed=1)[0])
        for actions in random_actions(n, steps, seed=2):
            x = theirs.step(actions)
            y = ours.step(actions)
            for u, v in zip(x[:4], y[:4]):
                np.testing.assert_array_equal(u, v)
            done = x[2] | x[3]
            if done.any():
                np.testing.assert_array_equal(y[4]["_final_obs"], done)
                for i in np.flatnonzero(done):
                    np.testing.assert_array_equal(y[4]["final_obs"][i], x[4]["final_obs"][i])

    def test_gymnasium_make_vec_gives_rlzoos_vector_env(self):
        envs = gymnasium.make_vec("rlzoo/CartPole-v1", num_envs=3)
        self.assertIsInstance(envs, rlzoo.VectorEnv)
        self.assertEqual(envs.autoreset_mode, "next_step")  # Gymnasium's default
        self.assertEqual(envs.num_envs, 3)
        obs, _ = envs.reset(seed=0)
        self.assertEqual(obs.shape, (3, 4))


class Wrappers(unittest.TestCase):
    def episodes_by_hand(self, mode, n=4, steps=300):
        """(returns, lengths) of the episodes the vector env ends, counted from its outputs."""
        envs = rlzoo.make_vec("CartPole-v1", n, autoreset_mode=mode, max_episode_steps=40)
        envs.reset(seed=3)
        ret, length, done_before = np.zeros(n), np.zeros(n, int), np.zeros(n, bool)
        episodes = []
        for actions in random_actions(n, steps, seed=4):
            _, rewards, term, trunc, _ = envs.step(actions)
            for i in range(n):
                if mode == "next_step" and done_before[i]:
                    continue  # the reset step
                ret[i] += rewards[i]
                length[i] += 1
                if term[i] or trunc[i]:
                    episodes.append((ret[i], length[i]))
                    ret[i], length[i] = 0, 0
            done_before = term | trunc
        return episodes

    @staticmethod
    def recorded(envs):
        """The (return, length) pairs RecordEpisodeStatistics reports over 300 random steps."""
        envs = gymnasium.wrappers.vector.RecordEpisodeStatistics(envs)
        envs.reset(seed=3)
        seen = []
        for actions in random_actions(4, 300, seed=4):
            info = envs.step(actions)[4]
            if "episode" in info:
                for i in np.flatnonzero(info["_episode"]):
                    seen.append((float(info["episode"]["r"][i]), int(info["episode"]["l"][i])))
        return sorted(seen)

    def test_record_episode_statistics_reports_as_over_gymnasiums_own_vector_env(self):
        modes = ["next_step", "same_step"] if HAS_MODES else ["next_step"]
        for mode in modes:
            with self.subTest(mode):
                kwargs = {"autoreset_mode": gymnasium.vector.AutoresetMode[mode.upper()]} if HAS_MODES else {}
                theirs = gymnasium.vector.SyncVectorEnv([lambda: rlzoo.make("CartPole-v1", max_episode_steps=40)] * 4,
                                                        **kwargs)
                ours = rlzoo.make_vec("CartPole-v1", 4, autoreset_mode=mode, max_episode_steps=40)
                recorded = self.recorded(ours)
                self.assertGreater(len(recorded), 20)
                self.assertEqual(recorded, self.recorded(theirs))
                if mode == "next_step":  # and they are the episodes played
                    self.assertEqual(recorded, sorted((float(r), int(l)) for r, l in self.episodes_by_hand(mode)))

    def test_common_vector_wrappers_run_over_it(self):
        envs = rlzoo.make_vec("Pendulum-v1", 3, autoreset_mode="next_step")
        envs = gymnasium.wrappers.vector.ClipAction(envs)
        envs = gymnasium.wrappers.vector.NormalizeObservation(envs)
        envs = gymnasium.wrappers.vector.NormalizeReward(envs)
        envs = gymnasium.wrappers.vector.RecordEpisodeStatistics(envs)
        obs, _ = envs.reset(seed=0)
        lengths = []
        for _ in range(210):  # through one time limit (200)
            obs, rewards, term, trunc, info = envs.step(np.full((3, 1), 5.0, np.float32))  # clipped to 2
            self.assertTrue(np.all(np.isfinite(obs)))
            if "episode" in info:
                lengths += info["episode"]["l"][info["_episode"]].tolist()
        self.assertEqual(lengths, [200, 200, 200])


class Info(unittest.TestCase):
    def test_named_values_come_per_env_with_masks(self):
        envs = rlzoo.make_vec("HalfCheetah-v4", 2)
        singles = [rlzoo.make("HalfCheetah-v4") for _ in range(2)]
        envs.reset(seed=0)
        for i, s in enumerate(singles):
            s.reset(seed=i)
        actions = np.random.default_rng(0).uniform(-1, 1, (2, 6)).astype(np.float32)
        _, _, _, _, info = envs.step(actions)
        for i, s in enumerate(singles):
            single_info = s.step(actions[i])[4]
            for key in ("x_velocity", "reward_ctrl", "x_position"):
                self.assertEqual(info[key][i], single_info[key])
                self.assertTrue(info["_" + key][i])

    def test_no_episode_key_unless_asked(self):
        envs = rlzoo.make_vec("CartPole-v1", 2, max_episode_steps=2)
        envs.reset(seed=0)
        envs.step(np.zeros(2, np.int64))
        info = envs.step(np.zeros(2, np.int64))[4]
        self.assertNotIn("episode", info)
        self.assertIn("final_obs", info)
        asked = rlzoo.make_vec("CartPole-v1", 2, max_episode_steps=2, episode_info=True)
        asked.reset(seed=0)
        asked.step(np.zeros(2, np.int64))
        info = asked.step(np.zeros(2, np.int64))[4]
        np.testing.assert_array_equal(info["episode"]["l"], [2, 2])


class CopyContract(unittest.TestCase):
    def test_sb3s_last_obs_pattern_is_safe_without_copies(self):
        # SB3's rollout loop, written out: the previous observation is stored after the step.
        envs = rlzoo.make_vec("CartPole-v1", 8, copy=False)
        reference = rlzoo.make_vec("CartPole-v1", 8, copy=True)
        last_obs, _ = envs.reset(seed=0)
        expected_last, _ = reference.reset(seed=0)
        for actions in random_actions(8, 50):
            new_obs, _, _, _, _ = envs.step(actions)
            stored = np.array(last_obs)  # rollout_buffer.add(self._last_obs, ...)
            np.testing.assert_array_equal(stored, expected_last)
            self.assertFalse(new_obs.flags.writeable)
            expected_last = reference.step(actions)[0]
            last_obs = new_obs


if __name__ == "__main__":
    unittest.main()
