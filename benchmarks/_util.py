"""Shared helpers of the benchmark scripts: generated modules and median timing."""
from __future__ import annotations

import atexit
import importlib.util
import itertools
import shutil
import statistics
import sys
import tempfile
import time
import types
from pathlib import Path
from typing import Callable

# run from a checkout without installing: the repository root holds the catad package
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

_DIR: list[Path] = []  # the process's directory of generated modules, made when first needed
_COUNTER = itertools.count()


def _module_dir() -> Path:
    """A temporary directory for this process's generated modules, removed when it exits."""
    if not _DIR:
        _DIR.append(Path(tempfile.mkdtemp(prefix="catad_bench_")))
        atexit.register(shutil.rmtree, _DIR[0], ignore_errors=True)
    return _DIR[0]


def load_source(source: str, name: str = "f") -> Callable:
    """Write source to a fresh module file (so inspect.getsource works) and return `name`."""
    mod = f"catad_bench_{next(_COUNTER)}"
    path = _module_dir() / f"{mod}.py"
    path.write_text(source)
    spec = importlib.util.spec_from_file_location(mod, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[mod] = module
    spec.loader.exec_module(module)
    return getattr(module, name)


def median_time(fn: Callable[[], object], repeats: int = 5) -> float:
    times = []
    for _ in range(repeats):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def interleaved_times(fns: dict[str, Callable[[], object]], repeats: int = 5) -> dict[str, list[float]]:
    """The times of each of fns, called in turn in every round (in the dict's order).

    The machine's speed drifts over seconds (other tenants of the host): timed one after the
    other, two tools can differ by that drift alone; in turn, a drift slows every tool in the
    rounds it lasts, and the ratio of two tools is taken round by round (ratio). As many
    untimed rounds come first, so that no tool's first calls are timed (a jitted function's
    first runs, a cache being filled). In a round, each fn is called once untimed before its
    timed call, so that it runs with its own arrays in the caches, as when it is timed alone,
    not with those of the tool before it."""
    for _ in range(repeats):
        for fn in fns.values():
            fn()
    times: dict[str, list[float]] = {k: [] for k in fns}
    for _ in range(repeats):
        for k, fn in fns.items():
            fn()
            t = time.perf_counter()
            fn()
            times[k].append(time.perf_counter() - t)
    return times


def ratio(a: list[float], b: list[float]) -> float:
    """The median over rounds of a's time over b's in the same round (see interleaved_times)."""
    return statistics.median(x / y for x, y in zip(a, b))


def chain_source(n: int, rhs: str, params: str = "x0", ret: str | None = None) -> str:
    """def f(params): x1 = rhs(1); ...; return x_n  where rhs uses {p} (previous) and {pp}."""
    lines = [f"def f({params}):"]
    for i in range(1, n + 1):
        prev = f"x{i - 1}"
        prevprev = f"x{max(i - 2, 0)}"
        lines.append(f"    x{i} = " + rhs.format(p=prev, pp=prevprev))
    lines.append(f"    return {ret or f'x{n}'}")
    return "\n".join(lines) + "\n"


def fresh_function(fn: Callable) -> Callable:
    """A new function object with fn's code: catad caches compiled programs per function
    object, so its first call compiles again (the functions it calls are recompiled too)."""
    g = types.FunctionType(fn.__code__, fn.__globals__, fn.__name__, fn.__defaults__, fn.__closure__)
    g.__module__, g.__qualname__ = fn.__module__, fn.__qualname__
    return g


def catad_objective(fn: Callable, *args) -> Callable[[], object]:
    """A callable computing fn(*args) the way catad runs fn's compiled program: catad.vjp
    evaluates the primal only (the reverse program runs when its vjp_fn is called)."""
    import catad
    return lambda: catad.vjp(fn, *args)[0]


def catad_engine() -> str:
    """What runs catad's derivative programs: its NumPy backend (and what it did to malloc:
    catad/backend/memory.py), or its reference interpreter."""
    import catad
    if not (Path(catad.__file__).parent / "backend").is_dir():
        return "catad's reference interpreter"
    try:
        from catad.backend import memory
        return f"catad.backend (compiled NumPy; malloc: {memory.status()})"
    except ImportError:
        return "catad.backend (compiled NumPy)"


def first_call_time(fn: Callable[[], object]) -> tuple[float, object]:
    """(seconds, result) of one call."""
    t = time.perf_counter()
    out = fn()
    return time.perf_counter() - t, out
