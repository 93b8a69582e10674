"""rlzoo's envs under Gymnasium's own tools (run in each of scripts/python-tools' environments:
Gymnasium 1.0.0, 1.2.3 and 0.29.1): check_env with its render check on every registered env,
gymnasium.make("rlzoo/<id>") with one time limit, RecordEpisodeStatistics, np_random, pickling
and AsyncVectorEnv, truthful metadata and dtypes."""

import pickle
import unittest
import warnings

import gymnasium
import numpy as np
from gymnasium.utils.env_checker import check_env

import rlzoo

# MJCF-v0 needs a model file; DouDizhu-v0's actions index the legal moves of the moment (its
# Discrete(29985) holds every move, most of them illegal at any step), which check_env's
# unmasked samples cannot know (the info's "action_mask" says which are legal: tested below).
NOT_CHECKED = {"MJCF-v0": "needs model_path", "DouDizhu-v0": "actions index the current legal moves"}
MUJOCO = {"Ant-v4", "HalfCheetah-v4", "Hopper-v4", "Humanoid-v4", "InvertedDoublePendulum-v4",
          "InvertedPendulum-v4", "Reacher-v4", "Swimmer-v4", "Walker2d-v4"}
CLASSIC = {"CartPole-v1", "Acrobot-v1", "MountainCar-v0", "MountainCarContinuous-v0", "Pendulum-v1"}


def checked_envs():
    return [i for i in rlzoo.list_envs() if i not in NOT_CHECKED]


class CheckEnv(unittest.TestCase):
    def test_every_env_passes_check_env_with_its_render_check(self):
        self.assertTrue(rlzoo.has_gymnasium)
        for env_id in checked_envs():
            with self.subTest(env_id):
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")  # Gymnasium warns of infinite bounds, as for its own
                    env = rlzoo.make(env_id)
                    self.assertIsInstance(env, gymnasium.Env)
                    check_env(env)
                    made = gymnasium.make(f"rlzoo/{env_id}")
                    check_env(made.unwrapped)
                    for mode in env.metadata["render_modes"]:
                        check_env(rlzoo.make(env_id, render_mode=mode))

    def test_the_grid_worlds_draw_text_and_the_others_say_they_cannot(self):
        for env_id in checked_envs():
            env = rlzoo.make(env_id)
            with self.subTest(env_id):
                if env_id.startswith("GridWorld"):
                    self.assertEqual(env.metadata["render_modes"], ["ansi"])
                    self.assertEqual(env.metadata["render_fps"], 4)
                    drawn = gymnasium.make(f"rlzoo/{env_id}", render_mode="ansi")
                    drawn.reset(seed=0)
                    self.assertIsInstance(drawn.render(), str)
                elif env_id in CLASSIC or env_id in MUJOCO:
                    self.assertEqual(env.metadata["render_modes"], [])
                    with self.assertRaises(ValueError):
                        rlzoo.make(env_id, render_mode="rgb_array")
        self.assertEqual(rlzoo.make("CartPole-v1").metadata["render_fps"], 50)
        self.assertEqual(rlzoo.make("HalfCheetah-v4").metadata["render_fps"], 20)  # dt 0.05, as Gymnasium's
        self.assertEqual(rlzoo.make("Hopper-v4").metadata["render_fps"], 125)

    def test_spaces_and_dtypes_are_gymnasiums(self):
        for env_id in CLASSIC:
            ours, theirs = rlzoo.make(env_id), gymnasium.make(env_id)
            with self.subTest(env_id):
                # Bounds: CartPole's velocity bounds are float32's largest value in rlzoo (and
                # Gymnasium 0.29), infinite in Gymnasium 1.x; shapes and dtypes agree.
                self.assertEqual(ours.observation_space.shape, theirs.observation_space.shape)
                self.assertEqual(ours.observation_space.dtype, theirs.observation_space.dtype)
                self.assertEqual(ours.action_space, theirs.action_space)
                obs, _ = ours.reset(seed=0)
                self.assertEqual(obs.dtype, theirs.observation_space.dtype)
        for env_id in MUJOCO:  # Gymnasium's MuJoCo envs observe float64 and act in float32
            env = rlzoo.make(env_id)
            self.assertIsInstance(env.observation_space, gymnasium.spaces.Box)
            self.assertEqual(env.observation_space.dtype, np.float64)
            self.assertEqual(env.action_space.dtype, np.float32)


class MaskedClients(unittest.TestCase):
    def test_gymnasium_make_doudizhu_plays_whole_games_from_the_mask(self):
        # A generic client: Gymnasium's Discrete.sample(mask=...) over the info's action_mask.
        env = gymnasium.make("rlzoo/DouDizhu-v0")
        _, info = env.reset(seed=2)
        env.action_space.seed(3)
        games, steps = 0, 0
        while games < 2:
            action = env.action_space.sample(mask=info["action_mask"])
            self.assertLess(action, len(info["candidates"]))
            _, _, terminated, truncated, info = env.step(action)
            steps += 1
            if terminated or truncated:
                self.assertTrue(terminated)
                games += 1
                _, info = env.reset()
        self.assertGreater(steps, 20)


