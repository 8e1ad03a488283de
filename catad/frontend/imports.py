"""``import m``, ``import m as n``, ``from m import a as b`` inside a compiled function.

Python runs an import statement each time the function runs: it binds the local name to the
module found in ``sys.modules`` (importing it the first time), or to the module's attribute
(for ``from m import a``, a submodule where the module has no such attribute). catad binds the
name, while compiling, to what Python would bind, found at ``sys.modules[m]`` (then the
attribute), and each call checks that it is still the same object there, as it checks the
globals it read (reads.py). The name then means what a global of that value means: a module or
function to call, a number or array to compute with. ``from m import *`` is refused (Python
refuses it in a function too).
"""
from __future__ import annotations

import ast
import importlib
import importlib.util
import sys

from .reads import Path


def _module(lw, s: ast.stmt, name: str):
    try:
        return importlib.import_module(name)
    except ImportError as e:
        lw.fail(s, "import", f"{type(e).__name__}: {e}")


def lower_import(lw, s: ast.Import | ast.ImportFrom) -> None:
    """Each name the import binds bound to its Static (the object and where each call finds it)."""
    from .freenames import Static  # freenames imports statements, which imports this
    if isinstance(s, ast.Import):
        for alias in s.names:
            _module(lw, s, alias.name)
            bound = alias.name if alias.asname else alias.name.partition(".")[0]  # import a.b binds a
            lw.env[alias.asname or bound] = Static(sys.modules[bound], Path(sys.modules, bound))
        return
    try:
        package = lw.fn.__globals__.get("__package__") if lw.fn is not None else None
        base = importlib.util.resolve_name("." * s.level + (s.module or ""), package) if s.level else s.module
    except (ImportError, ValueError) as e:
        lw.fail(s, "import", f"ImportError: {e}")
    module = _module(lw, s, base)
    for alias in s.names:
        if alias.name == "*":
            lw.fail(alias, "import", "import * only allowed at module level")
        if hasattr(module, alias.name):
            value = Static(getattr(module, alias.name), Path(sys.modules, base).attr(alias.name))
        else:  # a submodule not imported yet: Python imports it
            sub = f"{base}.{alias.name}"
            _module(lw, s, sub)
            value = Static(sys.modules[sub], Path(sys.modules, sub))
        lw.env[alias.asname or alias.name] = value
