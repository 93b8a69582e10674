"""rlzoo.load_agent / make_agent: an agent trained by the rlzoo CLI ($RLZOO_CLI) is loaded in
Python; predict() on single observations and batches is deterministic, of the action space's
shape and dtype, and plays the same episodes as `rlzoo enjoy` (the C++ agent acting on the C++
env); evaluate() equals the CLI's numbers. An agent trained through the bindings round-trips
through save/load."""

import os
import re
import shutil
import subprocess
import tempfile
import unittest

import numpy as np

import rlzoo

CLI = os.environ.get("RLZOO_CLI")


def play_episode(agent, env, seed):
    """One deterministic episode, acting with predict() in Python: (return, length)."""
    obs, _ = env.reset(seed=seed)
    total, length = 0.0, 0
    while True:
        action, _ = agent.predict(obs)
        obs, reward, terminated, truncated, _ = env.step(action)
        total += reward
        length += 1
        if terminated or truncated:
            return total, length


@unittest.skipUnless(rlzoo.has_agents, "rlzoo was built without LibTorch")
class TrainedByTheCli(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="rlzoo_py_agents_")
        cls.run_dir = os.path.join(cls.tmp, "run")
        if CLI is None:
            raise unittest.SkipTest("RLZOO_CLI is not set (CTest sets it to the rlzoo executable)")
        # A short run: 1024 steps of PPO leave a policy that is far from perfect, so that
        # episodes differ in length and a wrong action shows.
        subprocess.run([CLI, "train", "ppo", "CartPole-v1", "--no-preset", "--set", "n_timesteps=1024", "--set",
                        "hyperparams.n_steps=256", "--seed", "3", "--run-dir", cls.run_dir, "-q"],
                       check=True, capture_output=True, text=True)
        cls.agent = rlzoo.load_agent(cls.run_dir)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def test_attributes(self):
        a = self.agent
        self.assertEqual((a.algorithm, a.env_id), ("ppo", "CartPole-v1"))
        self.assertEqual(a.num_timesteps, 1024)
        self.assertFalse(a.recurrent)
        self.assertEqual(a.action_space, rlzoo.spaces.Discrete(2))
        self.assertEqual(a.observation_space.shape, (4,))
        self.assertIn("algo: ppo", a.config)

    def test_predict_shapes_dtypes_and_determinism(self):
        env = rlzoo.make("CartPole-v1")
        obs, _ = env.reset(seed=0)
        action, state = self.agent.predict(obs)
        self.assertIsNone(state)
        self.assertIsInstance(action, np.int64)
        self.assertIn(action, env.action_space)
        rng = np.random.default_rng(0)
        batch = rng.uniform(-0.3, 0.3, size=(64, 4)).astype(np.float32)
        actions, _ = self.agent.predict(batch)
        self.assertEqual((actions.shape, actions.dtype), ((64,), np.int64))
        self.assertTrue(set(actions.tolist()) <= {0, 1})
        np.testing.assert_array_equal(actions, self.agent.predict(batch)[0])
        # A batch gives what its rows give one by one; float64 and lists are converted.
        np.testing.assert_array_equal(actions, [self.agent.predict(row)[0] for row in batch])
        np.testing.assert_array_equal(actions, self.agent.predict(batch.astype(np.float64))[0])
        self.assertEqual(self.agent.predict(batch[0].tolist())[0], actions[0])
        sampled, _ = self.agent.predict(batch, deterministic=False)
        self.assertEqual(sampled.shape, (64,))
        with self.assertRaises(ValueError):
            self.agent.predict(np.zeros((2, 3, 4), dtype=np.float32))
        with self.assertRaises(rlzoo.UserError):
            self.agent.predict(np.zeros((2, 5), dtype=np.float32))

    def test_predict_plays_the_episodes_of_rlzoo_enjoy(self):
        out = subprocess.run([CLI, "enjoy", self.run_dir, "-n", "3"], check=True, capture_output=True, text=True).stdout
        cli = [(float(r), int(l)) for r, l in re.findall(r"episode \d+: return ([\d.]+), length (\d+)", out)]
        self.assertEqual(len(cli), 3, out)
        env = rlzoo.make("CartPole-v1")
        python = [play_episode(self.agent, env, 1_000_000 + k) for k in range(3)]  # the seeds rlzoo eval uses
        self.assertEqual(python, cli)
        stats = self.agent.evaluate(episodes=3)
        self.assertEqual(list(zip(stats["returns"], stats["lengths"])), cli)
        self.assertAlmostEqual(stats["mean_return"], np.mean([r for r, _ in cli]))


