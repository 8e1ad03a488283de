"""Types of the core language (notes Fig. 1): Float, Int, Bool, tuples and vectors.

At run time a Float is a Python float, an Int an int, a Bool a bool, a tuple a
Python tuple, and a ``Vec`` of scalars (or of ``Vec`` of scalars) a NumPy array whose
rank is the nesting depth: a Vec of Vec is a rectangular 2-D array.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from .._node import Node, node
from ..errors import ArgumentError


class _Interned(type):
    """Types are made once per structure (hash-consing): a type's fields are types made this
    way, so a type is known by its class and the identities of its fields. Programs make the
    same few types over and over (every variable and call carries one), so this saves their
    memory, and comparing or hashing two types is mostly a check of identity."""

    _made: dict = {}

    def __call__(cls, *args, **kwargs):
        if kwargs:  # as positional arguments, so both spellings find the same type
            rest = cls._init_fields[len(args):]
            if set(kwargs) != set(rest):
                return super().__call__(*args, **kwargs)  # the dataclass says what is wrong
            args = args + tuple(kwargs[f] for f in rest)
        if len(args) == 1:  # Vec(elem), Tuple(items), Scalar(name): the key _key makes, made at once
            a = args[0]
            key = (cls, id(a) if isinstance(a, Node) else _key(a))
        elif len(args) == 2 and isinstance(args[0], Node) and isinstance(args[1], Node):  # LinMap(src, tgt)
            key = (cls, id(args[0]), id(args[1]))
        else:
            key = (cls, *map(_key, args))
        t = _Interned._made.get(key)
        if t is None:
            t = _Interned._made[key] = super().__call__(*args, **kwargs)  # keeps the fields alive
        return t


def _key(v: Any) -> Any:
    if isinstance(v, Node):
        return id(v)
    if isinstance(v, tuple):
        return tuple(map(_key, v))
    return v


class Type(Node, metaclass=_Interned):
    __slots__ = ()

    # Interned: two types are equal exactly when they are one object (the structural walk of
    # Node.__eq__, asked at every comparison of types by every stage, would say the same), so
    # object's own comparison and hash are right, and they are Python's C slots: comparing two
    # types calls no Python method (every stage compares types at every term it makes), nor does
    # a term's hash, made of its type's. (object's == says NotImplemented for two objects, and
    # Python then compares their identities.) (Terms reach another process through their
    # constructors, catad.distributed.wire, where their hashes are made again.)
    __eq__ = object.__eq__
    __ne__ = object.__ne__
    __hash__ = object.__hash__


@node
class Scalar(Type):
    name: str

    def __str__(self) -> str:
        return self.name


@node
class Tuple(Type):
    items: tuple[Type, ...]

    def __str__(self) -> str:
        return "(" + ", ".join(map(str, self.items)) + ("," if len(self.items) == 1 else "") + ")"


@node
class Vec(Type):
    elem: Type

    def __str__(self) -> str:
        return f"Vec {self.elem}" if isinstance(self.elem, Scalar) else f"Vec ({self.elem})"


@node
class LinMap(Type):
    """S -o T: linear maps from the tangent space of S to that of T (notes Fig. 1).

    Tangent spaces follow the primal types: Float and arrays of Float are
    themselves, Int and Bool are zero-dimensional, tuples are products."""

    src: Type
    tgt: Type

    def __str__(self) -> str:
        return f"{self.src} -o {self.tgt}"


Float = Scalar("Float")
Int = Scalar("Int")
Bool = Scalar("Bool")
Unit = Tuple(())
Site = Scalar("Site")  # the place and message of a run-time check (catad.errors.Site); no tangent

_DTYPES = {Float: np.float64, Int: np.int64, Bool: np.bool_}


def rank(t: Type) -> int:
    """Number of Vec layers around a scalar (0 for scalars and tuples)."""
    r = 0
    while isinstance(t, Vec):
        t, r = t.elem, r + 1
    return r


def scalar_of(t: Type) -> Type:
    while isinstance(t, Vec):
        t = t.elem
    return t


def vec_of(elem: Type, r: int) -> Type:
    for _ in range(r):
        elem = Vec(elem)
    return elem


def is_array_type(t: Type) -> bool:
    return isinstance(t, Vec) and scalar_of(t) in _DTYPES


def dtype_of(t: Type):
    return _DTYPES[scalar_of(t)]


def is_differentiable(t: Type) -> bool:
    """Does a value of this type carry a tangent? (Int and Bool do not.)"""
    if isinstance(t, Tuple):
        return any(is_differentiable(x) for x in t.items)
    if isinstance(t, Vec):  # a vector of tuples (a loop's accumulators, kept by a scan) too
        return is_differentiable(t.elem)
    return scalar_of(t) == Float


def float_array_type(ndim: int) -> Type:
    """The type of a float64 array of rank ndim (made once per rank)."""
    t = _FLOAT_VECS.get(ndim)
    if t is None:
        t = _FLOAT_VECS[ndim] = vec_of(Float, ndim)
    return t


def type_of_value(v: Any, what: str = "argument") -> Type:
    """The catad type of a run-time value, or ArgumentError naming `what`."""
    if type(v) is np.ndarray and v.dtype == _F64 and v.ndim:  # the common case first: a plain float array
        return float_array_type(v.ndim)
    if isinstance(v, (bool, np.bool_)):
        return Bool
    if isinstance(v, np.generic):
        _check_dtype(v.dtype, what, "a NumPy scalar")
    if isinstance(v, (int, np.integer)):
        if not _INT64.min <= v <= _INT64.max:  # compiled code computes Ints as int64: it would overflow
            raise ArgumentError(f"{what} is {v}, outside the 64-bit range of catad's Ints",
                                hint="a float may do instead")
        return Int
    if isinstance(v, (float, np.floating)):
        return Float
    if isinstance(v, tuple):
        return Tuple(tuple(type_of_value(x, f"{what}[{i}]") for i, x in enumerate(v)))
    if isinstance(v, np.ndarray):
        _check_plain_array(v, what)
        _check_dtype(v.dtype, what, "a NumPy array")
        if v.ndim < 1:
            raise ArgumentError(
                f"{what} is a NumPy array of rank 0; catad takes arrays of rank 1 or more",
                hint="pass float(x) for a number")
        kind = v.dtype.kind
        if kind == "f":
            s = Float
        elif kind in "iu":
            s = Int
        elif kind == "b":
            s = Bool
        else:
            raise ArgumentError(f"{what} is a NumPy array of dtype {v.dtype}; catad takes float, int or bool arrays",
                                hint="convert it with np.asarray(x, dtype=float)")
        return vec_of(s, v.ndim)
    if isinstance(v, list):
        raise ArgumentError(f"{what} is a Python list; catad takes NumPy arrays",
                            hint="pass np.asarray(x, dtype=float)")
    raise ArgumentError(f"{what} has type {type(v).__name__}, which catad does not take",
                        hint="pass floats, ints, bools, NumPy arrays, or tuples, lists and dicts of "
                             "these")


def units_of_value(v: Any):
    """Which axes of a run-time value have length 1: a tuple of bools per array, a tuple of
    these per tuple, None for a scalar. NumPy's broadcasting depends on it, so a function is
    compiled once per pattern (never per length)."""
    if isinstance(v, tuple):
        return tuple(units_of_value(x) for x in v)
    if isinstance(v, np.ndarray):
        return tuple(n == 1 for n in v.shape)
    return None


def python_numbers(v: Any):
    """Which run-time values are Python's own numbers (float, int, bool) rather than NumPy's
    scalars: Python raises where NumPy gives inf or nan (1.0 / 0.0), so the front end checks
    arithmetic on them as Python does (a tuple of these per tuple, False for an array)."""
    if isinstance(v, tuple):
        return tuple(python_numbers(x) for x in v)
    return type(v) in (float, int, bool)


def _check_plain_array(v: np.ndarray, what: str) -> None:
    """ArgumentError for the ndarray subclasses whose arithmetic is not NumPy's: catad
    would compute the plain array's answer, which is not the one Python gives."""
    if isinstance(v, np.matrix):
        raise ArgumentError(f"{what} is a numpy.matrix, whose * is a matrix product; catad computes with plain "
                            f"arrays", hint="pass np.asarray(m), and write @ for a matrix product")
    if isinstance(v, np.ma.MaskedArray):
        raise ArgumentError(f"{what} is a masked array; catad would ignore its mask",
                            hint="pass np.ma.filled(x, value) or x.compressed()")


