"""One rlzoo env with Gymnasium's API.

    env = rlzoo.make("CartPole-v1")
    obs, info = env.reset(seed=42)      # an int reseeds the env's RNG; None continues its stream
    obs, reward, terminated, truncated, info = env.step(env.action_space.sample())

The env runs in C++ (rlzoo's Env); this class converts at the boundary and adds nothing to the
dynamics. With Gymnasium installed it is a ``gymnasium.Env`` (spaces, spec and ``np_random``
Gymnasium's; ``gymnasium.make("rlzoo/<id>")`` makes it too: rlzoo/_gymnasium.py). Differences
from a Gymnasium env worth knowing:

* Stepping a finished episode (or before the first reset) raises ``rlzoo.UserError`` (a
  ValueError) with rlzoo's message, where most Gymnasium envs only warn.
* Actions are checked (dtype, shape, range, legality) and a bad one raises ``rlzoo.UserError``
  naming the env, the action and the space. Box actions outside the bounds are clipped by the
  env, as Gymnasium's envs do.
* ``info`` carries what rlzoo's Info holds: named scalars; ``"episode": {"r", "l"}`` on the
  step that ends an episode when made with ``episode_info=True`` (RecordEpisodeStatistics'
  keys; no "t"); ``"action_mask"`` (int8,
  1 = legal) for masked envs; ``"acting_agent"`` and ``"agent_rewards"`` for turn-based games;
  ``"candidates"`` (one feature row per legal move) for DouDizhu, whose action indexes them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from . import _rlzoo
from ._gymnasium import gymnasium, gymnasium_id, render_fps, spec_for
from .spaces import Space, from_description


@dataclass(frozen=True)
class EnvSpec:
    """What rlzoo.make was asked for and what rlzoo's registry says about the env (an env's
    ``rlzoo_spec``; also its ``spec`` when Gymnasium is not installed)."""

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


class _PlainEnvBase:
    """What rlzoo.Env takes from gymnasium.Env when Gymnasium is not installed: the env's own
    ``np_random`` (a numpy Generator, seeded by ``reset(seed=)``), ``unwrapped``, the context
    manager."""

    metadata: dict[str, Any] = {"render_modes": []}
    render_mode: str | None = None
    spec: Any = None
    _np_random: np.random.Generator | None = None
    _np_random_seed: int | None = None

    def reset(self, *, seed: int | None = None, options: dict | None = None) -> None:
        if seed is not None:
            self._np_random, self._np_random_seed = np.random.default_rng(seed), seed

    @property
    def np_random(self) -> np.random.Generator:
        if self._np_random is None:
            self._np_random, self._np_random_seed = np.random.default_rng(), -1
        return self._np_random

    @np_random.setter
    def np_random(self, value: np.random.Generator) -> None:
        self._np_random, self._np_random_seed = value, -1

    @property
    def np_random_seed(self) -> int:
        if self._np_random is None:
            self.np_random
        return self._np_random_seed

    @property
    def unwrapped(self) -> "_PlainEnvBase":
        return self

    def close(self) -> None:
        pass

    def __enter__(self):
        return self

    def __exit__(self, *exc: Any) -> bool:
        self.close()
        return False


_EnvBase = gymnasium.Env if gymnasium is not None else _PlainEnvBase


def _remake(env_id: str, max_episode_steps: int | None, render_mode: str | None, episode_info: bool,
            kwargs: dict) -> "Env":
    return make(env_id, max_episode_steps=max_episode_steps, render_mode=render_mode, episode_info=episode_info,
                **kwargs)


class Env(_EnvBase):
    """An rlzoo env (made by ``rlzoo.make``): a ``gymnasium.Env`` where Gymnasium is installed."""

    def __init__(self, core: _rlzoo.Env, kwargs: dict | None = None, render_mode: str | None = None, *,
                 max_episode_steps: int | None = None, episode_info: bool = False):
        self._core = core
        self._closed = False
        self._make_args = (core.id, max_episode_steps, render_mode, bool(episode_info), dict(kwargs or {}))
        # What this env can do, per env (not per class): text only where it draws itself.
        self.metadata = {"render_modes": ["ansi"] if core.can_render_text else [],
                         "render_fps": render_fps(core.id, core)}
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            modes = self.metadata["render_modes"]
            raise ValueError(f"{core.id}: render_mode must be None" + (f" or one of {modes}" if modes else "")
                             + f" ({core.id} " + ("draws text only" if modes else "cannot draw itself")
                             + f"), got {render_mode!r}")
        self.render_mode = render_mode
        self.rlzoo_spec = _spec(core.spec, kwargs or {})
        if gymnasium is not None:
            self.spec = spec_for(core.id, self.rlzoo_spec.max_episode_steps, self.rlzoo_spec.reward_threshold,
                                 dict(kwargs or {}))
        else:
            self.spec = self.rlzoo_spec
        self.observation_space: Space = from_description(core.observation_space)
        self.action_space: Space = from_description(core.action_space)

    # --- Gymnasium's API -------------------------------------------------------------------
    def reset(self, *, seed: int | None = None, options: dict | None = None) -> tuple[Any, dict]:
        """Starts an episode: (first observation, info). An int seed re-seeds the env's RNG (the
        same seed gives the same episode), its ``np_random`` and its action space's sampler;
        None continues the current streams."""
        self._check_open()
        if options:
            raise ValueError(f"{self.rlzoo_spec.id}: rlzoo envs take no reset options, got {sorted(options)}")
        if seed is not None:
            if isinstance(seed, (bool, np.bool_)) or not isinstance(seed, (int, np.integer)) or seed < 0:
                raise ValueError(f"{self.rlzoo_spec.id}: seed must be None or a non-negative int, got {seed!r}")
            seed = int(seed)
        super().reset(seed=seed)
        if seed is not None:
            self.action_space.seed(seed)
        return self._core.reset(seed)

    def step(self, action: Any) -> tuple[Any, float, bool, bool, dict]:
        """Applies one action: (observation, reward, terminated, truncated, info)."""
        self._check_open()
        return self._core.step(action)

    def render(self) -> str | None:
        """With render_mode="ansi", the env drawn as text (grid worlds); None otherwise."""
        if self.render_mode != "ansi":
            return None
        return self._core.render_text()

    def close(self) -> None:
        """Idempotent; a closed env refuses reset and step."""
        self._closed = True

    @property
    def unwrapped(self) -> "Env":
        return self

    def __reduce__(self):
        # Pickled as what made it (id, time limit, render mode, kwargs), for AsyncVectorEnv and
        # SB3's SubprocVecEnv: the copy is a fresh env, not a snapshot of this one's episode.
        return _remake, self._make_args

    # --- rlzoo extras ----------------------------------------------------------------------
    def action_masks(self) -> np.ndarray:
        """The legal actions now as a bool array (sb3-contrib's MaskablePPO convention)."""
        info = self._core.info()
        if "action_mask" not in info:
            raise ValueError(f"{self.rlzoo_spec.id} has no action mask")
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

    def save_state(self) -> str:
        """The complete mid-episode state as JSON text: the RNG, the step counter, the episode's
        return and the env's own state, so that ``load_state`` (here or in another env of the
        same id) continues exactly. Envs that cannot save raise ValueError."""
        self._check_open()
        return self._core.save_state()

    def load_state(self, state: str) -> Any:
        """Restores a state from ``save_state`` and returns the matching observation (a state that
        fails to load raises ValueError and changes nothing)."""
        self._check_open()
        return self._core.load_state(state)

    def _check_open(self) -> None:
        if self._closed:
            raise ValueError(f"{self.rlzoo_spec.id}: the env is closed")

    def __enter__(self) -> "Env":
        return self

    def __exit__(self, *exc: Any) -> bool:
        self.close()
        return False

    def __repr__(self) -> str:
        return f"<rlzoo.Env {self.rlzoo_spec.id}>"

    def __str__(self) -> str:
        return repr(self)


def make(id: str, *, max_episode_steps: int | None = None, render_mode: str | None = None,
         episode_info: bool = False, **kwargs: Any) -> Env:
    """Makes a registered env (``rlzoo.list_envs()``) with its registered time limit, or
    ``max_episode_steps`` instead (0: none). ``episode_info=True`` adds ``info["episode"] =
    {"r": return, "l": length}`` on the step that ends an episode (off by default: Gymnasium's
    RecordEpisodeStatistics adds that key itself). Other keyword arguments go to the env and
    are validated by it (an unknown or ill-typed one raises ``rlzoo.UserError``), e.g.
    ``rlzoo.make("CartPole-v1", sutton_barto_reward=True)``."""
    return Env(_rlzoo.make_env(id, kwargs, max_episode_steps, bool(episode_info)), kwargs, render_mode,
               max_episode_steps=max_episode_steps, episode_info=episode_info)
