"""Values of tangent and cotangent spaces (notes Section 2.2: vector spaces).

A tangent of a Float is a float, of an array an ndarray, of a tuple a tuple;
:data:`ZERO` is a symbolic zero of any type (Int and Bool components are always
ZERO, so no zero array is ever materialised for an untouched variable); and
:class:`OneHot` is the sparse cotangent of an indexing, which :class:`Acc` adds
into a dense buffer in place (docs/design.md invariant 2).
"""
from __future__ import annotations

from typing import Any

import numpy as np


class _Zero:
    __slots__ = ()

    def __repr__(self) -> str:
        return "ZERO"


ZERO = _Zero()


class OneHot:
    """The Vec of size n that holds `value` at index i and zeros elsewhere."""

    __slots__ = ("i", "value", "n")

    def __init__(self, i: int, value: Any, n: int):
        self.i, self.value, self.n = int(i), value, int(n)

    def dense(self) -> np.ndarray | list:
        # An index out of range comes only from a branch that was not taken (both branches of
        # an if are computed, then one selected; the front end checks every index Python
        # evaluates): its value is dropped, so it writes nothing rather than failing.
        inside = -self.n <= self.i < self.n
        if isinstance(self.value, tuple):  # a vector of tuples: a list, element by element
            out: list = [ZERO] * self.n
            if inside:
                out[self.i] = self.value
            return out
        v = np.asarray(densify(self.value), dtype=np.float64)
        out = np.zeros((self.n,) + v.shape)
        if inside:
            out[self.i] = v
        return out

    def __repr__(self) -> str:
        return f"OneHot({self.i}, {self.value!r}, {self.n})"


def is_zero(x: Any) -> bool:
    return x is ZERO


def densify(x: Any) -> Any:
    if isinstance(x, OneHot):
        return x.dense()
    if isinstance(x, tuple):
        return tuple(densify(v) for v in x)
    if isinstance(x, list):  # a Vec of tangents kept sparse element by element
        rows = [densify(v) for v in x]
        like = next((np.asarray(r, dtype=np.float64) for r in rows if r is not ZERO), None)
        if like is None:
            return ZERO
        return np.array([np.zeros_like(like) if r is ZERO else r for r in rows], dtype=np.float64)
    return x


class Acc:
    """A mutable sum of tangent values. Sparse updates land in place in one dense
    buffer, allocated (or copied, when first handed someone else's array) once."""

    __slots__ = ("v", "owned")

    def __init__(self, v: Any = ZERO):
        self.v, self.owned = ZERO, False
        self.add(v)

    def add(self, x: Any) -> None:
        if x is ZERO:
            return
        v = self.v
        if isinstance(v, list) or (isinstance(x, list) and _tuples(x)) or \
                (isinstance(v, OneHot) and isinstance(x, list)):
            self._add_list(x)
            return
        if v is ZERO:
            if isinstance(x, list):
                x = densify(x)
            self.v, self.owned = (tuple(Acc(p) for p in x) if isinstance(x, tuple) else x), False
        elif isinstance(v, tuple):
            for a, p in zip(v, x):
                a.add(p)
        elif isinstance(x, OneHot):
            if isinstance(v, OneHot) and v.i == x.i and v.n == x.n:
                self.v, self.owned = OneHot(v.i, tadd(v.value, x.value), v.n), False  # still sparse
                return
            if isinstance(v, OneHot):
                self.v, self.owned = v.dense(), True
            elif not self.owned:
                self.v, self.owned = (list(v) if isinstance(v, list) else np.array(v, dtype=np.float64)), True
            _add_at(self.v, x.i, x.value)
        elif isinstance(v, OneHot):
            x = densify(x)
            if no_rows_sum(x, v.n):  # (zeros: v's own dense form, of its length)
                self.v, self.owned = v.dense(), True
                return
            self.v, self.owned = np.array(x, dtype=np.float64), True
            _add_at(self.v, v.i, v.value)
        elif isinstance(v, np.ndarray):
            x = densify(x)
            if x is ZERO:  # a vector of zero tangents (a loop's list of them) adds nothing
                return
            if no_rows_sum(x, len(v) if np.ndim(v) else 1):
                return
            if no_rows_sum(v, len(x) if np.ndim(x) else 1):
                self.v, self.owned = x, False
                return
            if not self.owned:
                self.v, self.owned = np.array(v, dtype=np.float64), True
            try:
                self.v += x
            except ValueError as e:  # a run-time check's error (backend.Compiled refuses it), not the user's
                raise ValueError(f"catad: a tangent of shape {np.shape(x)} added to one of shape "
                                 f"{np.shape(self.v)}") from e
        else:
            self.v = v + x

    def _add_list(self, x: Any) -> None:
        """A vector of tuples is kept as a list of tangents; add element by element."""
        v = self.v
        if v is ZERO:
            self.v, self.owned = x, False
            return
        if isinstance(v, OneHot):
            v = v.dense()
        elif not self.owned:
            v = list(v)
        if isinstance(x, OneHot):
            _add_at(v, x.i, x.value)
        else:
            v = [tadd(a, b) for a, b in zip(v, x)]
        self.v, self.owned = v, True

    def value(self) -> Any:
        if isinstance(self.v, tuple):
            return tuple(a.value() for a in self.v)
        return self.v


