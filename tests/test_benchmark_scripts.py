"""How the benchmark scripts run their measurements (benchmarks/compile_time.py's order of
processes, benchmarks/_util.py's generated modules), with the processes themselves stubbed
or tiny. No timing."""
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

from benchmark_modules import BENCH, _load

compile_time = _load("bench_compile_time", BENCH / "compile_time.py")


def _args(**kw):
    base = dict(only=["vector", "gmm"], sizes=[250, 1000, 10000], repeats=3, max_statements=None,
                tracemalloc=False)
    return SimpleNamespace(**{**base, **kw})


def _fake_processes(monkeypatch, timeouts=()):
    """run_once stubbed: each call recorded; the points in `timeouts` time out."""
    calls = []

    def run_once(kind, n, args, traced=False):
        calls.append((kind, n))
        if (kind, n) in timeouts:
            return {"timeout": 5.0, "peak_kib": 1}
        return {"first": 0.001 * (n or 1) * len(calls), "cpu": 0.1, "second": 0.01, "peak_kib": 10,
                "warm_up": 0.2, "catad_file": "catad/__init__.py"}
    monkeypatch.setattr(compile_time, "run_once", run_once)
    return calls


def test_the_points_are_measured_in_turn_round_after_round(monkeypatch):
    calls = _fake_processes(monkeypatch)
    rows = compile_time.run(_args())
    points = [("vector", 250), ("vector", 1000), ("vector", 10000), ("gmm", 0)]
    assert calls == points * 3  # not each point's three processes one after another
    assert all(len(r["runs"]) == 3 and r["first"] is not None for r in rows)
    assert "x2" in rows[1] and "x2" in rows[2]


def test_a_timeout_ends_its_point_and_skips_the_longer_sizes(monkeypatch):
    calls = _fake_processes(monkeypatch, timeouts={("vector", 1000)})
    rows = compile_time.run(_args())
    assert calls.count(("vector", 1000)) == 1 and ("vector", 10000) not in calls
    assert calls.count(("gmm", 0)) == 3 and calls.count(("vector", 250)) == 3
    by_n = {r["n"]: r for r in rows if r["kind"] == "vector"}
    assert by_n[1000]["timeout"] == 5.0 and "first" not in by_n[1000]
    assert by_n[10000]["skipped"] == "skipped: 1000 statements timed out"


def test_points_over_max_statements_are_never_run(monkeypatch):
    calls = _fake_processes(monkeypatch)
    rows = compile_time.run(_args(max_statements=1000))
    assert ("vector", 10000) not in calls
    assert rows[2]["skipped"] == "skipped: over --max-statements 1000"


def test_generated_modules_are_removed_when_the_process_exits(tmp_path):
    """_util.load_source writes modules into a directory of the process's own, made when first
    needed (a process that loads none makes none) and removed at exit."""
    script = (f"import sys, tempfile; tempfile.tempdir = {str(tmp_path)!r}; sys.path.insert(0, {str(BENCH)!r})\n"
              "import _util\n"
              "if sys.argv[1] == 'load':\n"
              "    f = _util.load_source('def f(x):\\n    return x + 1\\n')\n"
              "    assert f(1) == 2 and _util._DIR[0].exists()\n")
    for mode in ("import", "load"):
        subprocess.run([sys.executable, "-c", script, mode], check=True, timeout=120)
        assert list(Path(tmp_path).iterdir()) == [], mode


def test_the_per_doubling_figure_pairs_the_two_sizes_round_by_round():
    """x2 is from the median of each round's ratio of the two sizes' times (measured one after
    the other), not from the ratio of their medians, which may come from different rounds: here
    a slow second round doubles both sizes' times, and one 10,000-statement time is 10% high."""
    def point(n, firsts):
        return {"kind": "vector", "n": n, "first": sorted(firsts)[1], "runs": [{"first": t} for t in firsts]}
    rows = [point(1000, [1.0, 2.0, 1.0]), point(10000, [10.0, 20.0, 11.0])]
    compile_time.per_doubling(rows)
    assert abs(rows[1]["x2"] - 2.0) < 1e-12 and rows[1]["x2_from"] == 1000  # the medians would give 2.06
    timed_out = [point(1000, [1.0, 2.0, 1.0]), {"kind": "vector", "n": 10000, "timeout": 40.0, "runs": [{}]}]
    compile_time.per_doubling(timed_out)  # a bound, from the median of the smaller size
    assert abs(timed_out[1]["x2"] - 40.0 ** (1 / compile_time.math.log2(10))) < 1e-12


def test_python_own_compile_of_the_chain_is_paired_round_by_round_too():
    """py_x2, the yardstick: CPython's compile() of the chain's source, per doubling, from
    each round's ratio as x2 is."""
    def point(n, firsts, pythons):
        return {"kind": "fib", "n": n, "first": sorted(firsts)[1],
                "runs": [{"first": t, "python": p} for t, p in zip(firsts, pythons)]}
    rows = [point(1000, [1.0, 1.0, 1.0], [0.01, 0.02, 0.01]), point(10000, [10.0, 10.0, 10.0], [0.1, 0.2, 0.12])]
    compile_time.per_doubling(rows)
    assert abs(rows[1]["py_x2"] - 2.0) < 1e-12  # the ratios 10, 10, 12: median 10
    rows[0]["runs"][0].pop("python")  # a round without the figure is left out of its median
    compile_time.per_doubling(rows)
    assert abs(rows[1]["py_x2"] - 11.0 ** (1 / compile_time.math.log2(10))) < 1e-12


def test_a_child_reports_the_call_and_python_own_compile_of_its_chain():
    """One real child process on a 3-statement chain: its JSON line has catad's first call and
    CPython's compile() of the same source."""
    out = subprocess.run([sys.executable, str(BENCH / "compile_time.py"), "--child", "fib:3"],
                         capture_output=True, text=True, check=True, timeout=300)
    import json
    result = json.loads(out.stdout.strip().splitlines()[-1])
    assert result["first"] > 0 and result["python"] > 0 and result["second"] > 0
    assert compile_time.benchmark_source("fib", 3).count("a, b = b, a + b") == 3
