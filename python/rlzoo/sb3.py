"""rlzoo's vector env as a Stable-Baselines3 ``VecEnv`` (SB3 2.x), for ``rlzoo.make_vec(...,
api="sb3")``:

    from stable_baselines3 import PPO
    model = PPO("MlpPolicy", rlzoo.make_vec("CartPole-v1", 8, api="sb3")).learn(100_000)

A separate class because SB3's API and Gymnasium's differ where one object cannot serve both:
SB3's ``reset()`` returns the observations alone and its ``observation_space`` is one env's,
Gymnasium's ``reset()`` returns (obs, info) and its ``observation_space`` is the batch's.

It is SB3's VecEnv over rlzoo's same-step vector env (SB3's own convention): ``step_wait``
gives (obs, rewards, dones, infos) with, for env i whose episode ended,
``infos[i]["terminal_observation"]``, ``infos[i]["TimeLimit.truncated"]`` and
``infos[i]["episode"] = {"r", "l"}`` (what SB3's Monitor would add, so ``rollout/ep_rew_mean``
is logged without one), plus the env's named values. ``seed()`` then ``reset()`` seeds env i
with seed + i, as SB3's own VecEnvs do.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

try:
    from stable_baselines3.common.vec_env.base_vec_env import VecEnv as _Sb3VecEnv
except ImportError:  # the class is defined only where SB3 is installed
    _Sb3VecEnv = None


def _check_sb3() -> None:
    if _Sb3VecEnv is None:
        raise ImportError("rlzoo.make_vec(..., api='sb3') needs Stable-Baselines3 (pip install stable-baselines3; "
                          "docs/python.md says how beside Debian's torch)")


if _Sb3VecEnv is not None:

    class Sb3VecEnv(_Sb3VecEnv):
        """An rlzoo vector env (same-step autoreset) with Stable-Baselines3's VecEnv API."""

        def __init__(self, vector):
            if vector.autoreset_mode != "same_step":
                raise ValueError("SB3's VecEnv API autoresets on the same step: make the vector env with "
                                 "autoreset_mode='same_step'")
            self.vector = vector
            self.render_mode = None
            self._actions: np.ndarray | None = None
            self._masks: np.ndarray | None = None  # the last step's action masks (masked envs)
            super().__init__(vector.num_envs, vector.single_observation_space, vector.single_action_space)

        def reset(self):
            seed = self._seeds[0]
            obs, info = self.vector.reset(seed=seed)
            self._masks = np.array(info["action_mask"]) if "action_mask" in info else None
            self._reset_seeds()
            self._reset_options()
            self.reset_infos = [self._env_info(info, i) for i in range(self.num_envs)]
            return obs

        def step_async(self, actions: np.ndarray) -> None:
            self._actions = actions

        def step_wait(self):
            obs, rewards, terminated, truncated, info = self.vector.step(self._actions)
            self._masks = np.array(info["action_mask"]) if "action_mask" in info else None
            dones = terminated | truncated
            infos = [self._env_info(info, i) for i in range(self.num_envs)]
            for i in np.flatnonzero(dones):
                infos[i]["terminal_observation"] = _row(info["final_obs"], i)
                infos[i]["TimeLimit.truncated"] = bool(truncated[i] and not terminated[i])
                infos[i]["episode"] = {"r": float(info["episode"]["r"][i]), "l": int(info["episode"]["l"][i])}
            return obs, rewards.astype(np.float32), dones, infos

        @staticmethod
        def _env_info(info: dict, i: int) -> dict:
            return {k: _row(v, i) for k, v in info.items()
                    if not k.startswith("_") and k not in ("final_obs", "final_info", "episode")
                    and info.get("_" + k) is not None and bool(info["_" + k][i])}

        def close(self) -> None:
            self.vector.close()

        def get_attr(self, attr_name: str, indices=None) -> list[Any]:
            return [getattr(self, attr_name)] * len(self._indices(indices))

        def set_attr(self, attr_name: str, value: Any, indices=None) -> None:
            setattr(self, attr_name, value)

        def env_method(self, method_name: str, *method_args, indices=None, **method_kwargs) -> list[Any]:
            # sb3-contrib's MaskablePPO asks for "action_masks": the legal actions of each env now.
            if method_name == "action_masks" and self._masks is not None:
                return [self._masks[i].astype(bool) for i in self._indices(indices)]
            raise AttributeError(f"rlzoo's vector env has no per-env method {method_name!r}"
                                 + (" (action_masks: this env has no action mask)" if method_name == "action_masks"
                                    else ""))

        def env_is_wrapped(self, wrapper_class, indices=None) -> list[bool]:
            return [False] * len(self._indices(indices))

        def _indices(self, indices) -> Sequence[int]:
            if indices is None:
                return range(self.num_envs)
            if isinstance(indices, int):
                return [indices]
            return list(indices)

else:
    Sb3VecEnv = None


def _row(value: Any, i: int) -> Any:
    if isinstance(value, dict):
        return {k: _row(v, i) for k, v in value.items()}
    return np.array(value[i])


def sb3_vec_env(vector) -> "Sb3VecEnv":
    _check_sb3()
    return Sb3VecEnv(vector)
