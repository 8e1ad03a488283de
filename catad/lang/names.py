"""Fresh variable names, for every pass that introduces variables."""
from __future__ import annotations

import itertools
from typing import Iterable

from .terms import Term, Var, var_names
from .types import Type


class FreshNames:
    """Hands out names not taken yet: `base`, then `base_1`, `base_2`, ... (or `base1`,
    `base2`, ... when numbered), and remembers them."""

    def __init__(self, taken: Iterable[str] = ()):
        self.taken = set(taken)
        self.counter = itertools.count(1)

    @classmethod
    def avoiding(cls, *terms: Term, params: Iterable[Var] = ()) -> "FreshNames":
        """Names not used anywhere in the given terms nor by the parameters."""
        taken = var_names(*terms)
        return cls(taken | {p.name for p in params})

    def name(self, base: str, numbered: bool = False) -> str:
        name = f"{base}{next(self.counter)}" if numbered else base
        while name in self.taken:
            name = f"{base}{next(self.counter)}" if numbered else f"{base}_{next(self.counter)}"
        self.taken.add(name)
        return name

    def var(self, base: str, ty: Type, numbered: bool = False) -> Var:
        return Var(self.name(base, numbered), ty)

    def rename(self, v: Var) -> Var:
        """v itself if its name is free, else a fresh variable of the same type."""
        return self.var(v.name, v.type)
