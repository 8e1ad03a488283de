"""Helpers the generated NumPy code calls (its namespace holds these and ``np``).

Conventions of the generated code (see catad/backend/values.py): a value inside
k nested vectorised builds is an array with k leading *batch* axes, each of full
size or 1, followed by the value's own element axes.
"""
from __future__ import annotations

import numpy as np

from .. import tangents as T
from . import einsum_plans as _einsum_plans
from ..errors import DomainError as _DomainError, Loc as _Loc, RangeError as _RangeError, ShapeError as _ShapeError
from ..lang.evaluate import no_rows
from ..primitives import registry as R
from ..primitives import special as sf  # the special functions' whole-array forms (sf.expit)
# the linear-algebra kernels, called by name by catad/backend/linalg.py's code
from ..primitives.linalg import KERNELS as _LINALG
# the Fourier transforms' kernels, called by name by catad/backend/fft.py's code (dft_fft, dft_rfft_vjp, ...)
from ..primitives.fft import KERNELS as _FFT_KERNELS

globals().update(_FFT_KERNELS)
from ..primitives.spectral import KERNELS as _SPECTRAL
from ..primitives.triangular import KERNELS as _TRIANGULAR

globals().update(_LINALG)  # la_det, la_lsolve, la_logdet_hvp, ...: called by name (catad/backend/linalg.py)
globals().update(_SPECTRAL)  # la_svd, la_eigh, la_expm_jvp, ...: called by name (catad/backend/linalg.py)
globals().update(_TRIANGULAR)  # la_trisolve, la_cho_solve, ...


def lexsort_keys(*keys):
    """np.lexsort of keys along their last axis, the batch axes before it broadcast."""
    return np.lexsort(np.broadcast_arrays(*keys))


def lexsort_rows(m):
    """np.lexsort of the rows of each matrix of a stack (the last row the primary key)."""
    return np.lexsort(np.moveaxis(np.asarray(m), -2, 0))

ZERO = T.ZERO
OneHot = T.OneHot
last_hit = R.last_hit_kernel  # which write of an assignment through an index array is kept
brentq = R.PRIMITIVES["brentq"].impl  # scipy.optimize.brentq of the user's function (catad/primitives/roots.py)


def f64(x):
    """A Float argument or constant: NumPy scalars divide by zero like IEEE, not by raising."""
    return np.float64(x)


def to_int(x):
    """An integral Float (np.trunc's, np.floor's, ... result) as an Int. One that is not finite or
    is beyond int64 is 0, as an array's are NumPy's garbage: the front end's checks raise Python's
    error before wherever such a value is used (int(inf) computed for a filtered sum's elements
    that no element passes is never read; int() of it would raise OverflowError here)."""
    if isinstance(x, np.ndarray):
        return x.astype(np.int64)
    return int(x) if -_INT64_END < x < _INT64_END else 0


_INT64_END = float(2 ** 63)


_ROUND_DIGITS = np.frompyfunc(R._round_digits, 2, 1)


def round_digits(x, n):
    """Python's round(x, n) of floats, elementwise (registry._round_digits): Python's own, one
    element at a time, as NumPy has no correctly rounded form."""
    if not isinstance(x, np.ndarray) and not isinstance(n, np.ndarray):
        return np.float64(R._round_digits(x, n))
    return np.asarray(_ROUND_DIGITS(x, n), dtype=np.float64)


def to_float(x):
    return x.astype(np.float64) if isinstance(x, np.ndarray) else np.float64(x)


def int64_times(a, n: int):
    """a * n of Ints as NumPy's int64 computes it, wrapping around (a sum of n equal Int
    elements): a Python int a (exact, maybe past int64: products of Python ints are, and
    reducing them modulo 2**64 at the end is what wrapping at every step gives) reduced to
    int64."""
    if isinstance(a, np.ndarray):
        return a * np.int64(n)
    return np.int64((int(a) * n + 2 ** 63) % 2 ** 64 - 2 ** 63)


def each(name: str, *xs):
    """A primitive with no whole-array NumPy form, element by element (a Python loop)."""
    impl = R.PRIMITIVES[name].impl
    if not any(isinstance(x, np.ndarray) for x in xs):
        return np.float64(impl(*xs))
    f = np.frompyfunc(impl, len(xs), 1)
    return np.asarray(f(*xs), dtype=np.float64)


def power(a, b):
    """The primitive pow: C's pow elementwise (Python's ** of floats, NumPy's scalars'). NumPy's power
    ufunc is that but where its loop reads one exponent for many elements (a scalar, a broadcast
    view), which it computes as np.sqrt where that exponent is 0.5: nan at -inf and -0.0 at -0.0,
    where pow gives inf and 0.0; those are put right here, whatever the layout."""
    ints = np.asarray(a).dtype.kind in "iu" and np.asarray(b).dtype.kind in "iu"
    if ints and np.all(np.asarray(b) >= 0):
        return np.power(a, b)
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    r = np.power(a, b)
    if b.ndim == 0:
        if float(b) == 0.5:
            r = np.where(a == -np.inf, np.inf, r + 0.0)  # (-0.0 + 0.0 is 0.0)
    else:
        half = b == 0.5
        if half.any():
            r = np.where(half, np.where(a == -np.inf, np.inf, r + 0.0), r)
    return r[()]


def np_power(a, b):
    """The primitive np_pow: NumPy's power ufunc of one exponent for many elements, np.sqrt where it
    is 0.5. In a vectorised loop each lane may have an exponent of its own, which np.power may
    take as many (computing pow): the lanes whose exponent is 0.5 are made np.sqrt's here."""
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    r = np.power(a, b)
    if b.ndim:
        half = b == 0.5
        if half.any():
            r = np.where(half, np.sqrt(a), r)
    return r[()]


def first_max(a, b):
    """Python's max(a, b): a unless b > a (so a tie, or a NaN on either side, gives a)."""
    if type(a) is int and type(b) is int:  # sizes: a loop's body asks many times per step
        return _INT(b if b > a else a)
    return np.where(b > a, b, a)[()]


def first_min(a, b):
    if type(a) is int and type(b) is int:
        return _INT(b if b < a else a)
    return np.where(b < a, b, a)[()]


_INT = np.asarray(0).dtype.type  # what np.where makes of Python ints


