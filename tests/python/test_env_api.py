"""rlzoo.make: Gymnasium's Env API over rlzoo's C++ envs (reset/step tuples, seeding, spaces,
spec, info, errors), and CartPole's dynamics against Gymnasium's equations in Python."""

import math
import unittest

import numpy as np

import rlzoo


def gymnasium_cartpole_step(state, action):
    """Gymnasium's CartPole-v1 step on a float64 state, with Python floats and libm as
    Gymnasium computes it: (next state, terminated)."""
    gravity, masspole, total_mass, length, force_mag, tau = 9.8, 0.1, 1.1, 0.5, 10.0, 0.02
    polemass_length = masspole * length
    x, x_dot, theta, theta_dot = (float(v) for v in state)
    force = force_mag if action == 1 else -force_mag
    costheta, sintheta = math.cos(theta), math.sin(theta)
    temp = (force + polemass_length * theta_dot**2 * sintheta) / total_mass
    thetaacc = (gravity * sintheta - costheta * temp) / (length * (4.0 / 3.0 - masspole * costheta**2 / total_mass))
    xacc = temp - polemass_length * thetaacc * costheta / total_mass
    x, x_dot = x + tau * x_dot, x_dot + tau * xacc
    theta, theta_dot = theta + tau * theta_dot, theta_dot + tau * thetaacc
    terminated = x < -2.4 or x > 2.4 or theta < -12 * 2 * math.pi / 360 or theta > 12 * 2 * math.pi / 360
    return np.array([x, x_dot, theta, theta_dot]), terminated


class SpacesAndSpec(unittest.TestCase):
    def test_cartpole_spaces_and_spec(self):
        env = rlzoo.make("CartPole-v1")
        obs_space, act_space = env.observation_space, env.action_space
        self.assertIsInstance(obs_space, rlzoo.spaces.Box)
        self.assertEqual(obs_space.shape, (4,))
        self.assertEqual(obs_space.dtype, np.float32)
        f32max = np.finfo(np.float32).max
        np.testing.assert_array_equal(obs_space.high, np.array([4.8, f32max, 0.41887903, f32max], dtype=np.float32))
        np.testing.assert_array_equal(obs_space.low, -obs_space.high)
        self.assertEqual(act_space, rlzoo.spaces.Discrete(2))
        self.assertEqual(act_space.shape, ())
        self.assertEqual(env.spec.id, "CartPole-v1")
        self.assertEqual(env.spec.max_episode_steps, 500)
        self.assertEqual(env.spec.reward_threshold, 475.0)
        self.assertIs(env.unwrapped, env)

    def test_space_sample_contains_and_seed(self):
        space = rlzoo.make("CartPole-v1").action_space
        space.seed(3)
        first = [space.sample() for _ in range(20)]
        space.seed(3)
        self.assertEqual(first, [space.sample() for _ in range(20)])
        self.assertEqual(set(int(a) for a in first), {0, 1})
        self.assertIsInstance(first[0], np.int64)
        self.assertIn(1, space)
        self.assertIn(np.int32(0), space)
        self.assertNotIn(2, space)
        self.assertNotIn(-1, space)
        self.assertNotIn(1.0, space)

        box = rlzoo.make("Pendulum-v1").action_space
        self.assertEqual((box.shape, box.dtype), ((1,), np.float32))
        np.testing.assert_array_equal(box.low, [-2.0])
        box.seed(5)
        samples = np.array([box.sample() for _ in range(200)])
        self.assertEqual(samples.dtype, np.float32)
        self.assertTrue(np.all((samples >= -2.0) & (samples <= 2.0)))
        self.assertTrue(box.contains(np.array([1.5], dtype=np.float32)))
        self.assertFalse(box.contains(np.array([2.5], dtype=np.float32)))
        self.assertFalse(box.contains(np.array([0.0, 0.0], dtype=np.float32)))

    def test_registry_listing(self):
        ids = rlzoo.list_envs()
        self.assertIn("CartPole-v1", ids)
        self.assertIn("DouDizhu-v0", ids)
        self.assertEqual(rlzoo.describe_env("CartPole-v1")["max_episode_steps"], 500)


