"""catad: differentiate numeric Python functions through a categorical combinator language.

The pipeline (see docs/design.md): a Python function becomes a typed core-language
program (:func:`to_core`), then a term of the combinator language CL
(:func:`to_cl`, evaluated by :func:`eval_cl`); differentiating CL gives a program
computing the value and the full Jacobian as a linear map, which the JAX-style
functions below apply forward or in reverse.
"""
from .api import eval_cl, hidden_args, to_anf, to_cl, to_core, to_sympy
from .differentiate import (LinearMap, grad, hessian, hvp, jacfwd, jacobian, jacobian_core, jacrev, jvp, linearize,
                            value_and_grad, vjp)
from .errors import (ArgumentError, BoundsError, CatadError, CatadTypeError, DomainError, LinAlgError, RangeError,
                     ShapeError, UnsupportedSyntax)
from .explain import Derivation, explain
from .rewrite.catalogue import ALL_RULES as rules

__version__ = "0.1.0"
__all__ = ["Derivation", "explain", "rules", "ArgumentError", "BoundsError", "CatadError", "CatadTypeError", "DomainError", "RangeError",
           "LinAlgError", "ShapeError", "UnsupportedSyntax", "LinearMap", "eval_cl",
           "hidden_args",
           "grad", "hessian", "hvp", "jacfwd", "jacobian", "jacobian_core", "jacrev", "jvp", "linearize", "to_anf", "to_cl", "to_core", "to_sympy",
           "value_and_grad", "vjp", "__version__"]
