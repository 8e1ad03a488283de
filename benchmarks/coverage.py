"""How much of the corpus (benchmarks/corpus/) catad accepts, and how much of that it gets right.

For each corpus function: run the function itself on its example arguments (it must work), then
``catad.value_and_grad(fn, argnums=...)``. The outcome is one of

  correct    accepted; its value is the function's and its gradient agrees with central
             differences (h = 1e-6 relative; |g - fd| <= rtol |fd| + atol max(1, |f|, |fd|_max),
             rtol 1e-5, atol 1e-7)
  wrong      accepted, but the value or the gradient disagrees (the gradient also checked with
             steps 1e-5 and 1e-7 before it is called wrong, and against JAX where it runs)
  refused    catad raised a catad.CatadError (its type, message and whether it has a location)
  crashed    catad raised an exception that is not a CatadError: a bug in catad
  timeout    catad did not finish within --timeout seconds (each function runs in a worker
             process, restarted after a timeout)

With JAX importable (run under an interpreter that has it, with PYTHONPATH pointing at this
checkout: PYTHONPATH=$PWD /tmp/venv-lb/bin/python benchmarks/coverage.py), each function is also
run by jax.grad with np, scipy.special and scipy.stats rebound to jax.numpy and jax.scipy in the
function's module: where JAX traces it, its gradient is compared with central differences too.

    python benchmarks/coverage.py [--only optimisation,ml] [--timeout 60] [--json out.json]
        [--names rosenbrock,attention] [--seed N] [--no-jax] [-v]
"""
from __future__ import annotations

import argparse
import copy
import dataclasses
import json
import math
import multiprocessing as mp
import os
import re
import sys
import time
import traceback
from collections import Counter, defaultdict
from pathlib import Path

_HERE = Path(__file__).resolve().parent
for _p in (str(_HERE), str(_HERE.parent)):
    if _p not in sys.path:
        sys.path.insert(0, _p)

import numpy as np  # noqa: E402

RTOL, ATOL = 1e-5, 1e-7
STEP = 1e-6


# ---------------------------------------------------------------- pytrees of arguments

def leaves(tree, path=()):
    """(path, value) of every float leaf (Python float or float ndarray) of tree: tuples, lists
    and dicts are walked; ints, bools and int arrays are not differentiated."""
    if dataclasses.is_dataclass(tree) and not isinstance(tree, type):
        for f in dataclasses.fields(tree):
            yield from leaves(getattr(tree, f.name), path + (f.name,))
    elif isinstance(tree, dict):
        for k, v in tree.items():
            yield from leaves(v, path + (k,))
    elif isinstance(tree, (tuple, list)):
        for i, v in enumerate(tree):
            yield from leaves(v, path + (i,))
    elif isinstance(tree, np.ndarray) and np.issubdtype(tree.dtype, np.floating):
        yield path, tree
    elif isinstance(tree, (float, np.floating)) and not isinstance(tree, bool):
        yield path, tree


def get_in(tree, path):
    for k in path:
        tree = getattr(tree, k) if dataclasses.is_dataclass(tree) else tree[k]
    return tree


def set_in(tree, path, value):
    """A copy of tree with the leaf at path replaced (containers copied along the path)."""
    if not path:
        return value
    k = path[0]
    if dataclasses.is_dataclass(tree):
        return dataclasses.replace(tree, **{k: set_in(getattr(tree, k), path[1:], value)})
    if isinstance(tree, dict):
        out = dict(tree)
    elif isinstance(tree, tuple):
        out = list(tree)
    else:
        out = list(tree)
    out[k] = set_in(tree[k], path[1:], value)
    if hasattr(tree, "_fields"):  # a named tuple: of its class
        return type(tree)(*out)
    return tuple(out) if isinstance(tree, tuple) else out


def central_differences(fn, args, argnums, h=STEP):
    """{(argnum,) + path: gradient array of that leaf} by central differences with a step of
    h max(1, |x_i|) per coordinate."""
    out = {}
    for a in argnums:
        for path, leaf in leaves(args[a]):
            x = np.asarray(leaf, dtype=float)
            g = np.zeros(x.shape)
            for idx in np.ndindex(x.shape):
                step = h * max(1.0, abs(x[idx]))
                vals = []
                for sgn in (1.0, -1.0):
                    xp = x.copy()
                    xp[idx] += sgn * step
                    new_leaf = float(xp) if not isinstance(leaf, np.ndarray) else xp
                    new_args = list(copy.deepcopy(args))
                    new_args[a] = set_in(new_args[a], path, new_leaf)
                    vals.append(float(fn(*new_args)))
                g[idx] = (vals[0] - vals[1]) / (2 * step)
            out[(a,) + path] = g
    return out


