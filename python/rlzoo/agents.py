"""Trained agents from Python, in Stable-Baselines3's terms.

    agent = rlzoo.load_agent("runs/ppo/CartPole-v1_1")          # a run dir or a saved agent
    action, state = agent.predict(obs)                          # one observation
    actions, state = agent.predict(obs_batch)                   # [B, ...] -> [B] / [B, d]
    stats = agent.evaluate(episodes=10)                         # as `rlzoo eval`

    agent = rlzoo.make_agent("ppo", "CartPole-v1", {"hyperparams.n_steps": 64})
    agent.learn(20_000).save("runs/mine")                       # trains in C++ (GIL released)

DouDizhu (dmc agents choose among the legal moves of the moment):

    game = rlzoo.doudizhu.Game(seed=3)
    agent.q_values(game)             # one Q-value per game.legal_moves(), as `rlzoo doudizhu q-values`
    agent.choose(game)               # the index of the move it plays, as `rlzoo doudizhu eval`
    agent.move(game)                 # that move as text ("33", "pass", ...)
    obs, info = env.reset()          # rlzoo.make("DouDizhu-v0")
    action, _ = agent.predict(obs, candidates=info["candidates"], acting_agent=info["acting_agent"])

The agent is rlzoo's C++ Agent (rl/agent.h); observations go to LibTorch without a Python
loop and actions come back as numpy: int64 for Discrete, float32 clipped to the bounds for Box.
"""

from __future__ import annotations

from typing import Any, Iterable, Mapping

import numpy as np

from . import _rlzoo
from .spaces import Space, from_description


def _overrides(overrides: Mapping[str, Any] | Iterable[str] | None) -> list[str]:
    """{"hyperparams.learning_rate": 1e-3} or ["hyperparams.learning_rate=0.001"] -> strings."""
    if overrides is None:
        return []
    if isinstance(overrides, Mapping):
        out = []
        for key, value in overrides.items():
            if isinstance(value, bool):
                value = "true" if value else "false"
            out.append(f"{key}={value}")
        return out
    if isinstance(overrides, str):
        return [overrides]
    return [str(o) for o in overrides]


def _batch_size(space: Space, observation: Any) -> tuple[int, bool]:
    """(batch size, whether the observation was a single one without a batch dimension)."""
    if isinstance(getattr(space, "spaces", None), Mapping):  # rlzoo's or Gymnasium's Dict
        key = next(iter(space.spaces))
        return _batch_size(space.spaces[key], observation[key])
    ndim = np.ndim(observation)
    single_ndim = len(space.shape)
    if ndim == single_ndim:
        return 1, True
    if ndim == single_ndim + 1:
        return int(np.shape(observation)[0]), False
    raise ValueError(f"predict: observation of shape {np.shape(observation)} is neither one element of {space} nor a "
                     f"batch of them")


