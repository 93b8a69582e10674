"""Gymnasium-style spaces describing rlzoo's observations and actions.

With Gymnasium installed, ``from_description`` and ``batch_space`` give ``gymnasium.spaces``
(the same bounds and dtypes; a MultiBinary, which Gymnasium stores as int8, becomes a uint8 Box
of 0/1 so that rlzoo's uint8 values belong to it); the classes here stand in without it.

Each space has ``shape``, ``dtype``, ``sample()``, ``contains(x)`` (also ``x in space``) and
``seed(seed)``; sampling uses the space's own ``numpy.random.Generator`` (``np_random``), as in
Gymnasium, independent of the env's RNG. The C++ spaces are the source of truth: rlzoo builds
these from them (``from_description``), so bounds and dtypes are rlzoo's (CartPole observes
float32, MuJoCo float64, DouDizhu uint8).
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

import numpy as np


class Space:
    """Base class: a set of values with a shape and a dtype."""

    def __init__(self, shape: tuple[int, ...] | None, dtype: Any, seed: int | None = None):
        self._shape = None if shape is None else tuple(int(d) for d in shape)
        self.dtype = None if dtype is None else np.dtype(dtype)
        self._np_random: np.random.Generator | None = None
        if seed is not None:
            self.seed(seed)

    @property
    def shape(self) -> tuple[int, ...] | None:
        return self._shape

    @property
    def np_random(self) -> np.random.Generator:
        if self._np_random is None:
            self._np_random = np.random.default_rng()
        return self._np_random

    def seed(self, seed: int | None = None) -> list[int | None]:
        """Re-creates the sampling RNG (None: from fresh entropy)."""
        self._np_random = np.random.default_rng(seed)
        return [seed]

    def sample(self) -> Any:
        raise NotImplementedError

    def contains(self, x: Any) -> bool:
        raise NotImplementedError

    def __contains__(self, x: Any) -> bool:
        return self.contains(x)


def _is_integer_value(x: Any) -> bool:
    if isinstance(x, (bool, np.bool_)):
        return False
    if isinstance(x, (int, np.integer)):
        return True
    return isinstance(x, np.ndarray) and x.shape == () and np.issubdtype(x.dtype, np.integer)


class Discrete(Space):
    """The integers start, start + 1, ..., start + n - 1."""

    def __init__(self, n: int, start: int = 0, seed: int | None = None):
        if int(n) < 1:
            raise ValueError(f"Discrete: n must be >= 1, got {n}")
        self.n = int(n)
        self.start = int(start)
        super().__init__((), np.int64, seed)

    def sample(self, mask: np.ndarray | None = None) -> np.int64:
        """A uniform element; with a mask (int8/bool [n], 1 = allowed), one of the allowed ones."""
        if mask is not None:
            allowed = np.flatnonzero(np.asarray(mask))
            if allowed.size == 0:
                raise ValueError("Discrete.sample: the mask allows no action")
            return np.int64(self.start + self.np_random.choice(allowed))
        return np.int64(self.start + self.np_random.integers(self.n))

    def contains(self, x: Any) -> bool:
        return _is_integer_value(x) and self.start <= int(x) < self.start + self.n

    def __repr__(self) -> str:
        return f"Discrete({self.n})" if self.start == 0 else f"Discrete({self.n}, start={self.start})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Discrete) and (self.n, self.start) == (other.n, other.start)


class Box(Space):
    """Real (or integer) arrays of a fixed shape within [low, high] element-wise (bounds may be
    infinite)."""

    def __init__(self, low: Any, high: Any, shape: Sequence[int] | None = None, dtype: Any = np.float32,
                 seed: int | None = None):
        dtype = np.dtype(dtype)
        if shape is None:
            shape = np.shape(low) if np.ndim(low) else np.shape(high)
        shape = tuple(int(d) for d in shape)
        self.low = np.broadcast_to(np.asarray(low, dtype=np.float64), shape).astype(dtype)
        self.high = np.broadcast_to(np.asarray(high, dtype=np.float64), shape).astype(dtype)
        if np.any(self.low > self.high):
            raise ValueError("Box: low must not exceed high")
        super().__init__(shape, dtype, seed)

    def is_bounded(self, manner: str = "both") -> bool:
        below = bool(np.all(np.isfinite(self.low))) if self.dtype.kind == "f" else True
        above = bool(np.all(np.isfinite(self.high))) if self.dtype.kind == "f" else True
        return {"both": below and above, "below": below, "above": above}[manner]

    def sample(self) -> np.ndarray:
        """Uniform where bounded on both sides; low + exponential, high - exponential or normal
        where bounded on one side or none (Gymnasium's rule). Integer boxes: uniform integers."""
        rng = self.np_random
        if self.dtype.kind in "iub":
            return rng.integers(self.low.astype(np.int64), self.high.astype(np.int64) + 1, size=self.shape).astype(self.dtype)
        low, high = self.low.astype(np.float64), self.high.astype(np.float64)
        below, above = np.isfinite(low), np.isfinite(high)
        out = np.empty(self.shape, dtype=np.float64)
        both = below & above
        out[both] = rng.uniform(low[both], high[both])
        only_low = below & ~above
        out[only_low] = low[only_low] + rng.exponential(size=int(only_low.sum()))
        only_high = ~below & above
        out[only_high] = high[only_high] - rng.exponential(size=int(only_high.sum()))
        neither = ~below & ~above
        out[neither] = rng.normal(size=int(neither.sum()))
        return out.astype(self.dtype)

    def contains(self, x: Any) -> bool:
        if not isinstance(x, np.ndarray):
            try:
                x = np.asarray(x, dtype=self.dtype)
            except (ValueError, TypeError):
                return False
        if x.shape != self.shape or not np.can_cast(x.dtype, self.dtype, casting="same_kind"):
            return False
        return bool(np.all(x >= self.low) and np.all(x <= self.high))

    def __repr__(self) -> str:
        lo = self.low.flat[0] if self.low.size and np.all(self.low == self.low.flat[0]) else self.low
        hi = self.high.flat[0] if self.high.size and np.all(self.high == self.high.flat[0]) else self.high
        return f"Box({lo}, {hi}, {self.shape}, {self.dtype})"

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, Box) and self.shape == other.shape and self.dtype == other.dtype
                and np.array_equal(self.low, other.low) and np.array_equal(self.high, other.high))


