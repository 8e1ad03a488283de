"""Compile time and compile memory of catad.grad (issue 14, item 5).

What is measured: the first call of catad.grad for a new function, i.e. compiling (front end,
CL, AD, rewriting, NumPy code generation) plus one run of the compiled gradient, on

  vector  def f(x): `x = np.sin(x) * 0.5 + x * 0.5` n times, `return np.sum(x)`; x a float
          array of length 5
  fib     def f(x): `a, b = x, x`, then `a, b = b, a + b` n times, `return b`; x = 1.0 (the
          tuple-assignment form; the gradient is a Fibonacci number, inf past ~1,475 statements:
          the zero-safe variant then asked for is the usual program's code, not compiled again,
          see catad.backend.compile_def's twin)
  gmm     benchmarks/adbench/gmm.py's gmm_objective (index style), catad.grad with respect
          to alphas, means, qs and ls (argnums 0-3, as adbench_gmm.py), on d10_K25, 1k points
  ba      benchmarks/adbench/ba.py's catad_jacobian on the first observation, as adbench_ba.py
          times it: catad.vjp of reproj_error, its vjp_fn called twice, and catad.vjp of
          weight_error with its vjp_fn (both functions compiled, primal and reverse)

How: every run is a fresh Python process (nothing cached; the memory is the process's own)
with single-threaded BLAS. It imports numpy and catad, builds the function and its arguments,
then, unless --cold, warms catad up on a small unrelated function using the same primitives
(sin, exp, lgamma, where, ...), so that one-off costs per process (sympy's derivation of each
primitive's derivative, handler tables: at 4f5228f 0.1 s for the vector chain, 0.16 s and
17 MB for GMM) are not counted; `warm-up s` is the warm-up's own time. Then it resets the kernel's
high-water mark of resident memory (/proc/self/clear_refs) and times the call. The points
are measured in --repeats rounds of one process each, in turn (not one point's processes
after another's), so that a drift of the machine's speed over minutes touches every point
alike, and the per-doubling figures, ratios of two points, are not made of it.

  first s    wall time of the first call, median of --repeats processes (min-max beside it)
  cpu s      the process's CPU time over the first call (median): on a machine other work
             loads, what the call cost this process, where `first s` also counts waiting
  x2         per-doubling growth of `first s` from the previous size of the same chain,
             r ** (1 / log2(n2 / n1)), r the median over the rounds of t2 / t1 in the round
             (the two sizes run one after the other): 2.0 is linear. (The instructions are: 6.8 M
             per statement of the vector chain at 1,000 and at 4,000 statements, valgrind;
             6.2 M at 1e28122, from the runs at 1,000 and 4,000 statements, whose difference
             the figure is. From 1,000 to 10,000 the call's memory outgrows a 32 MiB L3 cache:
             cachegrind counted 9 last-level read misses per statement at 1,000 statements
             and 750 at 4,000 (900 before the front end freed each statement's syntax tree as
             it went): at some 80 ns each, about 6% of a statement's time, the size of this
             figure's excess over 2.0 there. Measured in one process, the time per statement
             of each stage grows some 3-10% per doubling from 250 to 8,000 statements, while
             the work done grows linearly: the caches, not an algorithm.)
  py x2      the same per-doubling growth of CPython's own compile() of the chain's source (the
             user's function, n statements), timed in the same processes after catad's calls
             (median of 3 in each): a yardstick of linear work in C, for how the time per statement
             of a program held in memory grows on this machine as the program grows
  second s   a second call in the same process (the run alone, compiled program cached)
  peak MB    growth of getrusage's ru_maxrss (KiB on Linux) over the call, MB = 10^6 bytes
  traced MB  with --tracemalloc, one more process per point: tracemalloc's peak over the call
  load       1-minute load average before the point's first process (the machine's 2 cores
             are shared)

A process past --timeout is killed; its call is reported as "> T s" (T: how long the call had
run) with its peak so far as ">= M", and the chain's longer sizes are skipped. The
targets (one core): the 250-statement vector chain <= 0.3 s; 10,000 statements of either chain
<= 10 s and <= 500 MB; GMM <= 0.1 s; doubling the statements at most doubles the time (x2 <= 2).

--catad PATH measures another checkout of catad (e.g. a worktree of an older commit): the
processes put PATH first on sys.path; the benchmark functions and data stay this checkout's.

    python benchmarks/compile_time.py [--only vector,fib,gmm,ba] [--sizes 250,1000,10000]
        [--repeats 3] [--timeout 600] [--max-statements N] [--catad PATH] [--cold]
        [--tracemalloc] [--data-dir DIR] [--json FILE]
"""
from __future__ import annotations