class MakeAndTimeLimit(unittest.TestCase):
    def test_gymnasium_make_applies_the_registered_limit_once(self):
        env = gymnasium.make("rlzoo/CartPole-v1")
        self.assertEqual(env.spec.max_episode_steps, 500)
        self.assertEqual(gymnasium.spec("rlzoo/CartPole-v1").max_episode_steps, 500)
        self.assertEqual(gymnasium.spec("rlzoo/CartPole-v1").reward_threshold, 475.0)
        limits, inner = 0, env
        while isinstance(inner, gymnasium.Wrapper):
            limits += isinstance(inner, gymnasium.wrappers.TimeLimit)
            inner = inner.env
        self.assertEqual(limits, 1)
        self.assertIsInstance(inner, rlzoo.Env)
        self.assertIsNone(inner.rlzoo_spec.max_episode_steps)  # the wrapper's limit, not a second one

    def test_a_longer_limit_than_rlzoos_holds(self):
        env = gymnasium.make("rlzoo/Pendulum-v1", max_episode_steps=250)  # rlzoo registers 200
        env.reset(seed=0)
        for t in range(250):
            _, _, terminated, truncated, _ = env.step(np.zeros(1, np.float32))
            self.assertFalse(terminated)
            self.assertEqual(truncated, t == 249)

    def test_rlzoo_make_keeps_its_own_limit_and_a_truthful_spec(self):
        env = rlzoo.make("Pendulum-v1")
        self.assertEqual(env.spec.id, "rlzoo/Pendulum-v1")
        self.assertEqual(env.spec.max_episode_steps, 200)
        again = env.spec.make()  # Gymnasium's way back to the same env: one limit, 200
        again.reset(seed=0)
        for t in range(200):
            truncated = again.step(np.zeros(1, np.float32))[3]
        self.assertTrue(truncated)

    def test_kwargs_and_render_mode_pass_through(self):
        env = gymnasium.make("rlzoo/CartPole-v1", sutton_barto_reward=True)
        env.reset(seed=0)
        self.assertEqual(env.step(0)[1], 0.0)  # Sutton and Barto's reward: 0 while alive
        with self.assertRaises(rlzoo.UserError):
            gymnasium.make("rlzoo/CartPole-v1", bogus=1)


class EpisodeStatistics(unittest.TestCase):
    def test_record_episode_statistics_over_an_rlzoo_env(self):
        env = gymnasium.wrappers.RecordEpisodeStatistics(rlzoo.make("CartPole-v1"))
        env.reset(seed=0)
        total, steps, done, info = 0.0, 0, False, {}
        while not done:
            _, reward, terminated, truncated, info = env.step(1)
            total, steps, done = total + reward, steps + 1, terminated or truncated
        self.assertEqual(float(np.asarray(info["episode"]["r"]).item()), total)
        self.assertEqual(int(np.asarray(info["episode"]["l"]).item()), steps)

    def test_no_episode_key_unless_asked(self):
        env = rlzoo.make("CartPole-v1", max_episode_steps=2)
        env.reset(seed=0)
        env.step(0)
        self.assertNotIn("episode", env.step(0)[4])
        asked = rlzoo.make("CartPole-v1", max_episode_steps=2, episode_info=True)
        asked.reset(seed=0)
        asked.step(0)
        self.assertEqual(asked.step(0)[4]["episode"], {"r": 2.0, "l": 2})


class SeedingAndPickling(unittest.TestCase):
    def test_np_random_and_the_action_space_follow_reset_seed(self):
        env = rlzoo.make("CartPole-v1")
        env.reset(seed=7)
        self.assertEqual(env.np_random.integers(1 << 30), np.random.default_rng(7).integers(1 << 30))
        first = [env.action_space.sample() for _ in range(8)]
        env.reset(seed=7)
        self.assertEqual([env.action_space.sample() for _ in range(8)], first)

    def test_envs_pickle_by_id_and_kwargs(self):
        env = rlzoo.make("Pendulum-v1", max_episode_steps=7, g=9.0)
        copy = pickle.loads(pickle.dumps(env))
        self.assertEqual(copy.rlzoo_spec.id, "Pendulum-v1")
        self.assertEqual(copy.rlzoo_spec.kwargs, {"g": 9.0})
        self.assertEqual(copy.spec.max_episode_steps, 7)
        a, _ = env.reset(seed=3)
        b, _ = copy.reset(seed=3)
        np.testing.assert_array_equal(a, b)

    def test_async_vector_env_runs_rlzoo_envs_in_processes(self):
        envs = gymnasium.vector.AsyncVectorEnv([lambda: rlzoo.make("CartPole-v1")] * 2)
        try:
            obs, _ = envs.reset(seed=0)
            self.assertEqual(obs.shape, (2, 4))
            obs, rewards, _, _, _ = envs.step(np.array([0, 1]))
            np.testing.assert_array_equal(rewards, [1.0, 1.0])
            single, _ = rlzoo.make("CartPole-v1").reset(seed=1)  # env 1 seeded with 0 + 1
            np.testing.assert_array_equal(envs.reset(seed=0)[0][1], single)
        finally:
            envs.close()


if __name__ == "__main__":
    unittest.main()
