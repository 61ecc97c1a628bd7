"""Interpolation of measured curves: log-log in one and two dimensions, precomputed once.

The measured tables (docs/calibration.md) sample times and efficiencies at a few points per
decade (powers of two); between them the engine interpolates linearly in log x (and in
log y for times, which span decades), and beyond them it clamps (efficiencies, fixed
latencies) or extends in proportion to the work (times of bandwidth-bound kernels grow with
the bytes they move: slope 1 in log-log). The logs are taken once when a curve is built, so
a lookup is a bisection and a few multiplications: the engine evaluates thousands per
answer (engine/physics/step.py).
"""

from __future__ import annotations

import math
from bisect import bisect_right
from collections.abc import Sequence

__all__ = ["Curve", "Grid"]


class Curve:
    """y(x) from sampled points: linear in log x; y in log space when ``log_y``.

    ``extend`` = 1.0 continues past the last point in proportion to x (work-proportional
    times); 0.0 clamps. Below the first point the curve is always clamped.
    """

    __slots__ = ("_extend", "_log_y", "_lx", "_ly", "_memo", "_n")

    def __init__(self, xs: Sequence[float], ys: Sequence[float], *, log_y: bool = False,
                 extend: float = 0.0) -> None:
        if len(xs) != len(ys) or not xs:
            raise ValueError("a curve needs as many y as x values, at least one")
        self._lx = [math.log(x) for x in xs]
        self._ly = [math.log(max(y, 1e-30)) for y in ys] if log_y else [float(y) for y in ys]
        self._log_y = log_y
        self._extend = extend
        self._n = len(xs)
        self._memo: dict[float, float] = {}

    def __call__(self, x: float) -> float:
        """The curve at ``x`` (kept: the engine asks for the same few batch sizes and prompt
        lengths again and again)."""
        hit = self._memo.get(x)
        if hit is not None:
            return hit
        y = self._at(x)
        if len(self._memo) < 4096:
            self._memo[x] = y
        return y

    def _at(self, x: float) -> float:
        lx = self._lx
        t = math.log(x) if x > 0 else lx[0]
        if t <= lx[0]:
            y = self._ly[0]
        elif t >= lx[-1]:
            y = self._ly[-1]
            if self._extend:
                y = y + self._extend * (t - lx[-1]) if self._log_y else \
                    y * math.exp(self._extend * (t - lx[-1]))
        else:
            i = bisect_right(lx, t) - 1
            f = (t - lx[i]) / (lx[i + 1] - lx[i])
            y = self._ly[i] + (self._ly[i + 1] - self._ly[i]) * f
        return math.exp(y) if self._log_y else y


class Grid:
    """z(x, y) on a rectangular grid: a :class:`Curve` along y per row, then log-linear
    between the two rows that bracket x (clamped below, extended past the last row)."""

    __slots__ = ("_extend_x", "_log_z", "_lx", "_memo", "_rows")

    def __init__(self, xs: Sequence[float], ys: Sequence[float],
                 zs: Sequence[Sequence[float]], *, log_z: bool = False,
                 extend_x: float = 0.0, extend_y: float = 0.0) -> None:
        if len(zs) != len(xs) or any(len(row) != len(ys) for row in zs):
            raise ValueError("a grid needs one row of len(ys) values per x")
        self._rows = [Curve(ys, row, log_y=log_z, extend=extend_y) for row in zs]
        self._lx = [math.log(x) for x in xs]
        self._log_z = log_z
        self._extend_x = extend_x
        self._memo: dict[tuple[float, float], float] = {}

    def __call__(self, x: float, y: float) -> float:
        key = (x, y)
        hit = self._memo.get(key)
        if hit is not None:
            return hit
        z = self._at(x, y)
        if len(self._memo) < 8192:
            self._memo[key] = z
        return z

    def _at(self, x: float, y: float) -> float:
        lx = self._lx
        t = math.log(x) if x > 0 else lx[0]
        if t <= lx[0]:
            return self._rows[0](y)
        if t >= lx[-1]:
            z = self._rows[-1](y)
            if self._extend_x:
                z *= math.exp(self._extend_x * (t - lx[-1])) if self._log_z else 1.0
            return z
        i = bisect_right(lx, t) - 1
        f = (t - lx[i]) / (lx[i + 1] - lx[i])
        a, b = self._rows[i](y), self._rows[i + 1](y)
        if self._log_z:
            return math.exp(math.log(a) + (math.log(b) - math.log(a)) * f)
        return a + (b - a) * f