def every(x: np.ndarray) -> bool:
    """x.all() of an array (every element nonzero: True, or a number other than 0, NaN too), by
    np.count_nonzero, a plain C loop without the reduction machinery of ndarray.all (0.3 us
    instead of 1 for the run-time checks' small arrays, 0.7 instead of 1.2 at (1000, 10))."""
    return _count_nonzero(x) == x.size


def finite(x: np.ndarray) -> bool:
    """np.isfinite(x).all() of an array: by every() while it is small (half of .all()'s 1.3 us at
    10 elements), by .all() at LEAST elements and more (there count_nonzero's pass is slower),
    after the sum of squares of a large contiguous float64 one (SQUARES_LEAST, _squares_finite)."""
    if x.size >= SQUARES_LEAST and x.dtype == _F64 and _squares_finite(x):
        return True
    f = np.isfinite(x)
    return bool(f.all()) if x.size >= _einsum_plans.LEAST else _count_nonzero(f) == x.size


_F64 = np.dtype(np.float64)
# finite() tests the sum of squares first from this many elements: below it the dot's and
# np.errstate's fixed 2 us are more than they save (20000 elements: 4.4 us either way; 65536:
# 8.7 against 11.9; GMM's 250000 at d = 10: 25-35 against 40)
SQUARES_LEAST = 1 << 16


def _squares_finite(x: np.ndarray) -> bool:
    """Whether x . x (BLAS's dot of x's elements in memory order) is finite, which holds only
    when every element is: an inf or NaN makes its square inf or NaN, and a sum of
    non-negative terms with one of them inf or NaN is inf or NaN (no inf - inf). False also
    where finite elements' squares overflow (|x| > 1e154) or x is not contiguous: then the
    caller tests the elements. One read of x at BLAS's speed: 13 us for GMM's (1000, 25, 10)
    arrays, np.isfinite(x).all() 40 (a Bool temporary, then its reduction)."""
    if x.flags.c_contiguous:
        r = x.reshape(-1)
    elif x.flags.f_contiguous:
        r = x.T.reshape(-1)
    else:
        return False
    with np.errstate(over="ignore", invalid="ignore"):  # (the overflow is not the user's: no warning)
        return bool(np.isfinite(np.dot(r, r)))


_count_nonzero = np.count_nonzero


def sel(c, a, b):
    return np.where(c, a, b)[()]


def safe_index(i, n):
    """Indices in lanes that a mask discards may be anything: keep them in range."""
    return np.where((i >= -n) & (i < n), i, 0)[()]


def idle_index(i, n, idle: bool):
    """i, kept in range where the builds around its read have no lanes (so nothing reads it and its
    checks ran for none): safe_index's where only then."""
    return safe_index(i, n) if idle else i


def nonempty(x, axis: int):
    """x, or x with one zero along an empty axis (for lanes a mask discards)."""
    if x.shape[axis]:
        return x
    pad = [(0, 0)] * x.ndim
    pad[axis] = (0, 1)
    return np.pad(x, pad)


def take_iota(x, a: int, k: int, n: int, masked: bool = False):
    """x[..., i_a, ...] where i_a = arange(n) along batch axis a (of size 1 in x) and
    axis k of x is the indexed one: a view with axis k moved to position a.

    Sizes are never reconciled here: the front end proved or checked that every index a
    lane reads is in range, so x has at least n elements along k (a build over range(n)
    reads the first n of them), except where lanes past the end are `masked` out (a ragged
    range padded to its longest lane, a branch not taken), which read zeros. An x empty along
    another axis is read by no lane (the result is empty too): the rows of a loop that ran no
    step have no length of their own to check (loop_array)."""
    m = x.shape[k]
    if m > n:
        x = x[(slice(None),) * k + (slice(0, n),)]
    elif m < n:
        if not masked and 0 not in x.shape[:k] + x.shape[k + 1:]:
            raise AssertionError(f"catad: a build of {n} reads {m} elements (an unchecked index)")
        pad = [(0, 0)] * x.ndim
        pad[k] = (0, n - m)
        x = np.pad(x, pad)
    if k == a + 1:  # the indexed axis is next to a (most reads): only drop axis a
        return x[0] if a == 0 else x[(slice(None),) * a + (0,)]
    return np.squeeze(np.swapaxes(x, a, k), axis=k)


def maxlen(n, mask=None):
    """The padded length of a ragged build: the largest size over the lanes in use."""
    n = np.asarray(n)
    if mask is not None:
        n = np.where(mask, n, 0)
    return int(n.max(initial=0))


def stack(k: int, *xs):
    """vector(x1, x2, ...) inside k batch axes: the elements along a new axis k."""
    xs = np.broadcast_arrays(*[np.asarray(x) for x in xs])
    return np.stack(xs, axis=k)


def full(x, shape):
    """x broadcast to shape: a read-only view; a small one (at most LEAST elements) a copy,
    a quarter of np.broadcast_to's 3 us of Python (the generated code writes into no array)."""
    if type(x) is np.ndarray and _prod(shape) <= _einsum_plans.LEAST:
        out = np.empty(shape, dtype=x.dtype)
        out[...] = x
        return out
    return np.broadcast_to(x, shape)


def one_hot(x, i, iota):
    """np.where(iota == i, x, 0), iota an arange along the last axis and x and i of size 1 there:
    zeros with x written at i (the derivative of a max over GMM's 10 components at 1000 points:
    a 12 us comparison and an 11 us np.where per use, 4 us here). Any index outside [0, n)
    (no lane then selected), another dtype or layout: np.where itself."""
    if type(x) is np.ndarray and type(i) is np.ndarray and x.dtype == np.float64 and i.dtype == np.int64 \
            and x.ndim == i.ndim == np.ndim(iota) >= 1 and x.shape[-1] == 1 == i.shape[-1]:
        n = iota.shape[-1]
        if x.shape != i.shape:  # (np.broadcast_to: 3 us each)
            x, i = np.broadcast_arrays(x, i)
        if n and every(i.view(np.uint64) < n):  # a negative index is a large unsigned one (n = 0: np.where)
            rows = i.size
            out = np.zeros(rows * n)
            out[np.arange(0, rows * n, n) + i.reshape(-1)] = x.reshape(-1)
            return out.reshape(i.shape[:-1] + (n,))
    return np.where(iota == i, x, 0)


