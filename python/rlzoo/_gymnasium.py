"""What rlzoo's Python classes take from Gymnasium when it is importable, and the registration of
rlzoo's envs with it.

With Gymnasium installed, ``rlzoo.Env`` is a ``gymnasium.Env``, spaces are ``gymnasium.spaces``,
specs are ``gymnasium.envs.registration.EnvSpec`` and every rlzoo env is registered as
``rlzoo/<id>`` (``gymnasium.make("rlzoo/CartPole-v1")``). Without it, rlzoo's own classes with
the same API stand in (``rlzoo.spaces``).

Time limits: ``rlzoo.make`` envs apply the registered limit in C++. ``gymnasium.make`` applies
the spec's ``max_episode_steps`` with Gymnasium's TimeLimit, as for Gymnasium's own envs, so the
env it makes has no limit of its own (one limit either way, and ``gymnasium.make(...,
max_episode_steps=N)`` means what it means for any env).
"""

from __future__ import annotations

from typing import Any

try:
    import gymnasium
    from gymnasium.envs.registration import EnvSpec as GymnasiumEnvSpec
except ImportError:  # the module works without Gymnasium, with rlzoo's own classes
    gymnasium = None
    GymnasiumEnvSpec = None

NAMESPACE = "rlzoo"
ENTRY_POINT = "rlzoo._gymnasium:make_for_gymnasium"
VECTOR_ENTRY_POINT = "rlzoo._gymnasium:make_vec_for_gymnasium"


def _version() -> tuple[int, int]:
    if gymnasium is None:
        return (0, 0)
    major, minor = gymnasium.__version__.split(".")[:2]
    return int(major), int(minor)


def gymnasium_vector_base() -> type:
    """The base of rlzoo.VectorEnv: Gymnasium's VectorEnv from 1.0 on (0.29's has another API:
    step_async / step_wait), else object."""
    return gymnasium.vector.VectorEnv if gymnasium is not None and _version() >= (1, 0) else object


def autoreset_mode_value(name: str):
    """metadata["autoreset_mode"]: Gymnasium's AutoresetMode where the installed Gymnasium has
    it (1.1 and later; its vector wrappers require the enum), else the name."""
    enum = getattr(getattr(gymnasium, "vector", None), "AutoresetMode", None)
    return enum[name.upper()] if enum is not None else name

# Gymnasium's render_fps for the classic-control envs rlzoo has (their metadata), so that a
# render_fps says what Gymnasium's own env says; MuJoCo envs take 1 / dt as Gymnasium's do, the
# grid worlds Gymnasium's toy-text rate.
_RENDER_FPS = {"CartPole-v1": 50, "CartPoleNoVel-v1": 50, "Acrobot-v1": 15, "MountainCar-v0": 30,
               "MountainCarContinuous-v0": 30, "Pendulum-v1": 30}
_TEXT_RENDER_FPS = 4


def gymnasium_id(env_id: str) -> str:
    """The id rlzoo's env ``env_id`` has in Gymnasium's registry."""
    return f"{NAMESPACE}/{env_id}"


def render_fps(env_id: str, core: Any) -> int | None:
    """The env's frames per second: Gymnasium's for its counterpart, else from its time step."""
    if env_id in _RENDER_FPS:
        return _RENDER_FPS[env_id]
    dt = core.seconds_per_step
    if dt:
        return int(round(1.0 / dt))
    return _TEXT_RENDER_FPS if core.can_render_text else None


def make_for_gymnasium(env_id: str, **kwargs: Any):
    """Gymnasium's entry point for ``rlzoo/<env_id>``: the env without a time limit of its own
    (gymnasium.make wraps it in TimeLimit from the spec)."""
    from .env import make
    return make(env_id, max_episode_steps=0, **kwargs)


def make_vec_for_gymnasium(env_id: str, num_envs: int = 1, max_episode_steps: int | None = None,
                           autoreset_mode: Any = "next_step", **kwargs: Any):
    """Gymnasium's vector entry point for ``rlzoo/<env_id>`` (``gymnasium.make_vec``): rlzoo's
    C++ vector env, next-step autoreset unless asked otherwise (Gymnasium 1.x's default)."""
    from .vector import make_vec
    return make_vec(env_id, num_envs, max_episode_steps=max_episode_steps, autoreset_mode=autoreset_mode, **kwargs)


def spec_for(env_id: str, max_episode_steps: int | None, reward_threshold: float | None, kwargs: dict):
    """A Gymnasium EnvSpec for an env rlzoo.make made: what ``gymnasium.make`` would give it,
    with the limit rlzoo applies (``spec.make()`` makes the same env again, with one limit)."""
    return GymnasiumEnvSpec(id=gymnasium_id(env_id), entry_point=ENTRY_POINT, reward_threshold=reward_threshold,
                            max_episode_steps=max_episode_steps, order_enforce=True, disable_env_checker=False,
                            kwargs={"env_id": env_id, **kwargs})


def register_envs(env_ids: list[str], describe) -> None:
    """Registers every env as ``rlzoo/<id>`` with Gymnasium (again after a re-import: the
    entries are replaced, not duplicated)."""
    if gymnasium is None:
        return
    registry = gymnasium.envs.registration.registry
    for env_id in env_ids:
        d = describe(env_id)
        limit = d.get("max_episode_steps")
        registry.pop(gymnasium_id(env_id), None)
        extra = {"vector_entry_point": VECTOR_ENTRY_POINT} if _version() >= (1, 0) else {}
        gymnasium.register(id=gymnasium_id(env_id), entry_point=ENTRY_POINT, kwargs={"env_id": env_id},
                           max_episode_steps=limit if limit else None,
                           reward_threshold=d.get("reward_threshold"), **extra)
