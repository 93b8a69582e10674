"""CleanRL's ppo.py's env handling with Gymnasium 0.29.1, written out as it does it (its
make_env thunk: gym.make(env_id) then RecordEpisodeStatistics; SyncVectorEnv; episodic returns
read from infos["final_info"]) for --env-id rlzoo/CartPole-v1, with a seeded random policy in
place of its network: the returns it would log are the episodes the envs played."""

import unittest

import gymnasium as gym
import numpy as np

import rlzoo  # noqa: F401  (registers rlzoo/<id>)


def make_env(env_id, idx, capture_video, run_name):
    def thunk():
        env = gym.make(env_id)
        env = gym.wrappers.RecordEpisodeStatistics(env)
        return env

    return thunk


class CleanRlShape(unittest.TestCase):
    def test_episodic_returns_are_logged_for_rlzoo_cartpole(self):
        num_envs, steps = 4, 600
        envs = gym.vector.SyncVectorEnv([make_env("rlzoo/CartPole-v1", i, False, "test") for i in range(num_envs)])
        self.assertIsInstance(envs.single_action_space, gym.spaces.Discrete)
        next_obs, _ = envs.reset(seed=1)
        rng = np.random.default_rng(1)
        logged, returns, running = [], [], np.zeros(num_envs)
        for global_step in range(steps):
            action = rng.integers(0, 2, size=num_envs)
            next_obs, reward, terminations, truncations, infos = envs.step(action)
            running += reward
            for i in np.flatnonzero(terminations | truncations):
                returns.append(running[i])
                running[i] = 0.0
            if "final_info" in infos:
                for info in infos["final_info"]:
                    if info and "episode" in info:
                        logged.append(float(np.asarray(info["episode"]["r"]).item()))
        self.assertGreater(len(logged), 20)
        self.assertEqual(sorted(logged), sorted(returns))
        print(f"{len(logged)} episodic returns logged, mean {np.mean(logged):.1f}")


if __name__ == "__main__":
    unittest.main()