def gradient_leaves(grads, args, argnums):
    """catad's (or JAX's) gradients as {(argnum,) + path: array}, read along the arguments'
    structure; raises ValueError when the structure or a shape differs."""
    if not isinstance(grads, tuple) or len(grads) != len(argnums):
        raise ValueError(f"expected a tuple of {len(argnums)} gradients, got {type(grads).__name__}")
    out = {}
    for a, g in zip(argnums, grads):
        for path, leaf in leaves(args[a]):
            try:
                gl = np.asarray(get_in(g, path), dtype=float)
            except (KeyError, IndexError, TypeError) as e:
                raise ValueError(f"gradient of argument {a} has no leaf at {path}: {e}") from None
            if gl.shape != np.shape(leaf):
                raise ValueError(f"gradient of argument {a} at {path} has shape {gl.shape}, the argument {np.shape(leaf)}")
            out[(a,) + path] = gl
    return out


def compare(got: dict, want: dict, fval: float) -> tuple[bool, float, float]:
    """(agree, max abs error, max relative error) of two gradient dicts."""
    scale = max([1.0, abs(fval)] + [float(np.max(np.abs(w))) for w in want.values() if w.size])
    ok, max_abs, max_rel = True, 0.0, 0.0
    for k, w in want.items():
        g = got[k]
        if not np.all(np.isfinite(g)):
            return False, math.inf, math.inf
        err = np.abs(g - w)
        if err.size:
            max_abs = max(max_abs, float(err.max()))
            max_rel = max(max_rel, float(np.max(err / np.maximum(np.abs(w), ATOL * scale))))
        if np.any(err > RTOL * np.abs(w) + ATOL * scale):
            ok = False
    return ok, max_abs, max_rel


# ---------------------------------------------------------------- JAX (optional)

_JAX_MODULES: dict = {}


def jax_version_of(fn):
    """fn with np, scipy.special, scipy.stats (and names imported from them) rebound to JAX's in
    a copy of its module's globals, every function of that module rebound the same way."""
    import jax.numpy as jnp
    import jax.scipy.special as jsp
    import jax.scipy.stats as jst
    import types
    g0 = fn.__globals__
    key = id(g0)
    if key not in _JAX_MODULES:
        g = dict(g0)
        for name, val in g0.items():
            if val is np:
                g[name] = jnp
            elif isinstance(val, types.ModuleType) and val.__name__ == "scipy.special":
                g[name] = jsp
            elif isinstance(val, types.ModuleType) and val.__name__ == "scipy.stats":
                g[name] = jst
            elif callable(val) and getattr(val, "__module__", "") in ("scipy.special._basic", "scipy.special",
                                                                       "scipy.special._logsumexp"):
                if hasattr(jsp, name):
                    g[name] = getattr(jsp, name)
            elif getattr(val, "__class__", None).__name__ == "norm_gen":
                g[name] = jst.norm
        for name, val in g0.items():
            if isinstance(val, types.FunctionType) and val.__globals__ is g0:
                g[name] = types.FunctionType(val.__code__, g, val.__name__, val.__defaults__, val.__closure__)
        _JAX_MODULES[key] = g
    g = _JAX_MODULES[key]
    return types.FunctionType(fn.__code__, g, fn.__name__, fn.__defaults__, fn.__closure__)


def run_jax(fn, args, argnums, fd, fval):
    try:
        import jax
    except ImportError:
        return None
    jax.config.update("jax_enable_x64", True)
    try:
        jfn = jax_version_of(fn)
        grads = jax.grad(jfn, argnums=tuple(argnums))(*copy.deepcopy(args))
        grads = jax.tree_util.tree_map(np.asarray, grads)
        got = gradient_leaves(tuple(grads), args, argnums)
    except Exception as e:  # JAX cannot trace it: not our finding
        return {"status": "n/a", "error": f"{type(e).__name__}: {_first_line(str(e))}"}
    ok, max_abs, max_rel = compare(got, fd, fval)
    return {"status": "agree" if ok else "disagree", "max_abs_err": max_abs, "max_rel_err": max_rel, "grads": got}


# ---------------------------------------------------------------- one function

def _first_line(text: str, limit: int = 400) -> str:
    line = text.strip().splitlines()[0] if text.strip() else ""
    return line if len(line) <= limit else line[:limit] + "..."


