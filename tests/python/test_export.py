"""`rlzoo export --format torchscript` seen from Python: the exported policies load with
torch.jit.load and give the actions rlzoo's own act() gave on the same observations.

The rlzoo executable trains small agents, exports them and writes the observations it checked
with the agent's actions (`--samples`); this test feeds those observations to the loaded
module. Needs Python's torch (Debian: python3-torch) and RLZOO_CLI=/path/to/build/apps/rlzoo;
each is skipped with the reason when missing. Run: RLZOO_CLI=build/apps/rlzoo python3 -m
unittest discover -s tests/python -p 'test_export.py' -v
"""

import json
import os
import subprocess
import tempfile
import unittest

try:
    import torch
except ImportError as error:  # skipped below, with the reason
    torch = None
    TORCH_MISSING = f"import torch failed ({error}); install python3-torch"
else:
    TORCH_MISSING = ""

CLI = os.environ.get("RLZOO_CLI", "")


def dtype_of(space):
    """The torch dtype of a space's elements (as rlzoo's observation tensors have them)."""
    kind = space["type"]
    if kind in ("Discrete", "MultiDiscrete"):
        return torch.int64
    if kind == "MultiBinary":
        return torch.uint8
    return {"float32": torch.float32, "float64": torch.float64, "uint8": torch.uint8,
            "int32": torch.int32, "int64": torch.int64}[space["dtype"]]


def observation_input(metadata, fields):
    """forward()'s observation argument: one tensor, or a list of them for a Dict space."""
    space = metadata["observation_space"]
    if space["type"] != "Dict":
        return torch.tensor(fields[0], dtype=dtype_of(space))
    return [torch.tensor(values, dtype=dtype_of(field["space"]))
            for values, field in zip(fields, space["fields"])]


@unittest.skipIf(torch is None, TORCH_MISSING)
@unittest.skipUnless(CLI and os.access(CLI, os.X_OK), "set RLZOO_CLI to the rlzoo executable")
class ExportedPolicyTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory(prefix="rlzoo-export-python-")

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def export(self, name, algo, env, *settings, timesteps=256):
        """Trains a small agent, exports it; returns (module, metadata, samples)."""
        run = os.path.join(self.tmp.name, name)
        command = [CLI, "train", algo, env, "--no-preset", "-q", "--seed", "3", "--run-dir", run,
                   "--set", f"n_timesteps={timesteps}"]
        for s in settings:
            command += ["--set", s]
        subprocess.run(command, check=True, capture_output=True, text=True)
        path = os.path.join(self.tmp.name, name + ".pt")
        samples = os.path.join(self.tmp.name, name + "-samples.json")
        result = subprocess.run([CLI, "export", run, "--format", "torchscript", path, "--samples", samples],
                                capture_output=True, text=True)
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertIn("forward(obs", result.stdout)
        extra = {"rlzoo.json": ""}
        module = torch.jit.load(path, _extra_files=extra)
        metadata = json.loads(extra["rlzoo.json"])
        self.assertEqual(json.loads(module.rlzoo_metadata), metadata)
        self.assertEqual(metadata["algorithm"], algo)
        self.assertEqual(metadata["env"], env)
        with open(samples) as f:
            return module, metadata, json.load(f)

    def assert_same_actions(self, expected, got):
        expected = torch.tensor(expected, dtype=got.dtype)
        self.assertEqual(expected.shape, got.shape)
        if got.is_floating_point():
            self.assertLessEqual((expected - got).abs().max().item(), 1e-6)
        else:
            self.assertTrue(torch.equal(expected, got), f"{(expected != got).sum().item()} actions differ")

    def check_feed_forward(self, module, metadata, samples):
        obs = observation_input(metadata, samples["observations"])
        with torch.no_grad():
            self.assert_same_actions(samples["actions"], module(obs))
            if "masks" in samples:
                masks = torch.tensor(samples["masks"], dtype=torch.bool)
                self.assert_same_actions(samples["masked_actions"], module.forward_masked(obs, masks))

    def test_ppo_discrete(self):
        module, metadata, samples = self.export("ppo-cartpole", "ppo", "CartPole-v1", "hyperparams.n_steps=64",
                                                "hyperparams.batch_size=64")
        self.assertFalse(samples["recurrent"])
        self.assertEqual(len(samples["actions"]), 100)
        self.check_feed_forward(module, metadata, samples)
        with torch.no_grad():
            values = module.value(observation_input(metadata, samples["observations"]))
        self.assertEqual(values.shape, (100,))
        self.assertEqual(values.dtype, torch.float32)

    def test_ppo_continuous_with_observation_normalisation(self):
        module, metadata, samples = self.export("ppo-pendulum", "ppo", "Pendulum-v1", "hyperparams.n_steps=64",
                                                "hyperparams.batch_size=64", "hyperparams.normalize_obs=true")
        self.assertTrue(metadata["observation_normalization"])
        self.check_feed_forward(module, metadata, samples)

    def test_sac_actor(self):
        module, metadata, samples = self.export("sac-pendulum", "sac", "Pendulum-v1", "hyperparams.learning_starts=64",
                                                "hyperparams.batch_size=32", "hyperparams.policy.hidden=[32, 32]")
        self.check_feed_forward(module, metadata, samples)
        with torch.no_grad():
            actions = module(observation_input(metadata, samples["observations"]))
        self.assertLessEqual(actions.abs().max().item(), 2.0)  # Pendulum's torque bounds

    def test_dqn_dueling(self):
        module, metadata, samples = self.export("dqn-cartpole", "dqn", "CartPole-v1", "hyperparams.learning_starts=64",
                                                "hyperparams.buffer_size=1000", "hyperparams.policy.dueling=true")
        self.check_feed_forward(module, metadata, samples)
        with torch.no_grad():
            q = module.q_values(observation_input(metadata, samples["observations"]))
        self.assertTrue(torch.equal(q.argmax(1), module(observation_input(metadata, samples["observations"]))))

    def test_recurrent_ppo_carries_its_state(self):
        module, metadata, samples = self.export("ppo-lstm", "ppo", "CartPole-v1", "hyperparams.n_steps=64",
                                                "hyperparams.batch_size=64", "hyperparams.policy.recurrent.cell=lstm",
                                                "hyperparams.policy.recurrent.hidden=16")
        self.assertTrue(metadata["recurrent"])
        state = module.initial_state(samples["batch"])
        with torch.no_grad():
            for step in samples["steps"]:
                obs = observation_input(metadata, step["observations"])
                starts = torch.tensor(step["episode_start"], dtype=torch.bool)
                if "mask" in step:
                    actions, state = module.forward_masked(obs, state, starts,
                                                           torch.tensor(step["mask"], dtype=torch.bool))
                else:
                    actions, state = module(obs, state, starts)
                self.assert_same_actions(step["actions"], actions)


if __name__ == "__main__":
    unittest.main()
