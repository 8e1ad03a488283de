"""What a compiled program read from Python's namespaces, checked again at every call.

The front end resolves each free name of a function (and the attributes of what it names)
while compiling; Python resolves them again at every call. So each resolution is recorded
as a read of a :class:`Path` (a module's globals, a closure cell or the builtins, then
attributes and tuple items), of one of four kinds:

``hidden``  a float or an array (also as a tuple item, not through an attribute): a
            parameter of the compiled program after the user's, filled at every call
            with the value found then; its type must be the one compiled for
``equal``   an int or a bool (sizes, axes, flags), or a float reached through an
            attribute (``np.pi``): a constant, compared at every call
``same``    anything else used statically (modules, functions, ``range``): compared by
            identity
``length``  a tuple's or list's type and length (its items are reads of their own)
``keys``    a dict's keys, in order (its values are reads of their own)

:meth:`Reads.current` checks them all with dict look-ups, ``getattr`` and ``is``, and gives
the hidden values, or None when something changed and the function must be compiled again.
"""
from __future__ import annotations

import builtins
import types
from typing import Any

import numpy as np

from ..lang.types import Float, Type, coerce_value, dtype_of, rank, type_of_value

_SAME, _EQUAL, _LENGTH, _KEYS, _TYPE = "same", "equal", "length", "keys", "type"


class Path:
    """Where a value was found: ``scope[name]`` (or a cell's contents), then ``steps``."""

    __slots__ = ("scope", "name", "steps", "shadow", "key")

    def __init__(self, scope: dict | types.CellType, name: str, steps: tuple = (), shadow: dict | None = None):
        self.scope = scope    # a module's globals, the builtins' dict, or a closure cell
        self.name = name
        self.steps = steps    # ((True, attribute) or (False, tuple index), ...)
        self.shadow = shadow  # for a builtin: the globals whose own binding would hide it
        self.key = (id(scope), name, steps)

    @classmethod
    def of_global(cls, fn: Any, name: str) -> "Path":
        return cls(fn.__globals__, name)

    @classmethod
    def of_default(cls, fn: Any, name: str) -> "Path":
        return cls(DefaultSlot(fn, name), name)

    @classmethod
    def of_object(cls, obj: Any, name: str) -> "Path":
        """obj itself (a bound method's self), under the name of the parameter it fills."""
        return cls(types.CellType(obj), name)

    @classmethod
    def of_builtin(cls, fn: Any, name: str) -> "Path":
        return cls(builtins.__dict__, name, shadow=fn.__globals__)

    def attr(self, name: str) -> "Path":
        return Path(self.scope, self.name, self.steps + ((True, name),), self.shadow)

    def item(self, k: int) -> "Path":
        return Path(self.scope, self.name, self.steps + ((False, k),), self.shadow)

    @property
    def through_attribute(self) -> bool:
        return any(is_attr for is_attr, _ in self.steps)

    @property
    def ident(self) -> str:
        """A parameter name after the path: W, cfg_W, T_0."""
        return "_".join([self.name, *(str(k) for _, k in self.steps)])

    def get(self) -> Any:
        """The value at the path now (LookupError, AttributeError or ValueError when gone)."""
        if type(self.scope) is dict:
            if self.shadow is not None and self.name in self.shadow:
                raise KeyError(self.name)
            v = self.scope[self.name]
        else:
            v = self.scope.cell_contents  # ValueError when the cell is empty
        for is_attr, k in self.steps:
            v = getattr(v, k) if is_attr else v[k]
        return v

    def __str__(self) -> str:
        return self.name + "".join(f".{k}" if is_attr else f"[{k}]" for is_attr, k in self.steps)