def vreduce(kind: str, x, axis: int, mask=None, active=True, where: tuple | None = None):
    """max/min/argmax/argmin along axis, ignoring lanes outside mask (ragged padding).
    A lane that reduces nothing (no element, or none inside mask) raises NumPy's error where
    it is `active` (the lanes the enclosing branches take: True outside any); where it is not,
    its value is discarded (NaN, index 0, or the fill). where: (file, line, col) of the
    reduction in the user's source, for the error."""
    x = _reducible(kind, x, axis, mask, active, where)
    if x.shape[axis] == 0:
        return _of_nothing(kind, x, axis)
    if kind in ("max", "min") and _short_rows(x, axis):
        return _at_index(kind, x, axis, x.argmax(axis=axis) if kind == "max" else x.argmin(axis=axis))
    return getattr(x, kind)(axis=axis)[()]  # ndarray's method: np.max's value, without its wrapper's 2 us


def vreduce2(kind: str, x, axis: int, mask=None, active=True, where: tuple | None = None) -> tuple:
    """(vreduce(kind, ...), vreduce("arg" + kind, ...)) of kind max or min: a program that
    asks for both (the derivative of max) reads the rows once for the index, and takes the
    largest elements there (backend/reductions.py pairs the two)."""
    x = _reducible(kind, x, axis, mask, active, where)
    if x.shape[axis] == 0:
        return _of_nothing(kind, x, axis), _of_nothing("arg" + kind, x, axis)
    i = x.argmax(axis=axis) if kind == "max" else x.argmin(axis=axis)
    if _short_rows(x, axis):
        return _at_index(kind, x, axis, i), i[()]
    return getattr(x, kind)(axis=axis)[()], i[()]


def _reducible(kind: str, x, axis: int, mask, active, where):
    """x with the lanes outside mask made the fill (-inf for max, the smallest int, ...),
    after the check that each active lane reduces something."""
    if mask is not None:
        mask = np.broadcast_to(mask, np.broadcast_shapes(np.shape(mask), x.shape))
        empty = np.logical_not(mask.any(axis=axis))
        fill = (-np.inf if kind in ("max", "argmax") else np.inf) if x.dtype.kind == "f" else \
            (np.iinfo(x.dtype).min if kind in ("max", "argmax") else np.iinfo(x.dtype).max)
        x = np.where(mask, x, fill)
    elif x.shape[axis]:
        return x  # every lane has an element (np.any of False: 2 us)
    else:
        empty = True
    if np.any(empty) and np.any(empty & np.reshape(active, np.shape(active) + (1,) * (np.ndim(empty) - np.ndim(active)))):
        raise _empty_reduction(kind, where)
    return x


def _of_nothing(kind: str, x, axis: int):
    """The discarded value of lanes that reduce nothing: index 0, or NaN."""
    shape = x.shape[:axis] + x.shape[axis + 1:]
    return np.zeros(shape, dtype=np.int64)[()] if kind.startswith("arg") else np.full(shape, np.nan)[()]


def _short_rows(x, axis: int) -> bool:
    return axis == x.ndim - 1 and x.shape[axis] <= _SHORT_ROWS and x.dtype.kind == "f" \
        and x.size >= _einsum_plans.LEAST


def _at_index(kind: str, x, axis: int, i):
    """The max (min) of short rows as the element at their argmax (argmin) i; np.max's own where
    one is a zero (-0.0 or 0.0: np.max's choice then)."""
    picked = _picked(x, i)
    if every(picked):
        return picked[()]
    return getattr(x, kind)(axis=axis)[()]


# vreduce takes the max (min) of rows of at most this many elements as the element at the
# argmax (argmin), the first largest (or first NaN: np.max's NaN then too): NumPy's reduction
# machinery costs 40 ns per row of 10 (GMM's logsumexp over 10 components: 41 us at 1000
# points), argmax 9 ns and the gather 3 us in all
_SHORT_ROWS = 32


def _picked(x: np.ndarray, i: np.ndarray) -> np.ndarray:
    """x's element at index i along its last axis, per row."""
    n = x.shape[-1]
    if x.flags.c_contiguous:
        return x.reshape(-1)[i.reshape(-1) + np.arange(0, i.size * n, n)].reshape(i.shape)
    return np.take_along_axis(x, i[..., None], -1)[..., 0]


_FSUM = R.PRIMITIVES["fsum"].impl


def fsum(x, where: tuple | None = None) -> float:
    """math.fsum of the vector x (the fsum primitive), its ValueError (inf + -inf) and
    OverflowError (an intermediate overflow) raised as catad's, with Python's message, located
    at the call in the user's source (where: (file, line, col))."""
    try:
        return _FSUM(x)
    except ValueError as e:
        raise _DomainError(str(e), _Loc(*where) if where else None, "math.fsum") from None
    except OverflowError as e:
        raise _RangeError(str(e), _Loc(*where) if where else None, "math.fsum") from None


def _empty_reduction(kind: str, where: tuple | None) -> _ShapeError:
    """NumPy's ValueError for a max (min, argmax, argmin) of nothing, as a catad error."""
    return _ShapeError(f"{kind} of an empty array (NumPy raises ValueError: a zero-size array has no {kind})",
                       _Loc(*where) if where else None, kind,
                       hint="make sure the array is not empty, e.g. test its length first")


def take_shift(x, a: int, k: int, n: int, s):
    """x[..., i_a + s, ...]: take_iota's read shifted by s (a slice x[s:s + n] along axis k, the
    front end's v[s:e]), a view when the n elements are in range; otherwise read as indexed (a
    negative index wraps, one past the end raises IndexError), as NumPy reads x[arange(n) + s]."""
    m = x.shape[k]
    if 0 <= s and s + n <= m:
        x = x[(slice(None),) * k + (slice(s, s + n),)]
    elif 0 in x.shape[:k] + x.shape[k + 1:]:  # read by no lane (as take_iota's): empty, nothing raised
        x = np.zeros(x.shape[:k] + (n,) + x.shape[k + 1:], dtype=x.dtype)
    else:
        x = np.take(x, np.arange(n) + s, axis=k)
    return take_iota(x, a, k, n)