def reason_of(exc, fn_name: str = "") -> str:
    """A short key grouping refusals by what was refused: the message without its location
    and hint, with the function's name, quoted names and numbers generalised."""
    msg = getattr(exc, "message", None) or str(exc)
    msg = msg.splitlines()[0]
    if fn_name:
        msg = re.sub(rf"\b{re.escape(fn_name)}\b", "<fn>", msg)
    msg = re.sub(r"; supported (functions|array methods):.*", "", msg)
    msg = re.sub(r"'[^']*'", "'…'", msg)
    msg = re.sub(r"\b\d+\b", "N", msg)
    msg = re.sub(r"\(use .*", "", msg)
    return msg.strip()[:160]


def check_catad(fn, args, argnums, fval, use_jax, name=None) -> dict:
    """catad's value and gradient of fn at args: a record with status refused / crashed /
    correct / wrong and what was found."""
    import catad
    rec = {}
    t0 = time.perf_counter()
    try:
        val, grads = catad.value_and_grad(fn, argnums=argnums)(*copy.deepcopy(args))
    except catad.CatadError as e:
        rec.update(status="refused", seconds=time.perf_counter() - t0, error_type=type(e).__name__,
                   message=str(e), reason=reason_of(e, name or fn.__name__), construct=e.construct,
                   has_location=e.loc is not None, location=str(e.loc) if e.loc is not None else None)
        return rec
    except Exception as e:
        tb = traceback.extract_tb(e.__traceback__)
        rec.update(status="crashed", seconds=time.perf_counter() - t0, error_type=type(e).__name__,
                   message=_first_line(str(e), 2000), reason=f"{type(e).__name__}: {_first_line(str(e), 160)}",
                   where=[f"{fr.filename.split('/catad/')[-1]}:{fr.lineno} {fr.name}" for fr in tb[-4:]])
        return rec
    rec["seconds"] = time.perf_counter() - t0
    if not isinstance(grads, tuple):
        grads = (grads,)
    fd = central_differences(fn, args, argnums)
    problems = []
    try:
        got = gradient_leaves(grads, args, argnums)
    except ValueError as e:
        got = None
        problems.append(f"gradient structure: {e}")
    try:
        val = float(val)
        if not abs(val - fval) <= 1e-9 * max(1.0, abs(fval)):
            problems.append(f"value {val!r}, the function gives {fval!r}")
    except (TypeError, ValueError):
        problems.append(f"value is a {type(val).__name__}, not a float")
    grad_ok, max_abs, max_rel = (False, math.inf, math.inf) if got is None else compare(got, fd, fval)
    rec.update(max_abs_err=max_abs, max_rel_err=max_rel)
    if got is not None and not grad_ok:
        # two more steps: a finite difference that is itself unstable is not catad's error
        for h in (1e-5, 1e-7):
            ok_h, _, _ = compare(got, central_differences(fn, args, argnums, h), fval)
            if ok_h:
                grad_ok = True
                rec["note"] = f"agrees with central differences of step {h:g} only"
                break
        if not grad_ok:
            worst = max(fd, key=lambda k: float(np.max(np.abs(got[k] - fd[k]), initial=0.0)))
            problems.append(f"gradient of {worst}: catad {np.array2string(got[worst].ravel()[:6], precision=6)}, "
                            f"central differences {np.array2string(fd[worst].ravel()[:6], precision=6)}")
    if use_jax:
        j = run_jax(fn, args, argnums, fd, fval)
        if j is not None:
            jg = j.pop("grads", None)
            if jg is not None and got is not None:
                j["catad_vs_jax"] = compare(got, jg, fval)[0]
            rec["jax"] = j
    rec["status"] = "correct" if grad_ok and not problems else "wrong"
    if problems:
        rec["problems"] = problems
    return rec


_PEELED = Path(os.environ.get("TMPDIR", "/tmp")) / f"catad_coverage_{os.getpid()}"

# Mechanical rewrites that follow catad's own advice for its commonest refusals, each keeping
# the function's meaning: applied, one more per refusal, to see what else a function needs.
# (reason pattern, rewrite name)
REWRITES = (
    ("has parameters with default values", "defaults"),
    ("cannot unpack a Vec", "unpack"),
    ("np.linalg.norm() does not take keyword argument", "norm_axis"),
)


