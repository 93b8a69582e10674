"""One rlzoo env with Gymnasium's API.

    env = rlzoo.make("CartPole-v1")
    obs, info = env.reset(seed=42)      # an int reseeds the env's RNG; None continues its stream
    obs, reward, terminated, truncated, info = env.step(env.action_space.sample())

The env runs in C++ (rlzoo's Env); this class converts at the boundary and adds nothing to the
dynamics. Differences from a Gymnasium env worth knowing:

* Stepping a finished episode (or before the first reset) raises ``rlzoo.UserError`` (a
  ValueError) with rlzoo's message, where most Gymnasium envs only warn.
* Actions are checked (dtype, shape, range, legality) and a bad one raises ``rlzoo.UserError``
  naming the env, the action and the space. Box actions outside the bounds are clipped by the
  env, as Gymnasium's envs do.
* ``info`` carries what rlzoo's Info holds: named scalars; ``"episode": {"r", "l"}`` on the
  step that ends an episode (RecordEpisodeStatistics' keys; no "t"); ``"action_mask"`` (int8,
  1 = legal) for masked envs; ``"acting_agent"`` and ``"agent_rewards"`` for turn-based games;
  ``"candidates"`` (one feature row per legal move) for DouDizhu, whose action indexes them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from . import _rlzoo
from .spaces import Space, from_description


@dataclass(frozen=True)
class EnvSpec:
    """What rlzoo.make was asked for and what the registry says about the env."""

    id: str
    max_episode_steps: int | None
    reward_threshold: float | None
    kwargs: dict = field(default_factory=dict)
    num_agents: int = 1
    has_action_mask: bool = False
    candidate_feature_dim: int = 0


def _spec(core_spec: dict, kwargs: dict) -> EnvSpec:
    return EnvSpec(core_spec["id"], core_spec["max_episode_steps"], core_spec["reward_threshold"], dict(kwargs),
                   core_spec["num_agents"], core_spec["has_action_mask"], core_spec["candidate_feature_dim"])


class Env:
    """A Gymnasium-style env backed by rlzoo's C++ env (made by ``rlzoo.make``)."""

    metadata: dict[str, Any] = {"render_modes": ["ansi"], "render_fps": None}

    def __init__(self, core: _rlzoo.Env, kwargs: dict | None = None, render_mode: str | None = None):
        if render_mode not in (None, "ansi"):
            raise ValueError(f"render_mode must be None or 'ansi' (rlzoo envs draw text only), got {render_mode!r}")
        self._core = core
        self.render_mode = render_mode
        self.spec = _spec(core.spec, kwargs or {})
        self.observation_space: Space = from_description(core.observation_space)
        self.action_space: Space = from_description(core.action_space)
        self._closed = False

    # --- Gymnasium's API -------------------------------------------------------------------
    def reset(self, *, seed: int | None = None, options: dict | None = None) -> tuple[Any, dict]:
        """Starts an episode: (first observation, info). An int seed re-seeds the env's RNG (the
        same seed gives the same episode); None continues the current stream."""
        self._check_open()
        if options:
            raise ValueError(f"{self.spec.id}: rlzoo envs take no reset options, got {sorted(options)}")
        if seed is not None:
            seed = int(seed)
            if seed < 0:
                raise ValueError(f"{self.spec.id}: seed must be a non-negative int, got {seed}")
        return self._core.reset(seed)

    def step(self, action: Any) -> tuple[Any, float, bool, bool, dict]:
        """Applies one action: (observation, reward, terminated, truncated, info)."""
        self._check_open()
        return self._core.step(action)

    def render(self) -> str | None:
        """With render_mode="ansi", the env drawn as text (grid worlds); None otherwise."""
        if self.render_mode != "ansi":
            return None
        text = self._core.render_text()
        if text is None:
            raise ValueError(f"{self.spec.id} cannot draw itself as text")
        return text

    def close(self) -> None:
        self._closed = True

    @property
    def unwrapped(self) -> "Env":
        return self

    # --- rlzoo extras ----------------------------------------------------------------------
    def action_masks(self) -> np.ndarray:
        """The legal actions now as a bool array (sb3-contrib's MaskablePPO convention)."""
        info = self._core.info()
        if "action_mask" not in info:
            raise ValueError(f"{self.spec.id} has no action mask")
        return info["action_mask"].astype(bool)

    @property
    def elapsed_steps(self) -> int:
        return self._core.elapsed_steps

    @property
    def game(self):
        """DouDizhu-v0: a snapshot (copy) of the game, an ``rlzoo.doudizhu.Game``: its
        legal_moves() are the candidates in order, so ``legal_moves()[action]`` is the move an
        action plays. None for other envs."""
        return self._core.doudizhu_game()

    def get_state(self) -> np.ndarray:
        """The internal float64 state (classic control: Gymnasium's env.unwrapped.state)."""
        return self._core.get_state()

    def set_state(self, state: Any) -> Any:
        """Sets the internal state and returns the matching observation."""
        return self._core.set_state(np.asarray(state, dtype=np.float64))

    def _check_open(self) -> None:
        if self._closed:
            raise ValueError(f"{self.spec.id}: the env is closed")

    def __enter__(self) -> "Env":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"<rlzoo.Env {self.spec.id}>"


def make(id: str, *, max_episode_steps: int | None = None, render_mode: str | None = None, **kwargs: Any) -> Env:
    """Makes a registered env (``rlzoo.list_envs()``) with its registered time limit, or
    ``max_episode_steps`` instead (0: none). Other keyword arguments go to the env and are
    validated by it (an unknown or ill-typed one raises ``rlzoo.UserError``), e.g.
    ``rlzoo.make("CartPole-v1", sutton_barto_reward=True)``."""
    return Env(_rlzoo.make_env(id, kwargs, max_episode_steps), kwargs, render_mode)