def take_clamped(x, a: int, k: int, n: int, hi):
    """x[..., min(i_a, hi), ...] (take_iota's read at min(i, hi) instead of i): a length only
    known at run time broadcast to the build's n (frontend/broadcast.py), checked before to be
    n (read i) or 1 (read 0, for every i). Both are views (the second a read-only broadcast);
    any other case is read as indexed, so that the result is min's whatever the sizes."""
    if hi >= n - 1 and x.shape[k] >= n:
        return take_iota(x, a, k, n)
    if hi == 0 and x.shape[k] >= 1:
        y = take_iota(x, a, k, 1)
        return np.broadcast_to(y, y.shape[:a] + (n,) + y.shape[a + 1:])
    return take_iota(np.take(x, np.minimum(np.arange(n), hi), axis=k), a, k, n)


def scatter_clamped(v, N: int, a: int, summed: tuple, n: int, hi, pos: int):
    """The sum over batch axis a (of size N) and the batch axes `summed` of v placed at
    min(i_a, hi) along a new axis of length n at position `pos` of the result (the axes left
    after those sums): scatter() of take_clamped's cotangent, v itself (padded to n) when the
    read was i, its sum over a when it was 0, and a scatter-add otherwise."""
    if not summed and a == pos and type(v) is np.ndarray and v.dtype == np.float64 and v.shape[a] == N:
        if n == N and hi >= N - 1:  # the common cases, without the general bookkeeping below
            return v.copy()
        if n == 1 and hi == 0:
            return v.sum(axis=a, keepdims=True)
    v = np.asarray(v, dtype=np.float64)
    if summed:
        v = v.sum(axis=summed, keepdims=True)
    if v.shape[a] != N:  # v does not vary along a: every lane adds it
        v = np.broadcast_to(v, v.shape[:a] + (N,) + v.shape[a + 1:])
    if hi >= N - 1 and n >= N:
        z = v if n == N else np.concatenate(
            [v, np.zeros(v.shape[:a] + (n - N,) + v.shape[a + 1:])], axis=a)
    elif hi == 0 and n >= 1:
        z = v.sum(axis=a, keepdims=True)
        if n > 1:
            z = np.concatenate([z, np.zeros(z.shape[:a] + (n - 1,) + z.shape[a + 1:])], axis=a)
    else:
        idx = np.minimum(np.arange(N), hi)
        if N and (idx.min() < -n or idx.max() >= n):
            raise AssertionError("catad: an index update out of range (an unchecked index)")
        z = np.zeros(v.shape[:a] + (n,) + v.shape[a + 1:])
        np.add.at(np.moveaxis(z, a, 0), idx, np.moveaxis(v, a, 0))
    if summed:
        z = z.reshape(tuple(s for b, s in enumerate(z.shape) if b not in summed))
        a -= sum(1 for b in summed if b < a)
    return np.array(np.moveaxis(z, a, pos))


def scatter(shape: tuple, index: tuple, val):
    """zeros(shape) with val added at index (an advanced-index tuple over the leading
    axes; repeated indices add up): the sum of many index updates, in one pass."""
    shape = tuple(int(s) for s in shape)
    val = np.asarray(val, dtype=np.float64)
    m = len(index)
    if m == 1 and len(shape) == 1:  # a vector's update at a vector of indices, all in range:
        i = index[0]                # the bincount below, without its general bookkeeping
        if type(i) is np.ndarray and i.ndim == 1 and i.dtype.kind == "i" and val.shape == i.shape \
                and (i.size == 0 or (i.min() >= 0 and i.max() < shape[0])):
            return np.bincount(i, weights=val, minlength=shape[0])
    in_range = _scatter_in_range(shape, index, val)
    if in_range is not None:
        return in_range
    bshape = np.broadcast_shapes(*(np.shape(i) for i in index))
    rest = shape[m:]
    flat = np.zeros((), dtype=np.intp)
    bad = False
    for i, dim in zip(index, shape[:m]):  # row-major flat position, negatives wrapped
        i = np.asarray(i)
        outside = (i >= dim) | (i < -dim)
        if outside.any():
            bad = bad | outside
            i = np.where(outside, 0, i)
        flat = flat * dim + np.where(i < 0, i + dim, i)
    size = int(np.prod(shape[:m], dtype=np.int64))
    inner = int(np.prod(rest, dtype=np.int64))
    full_shape = bshape + rest
    v = np.broadcast_to(val, np.broadcast_shapes(val.shape, full_shape))
    if v.shape != full_shape:
        raise ValueError(f"scatter: values of shape {val.shape} do not fit indices of shape {bshape}")
    if bad is not False:  # lanes a mask discarded hold zeros; any other index out of range is an error
        bad = np.broadcast_to(bad, bshape).reshape(bshape + (1,) * len(rest))
        if np.any(np.broadcast_to(bad, full_shape) & (v != 0)):  # the front end checks every index
            raise AssertionError("catad: an index update out of range (an unchecked index)")
        v = np.where(bad, 0.0, v)
    if inner == 1:
        f = np.broadcast_to(flat, bshape).ravel()
        out = np.bincount(f, weights=v.reshape(-1), minlength=size)
    else:
        f = (np.broadcast_to(flat, bshape).reshape(-1, 1) * inner + np.arange(inner)).ravel()
        out = np.bincount(f, weights=v.reshape(-1), minlength=size * inner)
    # an index a mask discarded was made 0 above, which is past the end of an empty vector
    return out[:size * inner].reshape(shape)


def _scatter_in_range(shape: tuple, index: tuple, val: np.ndarray):
    """scatter's sum when every index is an integer within [0, dim) and val has the indices'
    broadcast shape followed by the rest of `shape`: np.ravel_multi_index (which refuses any
    other index) and one bincount, the general path's flat positions and sums in its order,
    without its dozen calls to check, wrap and broadcast (55 of GMM's hvp's 520 us at 10
    points); None otherwise."""
    m = len(index)
    try:
        flat = np.ravel_multi_index(index, shape[:m])
    except (ValueError, TypeError):  # out of range, negative (wrapped there), not integers
        return None
    rest = shape[m:]
    if val.shape != flat.shape + rest:
        return None
    inner = _prod(rest)
    size = _prod(shape[:m])
    if inner == 1:
        return np.bincount(flat.reshape(-1), weights=val.reshape(-1), minlength=size).reshape(shape)
    f = (flat.reshape(-1, 1) * inner + np.arange(inner)).reshape(-1)
    return np.bincount(f, weights=val.reshape(-1), minlength=size * inner).reshape(shape)