def rewritten(fn, args, rewrites):
    """fn's source with the rewrites applied, compiled from a temporary file (so that catad can
    read it) in a copy of fn's module globals, and the arguments it takes.

    defaults   parameters' default values removed, the values passed as arguments instead
    unpack     ``a, b = e`` (e not a tuple display) as ``a, b = e[0], e[1]``
    norm_axis  ``np.linalg.norm(x, axis=k)`` as ``np.linalg.norm(x, None, k)``
    """
    import ast
    import inspect
    import textwrap
    tree = ast.parse(textwrap.dedent(inspect.getsource(fn)))
    fdef = tree.body[0]
    fdef.decorator_list = []
    if "defaults" in rewrites:
        n_params = len(fdef.args.args)
        defaults = fn.__defaults__ or ()
        first_default = n_params - len(defaults)
        if len(args) >= first_default:
            args = tuple(args) + tuple(defaults[len(args) - first_default:])
        fdef.args.defaults = []

    class Rewriter(ast.NodeTransformer):
        def visit_Assign(self, node):
            self.generic_visit(node)
            t = node.targets[0]
            if ("unpack" in rewrites and len(node.targets) == 1 and isinstance(t, ast.Tuple)
                    and not isinstance(node.value, ast.Tuple)):
                node.value = ast.Tuple([ast.Subscript(node.value, ast.Constant(i), ast.Load())
                                        for i in range(len(t.elts))], ast.Load())
            return node

        def visit_Call(self, node):
            self.generic_visit(node)
            if ("norm_axis" in rewrites and ast.unparse(node.func) in ("np.linalg.norm", "numpy.linalg.norm")
                    and len(node.args) == 1 and [k.arg for k in node.keywords] == ["axis"]):
                node.args = node.args + [ast.Constant(None), node.keywords[0].value]
                node.keywords = []
            return node

    tree = ast.fix_missing_locations(Rewriter().visit(tree))
    _PEELED.mkdir(exist_ok=True)
    path = _PEELED / f"{fn.__module__.replace('.', '_')}_{fn.__name__}_{'_'.join(rewrites)}.py"
    src = ast.unparse(tree) + "\n"
    path.write_text(src)
    g = dict(fn.__globals__)
    exec(compile(src, str(path), "exec"), g)
    return g[fn.__name__], tuple(args)


def run_entry(qualname: str, use_jax: bool, seed: int = 0) -> dict:
    import corpus
    entry = next(e for e in corpus.entries() if e.qualname == qualname)
    fn, argnums = entry.fn, entry.argnums
    rec = {"name": entry.name, "domain": entry.domain, "argnums": list(argnums), "citation": entry.citation}
    args = entry.example_args(seed)
    rec["n_inputs"] = int(sum(np.size(leaf) for a in argnums for _, leaf in leaves(args[a])))
    try:
        fval = float(fn(*copy.deepcopy(args)))
    except Exception as e:
        rec.update(status="python_error", error=f"{type(e).__name__}: {e}")
        return rec
    rec["value"] = fval
    rec.update(check_catad(fn, args, argnums, fval, use_jax))
    # a common refusal hides what else the function needs: follow catad's advice mechanically
    # (REWRITES) and try again, until it is accepted or refused for another reason
    applied, last = [], rec
    while last["status"] == "refused":
        todo = [name for pattern, name in REWRITES if pattern in last["message"] and name not in applied]
        if not todo:     # no advice to follow, or followed and the refusal stays (it is in a callee)
            break
        applied.append(todo[0])
        try:
            fn2, args2 = rewritten(fn, args, applied)
        except Exception as e:
            last = dict(last, rewrite_error=f"{type(e).__name__}: {e}")
            break
        last = dict(check_catad(fn2, args2, argnums, fval, use_jax, name=entry.name), rewrites=list(applied))
    if last is not rec:
        rec["rewritten"] = last
    return rec


# ---------------------------------------------------------------- the worker process

def _worker(conn, use_jax: bool, seed: int):
    import warnings
    warnings.simplefilter("ignore")
    while True:
        qualname = conn.recv()
        if qualname is None:
            return
        try:
            rec = run_entry(qualname, use_jax, seed)
        except Exception as e:  # the harness itself failed: say so rather than hang
            rec = {"name": qualname.split(".", 1)[1], "domain": qualname.split(".", 1)[0], "status": "harness_error",
                   "error": f"{type(e).__name__}: {e}", "traceback": traceback.format_exc()[-2000:]}
        conn.send(rec)