class DefaultSlot:
    """Where a function keeps the default value of one of its parameters (``__defaults__`` or
    ``__kwdefaults__``, which Python fills once, when the def runs, and which can be replaced),
    read as a closure cell is read (``cell_contents``)."""

    __slots__ = ("fn", "param")

    def __init__(self, fn: Any, param: str):
        self.fn, self.param = fn, param

    @property
    def cell_contents(self) -> Any:
        code = self.fn.__code__
        positional = code.co_varnames[:code.co_argcount]
        if self.param not in positional:
            return self.fn.__kwdefaults__[self.param]
        defaults = self.fn.__defaults__ or ()
        k = positional.index(self.param) - (len(positional) - len(defaults))
        if k < 0:
            raise ValueError(f"{self.param} has no default value")
        return defaults[k]


class ReadLog:
    """The reads of one compile, each path once (the front end records them)."""

    def __init__(self) -> None:
        self.guards: dict[tuple, tuple] = {}

    def same(self, path: Path, obj: Any) -> None:
        self.guards.setdefault(path.key, (path, _SAME, obj))

    def equal(self, path: Path, value: Any) -> None:
        self.guards.setdefault(path.key, (path, _EQUAL, value))

    def length(self, path: Path, n: int, cls: type = tuple) -> None:
        self.guards.setdefault(path.key, (path, _LENGTH, (cls, n)))

    def keys(self, path: Path, keys: tuple) -> None:
        self.guards.setdefault(path.key, (path, _KEYS, keys))

    def type(self, path: Path, cls: type) -> None:
        """A number read whose class matters: Python's float divides as Python does, NumPy's as
        NumPy does (a hidden parameter's value is read at each call; its class is compared)."""
        self.guards.setdefault(path.key, (path, _TYPE, cls))


class Reads:
    """The guards of a compiled program and the paths of its hidden parameters, in order."""

    __slots__ = ("guards", "hidden", "_expected")

    def __init__(self, guards: tuple = (), hidden: tuple[tuple[Path, Type, Any], ...] = ()):
        self.guards = guards
        self.hidden = hidden
        # what a value of each hidden type usually is, checked without building its Type
        # (comparing Types costs microseconds, and this runs at every call), and which axes
        # of an array have length 1 (NumPy's broadcasting depends on it: catad.pipeline.signature)
        self._expected = tuple((path, ty, *_usual_form(ty), units) for path, ty, units in hidden)

    def current(self) -> tuple | None:
        """The hidden parameters' values now, or None when a read no longer holds."""
        try:
            for path, kind, expected in self.guards:
                v = path.get()
                if kind is _SAME:
                    if v is not expected:
                        return None
                elif kind is _EQUAL:
                    # `is` first: a NaN constant is not equal to itself
                    if v is not expected and (type(v) is not type(expected) or v != expected):
                        return None
                elif kind is _LENGTH:
                    if type(v) is not expected[0] or len(v) != expected[1]:
                        return None
                elif kind is _TYPE:
                    if type(v) is not expected:
                        return None
                elif type(v) is not dict or tuple(v) != expected:
                    return None
            values = []
            for path, ty, cls, dtype, ndim, units in self._expected:
                v = path.get()
                if type(v) is not cls or dtype is not None and (v.dtype is not dtype or v.ndim != ndim):
                    v = _canonical(v, ty)
                if units is not None and any((n == 1) is not u for n, u in zip(v.shape, units)):
                    return None
                values.append(v)
            return tuple(values)
        except _Changed:
            return None
        except Exception:  # a name deleted, a cell emptied: compile again, and let the front end
            return None    # say what is wrong

    def __repr__(self) -> str:
        hidden = ", ".join(f"{p}: {t}" for p, t, _ in self.hidden)
        return f"<Reads: {len(self.guards)} guard(s); hidden parameters ({hidden})>"


class _Changed(Exception):
    pass


def _usual_form(ty: Type) -> tuple:
    """(class, dtype, rank) of a value of type ty that needs no conversion."""
    if ty == Float:
        return float, None, 0
    return np.ndarray, np.dtype(dtype_of(ty)), rank(ty)


def _canonical(v: Any, ty: Type) -> Any:
    """v converted to ty's canonical form, or _Changed when it is of another type."""
    if type_of_value(v) != ty:
        raise _Changed
    return coerce_value(v, ty)
