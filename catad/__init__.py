"""catad: differentiate numeric Python functions through a categorical combinator language."""
from .errors import ArgumentError, CatadError, CatadTypeError, UnsupportedSyntax

__version__ = "0.1.0"
__all__ = ["ArgumentError", "CatadError", "CatadTypeError", "UnsupportedSyntax", "__version__"]