class Worker:
    def __init__(self, use_jax: bool, seed: int = 0):
        ctx = mp.get_context("spawn")
        self.conn, child = ctx.Pipe()
        self.proc = ctx.Process(target=_worker, args=(child, use_jax, seed), daemon=True)
        self.proc.start()

    def run(self, qualname: str, timeout: float):
        self.conn.send(qualname)
        if self.conn.poll(timeout):
            try:
                return self.conn.recv()
            except EOFError:
                return None
        return None

    def kill(self):
        self.proc.terminate()
        self.proc.join(5)
        if self.proc.is_alive():
            self.proc.kill()
            self.proc.join()

    def close(self):
        try:
            self.conn.send(None)
        except (BrokenPipeError, OSError):
            pass
        self.proc.join(5)
        if self.proc.is_alive():
            self.kill()


# ---------------------------------------------------------------- the report

STATUSES = ("correct", "wrong", "refused", "crashed", "timeout")


def _jax_available() -> bool:
    try:
        import jax  # noqa: F401
        return True
    except ImportError:
        return False


def report(records: list[dict], jax_used: bool) -> str:
    out = []
    by_domain = defaultdict(list)
    for r in records:
        by_domain[r["domain"]].append(r)
    def flagged(status):
        out_ = [(f"{r['domain']}.{r['name']}", r) for r in records if r["status"] in status]
        out_ += [(f"{r['domain']}.{r['name']} (rewritten)", r["rewritten"]) for r in records
                 if r.get("rewritten", {}).get("status") in status]
        return out_

    crashes = flagged(("crashed", "python_error", "harness_error"))
    wrongs = flagged(("wrong",))
    if crashes:
        out.append("!! NON-CatadError EXCEPTIONS (bugs) !!")
        for label, r in crashes:
            out.append(f"  {label}: {r.get('error_type', r['status'])}: "
                       f"{r.get('message', r.get('error', ''))[:300]}")
            for w in r.get("where", []):
                out.append(f"      at {w}")
        out.append("")
    if wrongs:
        out.append("!! WRONG RESULTS (accepted, disagree with central differences) !!")
        for label, r in wrongs:
            out.append(f"  {label}: " + "; ".join(r.get("problems", [])))
        out.append("")
    for domain, recs in by_domain.items():
        counts = Counter(r["status"] for r in recs)
        out.append(f"== {domain}: {len(recs)} functions, " + ", ".join(f"{counts[s]} {s}" for s in STATUSES if counts[s]))
        w = max(len(r["name"]) for r in recs)
        for r in recs:
            extra = ""
            if r["status"] in ("correct", "wrong"):
                extra = f"{r.get('seconds', 0):6.2f}s  err {r.get('max_abs_err', math.nan):.1e}"
                if "jax" in r:
                    extra += f"  jax {r['jax']['status']}"
            elif r["status"] in ("refused", "crashed"):
                extra = f"{r.get('error_type', '')}: {_short_msg(r.get('message', ''))}"
                if "rewritten" in r:
                    d = r["rewritten"]
                    extra += f"\n  {'':<{w}}  {'':<8} rewritten ({', '.join(d.get('rewrites', []))}): {d['status']}"
                    if d["status"] in ("refused", "crashed"):
                        extra += f": {d.get('error_type', '')}: {_short_msg(d.get('message', ''))}"
            elif r["status"] == "timeout":
                extra = f"> {r.get('seconds', 0):.0f}s"
            out.append(f"  {r['name']:<{w}}  {r['status']:<8} {extra}")
        out.append("")
    counts = Counter(r["status"] for r in records)
    accepted = counts["correct"] + counts["wrong"]
    n = len(records)
    out.append(f"TOTAL {n} functions: accepted {accepted} ({100 * accepted / max(n, 1):.0f}%), "
               f"correct {counts['correct']}, wrong {counts['wrong']}, refused {counts['refused']}, "
               f"crashed {counts['crashed']}, timeout {counts['timeout']}"
               + (f", python_error {counts['python_error']}" if counts["python_error"] else ""))
    refused = [r for r in records if r["status"] == "refused"]
    if refused:
        no_loc = [r for r in refused if not r.get("has_location")]
        out.append(f"  refusals with a source location: {len(refused) - len(no_loc)} of {len(refused)}"
                   + (" (without: " + ", ".join(f"{r['domain']}.{r['name']}" for r in no_loc) + ")" if no_loc else ""))
    if jax_used:
        jc = Counter(r["jax"]["status"] for r in records if "jax" in r)
        jc += Counter(r["rewritten"]["jax"]["status"] for r in records if "jax" in r.get("rewritten", {}))
        out.append("  JAX on the functions catad accepts (as written or rewritten): "
                   + ", ".join(f"{v} {k}" for k, v in jc.items()) + " (n/a: JAX cannot trace the NumPy code)")
    peeled = [r["rewritten"] for r in records if "rewritten" in r]
    if peeled:
        pc = Counter(r["status"] for r in peeled)
        out.append(f"  the {len(peeled)} refused for default values, tuple unpacking of an array or norm's axis=, "
                   "with catad's advice followed (coverage.REWRITES): "
                   + ", ".join(f"{pc[s]} {s}" for s in STATUSES if pc[s]))
        out.append(f"  so without these refusals: accepted {accepted + pc['correct'] + pc['wrong']} of {n}, "
                   f"correct {counts['correct'] + pc['correct']}")
    out.append("")
    out.append("REFUSALS BY REASON (the first refusal of each function; fixing it may reveal the next):")
    _reasons(out, refused)
    if peeled:
        out.append("")
        out.append("WHAT BLOCKS EACH FUNCTION after the rewrites (default values passed, a, b = v[0], v[1], "
                   "norm(x, None, axis)); the first refusal of each:")
        blocking = []
        for r in refused:
            if "rewritten" in r:
                if r["rewritten"]["status"] == "refused":
                    blocking.append(dict(r["rewritten"], name=r["name"], domain=r["domain"]))
            else:
                blocking.append(r)
        _reasons(out, blocking)
    return "\n".join(out)


