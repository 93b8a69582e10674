"""rlzoo from Python: rlzoo's C++ envs with Gymnasium's API, batched vector envs on numpy, the
DouDizhu engine, and trained agents.

    import rlzoo
    env = rlzoo.make("CartPole-v1")
    obs, info = env.reset(seed=0)
    obs, reward, terminated, truncated, info = env.step(1)

    envs = rlzoo.make_vec("CartPole-v1", 1024, threads=2)
    agent = rlzoo.load_agent("runs/ppo/CartPole-v1_1")
    game = rlzoo.doudizhu.Game(seed=1)

Everything runs in C++; see docs/python.md.
"""

from . import _rlzoo
from ._rlzoo import UserError, __version__
from . import _gymnasium
from . import doudizhu, spaces
from .env import Env, EnvSpec, make
from .vector import VectorEnv, make_vec

has_agents: bool = bool(_rlzoo.has_agents)
if has_agents:
    from .agents import Agent, agent_from_preset, list_algorithms, load_agent, make_agent


def list_envs() -> list[str]:
    """The registered env ids."""
    return list(_rlzoo.env_ids())


def describe_env(id: str) -> dict:
    """The registry's entry: description, max_episode_steps, reward_threshold."""
    return dict(_rlzoo.env_description(id))


# Every env as gymnasium.make("rlzoo/<id>") where Gymnasium is installed (rlzoo/_gymnasium.py).
_gymnasium.register_envs(list_envs(), describe_env)
has_gymnasium: bool = _gymnasium.gymnasium is not None

__all__ = ["UserError", "__version__", "doudizhu", "spaces", "Env", "EnvSpec", "make", "VectorEnv", "make_vec",
           "list_envs", "describe_env", "has_agents", "has_gymnasium"]
if has_agents:
    __all__ += ["Agent", "agent_from_preset", "list_algorithms", "load_agent", "make_agent"]