def scatter_slices(shape: tuple, items: tuple, val, d: int):
    """scatter(shape, index, val) for an index whose items are ints or (a, s, N, hi): the
    positions s + j (hi None) or s + min(j, hi) for j < N along batch axis a of d
    (scatters._slices). Each position is written once when hi is None or hi >= N - 1 (a
    slice's elements are distinct) and within the axis, so it is zeros(shape) and a basic
    assignment; otherwise the general scatter of those positions (NumPy reads an index
    before the start wrapped; one past the end or an int out of range is refused there)."""
    shape = tuple(int(s) for s in shape)
    index = []
    for it, dim in zip(items, shape):
        if type(it) is tuple:
            a, s, n, hi = it
            if hi is not None and hi < n - 1 or s < 0 or s + n > dim:
                return scatter(shape, tuple(_positions(x, d) for x in items), val)
            index.append(slice(s, s + n))
        elif -dim <= it < dim:
            index.append(it)
        else:
            return scatter(shape, tuple(_positions(x, d) for x in items), val)
    z = np.zeros(shape)
    z[tuple(index)] = val
    return z


def _positions(item, d: int):
    """An item of scatter_slices as the general scatter's index: an int, or the positions
    along batch axis a (of d)."""
    if type(item) is not tuple:
        return item
    a, s, n, hi = item
    j = np.arange(n) if hi is None else np.minimum(np.arange(n), hi)
    return (j + s).reshape((1,) * a + (-1,) + (1,) * (d - a - 1))


def loop_array(elems: list, dtype, ndim: int, like=None):
    """The array of a Python loop's results; with no results, shaped as `like`, the vector whose
    rows they are (a reverse loop's cotangents of the rows of an empty matrix, added to its other
    cotangents: (0, 3)), or else as the reference semantics makes an empty build (no_rows: (0, 1),
    whose sum broadcasts as a row of any shape would)."""
    if elems:
        return np.array(elems, dtype=dtype)
    if like is not None and np.ndim(like) == ndim:
        return np.zeros(np.shape(like), dtype=dtype)
    return no_rows(ndim, dtype)


def batch_full(x, batch: tuple):
    """x (a value inside vectorised builds: its batch axes of full size or 1, then its own)
    with every batch axis of full size: a loop inside the builds carries its state so (a
    read-only view; the loop assigns new arrays, it never writes into one)."""
    return np.broadcast_to(x, tuple(batch) + np.shape(x)[len(batch):])


def batch_add(acc, batch: tuple, x):
    """acc + x, a loop's running sum inside vectorised builds of batch shape `batch`: None
    before the first step, then an array of its own (every batch axis of full size) that
    later steps add into in place."""
    if acc is None:
        return np.array(np.broadcast_to(x, tuple(batch) + np.shape(x)[len(batch):]))
    acc += x
    return acc


def batch_add_at(acc, batch: tuple, idx: tuple, val, n: tuple):
    """batch_add of the index update (idx, val) of an array of shape n (after the batch axes),
    the same index in every lane: val is added where it goes, in place, no array of shape n
    made for it (zeros of its shape before the first step)."""
    d = len(batch)
    if acc is None:
        acc = np.zeros(tuple(batch) + tuple(n) + np.shape(val)[d:])
    acc[(slice(None),) * d + tuple(idx)] += val
    return acc


def batch_steps(elems: list, depth: int, empty_shape: tuple):
    """The per-step arrays of a loop inside vectorised builds as one array whose axis `depth`
    is the step (after the batch axes); with no steps, zeros of empty_shape."""
    return np.stack(elems, axis=depth) if elems else np.zeros(empty_shape)


def check_ok(cond, mask, lanes: tuple, site, data):
    """Raise site's error (a ShapeError or BoundsError naming the user's file and line) where
    cond is False in a lane that exists and is not masked out; data holds the values to show,
    per lane (all arrays here have the same leading batch axes, of full size or 1)."""
    if cond is True or cond is np.True_:
        return
    if type(cond) is np.ndarray:
        # (ndarray.all: a fifth of np.any's cost on small arrays, and checks run often)
        if (mask is None or cond.size <= _einsum_plans.LEAST) and every(cond):
            return  # no lane fails, masked or not (a masked test of a small one: 1 us, the mask's 4)
    elif np.ndim(cond) == 0 and cond:
        return
    if not all(lanes):  # a comprehension with no elements evaluates nothing
        return
    bad = np.logical_not(cond) if mask is None else np.logical_not(cond) & mask
    if not bad.any():
        return
    leaves = _leaves(data)
    shape = np.broadcast_shapes(np.shape(bad), *(np.shape(x) for x in leaves))
    at = np.unravel_index(int(np.argmax(np.broadcast_to(bad, shape))), shape)
    raise site.error(_pick(data, at, shape))


def check_range(r, xs: tuple, mask, lanes: tuple, site, data):
    """check_ok(not(|r| > MAX and |x1| <= MAX and ...), ...), MAX the largest float: the
    front end's test that math.f(x1, ...) overflowed (checks.overflow_test). Where r holds no
    inf (finite, or NaN, which no test counts: NaN > MAX is False), the condition holds in
    every lane: one pass over r instead of the test's six (GMM's logsumexp at 1000 points: 31
    -> 4 us); otherwise the test itself."""
    if type(r) is np.ndarray:
        if finite(r):
            return
    elif not abs(r) > _BIGGEST:
        return
    over = np.abs(r) > _BIGGEST
    for x in xs:
        over = over & (np.abs(x) <= _BIGGEST)
    check_ok(np.logical_not(over), mask, lanes, site, data)


_BIGGEST = np.float64(np.finfo(np.float64).max)


def _leaves(x) -> list:
    return [y for v in x for y in _leaves(v)] if isinstance(x, tuple) else [x]


def _pick(x, at: tuple, shape: tuple):
    if isinstance(x, tuple):
        return tuple(_pick(v, at, shape) for v in x)
    return np.broadcast_to(x, shape)[at]  # an Int, Float or Bool: errors.Site prints it as Python would


def dense_tangent(x):
    """A runtime tangent (ZERO, OneHot, list, ndarray) as an ndarray or float."""
    x = T.densify(x)
    return 0.0 if x is ZERO else x


