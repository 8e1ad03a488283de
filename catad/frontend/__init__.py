"""The front end: a Python function plus example arguments -> a typed core Program.

    compile_function(f, (x, v)) -> Program

Types come from the example arguments; the source comes from ``inspect.getsource`` and is
lowered with ``ast`` to the core language (let, if, tuples, build, index, sum, size). Every
user function reached is compiled once per argument-type signature. Anything outside the
supported subset raises a :class:`catad.CatadError` with the file, line and construct.
"""
from .independent import vectorise_loops
from .program import compile_function, compile_with_reads

__all__ = ["compile_function", "compile_with_reads", "vectorise_loops"]
