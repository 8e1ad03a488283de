"""The corpus registry: one :class:`Entry` per function.

A module of the corpus defines its functions as a user would write them, each preceded by a
comment citing where its formula comes from, and lists them in ``CASES``::

    # Rosenbrock (1960), ...
    def rosenbrock(x):
        ...

    CASES = [case(rosenbrock, lambda rng: (rng.normal(size=6),))]

The citation of an entry is that comment (``inspect.getcomments``). ``args(rng)`` makes the
example arguments from a seeded NumPy generator (``Entry.example_args`` seeds it from the
entry's name, so the arguments are the same at every run); ``argnums`` are the positions
differentiated. The function returns a float (a scalar loss).
"""
from __future__ import annotations

import inspect
import zlib
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np


@dataclass
class Entry:
    fn: Callable
    args: Callable[[np.random.Generator], tuple]
    argnums: tuple[int, ...] = (0,)
    note: str = ""                      # why the function is written this way, if worth saying
    domain: str = ""                    # filled in by corpus/__init__.py: the module's short name
    citation: str = field(default="")
    alias: str = ""                     # the entry's name when not the function's (two imported homonyms)

    @property
    def name(self) -> str:
        return self.alias or self.fn.__name__

    @property
    def qualname(self) -> str:
        return f"{self.domain}.{self.name}"

    def rng(self, seed: int = 0) -> np.random.Generator:
        key = zlib.crc32(self.qualname.encode())
        return np.random.default_rng(key if seed == 0 else [key, seed])

    def example_args(self, seed: int = 0) -> tuple:
        """The example arguments; another ``seed`` draws others from the same distribution."""
        args = self.args(self.rng(seed))
        if not isinstance(args, tuple):
            raise TypeError(f"{self.qualname}: args(rng) must return a tuple, got {type(args).__name__}")
        return args


def citation_of(fn: Callable) -> str:
    text = inspect.getcomments(fn) or ""
    lines = [line.strip().lstrip("#").strip() for line in text.splitlines()]
    return " ".join(line for line in lines if line)


def case(fn: Callable, args: Callable[[np.random.Generator], tuple], argnums: Any = (0,), note: str = "",
         citation: str | None = None, name: str = "") -> Entry:
    """An entry; ``citation`` only for a function imported from elsewhere (its source is not
    preceded by the corpus's comment), otherwise the comment above its ``def``."""
    if isinstance(argnums, int):
        argnums = (argnums,)
    return Entry(fn, args, tuple(argnums), note, citation=citation if citation is not None else citation_of(fn),
                 alias=name)