def shaped_as(x, like):
    """x, a dense tangent, where it has the shape of its value `like`; else the ValueError that has
    the program run again with only the branches taken (Compiled.blocks): an if on one bool
    computes both branches, and the zero tangent of the one not taken is shaped as the other's."""
    if np.shape(x) != np.shape(like):
        raise ValueError(f"catad: a tangent of shape {np.shape(x)} for a value of shape {np.shape(like)}")
    return x


def dense_like(x, like):
    """A run-time tangent as a dense array shaped like the primal `like` (a fold's loop
    carries its tangents dense: the zero tangent becomes zeros of that shape)."""
    x = T.densify(x)
    if x is ZERO:
        return np.zeros(np.shape(like)) if np.ndim(like) else 0.0
    return x


def rt_mask(c, x):
    return x if c else ZERO


def rt_update(i, v, n):
    """update(i, v, n) as a run-time tangent: the registry's `update`, without looking it up
    (a reverse loop makes one per row it read, per step). Vectorised over lanes (i an array of
    indices, as a slice's cotangent is: x[1:]), the sum of the lanes' updates, v broadcast
    along i's axes."""
    if v is ZERO or n == 0:  # (an empty vector's only tangent: an update of it sums no lanes)
        return ZERO
    if type(v) is list:  # a loop's list of tangents: ZERO where each is (no shape to make zeros of)
        v = T.densify(v)
        if v is ZERO:
            return ZERO
    if type(i) is not np.ndarray or i.ndim == 0:  # (a reverse loop's steps: one index, often)
        return OneHot(i, v, n)
    v = np.asarray(T.densify(v), dtype=np.float64)
    row = v.shape[i.ndim:] if v.ndim > i.ndim else ()
    out = np.zeros((int(n),) + row)
    np.add.at(out, i, np.broadcast_to(v, i.shape + row))
    return out


def rt_repeat(x, n):
    """build(n, \\i. x) of a run-time tangent x that no lane changes: n copies of it as one
    run-time tangent (the zero tangent of a vector, where x is the zero tangent; a list, as a
    loop makes a vector of tuples, where x is a tuple)."""
    if isinstance(x, tuple):
        return [x] * int(n)
    x = T.densify(x)
    if x is ZERO:  # (also a list of zero tangents, a loop's)
        return ZERO
    return np.repeat(np.asarray(x)[None], int(n), axis=0)


def rt_len(v):
    """size(v) of a run-time tangent (a reverse loop's, kept as a list: Compiled.ragged): an index
    update knows its length; a list or an array has one."""
    if isinstance(v, OneHot):
        return v.n
    if v is ZERO:
        zero_tangent_length()
    return len(v)


def rt_sum(v):
    return R.PRIMITIVES["tsum"].impl(v)


def zero_tangent_length():
    """The length of a vector catad knew to be zero while compiling (catad.backend.gathers.p_size):
    generated code that is correct never reads it."""
    raise AssertionError("catad read the length of a tangent it knew to be zero (catad's own bug: please report it)")


class RaggedStates(Exception):
    """A scan's accumulators differ in shape: no array holds them (catad.backend.Compiled runs the
    variant that keeps them as lists)."""


def stack_states(states: list, dtype):
    """A scan's accumulators as one array (RaggedStates when their shapes differ)."""
    first = np.shape(states[0])
    if any(np.shape(x) != first for x in states):
        raise RaggedStates()
    return np.array(states, dtype=dtype)


def tangent_dot(a, r):
    """<a, r> of two run-time tangents (catad.primitives: tdot)."""
    return R.PRIMITIVES["tdot"].impl(a, r)


def tangent_outer(a, k):
    """k * a of a run-time tangent a and a Float tangent k (catad.primitives: touter)."""
    return R.PRIMITIVES["touter"].impl(a, k)


def tangent_prod(a, b):
    """a * b elementwise of two run-time tangents (catad.primitives: tprod)."""
    return R.PRIMITIVES["tprod"].impl(a, b)


def rt_index(v, i):
    """v[i] of a run-time tangent. Out of range only in a branch not taken (both branches of an
    if are computed, then one selected, as OneHot.dense says): ZERO there, which is dropped."""
    if isinstance(v, (list, np.ndarray)) and not -len(v) <= i < len(v):
        return ZERO
    return T.tget(v, i) if not isinstance(v, list) else v[i]


def out_array(x, dtype, params=()):
    """x as the caller's own array: copied when it is a view, read-only or an argument."""
    x = np.asarray(x, dtype=dtype)
    if not x.flags.owndata or not x.flags.writeable or any(x is p for p in params):
        return x.copy()
    return x


def update_vector(x, axis: int, n: int):
    """The vector of length n along axis that an index update writes: x's lanes, the
    values written at 0, 1, ..., then zeros where nothing was written (the cotangent of
    the first k elements of a vector of n). Not a reconciliation of sizes: lanes past n
    can only be ones a mask discarded (a ragged range's padding), and hold zeros."""
    m = x.shape[axis]
    if m == n:
        return x
    if m > n:
        tail = x[(slice(None),) * axis + (slice(n, None),)]
        if np.any(tail != 0):  # the front end checks every index against its axis
            raise AssertionError(f"catad: an update writes element {n} of a vector of {n} (an unchecked index)")
        return x[(slice(None),) * axis + (slice(0, n),)]
    shape = list(x.shape)
    shape[axis] = n
    out = np.zeros(shape, dtype=x.dtype)  # np.pad costs ten times as much on short vectors
    out[(slice(None),) * axis + (slice(0, m),)] = x
    return out