def _candidate_batch(candidates: Any, acting_agent: Any, batch: int,
                     single: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """predict's candidates as [B, K, F] float32 padded rows, counts [B] and acting agents [B]:
    one observation's [K, F] array, or B of them (a list; a [B, K, F] array is B sets of K
    candidates each, every row real)."""
    if acting_agent is None:
        raise ValueError('predict: candidates need acting_agent too (the info\'s "acting_agent")')
    rows = [np.asarray(candidates, dtype=np.float32)] if single else [np.asarray(c, dtype=np.float32) for c in candidates]
    if len(rows) != batch:
        raise ValueError(f"predict: {len(rows)} candidate sets for {batch} observations")
    for i, r in enumerate(rows):
        if r.ndim != 2 or r.shape[0] < 1:
            raise ValueError(f"predict: candidates[{i}] has shape {r.shape}; expected [K >= 1, features]")
    width = max(r.shape[0] for r in rows)
    padded = np.zeros((batch, width, rows[0].shape[1]), dtype=np.float32)
    for i, r in enumerate(rows):
        if r.shape[1] != padded.shape[2]:
            raise ValueError(f"predict: candidates[{i}] has {r.shape[1]} features per row, candidates[0] has "
                             f"{padded.shape[2]}")
        padded[i, :r.shape[0]] = r
    counts = np.array([r.shape[0] for r in rows], dtype=np.int64)
    acting = np.asarray(acting_agent, dtype=np.int64).reshape(batch)
    return padded, counts, acting


def _add_batch_dim(observation: Any) -> Any:
    if isinstance(observation, Mapping):
        return {k: _add_batch_dim(v) for k, v in observation.items()}
    return np.asarray(observation)[None]


class Agent:
    """An rlzoo agent (``rlzoo.load_agent``, ``rlzoo.make_agent``)."""

    def __init__(self, core: _rlzoo.Agent):
        self._core = core
        self.observation_space: Space = from_description(core.observation_space)
        self.action_space: Space = from_description(core.action_space)

    @property
    def algorithm(self) -> str:
        return self._core.algorithm

    @property
    def env_id(self) -> str:
        return self._core.env_id

    @property
    def num_timesteps(self) -> int:
        return self._core.num_timesteps

    @property
    def recurrent(self) -> bool:
        """True when actions depend on a state carried between calls (pass predict's state back)."""
        return self._core.recurrent

    @property
    def config(self) -> str:
        """The resolved preset (YAML text), as saved with the agent."""
        return self._core.config_yaml

    def predict(self, observation: Any, state: np.ndarray | None = None, episode_start: Any = None,
                deterministic: bool = True, action_masks: Any = None, candidates: Any = None,
                acting_agent: Any = None) -> tuple[Any, np.ndarray | None]:
        """Actions for one observation or a batch [B, ...] (SB3's predict; deterministic by
        default, unlike SB3). Returns (actions, state): state is the recurrent state to pass
        back with the same envs' next observations (None for feed-forward policies);
        episode_start ([B] bool) marks rows that begin an episode; action_masks ([B, n] or [n],
        1 = legal) restricts Discrete actions.

        Envs whose action indexes candidate moves (DouDizhu-v0, dmc agents): candidates is
        the info's "candidates" ([K, 54]; a list of B of them for a batch) and acting_agent
        the info's "acting_agent"; the action is an index into those candidates."""
        batch, single = _batch_size(self.observation_space, observation)
        features = counts = acting = None
        if candidates is not None:
            features, counts, acting = _candidate_batch(candidates, acting_agent, batch, single)
        if single:
            observation = _add_batch_dim(observation)
            if episode_start is not None:
                episode_start = np.reshape(episode_start, (1,))
            if action_masks is not None:
                action_masks = np.asarray(action_masks)[None]
        actions, new_state = self._core.predict(observation, batch, state, episode_start, bool(deterministic),
                                                action_masks, features, counts, acting)
        return (actions[0] if single else actions), new_state

    def q_values(self, game: Any) -> np.ndarray:
        """dmc agents: the Q-value of each legal move of the seat to act in an
        ``rlzoo.doudizhu.Game``, in ``game.legal_moves()`` order (float32; what
        ``rlzoo doudizhu q-values`` prints for the same position)."""
        return self._core.doudizhu_q_values(game)

    def choose(self, game: Any) -> int:
        """dmc agents: the index into ``game.legal_moves()`` of the move the agent plays there
        (its greedy move; the only move when there is one), as ``rlzoo doudizhu eval`` plays."""
        return int(self._core.doudizhu_choose(game))

    def move(self, game: Any) -> str:
        """dmc agents: the move ``choose`` picks, as text ("33", "pass", ...); play it with
        ``game.play(agent.move(game))``."""
        return game.legal_moves()[self.choose(game)]

    def evaluate(self, episodes: int = 10, deterministic: bool = True, seed: int = 1_000_000) -> dict:
        """Runs whole episodes on a fresh env made as in training (episode k reset with seed + k,
        as `rlzoo eval` does): {"returns", "lengths", "mean_return", "std_return", "mean_length"}."""
        return self._core.evaluate(int(episodes), bool(deterministic), int(seed))

    def learn(self, total_timesteps: int, progress_bar: bool = False) -> "Agent":
        """Trains for total_timesteps more env steps (whole rollouts, so possibly a few more).
        Ctrl-C stops it within a few thousand steps and raises KeyboardInterrupt."""
        self._core.learn(int(total_timesteps), bool(progress_bar))
        return self

    def save(self, path: str) -> "Agent":
        """Writes everything needed to act or to continue training into the directory `path`
        (replaced atomically); ``rlzoo.load_agent(path)`` and ``rlzoo eval path`` read it."""
        self._core.save(str(path))
        return self

    def __repr__(self) -> str:
        return f"<rlzoo.Agent {self.algorithm} on {self.env_id}, {self.num_timesteps} steps>"


def load_agent(path: str, overrides: Mapping[str, Any] | Iterable[str] | None = None) -> Agent:
    """Loads an agent saved by rlzoo (``Agent.save``, ``rlzoo train``'s run directory or one of
    its checkpoints). overrides change saved settings first, e.g. for evaluation."""
    return Agent(_rlzoo.load_agent(str(path), _overrides(overrides)))


def make_agent(algorithm: str, env_id: str, overrides: Mapping[str, Any] | Iterable[str] | None = None) -> Agent:
    """A fresh agent with the algorithm's defaults and `overrides` applied (preset keys:
    {"n_timesteps": 10000, "hyperparams.learning_rate": 1e-3, "seed": 1})."""
    return Agent(_rlzoo.make_agent(algorithm, env_id, _overrides(overrides)))


def agent_from_preset(path: str, overrides: Mapping[str, Any] | Iterable[str] | None = None) -> Agent:
    """A fresh agent from a preset file (configs/<algo>/<env>.yaml)."""
    return Agent(_rlzoo.agent_from_preset(str(path), _overrides(overrides)))


def list_algorithms() -> list[str]:
    return list(_rlzoo.algorithms())
