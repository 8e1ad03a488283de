"""What a function made by a catad transformation is: ``catad.grad(f)`` returns a Python
callable that runs f's reverse program, and carries a :class:`Transformation` naming the
transformation, f and its options, so that the same callable can be differentiated again
(``catad.grad(catad.grad(f))``, ``catad.jvp(catad.grad(f), ...)``) or called inside a
function catad compiles (``def g(x): return catad.grad(f)(x) @ v``).

catad does not trace values: the pipeline (catad.pipeline.bind) turns such a callable into a
core program made from f's derivative program (catad.composite), which is an ordinary core
program and is differentiated like any other (issue 17; the notes' Section 5: the
derivative of a program is a program).
"""
from __future__ import annotations

import dataclasses
import inspect
from typing import Any, Callable

ATTRIBUTE = "__catad_transformation__"

# What each transformation computes from f at x (JAX's meanings):
#   grad             the gradient of a float-valued f with respect to argnums; with has_aux, of f
#                    returning (a float, aux): (the gradient of the float, aux)
#   value_and_grad   (f(x), the gradient); with has_aux, ((the float, aux), the gradient)
#   jacfwd, jacrev   the Jacobian, output.shape + input.shape, by columns of forward mode or
#                    by rows of reverse mode
#   jacobian         the Jacobian, by whichever of the two takes fewer passes at run time
#   hessian          the Jacobian of the gradient, in.shape + in.shape (jacfwd of jacrev)
#   jvp              (a function of the primals, then the tangents) (f(x), J dx): catad.jvp(f, ...)
#                    called inside a compiled function (only there)
KINDS = ("grad", "value_and_grad", "jacfwd", "jacrev", "jacobian", "hessian", "jvp")


@dataclasses.dataclass(frozen=True)
class Transformation:
    """``kind`` of ``fn`` (itself possibly made by a transformation) with respect to the
    arguments ``argnums`` (an int or a tuple of ints, as the user gave it); ``checkpoints``
    bounds the states each reverse loop keeps (catad.pipeline.check_checkpoints)."""

    kind: str
    fn: Callable
    argnums: Any = 0
    checkpoints: int | None = None
    # a Jacobian's program over a slice of its basis only: two Int parameters after the others,
    # the first element and how many (catad.differentiate runs a large Jacobian slice by slice)
    chunked: bool = False
    # grad and value_and_grad of a function returning (a float, auxiliary data): the float is
    # differentiated, the data returned beside the gradient (JAX's has_aux)
    has_aux: bool = False

    def __post_init__(self):
        assert self.kind in KINDS, self.kind

    @property
    def name(self) -> str:
        return f"{self.kind}_{getattr(self.fn, '__name__', 'f')}"


def transformation_of(obj: Any) -> Transformation | None:
    """The transformation that made obj, or None for any other object."""
    t = getattr(obj, ATTRIBUTE, None) if callable(obj) else None
    return t if isinstance(t, Transformation) else None


def mark(wrapper: Callable, t: Transformation, signature: bool = True) -> Callable:
    """wrapper (the callable a transformation returns) labelled with t: its name, and the
    signature of the function transformed, so that arguments bind by keyword as f's do
    (not for a wrapper only catad itself uses: `signature` False)."""
    setattr(wrapper, ATTRIBUTE, t)
    wrapper.__name__ = wrapper.__qualname__ = t.name
    if signature:
        try:
            wrapper.__signature__ = inspect.signature(t.fn)
        except (TypeError, ValueError):
            pass
    return wrapper


def key_of(obj: Any) -> tuple[Any, tuple]:
    """The plain function under obj's transformations, and the transformations (kind and
    options, outermost first): grad(f) made twice is one function (a key of compile caches,
    holding no reference to f itself)."""
    path = []
    t = transformation_of(obj)
    while t is not None:
        argnums = tuple(t.argnums) if isinstance(t.argnums, list) else t.argnums
        path.append((t.kind, argnums, t.checkpoints, t.chunked, t.has_aux))
        obj = t.fn
        t = transformation_of(obj)
    return obj, tuple(path)


# The functions that make transformed functions (catad.grad, ...) and those that apply a
# derivative at once (catad.jvp, catad.hvp), by identity: the front end compiles a call of them
# inside a function (catad.differentiate registers them; this module is below the front end).
MAKERS: dict[int, str] = {}
_BY_KIND: dict[str, Callable] = {}


def register_maker(fn: Callable, kind: str) -> Callable:
    MAKERS[id(fn)] = kind
    _BY_KIND[kind] = fn
    return fn


def maker(kind: str) -> Callable:
    """catad's function of that name (catad.grad for "grad")."""
    return _BY_KIND[kind]


def maker_kind(obj: Any) -> str | None:
    """"grad", "jvp", ... when obj is catad's function of that name, else None."""
    return MAKERS.get(id(obj))


def innermost(obj: Any) -> Any:
    """The plain function under a chain of transformations (for messages and locations)."""
    t = transformation_of(obj)
    while t is not None:
        obj = t.fn
        t = transformation_of(obj)
    return obj


__all__ = ["ATTRIBUTE", "KINDS", "MAKERS", "Transformation", "innermost", "key_of", "maker", "maker_kind", "mark",
           "register_maker", "transformation_of"]