def sum_front(axis: int, n: int, *parts):
    """The sum of vectors of length n along axis, each given by its leading part (zero
    after it): the longest copied, the others added into their leading parts, with no
    padded copies."""
    if len(parts) == 2:  # (GMM's: its cotangent of L x beside that of diag(Q) x)
        a, b = parts if parts[0].shape[axis] <= parts[1].shape[axis] else parts[::-1]
        if type(a) is np.ndarray and type(b) is np.ndarray and a.dtype == b.dtype == np.float64 and \
                a.ndim == b.ndim > axis and a.shape[axis] < b.shape[axis] == n and 2 * a.shape[axis] <= n and \
                a.shape[:axis] == b.shape[:axis] and a.shape[axis + 1:] == b.shape[axis + 1:]:
            return _front_added(axis, b, a)  # the shapes equal but along axis: no broadcast
    parts = sorted(parts, key=lambda p: -p.shape[axis])
    if parts[0].shape[axis] > n:  # lanes past the end must be ones a mask discarded
        parts = [update_vector(p, axis, n) if p.shape[axis] > n else p for p in parts]
    shape = np.broadcast_shapes(*(p.shape[:axis] + (n,) + p.shape[axis + 1:] for p in parts))
    out = np.empty(shape, dtype=np.result_type(*parts))
    short = [p for p in parts if p.shape[axis] < n]
    if len(short) == 1 and len(parts) == 2:
        # one whole vector and one leading part (GMM's cotangent of L x beside that of diag(Q) x)
        m = short[0].shape[axis]
        if 2 * m <= n and out.shape == parts[0].shape and parts[0].dtype == short[0].dtype == np.float64:
            return _front_added(axis, parts[0], short[0])
        # a long one (9 of 10): the part copied into place and -0.0 after it (x + -0.0 is x, a
        # signed zero too), then one contiguous add: the same sums (+ commutes), twice as fast
        # as an add into the strided front of a copy of the whole one
        out[(slice(None),) * axis + (slice(0, m),)] = short[0]
        out[(slice(None),) * axis + (slice(m, None),)] = -0.0 if out.dtype.kind in "fc" else 0
        return np.add(out, parts[0], out=out)
    first = parts[0].shape[axis]
    out[(slice(None),) * axis + (slice(0, first),)] = parts[0]
    out[(slice(None),) * axis + (slice(first, None),)] = 0
    for p in parts[1:]:
        front = out[(slice(None),) * axis + (slice(0, p.shape[axis]),)]
        np.add(front, p, out=front)
    return out


def _front_added(axis: int, whole: np.ndarray, part: np.ndarray) -> np.ndarray:
    """sum_front of a whole vector and a short part (GMM's at d = 2: 1 of 2): the whole one
    copied and the part added into its front, the same sums: 9 us instead of 17 at (1000, 10, 2)."""
    out = whole.copy()
    front = out[(slice(None),) * axis + (slice(0, part.shape[axis]),)]
    np.add(part, front, out=front)  # (the operands in sum_front's order: the part first)
    return out


def sum0(x):
    """x.sum(axis=0), NumPy's own values: for a C-contiguous float array of two or more axes,
    with more than one element per row, NumPy adds the rows in order (its pairwise sum runs
    along a row only when the rest is one element), and so does c_einsum, in a loop without
    NumPy's reduction machinery (GMM's (1000, 10) cotangents: 17 -> 5 us). einsum starts from
    0.0 where NumPy starts from the first row, which differs only for a sum of -0.0s: a result
    with a zero is NumPy's."""
    if type(x) is np.ndarray and x.ndim >= 2 and x.dtype == np.float64 and x.size >= _einsum_plans.LEAST \
            and x.flags.c_contiguous and x.size > x.shape[0]:
        out = _einsum_plans.c_einsum(_SUM0[x.ndim], x)
        if every(out):
            return out
    return x.sum(axis=0)


def count_times(v, n):
    """The sum of n copies of v: n * v, and 0 where n is 0 (inf * 0 is NaN, a sum of nothing 0);
    + 0.0, as NumPy's sum adds from 0.0 (the sum of -0.0 is 0.0)."""
    out = v * n
    if type(out) is np.ndarray:
        if out.dtype == _F64:
            out += 0.0  # (a new array: in place)
    elif type(out) is float or type(out) is np.float64:
        out = out + 0.0
    if type(n) is int:  # (a length: no scan of the product)
        return out if n else np.zeros_like(out)[()]
    if finite(out) if type(out) is np.ndarray else bool(np.isfinite(out).all()):
        return out
    return np.where(np.equal(n, 0), 0.0, out)[()]


products_finite = _einsum_plans.products_finite  # (a product of sums is the sum of the products)


def all_finite(x) -> bool:
    """Whether every element of x (an array or a number) is finite."""
    return finite(x) if type(x) is np.ndarray else bool(np.isfinite(x))


def sum_rows(x, axis: int):
    """x.sum(axis=axis). Short rows along the last axis of a C-contiguous float array are summed
    by c_einsum's loop instead of NumPy's reduction machinery, which pays per row (GMM's
    logsumexp over 10 components at 1000 points: 22 -> 5 us): the same sums in another order,
    equal up to rounding (as einsum_plans' contractions; Python's own sum of the user's
    generator adds in a third order); a result with a zero is NumPy's (einsum starts from 0.0,
    NumPy from the first element: a row of -0.0s)."""
    if type(x) is np.ndarray and axis == x.ndim - 1 and x.shape[axis] <= _SHORT_ROWS and x.dtype == np.float64 \
            and x.size >= _einsum_plans.LEAST and x.flags.c_contiguous:
        out = _einsum_plans.c_einsum(_ROWS[x.ndim], x)
        if every(out):
            return out
    return x.sum(axis=axis)


_ROWS = {n: "abcdefghijklmnopqrstuvwxyz"[:n] + "->" + "abcdefghijklmnopqrstuvwxyz"[:n - 1] for n in range(1, 27)}
_SUM0 = {n: "abcdefghijklmnopqrstuvwxyz"[:n] + "->" + "abcdefghijklmnopqrstuvwxyz"[1:n] for n in range(2, 27)}


def spread(x, shape: tuple):
    """x broadcast to `shape` (NumPy's rules), copied where NumPy's loop over the broadcast
    would be short; the values are x's, only their layout changes.

    A ufunc loops along the trailing axes over which every operand is either whole or
    broadcast (stride 0): x (n, 1, 2) - m (1, k, 2) loops 2 elements at a time, 93 us at
    (1000, 10, 2) against 4 for a contiguous difference; A (n, k, 2) * c (n, k, 1) 30 us.
    While x's trailing run of such axes is short (and the result has at least LEAST
    elements), the axis that ends it is filled: where x is broadcast along the last axes (a
    run of at most SHORT), by concatenating copies of x along the last of them (6.6 us for c:
    A * c 12 us); where x is whole along a run of at most REPEAT_RUN and broadcast before it,
    by np.repeat along that axis (4.3 us for x: x - m 16 us; at d = 10, k = 25 190 us instead
    of 380). Anything else is x itself (GMM's A * c at d = 10: copies of c cost more than they
    save there)."""
    try:
        steps = _SPREADS[x.shape, shape]
    except KeyError:
        if len(_SPREADS) > 4096:
            _SPREADS.clear()
        steps = _SPREADS[x.shape, shape] = _spread_steps(x.shape, shape)
    except AttributeError:  # a Python number: broadcast as it is
        return x
    for repeat, axis, n in steps:  # (ndarray.repeat: np.repeat's wrapper costs 1 us)
        x = x.repeat(n, axis=axis) if repeat else np.concatenate([x] * n, axis=axis)
    return x