import argparse
import gc
import json
import math
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
KINDS = ("vector", "fib", "gmm", "ba")
CHAINS = ("vector", "fib")
DATA_DIR = Path("/work/shared/data/adbench")
THREADS = {v: "1" for v in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")}
MB = 1e6

WARM_UP = """
import math
import numpy as np

def f(x, v, m):
    a, b = x, x
    a, b = b, a + b
    y = np.sin(v) * 0.5 + v * 0.5
    c = m[:, 0] / (m[:, 1] + 2.0)
    z = np.where(c != 0.0, np.sqrt(c * c + 1.0), np.cos(c))
    r = np.array([z, c]).T
    s = max(v[i] for i in range(len(v)))
    lse = s + math.log(sum(math.exp(v[i] - s) for i in range(len(v))))
    return b + np.sum(y) + np.sum(r) + lse + math.lgamma(x + 2.0) * math.log(2.0 * math.pi)
"""


# ------------------------------------------------------------------ the child: one measurement


def vector_source(n: int) -> str:
    return "import numpy as np\n\ndef f(x):\n" + "    x = np.sin(x) * 0.5 + x * 0.5\n" * n + "    return np.sum(x)\n"


def fib_source(n: int) -> str:
    return "def f(x):\n    a, b = x, x\n" + "    a, b = b, a + b\n" * n + "    return b\n"


def benchmark_source(kind: str, n: int) -> str:
    return vector_source(n) if kind == "vector" else fib_source(n)


def python_compile(source: str) -> float:
    """Seconds CPython's compile() takes for source: the median of 3."""
    from _util import median_time
    return median_time(lambda: compile(source, "<chain>", "exec"), 3)


def workload(kind: str, n: int, data_dir: Path):
    """A call doing catad's first gradient of the benchmark function (built here, not timed)."""
    import numpy as np
    import catad
    from _util import load_source
    if kind in CHAINS:
        f = load_source(benchmark_source(kind, n))
        x = np.linspace(0.1, 0.5, 5) if kind == "vector" else 1.0
        return lambda: catad.grad(f)(x)
    if kind == "gmm":
        from adbench.gmm import gmm_objective, load_gmm
        d = load_gmm(data_dir / "gmm" / "1k" / "gmm_d10_K25.txt")
        g = catad.grad(gmm_objective, argnums=(0, 1, 2, 3))
        return lambda: g(*d.params(), d.x, d.wishart)
    from adbench import ba
    from adbench.io import load_ba
    one = tuple(a[:1] for a in load_ba(data_dir / "ba" / "ba1_n49_m7776_p31843.txt", 1).gathered())
    return lambda: ba.catad_jacobian(*one)


def warm_up() -> float:
    import numpy as np
    import catad
    from _util import load_source
    f = load_source(WARM_UP)
    t = time.perf_counter()
    catad.grad(f, argnums=(0, 1, 2))(1.5, np.linspace(0.1, 0.5, 5), np.ones((3, 2)))
    return time.perf_counter() - t


def reset_peak_rss() -> None:
    """Reset the high-water mark (ru_maxrss) to the current resident size (Linux 4.0+)."""
    try:
        with open("/proc/self/clear_refs", "w") as fh:
            fh.write("5")
    except OSError:
        pass


def maxrss_kib() -> int:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


def child(kind: str, n: int, catad_path: str | None, data_dir: Path, cold: bool, traced: bool) -> None:
    """Print one JSON line {first, second, peak_kib, warm_up[, traced][, python]}: see the module
    docstring."""
    sys.path.insert(0, str(HERE))  # _util (which puts this checkout first) and adbench
    import _util  # noqa: F401
    if catad_path:
        sys.path.insert(0, catad_path)
    import numpy as np
    import catad
    np.seterr(all="ignore")  # the Fibonacci chain overflows to inf
    call = workload(kind, n, data_dir)
    out = {"catad_file": catad.__file__, "warm_up": None if cold else warm_up()}
    gc.collect()
    if traced:
        import tracemalloc
        tracemalloc.start()
        base = tracemalloc.get_traced_memory()[0]
    reset_peak_rss()
    before = maxrss_kib()
    print(json.dumps({"before_kib": before, "start": time.time()}), flush=True)  # for the parent if it kills us
    t, cpu = time.perf_counter(), time.process_time()
    call()
    out["first"] = time.perf_counter() - t
    out["cpu"] = time.process_time() - cpu
    out["peak_kib"] = maxrss_kib() - before
    if traced:
        out["traced"] = tracemalloc.get_traced_memory()[1] - base
        tracemalloc.stop()
    t = time.perf_counter()
    call()
    out["second"] = time.perf_counter() - t
    if kind in CHAINS:
        out["python"] = python_compile(benchmark_source(kind, n))
    print(json.dumps(out), flush=True)


# ------------------------------------------------------------------ the parent: processes, table, targets


def vm_hwm_kib(pid: int) -> int | None:
    try:
        with open(f"/proc/{pid}/status") as fh:
            return next(int(line.split()[1]) for line in fh if line.startswith("VmHWM:"))
    except (OSError, StopIteration):
        return None


def run_once(kind: str, n: int, args, traced: bool = False) -> dict:
    """One fresh process: its result, or {"timeout": True, "peak_kib": so far} or {"error": ...}."""
    cmd = [sys.executable, __file__, "--child", f"{kind}:{n}", "--data-dir", str(args.data_dir)]
    cmd += (["--catad", args.catad] if args.catad else []) + (["--cold"] if args.cold else [])
    cmd += ["--tracemalloc"] if traced else []
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         env={**os.environ, **THREADS})
    try:
        out, err = p.communicate(timeout=args.timeout)
    except subprocess.TimeoutExpired:
        hwm, killed = vm_hwm_kib(p.pid), time.time()
        p.kill()
        out, _ = p.communicate()
        if not out.strip():
            return {"error": f"killed after {args.timeout:g} s before the timed call began"}
        began = json.loads(out.splitlines()[0])
        return {"timeout": killed - began["start"], "peak_kib": hwm - began["before_kib"] if hwm else None}
    lines = out.strip().splitlines()
    if p.returncode or len(lines) < 2:
        return {"error": (err.strip().splitlines() or [f"exit {p.returncode}"])[-1]}
    return json.loads(lines[-1])


