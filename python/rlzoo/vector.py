"""N rlzoo envs stepped as one batch, with Gymnasium's vector API and numpy arrays.

    envs = rlzoo.make_vec("CartPole-v1", num_envs=1024, threads=2)
    obs, info = envs.reset(seed=0)                 # env i is seeded with seed + i
    obs, rewards, terminations, truncations, info = envs.step(actions)   # actions: [1024] ints

The batch is stepped in C++ (rlzoo's SyncVectorEnv, or ThreadedVectorEnv with threads > 1) with
the GIL released; actions of any integer dtype (Discrete) or any real dtype (Box) are converted
without a Python loop, and used in place when they already are int64 / the Box's dtype. With
Gymnasium 1.x installed the class is a ``gymnasium.vector.VectorEnv`` and
``gymnasium.make_vec("rlzoo/<id>", n)`` makes one (next-step autoreset, Gymnasium's default).

Autoreset (``autoreset_mode``, ``metadata["autoreset_mode"]``: Gymnasium's AutoresetMode where
it has one):

* "same_step" (the default, as SB3's VecEnv): when env i's episode ends, row i of ``obs``
  already holds the first observation of its next episode; rewards/terminations/truncations
  row i are those of the final step; ``info["final_obs"]`` (dense [N, ...]; rows where
  ``info["_final_obs"]`` is False are zero, or stale with copy=False) has the true last one.
* "next_step" (Gymnasium 1.x's default): row i keeps the final observation; the next step
  resets env i instead of stepping it (its action ignored) and returns the first observation
  of the next episode with reward 0 and both flags False.

``info`` has the env's named scalars (MuJoCo's ``x_velocity``, ...) as [N] arrays with their
``_key`` masks; ``action_mask`` [N, n] (bool) for masked envs; ``acting_agent`` [N] for
turn-based games; with ``episode_info=True`` also ``episode`` = {"r", "l"} (and, same-step,
``final_info["episode"]``) on steps that end episodes, off by default because Gymnasium's
RecordEpisodeStatistics adds it.

Copies: with ``copy=True`` (the default, like Gymnasium's ``copy`` flag) every array returned
is a fresh, writable array. With ``copy=False`` the observations, rewards, terminations and
truncations are read-only arrays over two buffers that alternate from step to step (the C++
envs write into them directly: no copy, no allocation): what a step returns stays valid through the next step and
is overwritten by the step after, so keeping the last observation beside the new one (SB3's
``_last_obs``) is safe; keep older ones by copying. The info's arrays (final_obs, episode,
action_mask, acting_agent) are read-only views the next step overwrites: copy what you keep.
Holding an array after ``close()`` is safe.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from . import _rlzoo
from ._gymnasium import autoreset_mode_value, gymnasium, gymnasium_vector_base
from .env import EnvSpec, _spec
from .spaces import Space, batch_space, from_description

_VectorBase = gymnasium_vector_base()


def _autoreset_name(mode: Any) -> str:
    """"same_step" or "next_step" from a string or Gymnasium's AutoresetMode."""
    name = getattr(mode, "name", mode)
    name = str(name).lower()
    if name not in ("same_step", "next_step"):
        raise ValueError(f"autoreset_mode must be 'same_step' or 'next_step' (or gymnasium.vector.AutoresetMode's "
                         f"SAME_STEP / NEXT_STEP), got {mode!r}")
    return name


