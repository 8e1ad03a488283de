"""The names the generated code calls from its namespace (catad.backend.runtime's functions, as the
primitives' whole-array templates name them) are never given to a variable: a user's variable
named `power` or `np_power` would otherwise hide the function (backend.compiler.RUNTIME_NAMES)."""
import re

from catad.backend import runtime
from catad.backend.compiler import RUNTIME_NAMES
from catad.primitives.registry import PRIMITIVES


def test_every_runtime_function_a_template_calls_is_reserved():
    called = {name for p in PRIMITIVES.values() if p.vector
              for name in re.findall(r"(?<![\w.])([A-Za-z_]\w*)\(", p.vector)}
    runtime_functions = {name for name in called if callable(getattr(runtime, name, None))}
    assert runtime_functions - RUNTIME_NAMES == set()