def _reasons(out: list, refused: list) -> None:
    groups = defaultdict(list)
    for r in refused:
        groups[r["reason"]].append(r)
    for reason, recs in sorted(groups.items(), key=lambda kv: -len(kv[1])):
        out.append(f"  {len(recs):3d}  {reason}")
        out.append("       " + ", ".join(f"{r['domain']}.{r['name']}" for r in recs))


def _short_msg(msg: str) -> str:
    msg = msg.splitlines()[0] if msg else ""
    msg = re.sub(r"^\S+:\d+:\d+: ", "", msg)
    msg = re.sub(r"; supported functions:.*", "", msg)
    return msg[:140]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--only", help="domains, comma-separated")
    ap.add_argument("--names", help="function names, comma-separated")
    ap.add_argument("--timeout", type=float, default=60.0, help="seconds per function (default 60)")
    ap.add_argument("--json", help="write the records to this file")
    ap.add_argument("--no-jax", action="store_true", help="do not compare with JAX even where it is installed")
    ap.add_argument("--seed", type=int, default=0, help="draw other example arguments (0: the corpus's own)")
    ap.add_argument("-v", "--verbose", action="store_true", help="print each function as it finishes")
    opts = ap.parse_args(argv)
    import corpus
    entries = corpus.entries(opts.only)
    if opts.names:
        wanted = set(opts.names.split(","))
        entries = [e for e in entries if e.name in wanted]
    use_jax = not opts.no_jax and _jax_available()
    records = []
    worker = Worker(use_jax, opts.seed)
    t_all = time.perf_counter()
    try:
        for e in entries:
            t0 = time.perf_counter()
            rec = worker.run(e.qualname, opts.timeout)
            if rec is None:
                alive = worker.proc.is_alive()
                worker.kill()
                rec = {"name": e.name, "domain": e.domain, "argnums": list(e.argnums), "citation": e.citation,
                       "status": "timeout" if alive else "crashed", "seconds": time.perf_counter() - t0}
                if not alive:
                    rec.update(error_type="WorkerDied", message=f"the worker process died (exit code {worker.proc.exitcode})",
                               reason="the process died")
                worker = Worker(use_jax, opts.seed)
            records.append(rec)
            if opts.verbose:
                print(f"{e.qualname:<45} {rec['status']:<8} {time.perf_counter() - t0:6.2f}s", flush=True)
    finally:
        worker.close()
    print(report(records, use_jax))
    print(f"\n({time.perf_counter() - t_all:.0f} s; python {sys.version.split()[0]}, numpy {np.__version__}"
          f"{', jax compared' if use_jax else ''})")
    if opts.json:
        with open(opts.json, "w") as f:
            json.dump({"records": records, "rtol": RTOL, "atol": ATOL, "step": STEP,
                       "totals": dict(Counter(r["status"] for r in records))}, f, indent=1, default=str)
    return 0


if __name__ == "__main__":
    sys.exit(main())
