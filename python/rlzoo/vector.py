"""N rlzoo envs stepped as one batch, with Gymnasium's vector API and numpy arrays.

    envs = rlzoo.make_vec("CartPole-v1", num_envs=1024, threads=2)
    obs, info = envs.reset(seed=0)                 # env i is seeded with seed + i
    obs, rewards, terminations, truncations, info = envs.step(actions)   # actions: [1024] ints

The batch is stepped in C++ (rlzoo's SyncVectorEnv, or ThreadedVectorEnv with threads > 1) with
the GIL released; actions of any integer dtype (Discrete) or any real dtype (Box) are converted
without a Python loop, and used in place when they already are int64 / the Box's dtype.

Autoreset is SAME-STEP (``metadata["autoreset_mode"] == "same_step"``, as SB3's VecEnv, not
Gymnasium 1.x's default next-step mode): when env i's episode ends, row i of ``obs`` already
holds the first observation of its next episode, and rewards/terminations/truncations row i
are those of the final step. The final step's extras come in ``info``, each with its boolean
``_key`` mask (True where env i's episode ended on this step):

    info["final_obs"], info["_final_obs"]     the true last observation of the episode
    info["final_info"], info["_final_info"]   {"episode": {"r", "l"}, "_episode": mask}
    info["episode"], info["_episode"]         the same episode statistics at top level
                                              (as Gymnasium's RecordEpisodeStatistics)

``final_obs`` is a dense array [N, ...] (not an object array): rows where the mask is False are
zero (copy=True) or stale (copy=False). Masked envs add ``info["action_mask"]`` [N, n] (bool);
turn-based games add ``info["acting_agent"]`` [N]. The keys appear only on steps that have them.

Copies: with ``copy=True`` (the default, like Gymnasium's ``copy`` flag) every array returned
is a fresh, writable array. With ``copy=False`` they are read-only numpy views of the C++
batch buffers, the same array objects every step, which the next ``reset``/``step``
overwrites: the zero-copy fast path (``rlzoo bench python`` measures both). A view keeps the
C++ envs alive, so holding one after ``close()`` is safe.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from . import _rlzoo
from .env import EnvSpec, _spec
from .spaces import Space, batch_space, from_description


class VectorEnv:
    """A batch of rlzoo envs (made by ``rlzoo.make_vec``)."""

    metadata: dict[str, Any] = {"autoreset_mode": "same_step", "render_modes": []}

    def __init__(self, core: _rlzoo.VectorEnv, kwargs: dict | None = None):
        self._core = core
        self.num_envs: int = core.num_envs
        self.spec: EnvSpec = _spec(core.spec, kwargs or {})
        self.single_observation_space: Space = from_description(core.single_observation_space)
        self.single_action_space: Space = from_description(core.single_action_space)
        self.observation_space: Space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space: Space = batch_space(self.single_action_space, self.num_envs)

    def reset(self, *, seed: int | None = None, options: dict | None = None) -> tuple[Any, dict]:
        """Resets every env (env i with seed + i when seed is an int): (obs [N, ...], info)."""
        if options:
            raise ValueError(f"{self.spec.id}: rlzoo envs take no reset options, got {sorted(options)}")
        if seed is not None:
            if not isinstance(seed, (int, np.integer)) or seed < 0:
                raise ValueError(f"{self.spec.id}: seed must be None or a non-negative int (env i gets seed + i), "
                                 f"got {seed!r}")
            seed = int(seed)
        return self._core.reset(seed)

    def step(self, actions: Any) -> tuple[Any, np.ndarray, np.ndarray, np.ndarray, dict]:
        """Steps every env with its row of ``actions`` ([N] for Discrete, [N, *shape] for Box):
        (obs, rewards float64 [N], terminations bool [N], truncations bool [N], info)."""
        return self._core.step(actions)

    @property
    def copy(self) -> bool:
        """True: fresh arrays each step; False: read-only views overwritten by the next step."""
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

    def close(self) -> None:
        self._core.close()

    @property
    def unwrapped(self) -> "VectorEnv":
        return self

    def __enter__(self) -> "VectorEnv":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def __repr__(self) -> str:
        if self.closed:
            return f"<rlzoo.VectorEnv {self.spec.id} x {self.num_envs}, closed>"
        return f"<rlzoo.VectorEnv {self.spec.id} x {self.num_envs}, threads={self.num_threads}, copy={self.copy}>"


def make_vec(id: str, num_envs: int = 1, *, threads: int = 1, copy: bool = True, max_episode_steps: int | None = None,
             **kwargs: Any) -> VectorEnv:
    """Makes ``num_envs`` copies of a registered env stepped as one batch: on the calling
    thread (threads=1) or on a pool of ``threads`` threads (the caller's included); both give
    identical results. Keyword arguments go to every env, as in ``rlzoo.make``."""
    return VectorEnv(_rlzoo.make_vector_env(id, int(num_envs), int(threads), bool(copy), kwargs, max_episode_steps),
                     kwargs)