def measure_once(row: dict, args) -> None:
    """One more fresh process for the point `row`; its first timeout or error ends the point."""
    if not row["runs"]:
        row["load"] = os.getloadavg()[0]
    r = run_once(row["kind"], row["n"], args)
    row["runs"].append(r)
    if "timeout" in r or "error" in r:
        row.update({k: r[k] for k in ("timeout", "error", "peak_kib") if k in r})


def summarise(row: dict, args) -> None:
    """The medians over the point's processes (none if one timed out or failed)."""
    if "timeout" in row or "error" in row or row.get("skipped"):
        return
    for key in ("first", "cpu", "second", "peak_kib", "warm_up", "python"):
        values = [r[key] for r in row["runs"] if r.get(key) is not None]
        row[key] = statistics.median(values) if values else None
    row["catad_file"] = row["runs"][0]["catad_file"]
    if args.tracemalloc:
        row["traced"] = run_once(row["kind"], row["n"], args, traced=True).get("traced")


def per_doubling(rows: list[dict]) -> None:
    """Set row["x2"] from the previous measured size of the same chain: the median over the
    rounds of the ratio of the two sizes' times in that round (a lower bound when the row
    timed out: from the medians then). The two are measured one after the other in each
    round, so a change of the machine's speed between rounds, which the medians of the two
    sizes would meet in different rounds, touches both sides of each ratio alike. And
    row["py_x2"], the same of CPython's compile() of the chain's source."""
    for prev, row in zip(rows, rows[1:]):
        t = row.get("first") or row.get("timeout")
        if prev["kind"] == row["kind"] and prev.get("first") and t:
            doublings = math.log2(row["n"] / prev["n"])
            pairs = [(a["first"], b["first"]) for a, b in zip(prev["runs"], row["runs"])
                     if "first" in a and "first" in b]
            ratio = statistics.median(b / a for a, b in pairs) if row.get("first") and pairs else t / prev["first"]
            row["x2"] = ratio ** (1 / doublings)
            row["x2_from"] = prev["n"]
            python = [b["python"] / a["python"] for a, b in zip(prev["runs"], row["runs"])
                      if "python" in a and "python" in b]
            if python:
                row["py_x2"] = statistics.median(python) ** (1 / doublings)


