"""Stable-Baselines3 2.4.1 (Gymnasium 1.0.0, Debian's torch) on rlzoo: PPO trains on
rlzoo.make_vec("CartPole-v1", 8, api="sb3") passed as its env, with rl-baselines3-zoo's
CartPole values, to a deterministic evaluation of 500; the VecEnv's step contract by hand."""

import os
import tempfile
import unittest

import numpy as np
import torch
from stable_baselines3 import PPO
from stable_baselines3.common.evaluation import evaluate_policy
from stable_baselines3.common.vec_env import VecEnv

import rlzoo


class VecEnvContract(unittest.TestCase):
    def test_step_wait_gives_sb3s_infos(self):
        envs = rlzoo.make_vec("CartPole-v1", 2, api="sb3", max_episode_steps=3)
        self.assertIsInstance(envs, VecEnv)
        self.assertEqual(envs.observation_space.shape, (4,))  # one env's, as SB3 expects
        envs.seed(4)
        obs = envs.reset()
        single, _ = rlzoo.make("CartPole-v1").reset(seed=5)  # env 1: seed + 1
        np.testing.assert_array_equal(obs[1], single)
        for t in range(3):
            envs.step_async(np.array([0, 1]))
            obs, rewards, dones, infos = envs.step_wait()
        np.testing.assert_array_equal(dones, [True, True])
        for i in range(2):
            self.assertTrue(infos[i]["TimeLimit.truncated"])
            self.assertEqual(infos[i]["episode"], {"r": 3.0, "l": 3})
            self.assertEqual(infos[i]["terminal_observation"].shape, (4,))
            self.assertFalse(np.array_equal(infos[i]["terminal_observation"], obs[i]))  # obs is the next episode's

    def test_gymnasium_api_is_refused_where_sb3_needs_its_own(self):
        with self.assertRaises(ValueError):
            rlzoo.make_vec("CartPole-v1", 2, api="sb3", autoreset_mode="next_step")
        with self.assertRaises(ValueError):
            rlzoo.make_vec("CartPole-v1", 2, api="keras")


class Learning(unittest.TestCase):
    def test_ppo_reaches_500_on_cartpole(self):
        torch.set_num_threads(1)
        envs = rlzoo.make_vec("CartPole-v1", 8, api="sb3")
        # rl-baselines3-zoo's hyperparams/ppo.yml CartPole-v1 entry (constant rates).
        model = PPO("MlpPolicy", envs, n_steps=32, batch_size=256, gae_lambda=0.8, gamma=0.98, n_epochs=20,
                    ent_coef=0.0, learning_rate=1e-3, clip_range=0.2, seed=0, device="cpu")
        # SB3's logger makes a folder under /tmp on every learn() unless told where; this one goes.
        with tempfile.TemporaryDirectory(prefix="rlzoo-sb3-") as logs:
            os.environ["SB3_LOGDIR"] = logs
            try:
                model.learn(100_000)
            finally:
                del os.environ["SB3_LOGDIR"]
        mean, std = evaluate_policy(model, rlzoo.make("CartPole-v1"), n_eval_episodes=10, deterministic=True)
        print(f"SB3 PPO on rlzoo.make_vec: deterministic evaluation {mean} +/- {std} over 10 episodes")
        self.assertGreaterEqual(mean, 475.0)


if __name__ == "__main__":
    unittest.main()