_INT64 = np.iinfo(np.int64)
_F64 = np.dtype(np.float64)
_FLOAT_VECS: dict[int, Type] = {}  # rank -> the type of a float64 array of that rank


def _check_dtype(dtype: np.dtype, what: str, kind: str) -> None:
    """ArgumentError for the number types whose arithmetic catad's (float64 and int64) does
    not reproduce: NumPy computes with a float32 in single precision and wraps an int32 or a
    uint8 around on overflow, so catad's answer would not be the one Python gives."""
    if dtype.kind == "f" and dtype != np.float64:
        raise ArgumentError(f"{what} is {kind} of dtype {dtype}, which NumPy computes with in its own precision; "
                            "catad computes with float64, so its values would differ from your function's",
                            hint="convert it with x.astype(np.float64) (your function then computes in float64 "
                                 "too)")
    if dtype.kind in "iu" and dtype != np.int64:
        raise ArgumentError(f"{what} is {kind} of dtype {dtype}, whose arithmetic NumPy wraps around at its own "
                            "width; catad computes with int64, so its values could differ from your function's",
                            hint="convert it with x.astype(np.int64)")


def coerce_value(v: Any, t: Type, what: str = "argument") -> Any:
    """Convert a run-time value to the canonical representation of type t (checked)."""
    if type(v) is np.ndarray and v.dtype == _F64 and v.ndim and t is float_array_type(v.ndim):
        return v  # already canonical (np.asarray would return it as it is)
    actual = type_of_value(v, what)
    if actual == t:
        return _canonical(v, t)
    if t == Float and actual in (Int, Bool) or t == Int and actual == Bool:
        return _canonical(v, t)
    if is_array_type(t) and is_array_type(actual) and rank(t) == rank(actual) and scalar_of(t) == Float:
        return np.asarray(v, dtype=np.float64)
    raise ArgumentError(f"{what} has type {actual}, expected {t}")


def _canonical(v: Any, t: Type) -> Any:
    if t == Float:
        return float(v)
    if t == Int:
        return int(v)
    if t == Bool:
        return bool(v)
    if isinstance(t, Tuple):
        return tuple(_canonical(x, s) for x, s in zip(v, t.items))
    return np.asarray(v, dtype=dtype_of(t))