_SPREADS: dict = {}  # (x's shape, the shape) -> spread's steps: decided once per pair of shapes


def _spread_steps(xs: tuple, shape: tuple) -> tuple:
    """spread's copies of an operand of shape xs: (repeat or concatenate, axis, count) each."""
    if _prod(shape) < _einsum_plans.LEAST or len(xs) != len(shape):
        return ()
    steps = []
    while True:
        have, run, ends = None, 1, -1
        for a in range(len(shape) - 1, -1, -1):
            if shape[a] == 1:
                continue  # an axis of size 1 joins any run
            has = xs[a] != 1
            if have is None:
                have = has
            elif has != have:
                ends = a
                break
            run *= shape[a]
        if have is None or (have and (ends < 0 or run > REPEAT_RUN or _long_axes(shape) < 3)) or \
                (not have and run > _einsum_plans.SHORT):
            return tuple(steps)
        # whole along the run and broadcast along axis `ends`: repeat its chunks; or broadcast
        # along the last axes: copies side by side along the last of them
        axis = ends if have else max(a for a in range(len(shape)) if shape[a] != 1)
        steps.append((have, axis, shape[axis]))
        xs = xs[:axis] + (shape[axis],) + xs[axis + 1:]


REPEAT_RUN = 32  # spread repeats x along an axis before a whole run of at most this many elements
# (GMM d = 2's (1, 10, 2) * (1000, 10, 2): 12 us as it is, 10 repeated, and its hvp repeats
# such a factor once for two products: 1.244 -> 1.209 ms with 32 instead of 16)


def _long_axes(shape: tuple) -> int:
    """The number of axes longer than 1. Two of them are two loops whatever the broadcast (a
    (1, 10) row of a (1000, 10) difference: 7.7 us, 7.5 repeated first): spread repeats rows
    only for three or more (x (1000, 1, 2) - m (1, 10, 2): 94 us, 16 repeated first)."""
    return sum(1 for s in shape if s > 1)


def _prod(shape: tuple) -> int:
    n = 1
    for s in shape:
        n *= s
    return n


def contract(spec: str, *ops, where: tuple = (), zero: tuple = ()):
    """np.einsum, its NumPy calls chosen once per spec and shapes (backend/einsum_plans.py).

    The operands at positions `where` are masks of a ragged build (Bools): the lanes where
    a mask is False are outside the range, and their values must vanish whatever they are.
    Multiplying by the mask is exact when those values are finite, and a masked inf or
    NaN makes the result non-finite (0 * inf is NaN, and sums keep it); only then is the
    product formed, selected by the masks, and summed (the NaN of an untaken lane never
    reaches a result: JAX's `where` trap).

    The operands at positions `zero` are tangents (only in the zero-safe variant of a
    derivative program): a term is 0 wherever its tangent is 0, even where the other
    factors are inf or NaN (catad.tangents.times). They are treated like masks: the
    einsum is exact when it is finite, and otherwise the terms where a tangent is 0 are
    dropped by selection before summing."""
    if not where and not zero:
        return _einsum_plans.run(spec, ops)
    if len(where) == 1 and not zero:  # a small mask: its True entries' terms alone
        out = _einsum_plans.masked(spec, ops, where[0])
        if out is not None:
            return out
    fast = [o.astype(np.float64) if k in where else o for k, o in enumerate(ops)]
    out = _einsum_plans.run(spec, fast)
    if _exact(out, ops, where, zero):
        return out
    # masks alone always give a finite result, so some operand here is not a mask
    inputs, result = spec.split("->")
    specs = inputs.split(",")
    every = "".join(sorted(set(inputs.replace(",", ""))))
    values = [k for k in range(len(ops)) if k not in where]
    product = _einsum_plans.outer([specs[k] for k in values], [ops[k] for k in values], every)
    selectors = [fast[k] for k in where] + [np.not_equal(ops[k], 0).astype(np.float64) for k in zero]
    inside = _einsum_plans.outer([specs[k] for k in where + zero], selectors, every)
    return np.einsum(every + "->" + result, np.where(inside != 0, product, 0.0))


def _exact(out, ops: tuple, where: tuple, zero: tuple) -> bool:
    """Whether contract's product by the masks (and tangents) is the einsum of the selected
    terms: its result is finite (a mask's 0 * a finite value is exact, and so is a tangent's),
    or, with masks alone, every other operand is finite (tested so where they are smaller than
    the result: GMM's (10, 2, 1) and (1000, 10, 1) factors of a (1000, 10, 2) one), the
    masked terms then exact zeros and the others the terms themselves."""
    if not zero:
        values = [o for k, o in enumerate(ops) if k not in where]
        if sum(_cost(o) for o in values) < _cost(out):
            return all(finite(o) if type(o) is np.ndarray else bool(np.isfinite(o).all()) for o in values)
    return finite(out) if type(out) is np.ndarray else bool(np.isfinite(out).all())


def _cost(x) -> int:
    """About the time of np.isfinite(x).all() in elements: a ufunc runs along the innermost
    axis its iterator can form, one pass of x.size elements where x is a permutation of a
    contiguous block (C or F order, or transposed), 4-5x that where x is a slice whose rows
    are not adjacent (GMM's (1000, 25, 9) part of a (1000, 25, 10) array: loops of 9)."""
    if type(x) is not np.ndarray:
        return np.size(x)
    strides = sorted((abs(st), n) for st, n in zip(x.strides, x.shape) if n > 1)
    step = x.itemsize
    for st, n in strides:
        if st != step:
            return 5 * x.size
        step *= n
    return x.size


def tmul0(k, x):
    """k * x for a tangent x in the zero-safe variant of a derivative program: 0 wherever
    x is 0, even where k is inf or NaN (catad.tangents.times)."""
    return T.times(k, x)


def tmul00(a, b):
    """a * b for two tangents in the zero-safe variant: 0 wherever either is 0
    (catad.tangents.times_both)."""
    return T.times_both(a, b)