def fmt_time(row: dict) -> str:
    if row.get("timeout"):
        return f"> {row['timeout']:.3g}"
    return f"{row['first']:.3f}" if row.get("first") is not None else "-"


def fmt_mb(row: dict) -> str:
    kib = row.get("peak_kib")
    if kib is None:
        return "-"
    return (">= " if row.get("timeout") else "") + f"{kib * 1024 / MB:.0f}"


def table(rows: list[dict], args) -> str:
    head = ["kind", "n", "first s", "min-max", "x2", "py x2", "cpu s", "second s", "peak MB"]
    head += ["traced MB"] if args.tracemalloc else []
    head += ["warm-up s", "load", "note"]
    lines = [head]
    for r in rows:
        firsts = [x["first"] for x in r["runs"] if "first" in x]
        line = [r["kind"], str(r["n"]) if r["kind"] in CHAINS else "-", fmt_time(r),
                f"{min(firsts):.2f}-{max(firsts):.2f}" if len(firsts) > 1 else "-",
                ("> " if r.get("timeout") else "") + f"{r['x2']:.2f}" if "x2" in r else "-",
                f"{r['py_x2']:.2f}" if "py_x2" in r else "-",
                f"{r['cpu']:.3f}" if r.get("cpu") is not None else "-",
                f"{r['second']:.4f}" if r.get("second") is not None else "-", fmt_mb(r)]
        if args.tracemalloc:
            line.append(f"{r['traced'] / MB:.0f}" if r.get("traced") is not None else "-")
        line += [f"{r['warm_up']:.2f}" if r.get("warm_up") is not None else "-", f"{r['load']:.2f}",
                 r.get("error", r.get("skipped", ""))]
        lines.append(line)
    widths = [max(len(line[i]) for line in lines) for i in range(len(head))]
    return "\n".join("  ".join(c.ljust(w) if i < 2 or i == len(head) - 1 else c.rjust(w)
                               for i, (c, w) in enumerate(zip(line, widths))).rstrip() for line in lines)


def targets(rows: list[dict]) -> list[tuple[str, str, str]]:
    """(target, value, met / not met / not measured) for every target of the module docstring."""
    find = {(r["kind"], r["n"] if r["kind"] in CHAINS else None): r for r in rows}

    def check(label, key, limit, value_of, unit):
        r = find.get(key)
        if r is None or r.get("skipped") or r.get("error"):
            return label, "-", "not measured"
        value = value_of(r)
        if value is None:
            return label, "-", "not measured"
        text = f"{'> ' if r.get('timeout') else ''}{value:.3g} {unit}"
        return label, text, "met" if value <= limit and not r.get("timeout") else "not met"

    def secs(r):
        return r.get("timeout") or r.get("first")

    def mbytes(r):
        return None if r.get("peak_kib") is None else r["peak_kib"] * 1024 / MB

    out = [check("vector chain, 250 statements <= 0.3 s", ("vector", 250), 0.3, secs, "s")]
    for kind in CHAINS:
        out.append(check(f"{kind} chain, 10,000 statements <= 10 s", (kind, 10_000), 10, secs, "s"))
        out.append(check(f"{kind} chain, 10,000 statements <= 500 MB", (kind, 10_000), 500, mbytes, "MB"))
    out.append(check("gmm <= 0.1 s", ("gmm", None), 0.1, secs, "s"))
    for r in rows:
        if "x2" in r:
            bound = "> " if r.get("timeout") else ""
            verdict = "not met" if r["x2"] > 2 else "not measured" if bound else "met"
            out.append((f"{r['kind']} chain, {r['x2_from']} -> {r['n']}: time per doubling <= 2",
                        f"{bound}{r['x2']:.2f}", verdict))
    return out


def commit(path: Path) -> str:
    """The checkout's short commit, with the last commit that changed catad/ when that is an
    older one, marked when catad/ has uncommitted changes."""
    def git(*a):
        return subprocess.run(["git", "-C", str(path), *a], capture_output=True, text=True).stdout.strip()
    head, last = git("rev-parse", "--short", "HEAD") or "unknown", git("log", "-1", "--format=%h", "--", "catad")
    changed = " + changes" if git("status", "--porcelain", "--", "catad") else ""
    return head + (f" (catad/ as of {last})" if last and last != head else "") + changed