class VectorEnv(_VectorBase):
    """A batch of rlzoo envs (made by ``rlzoo.make_vec``): a ``gymnasium.vector.VectorEnv``
    where Gymnasium 1.x is installed."""

    def __init__(self, core: _rlzoo.VectorEnv, kwargs: dict | None = None):
        self._core = core
        self.num_envs: int = core.num_envs
        self.rlzoo_spec: EnvSpec = _spec(core.spec, kwargs or {})
        self.spec = self.rlzoo_spec
        self.render_mode = None
        mode = "next_step" if core.next_step else "same_step"
        self.metadata: dict[str, Any] = {"autoreset_mode": autoreset_mode_value(mode), "render_modes": []}
        self.single_observation_space: Space = from_description(core.single_observation_space)
        self.single_action_space: Space = from_description(core.single_action_space)
        self.observation_space: Space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space: Space = batch_space(self.single_action_space, self.num_envs)

    @property
    def autoreset_mode(self) -> str:
        """"same_step" or "next_step" (metadata["autoreset_mode"] holds Gymnasium's enum where
        the installed Gymnasium has one)."""
        return "next_step" if self._core.next_step else "same_step"

    def reset(self, *, seed: int | None = None, options: dict | None = None) -> tuple[Any, dict]:
        """Resets every env (env i with seed + i when seed is an int): (obs [N, ...], info)."""
        if options:
            raise ValueError(f"{self.rlzoo_spec.id}: rlzoo envs take no reset options, got {sorted(options)}")
        if seed is not None:
            if isinstance(seed, (bool, np.bool_)) or not isinstance(seed, (int, np.integer)) or seed < 0:
                raise ValueError(f"{self.rlzoo_spec.id}: seed must be None or a non-negative int (env i gets seed + i), "
                                 f"got {seed!r}")
            seed = int(seed)
            self._np_random = np.random.default_rng(seed)
            self._np_random_seed = seed
            self.action_space.seed(seed)
        return self._core.reset(seed)

    def step(self, actions: Any) -> tuple[Any, np.ndarray, np.ndarray, np.ndarray, dict]:
        """Steps every env with its row of ``actions`` ([N] for Discrete, [N, *shape] for Box):
        (obs, rewards float64 [N], terminations bool [N], truncations bool [N], info). Next-step
        mode: the rows of envs whose episode ended on the last step are reset (their actions
        ignored)."""
        return self._core.step(actions)

    @property
    def copy(self) -> bool:
        """True: fresh arrays each step; False: read-only arrays over two alternating buffers
        (valid through the next step, overwritten by the one after)."""
        return self._core.copy

    @copy.setter
    def copy(self, value: bool) -> None:
        self._core.copy = bool(value)

    @property
    def num_threads(self) -> int:
        return self._core.num_threads

    @property
    def closed(self) -> bool:
        return self._core.closed

    def close(self, **kwargs: Any) -> None:
        self._core.close()

    @property
    def unwrapped(self) -> "VectorEnv":
        return self

    def __enter__(self) -> "VectorEnv":
        return self

    def __exit__(self, *exc: Any) -> bool:
        self.close()
        return False

    def __del__(self) -> None:
        pass  # the C++ side frees itself; Gymnasium's __del__ would call close() on a half-made env

    def __repr__(self) -> str:
        if self.closed:
            return f"<rlzoo.VectorEnv {self.rlzoo_spec.id} x {self.num_envs}, closed>"
        return (f"<rlzoo.VectorEnv {self.rlzoo_spec.id} x {self.num_envs}, threads={self.num_threads}, "
                f"copy={self.copy}, {self.autoreset_mode}>")

    def __str__(self) -> str:
        return repr(self)


def make_vec(id: str, num_envs: int = 1, *, threads: int = 1, copy: bool = True, max_episode_steps: int | None = None,
             autoreset_mode: Any = "same_step", episode_info: bool = False, api: str = "gymnasium",
             **kwargs: Any) -> VectorEnv:
    """Makes ``num_envs`` copies of a registered env stepped as one batch: on the calling
    thread (threads=1) or on a pool of ``threads`` threads (the caller's included); both give
    identical results. ``autoreset_mode``: "same_step" (SB3's, the default) or "next_step"
    (Gymnasium 1.x's default; also gymnasium.vector.AutoresetMode). ``episode_info=True`` adds
    ``info["episode"]`` on steps that end episodes (off by default: Gymnasium's
    RecordEpisodeStatistics adds it). ``api="sb3"`` gives Stable-Baselines3's VecEnv API instead
    of Gymnasium's (rlzoo/sb3.py: same-step, episode statistics in the infos), which SB3's
    algorithms take as their env. Keyword arguments go to every env, as in ``rlzoo.make``."""
    if api not in ("gymnasium", "sb3"):
        raise ValueError(f"api must be 'gymnasium' or 'sb3', got {api!r}")
    next_step = _autoreset_name(autoreset_mode) == "next_step"
    if api == "sb3":
        from .sb3 import sb3_vec_env
        if next_step:
            raise ValueError("api='sb3' autoresets on the same step (SB3's VecEnv API): leave autoreset_mode alone")
        return sb3_vec_env(make_vec(id, num_envs, threads=threads, copy=copy, max_episode_steps=max_episode_steps,
                                    episode_info=True, **kwargs))
    return VectorEnv(_rlzoo.make_vector_env(id, int(num_envs), int(threads), bool(copy), kwargs, max_episode_steps,
                                            next_step, bool(episode_info)),
                     kwargs)