class MultiDiscrete(Space):
    """Integer vectors (any shape) with element i in [0, nvec[i])."""

    def __init__(self, nvec: Any, seed: int | None = None):
        self.nvec = np.asarray(nvec, dtype=np.int64)
        if np.any(self.nvec < 1):
            raise ValueError("MultiDiscrete: every nvec entry must be >= 1")
        super().__init__(self.nvec.shape, np.int64, seed)

    def sample(self) -> np.ndarray:
        return (self.np_random.random(self.nvec.shape) * self.nvec).astype(np.int64)

    def contains(self, x: Any) -> bool:
        x = np.asarray(x)
        return (x.shape == self.shape and np.issubdtype(x.dtype, np.integer)
                and bool(np.all((x >= 0) & (x < self.nvec))))

    def __repr__(self) -> str:
        return f"MultiDiscrete({self.nvec.tolist()})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, MultiDiscrete) and np.array_equal(self.nvec, other.nvec)


class MultiBinary(Space):
    """0/1 arrays of a fixed shape (uint8, rlzoo's layout)."""

    def __init__(self, n: int | Sequence[int], seed: int | None = None):
        shape = (int(n),) if np.ndim(n) == 0 else tuple(int(d) for d in n)
        self.n = shape[0] if len(shape) == 1 else shape
        super().__init__(shape, np.uint8, seed)

    def sample(self) -> np.ndarray:
        return self.np_random.integers(0, 2, size=self.shape, dtype=np.uint8)

    def contains(self, x: Any) -> bool:
        x = np.asarray(x)
        return x.shape == self.shape and np.issubdtype(x.dtype, np.integer) and bool(np.all((x == 0) | (x == 1)))

    def __repr__(self) -> str:
        return f"MultiBinary({self.n})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, MultiBinary) and self.shape == other.shape