def plan(args) -> list[tuple[str, int]]:
    return [(k, n) for k in args.only for n in (args.sizes if k in CHAINS else [0])]


def run(args) -> list[dict]:
    """Every point measured in --repeats rounds, one process per point in each round, the
    points in turn: the machine's speed drifts over minutes (other tenants of the host), and
    measured one point after the other, two sizes of a chain would differ by that drift as
    well (the per-doubling figure is their ratio); in turn, a drift slows every point in the
    rounds it lasts (as _util.interleaved_times does for the tools it times)."""
    rows = [{"kind": kind, "n": n, "load": os.getloadavg()[0], "runs": []} for kind, n in plan(args)]
    for row in rows:
        if args.max_statements is not None and row["n"] > args.max_statements:
            row["skipped"] = f"skipped: over --max-statements {args.max_statements}"
    for _ in range(args.repeats):
        for row in rows:
            if "timeout" in row or "error" in row or row.get("skipped"):
                continue
            smaller = [r for r in rows if r["kind"] == row["kind"] and r["n"] < row["n"] and r.get("timeout")]
            if smaller:
                row["skipped"] = f"skipped: {smaller[0]['n']} statements timed out"
                continue
            measure_once(row, args)
            print(f"done {row['kind']} {row['n'] or ''} ({len(row['runs'])} of {args.repeats})",
                  file=sys.stderr, flush=True)
    for row in rows:
        summarise(row, args)
    per_doubling(rows)
    return rows


def report(rows: list[dict], args, started: tuple) -> dict:
    measured = Path(args.catad) if args.catad else HERE.parent
    files = {r["catad_file"] for r in rows if r.get("catad_file")}
    warm = "no warm-up (--cold)" if args.cold else "after a warm-up"
    head = (f"catad {commit(measured)} ({measured}), script {commit(HERE.parent)}; "
            f"python {sys.version.split()[0]}; median of {args.repeats} fresh processes per point, {warm}, "
            f"timeout {args.timeout:g} s, single-threaded BLAS; load average {started[0]:.2f} {started[1]:.2f} "
            f"{started[2]:.2f} at the start, {os.getloadavg()[0]:.2f} at the end, on {os.cpu_count()} CPUs")
    print(head)
    print("catad imported from " + (", ".join(sorted(files)) or "- (no process finished)"))
    print()
    print(table(rows, args))
    print()
    checked = targets(rows)
    width = max(len(t[0]) for t in checked)
    for label, value, verdict in checked:
        print(f"{label:<{width}}  {value:>9}  {verdict}")
    return {"header": head, "rows": rows, "targets": checked}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--only", default=",".join(KINDS), help="comma-separated: vector,fib,gmm,ba")
    ap.add_argument("--sizes", default="250,1000,10000", help="statements of the chains, comma-separated")
    ap.add_argument("--repeats", type=int, default=3, help="fresh processes per point (the median is shown)")
    ap.add_argument("--timeout", type=float, default=600, help="seconds per process before it is killed")
    ap.add_argument("--max-statements", type=int, help="skip chains longer than this")
    ap.add_argument("--catad", help="measure the catad package of this checkout instead of this script's")
    ap.add_argument("--cold", action="store_true", help="no warm-up: count catad's one-off costs per process")
    ap.add_argument("--tracemalloc", action="store_true", help="one more process per point for tracemalloc's peak")
    ap.add_argument("--data-dir", type=Path, default=DATA_DIR, help="ADBench data (gmm/1k, ba)")
    ap.add_argument("--json", help="also write the rows and targets to this file")
    ap.add_argument("--child", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.catad:
        args.catad = str(Path(args.catad).resolve())
        if not (Path(args.catad) / "catad" / "__init__.py").exists():
            ap.error(f"--catad {args.catad}: no catad package there")
    if args.child:
        kind, n = args.child.split(":")
        return child(kind, int(n), args.catad, args.data_dir, args.cold, args.tracemalloc)
    args.only = [k for k in args.only.split(",") if k]
    args.sizes = sorted(int(s) for s in args.sizes.split(",") if s)
    for k in args.only:
        if k not in KINDS:
            ap.error(f"unknown kind {k!r}; kinds: {', '.join(KINDS)}")
    started = os.getloadavg()
    print(f"$ python benchmarks/compile_time.py {' '.join(sys.argv[1:])}".rstrip())
    result = report(run(args), args, started)
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
