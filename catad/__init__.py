"""catad: differentiate numeric Python functions through a categorical combinator language.

The pipeline (see docs/design.md): a Python function becomes a typed core-language
program (:func:`to_core`), then a term of the combinator language CL
(:func:`to_cl`), which :func:`eval_cl` evaluates with the reference semantics.
"""
from .api import eval_cl, to_anf, to_cl, to_core
from .errors import ArgumentError, CatadError, CatadTypeError, UnsupportedSyntax

__version__ = "0.1.0"
__all__ = ["ArgumentError", "CatadError", "CatadTypeError", "UnsupportedSyntax", "eval_cl", "to_anf",
           "to_cl", "to_core", "__version__"]