@unittest.skipUnless(rlzoo.has_agents, "rlzoo was built without LibTorch")
class TrainedThroughTheBindings(unittest.TestCase):
    def test_learn_save_and_load(self):
        agent = rlzoo.make_agent("ppo", "CartPole-v1", {"hyperparams.n_steps": 64, "hyperparams.batch_size": 32,
                                                         "hyperparams.n_epochs": 2, "seed": 1})
        self.assertEqual(agent.num_timesteps, 0)
        self.assertIs(agent.learn(256), agent)
        self.assertGreaterEqual(agent.num_timesteps, 256)
        batch = np.random.default_rng(1).uniform(-0.2, 0.2, size=(32, 4)).astype(np.float32)
        with tempfile.TemporaryDirectory() as tmp:
            agent.save(os.path.join(tmp, "agent"))
            loaded = rlzoo.load_agent(os.path.join(tmp, "agent"))
        self.assertEqual(loaded.num_timesteps, agent.num_timesteps)
        np.testing.assert_array_equal(loaded.predict(batch)[0], agent.predict(batch)[0])
        self.assertEqual(loaded.evaluate(2)["returns"], agent.evaluate(2)["returns"])

    def test_continuous_actions_are_float32_within_the_bounds(self):
        agent = rlzoo.make_agent("ppo", "Pendulum-v1", {"seed": 2})
        obs = np.random.default_rng(2).uniform(-1, 1, size=(16, 3)).astype(np.float32)
        actions, _ = agent.predict(obs, deterministic=False)
        self.assertEqual((actions.shape, actions.dtype), ((16, 1), np.float32))
        self.assertTrue(np.all(np.abs(actions) <= 2.0))
        single, _ = agent.predict(obs[0])
        self.assertEqual(single.shape, (1,))

    def test_recurrent_state_is_carried_through_predict(self):
        preset = os.path.join(os.environ.get("RLZOO_SOURCE_DIR", "../.."), "configs/ppo/CartPoleNoVel-v1.yaml")
        agent = rlzoo.agent_from_preset(preset, {"seed": 1})  # an LSTM policy (untrained is enough)
        self.assertTrue(agent.recurrent)
        obs = np.random.default_rng(3).uniform(-0.2, 0.2, size=(3, 2)).astype(np.float32)
        _, state = agent.predict(obs, episode_start=np.ones(3, dtype=bool))
        self.assertEqual((state.shape, state.dtype), ((4, 1, 3, 64), np.float32))  # [h/c x actor/critic, layers, B, hidden]
        _, carried = agent.predict(obs, state, episode_start=np.zeros(3, dtype=bool))
        self.assertGreater(np.abs(carried - state).max(), 0)  # the state moved on
        # Episodes played in Python, state passed back each step, equal the C++ evaluate().
        env = rlzoo.make("CartPoleNoVel-v1")
        lengths = []
        for k in range(3):
            obs, _ = env.reset(seed=1_000_000 + k)
            state, start, length, done = None, True, 0, False
            while not done:
                action, state = agent.predict(obs, state, episode_start=np.array([start]))
                obs, _, terminated, truncated, _ = env.step(action)
                start, length, done = False, length + 1, terminated or truncated
            lengths.append(length)
        self.assertEqual(lengths, agent.evaluate(3)["lengths"])

    def test_errors_name_what_was_wrong(self):
        with self.assertRaises(rlzoo.UserError) as caught:
            rlzoo.load_agent("/nonexistent/rlzoo-agent")
        self.assertIn("/nonexistent/rlzoo-agent", str(caught.exception))
        with self.assertRaises(rlzoo.UserError) as caught:
            rlzoo.make_agent("ppo", "CartPole-v1", {"hyperparams.bogus": 1})
        self.assertIn("bogus", str(caught.exception))
        with self.assertRaises(rlzoo.UserError):
            rlzoo.make_agent("no-such-algo", "CartPole-v1")
        with self.assertRaises(rlzoo.UserError) as caught:  # the training driver's guard
            rlzoo.make_agent("ppo", "CartPole-v1").learn(0)
        self.assertIn("learn: env steps must be >= 1, got 0", str(caught.exception))
        self.assertIn("ppo", rlzoo.list_algorithms())


if __name__ == "__main__":
    unittest.main()
