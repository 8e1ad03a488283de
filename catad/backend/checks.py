"""The `check` primitive: shape and bounds checks, for every lane at once (catad.backend)."""
from __future__ import annotations

from typing import TYPE_CHECKING

from .values import Arr

if TYPE_CHECKING:
    from .compiler import Compiler


def p_check(c: Compiler, t, cond: Arr, data, site: Arr):
    """A shape or bounds check, for every lane at once: it fails where cond is False in a
    lane that exists (every enclosing build has elements) and that a branch or a ragged
    range does not discard; the error shows the data of the first such lane. A statement
    of its own, so dead-code elimination keeps it."""
    d = c.depth
    mask = "None" if c.mask is None else c.lift(c.mask, d).code
    lanes = "".join(n + ", " for n in c.sizes)

    def code(x):
        if isinstance(x, tuple):
            return "(" + "".join(code(y) + ", " for y in x) + ")"
        return c.lift(x, d).code
    line = f"check_ok({c.lift(cond, d).code}, {mask}, ({lanes}), {site.code}, {code(data)})"
    if not any(line in scope for scope in c.memo):  # a reverse program reads the primal's twice
        c.emit(line)
        c.memo[-1][line] = None
    return ()