class ResetAndStep(unittest.TestCase):
    def test_reset_returns_obs_and_info(self):
        env = rlzoo.make("CartPole-v1")
        result = env.reset(seed=0)
        self.assertIsInstance(result, tuple)
        obs, info = result
        self.assertIsInstance(obs, np.ndarray)
        self.assertEqual((obs.shape, obs.dtype), ((4,), np.float32))
        self.assertIsInstance(info, dict)
        self.assertTrue(env.observation_space.contains(obs))
        self.assertTrue(np.all(np.abs(obs) <= 0.05))

    def test_same_seed_same_obs_and_different_seeds_differ(self):
        env = rlzoo.make("CartPole-v1")
        a, _ = env.reset(seed=42)
        b, _ = rlzoo.make("CartPole-v1").reset(seed=42)
        np.testing.assert_array_equal(a, b)
        c, _ = env.reset(seed=43)
        self.assertFalse(np.array_equal(a, c))
        # Same seed, same actions: same trajectory.
        trajectories = []
        for _ in range(2):
            env.reset(seed=7)
            trajectories.append([env.step(i % 2)[0] for i in range(8)])
        np.testing.assert_array_equal(trajectories[0], trajectories[1])

    def test_reset_without_seed_continues_the_rng(self):
        one, two = rlzoo.make("CartPole-v1"), rlzoo.make("CartPole-v1")
        first, _ = one.reset(seed=5)
        two.reset(seed=5)
        next_one, _ = one.reset()
        next_two, _ = two.reset()
        np.testing.assert_array_equal(next_one, next_two)   # the stream continues identically
        self.assertFalse(np.array_equal(first, next_one))   # and is not re-seeded

    def test_step_returns_the_five_tuple(self):
        env = rlzoo.make("CartPole-v1")
        env.reset(seed=0)
        result = env.step(1)
        self.assertEqual(len(result), 5)
        obs, reward, terminated, truncated, info = result
        self.assertEqual((type(obs), obs.shape, obs.dtype), (np.ndarray, (4,), np.float32))
        self.assertIs(type(reward), float)
        self.assertIs(type(terminated), bool)
        self.assertIs(type(truncated), bool)
        self.assertIs(type(info), dict)
        # Every step returns a fresh array.
        obs2 = env.step(0)[0]
        self.assertFalse(np.shares_memory(obs, obs2))

    def test_cartpole_dynamics_equal_gymnasiums_equations(self):
        env = rlzoo.make("CartPole-v1")
        obs, _ = env.reset(seed=123)
        state = env.get_state()
        self.assertEqual(state.dtype, np.float64)
        np.testing.assert_array_equal(obs, state.astype(np.float32))
        actions = [1, 1, 0, 1, 0, 0, 0, 1, 1, 1, 1, 0]
        for t, action in enumerate(actions):
            expected, expected_terminated = gymnasium_cartpole_step(state, action)
            obs, reward, terminated, truncated, _ = env.step(action)
            state = env.get_state()
            # Bit for bit: the same float64 arithmetic in the same order, glibc's libm.
            self.assertEqual(state.tolist(), expected.tolist(), f"step {t}")
            np.testing.assert_array_equal(obs, expected.astype(np.float32))
            self.assertEqual(reward, 1.0)
            self.assertEqual(terminated, expected_terminated)
            self.assertFalse(truncated)
        # set_state round trip, then one step from a state chosen here.
        chosen = np.array([0.1, -0.2, 0.05, 0.3])
        np.testing.assert_array_equal(env.set_state(chosen), chosen.astype(np.float32))
        expected, _ = gymnasium_cartpole_step(chosen, 0)
        env.step(0)
        self.assertEqual(env.get_state().tolist(), expected.tolist())

    def test_save_and_load_state_continue_exactly_in_another_env(self):
        for env_id, action in (("CartPole-v1", lambda t: t % 2), ("Pendulum-v1", lambda t: [np.sin(t)]),
                               ("GridWorld-FourRooms-v0", lambda t: t % 4)):
            a, b = rlzoo.make(env_id), rlzoo.make(env_id)
            a.reset(seed=5)
            for t in range(3):
                obs = a.step(action(t))[0]
            saved = a.save_state()
            self.assertIsInstance(saved, str)
            np.testing.assert_array_equal(b.load_state(saved), obs)
            self.assertEqual(b.elapsed_steps, a.elapsed_steps)
            for t in range(3, 40):
                ra, rb = a.step(action(t)), b.step(action(t))
                np.testing.assert_array_equal(ra[0], rb[0])
                self.assertEqual(ra[1:4], rb[1:4], f"{env_id} step {t}")
                if ra[2] or ra[3]:
                    break
        with self.assertRaises(rlzoo.UserError) as caught:
            rlzoo.make("CartPole-v1").load_state("{not json")
        self.assertIn("load_state: not JSON", str(caught.exception))
        with self.assertRaises(rlzoo.UserError) as caught:
            rlzoo.make("Acrobot-v1").load_state(saved)
        self.assertIn("not Acrobot-v1", str(caught.exception))

    def test_episode_statistics_when_asked_and_stepping_after_the_end(self):
        env = rlzoo.make("CartPole-v1", episode_info=True)
        env.reset(seed=0)
        steps, info, terminated = 0, {}, False
        while not terminated:
            _, _, terminated, truncated, info = env.step(1)  # always push right: falls soon
            steps += 1
            self.assertFalse(truncated)
            if not terminated:
                self.assertNotIn("episode", info)
        self.assertLess(steps, 100)
        self.assertEqual(info["episode"], {"r": float(steps), "l": steps})
        with self.assertRaises(rlzoo.UserError) as caught:
            env.step(0)
        self.assertIn("call reset() first", str(caught.exception))
        self.assertIsInstance(caught.exception, ValueError)
        env.reset()
        env.step(0)  # fine again

    def test_stepping_before_the_first_reset_raises(self):
        with self.assertRaises(rlzoo.UserError):
            rlzoo.make("CartPole-v1").step(0)

    def test_no_episode_key_unless_asked(self):
        # Gymnasium's RecordEpisodeStatistics refuses an info that has "episode" already.
        env = rlzoo.make("CartPole-v1", max_episode_steps=3)
        env.reset(seed=0)
        for _ in range(3):
            _, _, _, truncated, info = env.step(0)
            self.assertNotIn("episode", info)
        self.assertTrue(truncated)

    def test_time_limit_truncates(self):
        env = rlzoo.make("CartPole-v1", max_episode_steps=5, episode_info=True)
        self.assertEqual(env.spec.max_episode_steps, 5)
        env.reset(seed=0)
        for t in range(5):
            _, _, terminated, truncated, info = env.step(t % 2)
            self.assertFalse(terminated)
            self.assertEqual(truncated, t == 4)
        self.assertEqual(info["episode"], {"r": 5.0, "l": 5})

    def test_bad_actions_raise_with_rlzoos_message(self):
        env = rlzoo.make("CartPole-v1")
        env.reset(seed=0)
        with self.assertRaises(rlzoo.UserError) as caught:
            env.step(2)
        self.assertIn("env CartPole-v1: invalid action 2 for action space Discrete(2): it is out of range",
                      str(caught.exception))
        with self.assertRaises(rlzoo.UserError) as caught:
            env.step(0.5)
        self.assertIn("expected integers", str(caught.exception))
        with self.assertRaises(rlzoo.UserError) as caught:
            env.step([0, 1])
        self.assertIn("expected shape ()", str(caught.exception))
        with self.assertRaises(rlzoo.UserError):
            env.step("left")
        # A failed action leaves the episode as it was; numpy integers are fine.
        env.step(np.int32(1))
        env.step(np.array(0, dtype=np.uint8))

    def test_continuous_actions(self):
        env = rlzoo.make("Pendulum-v1")
        obs, _ = env.reset(seed=0)
        self.assertEqual((obs.shape, obs.dtype), ((3,), np.float32))
        obs, reward, *_ = env.step(np.array([0.5]))      # float64 in, converted to float32
        obs, reward, *_ = env.step([1])                  # a list of ints too
        self.assertIsInstance(reward, float)
        with self.assertRaises(rlzoo.UserError) as caught:
            env.step(np.array([np.nan], dtype=np.float32))
        self.assertIn("not finite", str(caught.exception))

    def test_keyword_arguments_and_ids(self):
        env = rlzoo.make("CartPole-v1", sutton_barto_reward=True)
        self.assertEqual(env.spec.kwargs, {"sutton_barto_reward": True})
        env.reset(seed=0)
        self.assertEqual(env.step(0)[1], 0.0)
        with self.assertRaises(rlzoo.UserError) as caught:
            rlzoo.make("CartPole-v1", bogus=1)
        self.assertIn("bogus", str(caught.exception))
        with self.assertRaises(rlzoo.UserError) as caught:
            rlzoo.make("CartPole-v2")
        self.assertIn("CartPole-v1", str(caught.exception))  # "did you mean"
        with self.assertRaises(rlzoo.UserError):
            rlzoo.make("CartPole-v1", sutton_barto_reward=object())

    def test_reset_arguments_are_checked(self):
        env = rlzoo.make("CartPole-v1")
        with self.assertRaises(ValueError):
            env.reset(seed=-1)
        with self.assertRaises(ValueError):
            env.reset(options={"low": -0.1})
        env.reset(seed=0, options={})

    def test_render_and_close(self):
        grid = rlzoo.make("GridWorld-Empty-v0", render_mode="ansi")
        grid.reset(seed=0)
        self.assertIsInstance(grid.render(), str)
        self.assertIsNone(rlzoo.make("GridWorld-Empty-v0").render())
        with self.assertRaises(ValueError):
            rlzoo.make("CartPole-v1", render_mode="human")
        with rlzoo.make("CartPole-v1") as env:
            env.reset(seed=0)
        with self.assertRaises(ValueError):
            env.step(0)


if __name__ == "__main__":
    unittest.main()