def no_rows_sum(x: Any, n: int) -> bool:
    """x is the sum of no rows (zeros of shape (1, ...): catad.lang.evaluate.no_rows, a loop of no
    iteration) beside a tangent of n > 1 rows or elements, which it broadcasts to, adding nothing."""
    return isinstance(x, np.ndarray) and x.ndim >= 1 and n > 1 and x.size == 1 and not x.any()


def _tuples(x: list) -> bool:
    return any(isinstance(e, tuple) for e in x)


def _add_at(arr: np.ndarray | list, i: int, v: Any) -> None:
    """arr[i] += v in place, where v may itself be sparse (a row's index update)."""
    if v is ZERO:
        return
    if isinstance(arr, list):
        arr[i] = tadd(arr[i], v)
        return
    if isinstance(v, OneHot):
        _add_at(arr[i], v.i, v.value)  # arr[i] is a view of the row
    else:
        arr[i] += v


def tadd(a: Any, b: Any) -> Any:
    acc = Acc(a)
    acc.add(b)
    return acc.value()


def tscale(k: float, x: Any) -> Any:
    """k * x, a tangent scaled by a Float: 0 wherever x is 0, even where k is inf or NaN
    (see :func:`times`)."""
    if x is ZERO:
        return ZERO
    if isinstance(x, tuple):
        return tuple(tscale(k, v) for v in x)
    if isinstance(x, OneHot):
        return OneHot(x.i, tscale(k, x.value), x.n)
    if isinstance(x, list):  # a Vec of tangents kept element by element (a loop's result)
        return [tscale(k, v) for v in x]
    return times(k, x)


def times(k: Any, x: Any, either: bool = False) -> Any:
    """k * x for a coefficient k (a primal value: a float or array) and a dense tangent x
    (broadcasting), and exactly 0 wherever x is 0, even where k is inf or NaN.

    This is the product of every linear map that scales (lmScale, lmScaleVec: tscale and
    tmul): a linear map applied to zero gives zero. So the zero cotangent that a
    conditional sends to its untaken branch stays zero through that branch's derivative,
    where the partial derivative may be inf or NaN (sqrt or log at 0, 1/x at 0, exp
    overflowing), as it stays zero when the branch is never evaluated (JAX's `where`
    trap; the generated code's zero-safe variant, catad/backend, computes the same).
    Products of primal values (mul) keep IEEE semantics: 0 * inf is NaN there.

    Where k * x is all finite (the usual case) it is returned as it is; only otherwise
    are the entries where x is 0 (`either`: where k or x is) set to 0."""
    with np.errstate(all="ignore"):  # IEEE results, as NumPy's (inf * 0 is NaN before it is fixed)
        p = k * x
    if np.isfinite(p).all():
        return p
    zero = np.equal(x, 0) | np.equal(k, 0) if either else np.equal(x, 0)
    return np.where(zero, 0.0, p)[()]


def times_both(a: Any, b: Any) -> Any:
    """a * b for two dense tangents (broadcasting), and exactly 0 wherever either is 0, even
    where the other is inf or NaN: the product of two tangents is bilinear, linear in each (the
    partial of tscale(k, x) in k is dk |-> dk x, a linear map of dk whose coefficient x is a
    tangent too: where x is 0, tscale(k, x) is 0 for every k, so is its derivative). With
    `times`, which is zero-safe in x alone, jacfwd of a gradient gave NaN where jacrev gave 0."""
    return times(a, b, either=True)


def tget(x: Any, i: int) -> Any:
    """Element i of a Vec tangent."""
    if x is ZERO:
        return ZERO
    if isinstance(x, OneHot):
        return x.value if x.i == i or x.i - x.n == i or x.i == i - x.n else ZERO
    return x[i]