class Dict(Space):
    """Named sub-spaces, in order; elements are dicts."""

    def __init__(self, spaces: Mapping[str, Space] | Sequence[tuple[str, Space]], seed: int | None = None):
        self.spaces = dict(spaces)
        super().__init__(None, None, None)
        if seed is not None:
            self.seed(seed)

    def seed(self, seed: int | None = None) -> list[int | None]:
        seeds = super().seed(seed)
        for i, s in enumerate(self.spaces.values()):
            seeds += s.seed(None if seed is None else seed + 1 + i)
        return seeds

    def sample(self) -> dict[str, Any]:
        return {k: s.sample() for k, s in self.spaces.items()}

    def contains(self, x: Any) -> bool:
        return (isinstance(x, Mapping) and set(x) == set(self.spaces)
                and all(s.contains(x[k]) for k, s in self.spaces.items()))

    def __getitem__(self, key: str) -> Space:
        return self.spaces[key]

    def keys(self):
        return self.spaces.keys()

    def __repr__(self) -> str:
        return "Dict(" + ", ".join(f"{k!r}: {s}" for k, s in self.spaces.items()) + ")"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Dict) and list(self.spaces.items()) == list(other.spaces.items())


def _gymnasium_space(d: Mapping[str, Any]):
    from ._gymnasium import gymnasium
    spaces = gymnasium.spaces
    kind = d["type"]
    if kind == "Discrete":
        return spaces.Discrete(d["n"], start=d["start"])
    if kind == "Box":
        dtype = np.dtype(d["dtype"])
        shape = tuple(int(x) for x in d["shape"])
        low = np.broadcast_to(np.asarray(d["low"], dtype=np.float64), shape).astype(dtype)
        high = np.broadcast_to(np.asarray(d["high"], dtype=np.float64), shape).astype(dtype)
        return spaces.Box(low, high, shape, dtype)
    if kind == "MultiDiscrete":
        return spaces.MultiDiscrete(np.asarray(d["nvec"], dtype=np.int64))
    if kind == "MultiBinary":
        return spaces.Box(0, 1, tuple(int(x) for x in d["shape"]), np.uint8)
    if kind == "Dict":
        return spaces.Dict([(name, _gymnasium_space(sub)) for name, sub in d["fields"]])
    raise ValueError(f"unknown space type {kind!r}")


def from_description(d: Mapping[str, Any]) -> Space:
    """The space the C++ side describes (``_rlzoo`` returns such dicts): a ``gymnasium.spaces``
    space where Gymnasium is installed, else one of this module's."""
    from ._gymnasium import gymnasium
    if gymnasium is not None:
        return _gymnasium_space(d)
    kind = d["type"]
    if kind == "Discrete":
        return Discrete(d["n"], d["start"])
    if kind == "Box":
        return Box(d["low"], d["high"], d["shape"], d["dtype"])
    if kind == "MultiDiscrete":
        return MultiDiscrete(d["nvec"])
    if kind == "MultiBinary":
        return MultiBinary(d["shape"])
    if kind == "Dict":
        return Dict([(name, from_description(sub)) for name, sub in d["fields"]])
    raise ValueError(f"unknown space type {kind!r}")


def batch_space(space: Space, n: int) -> Space:
    """The space of n stacked elements (Gymnasium's batch_space): Box -> Box (n, *shape),
    Discrete -> MultiDiscrete([n] * n), MultiDiscrete/MultiBinary stacked, Dict field by field."""
    from ._gymnasium import gymnasium
    if gymnasium is not None and isinstance(space, gymnasium.spaces.Space):
        return gymnasium.vector.utils.batch_space(space, n)
    if isinstance(space, Box):
        return Box(np.broadcast_to(space.low, (n,) + space.shape), np.broadcast_to(space.high, (n,) + space.shape),
                   (n,) + space.shape, space.dtype)
    if isinstance(space, Discrete):
        if space.start != 0:
            raise ValueError("batch_space: Discrete with start != 0 has no MultiDiscrete batch")
        return MultiDiscrete(np.full((n,), space.n, dtype=np.int64))
    if isinstance(space, MultiDiscrete):
        return MultiDiscrete(np.broadcast_to(space.nvec, (n,) + space.nvec.shape))
    if isinstance(space, MultiBinary):
        return MultiBinary((n,) + space.shape)
    if isinstance(space, Dict):
        return Dict([(k, batch_space(s, n)) for k, s in space.spaces.items()])
    raise TypeError(f"batch_space: cannot batch {space!r}")
