"""Write the backend's generated code for a fixed set of programs to a directory, or compare it
with such a directory: a refactoring of catad/backend that must not change the code it
generates is checked by a snapshot taken before and compared after.

    python benchmarks/codegen_snapshot.py write DIR      # one .py file per program and variant
    python benchmarks/codegen_snapshot.py compare DIR    # exit status 1 if any file differs

The programs: every case of tests/corpus.py, the backend's test programs (the vectorisation
forms, guarded, reverse-indexing and ragged programs of tests/backend_programs.py), the cases
of tests/test_where_trap.py, test_frontend_numpy_style.py and test_frontend_eval.py, random
programs of tests/gen_programs.py and of backend_programs.comprehension_programs (Hypothesis,
derandomised: the same sources on every run of one Hypothesis version; their sources are
written to DIR/sources and read back from there, so that the error sites and fallback lines
name the same files), the ADBench GMM (index and NumPy styles, two sizes) and BA
objectives. For each: explain's "code" stage (the primal, forward and reverse programs),
and the backend's other variants of the same programs: Python loops (vectorise=False), the
zero-safe derivatives, and the reverse program for each argument alone (grad's argnums).
Besides these, core definitions written by hand for the constructs no Python function
compiles to today (tmul, scatter_add, ...), each vectorised, as loops and zero-safe, with
the value it computes. A program that fails to compile records its error instead. The path of the checkout is
replaced by ``<repository>``, so that a snapshot written by one checkout (a `git worktree` of
the commit before a change) can be compared in another.

This is a tool, not a test: the generated code may change whenever the backend improves.
"""
from __future__ import annotations

import argparse
import difflib
import importlib.util
import sys
import traceback
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))  # adbench, for the tests' corpus
sys.path.insert(0, str(ROOT / "tests"))  # first: `corpus` is tests/corpus.py, not benchmarks/corpus/

import catad  # noqa: E402
from catad.backend import compile_def, compile_program  # noqa: E402
from catad.explain import pipeline  # noqa: E402

N_RANDOM = 40  # random programs of each generator


def programs(sources: Path):
    """(name, fn, args) of every program snapshotted."""
    import backend_programs as bp
    from corpus import CASES
    for case in CASES:
        yield f"corpus-{case.name}", case.fn, case.make_args(np.random.default_rng(0))
    rng = np.random.default_rng(1)
    for label, fn, make in bp.VECTORISATION_FORMS:
        yield f"forms-{fn.__name__}", fn, make(rng)
    for fn, make in bp.GUARDED:
        yield f"guarded-{fn.__name__}", fn, make()
    v, m, idx = rng.normal(size=6), rng.normal(size=(4, 5)), np.array([0, 3, 1, 3, 5])
    for fn, args in [(bp.convolution, (v, rng.normal(size=3))),
                     (bp.convolution_2d, (m, rng.normal(size=(2, 2)))),
                     (bp.ragged_in_ragged, (v,)), (bp.ragged_difference_index, (v,)),
                     (bp.pairwise_distances, (m,)),
                     (bp.three_factor_sum, (m, rng.normal(size=(5, 3)), rng.normal(size=(4, 3)))),
                     (bp.helper_with_elif, (m,)), (bp.lower_triangle, (v,)), (bp.gather_sum, (v, idx)),
                     (bp.gather_weighted, (v, idx, rng.normal(size=5))), (bp.gather_rows, (m, idx % 4)),
                     (bp.ragged_prefix_max, (v,)), (bp.ragged_prefix_argmax, (v, v + 1)),
                     (bp.vector_of_tuples, (v,)), (bp.constant_matrix, (v,)),
                     (bp.constant_along_a_ragged_range, (v,)), (bp.constant_along_two_ranges, (v,)),
                     (bp.ragged_max_in_a_branch, (0.3, v)), (bp.index_conditions, (m,)),
                     (bp.vector_chosen_by_condition, (v, v + 1)), (bp.row_max_of_shifted_products, (m,)),
                     (bp.negative_index, (v,)), (bp.guarded_sqrt, (v,)), (bp.guarded_log, (v,))]:
        yield f"backend-{fn.__name__}", fn, args
    yield from test_cases()
    yield from random_programs(sources)
    yield from adbench()


def test_cases():
    """The programs of the tests that list (function, arguments) cases."""
    import test_frontend_eval
    import test_frontend_numpy_style
    import test_where_trap
    for k, case in enumerate(test_where_trap.CASES):
        yield f"where_trap-{k:02d}-{case.name}", case.fn, case.args
    for fn, make in test_frontend_numpy_style.CASES:
        yield f"numpy_style-{fn.__name__}", fn, make(np.random.default_rng(3))
    for k, (fn, make) in enumerate(test_frontend_eval.CASES):
        yield f"frontend_eval-{k:02d}-{fn.__name__}", fn, make()


def random_programs(sources: Path):
    import backend_programs as bp
    from gen_programs import programs as gen
    from hypothesis import HealthCheck, Phase, given, settings
    rng = np.random.default_rng(2)
    for tag, strategy, make in [
            ("random", gen(), lambda: (0.3, -0.7, rng.normal(size=4))),
            ("comprehension", bp.comprehension_programs(), lambda: (0.3, rng.normal(size=3), rng.normal(size=(3, 2))))]:
        found: list[str] = []

        @settings(max_examples=N_RANDOM, derandomize=True, database=None, phases=[Phase.generate],
                  suppress_health_check=list(HealthCheck), deadline=None)
        @given(strategy)
        def collect(source):
            if source not in found:
                found.append(source)
        collect()
        for k, source in enumerate(found):
            name = f"{tag}_{k:03d}"
            path = sources / f"{name}.py"
            if path.exists() and path.read_text() != source:
                raise SystemExit(f"{path}: Hypothesis generated another source (another version?): "
                                 "take the snapshot again with this one")
            path.write_text(source)
            spec = importlib.util.spec_from_file_location(f"snapshot_{name}", path)
            module = importlib.util.module_from_spec(spec)
            sys.modules[spec.name] = module
            spec.loader.exec_module(module)
            yield name, module.f, make()


def adbench():
    from adbench import ba, gmm as gmm_index, gmm_numpy
    from adbench.gmm import load_gmm
    from adbench.io import DATA_DIR, load_ba
    for size in ("d2_K10", "d10_K25"):
        data = load_gmm(DATA_DIR / "gmm" / "1k" / f"gmm_{size}.txt", 10)
        yield f"gmm_index-{size}", gmm_index.gmm_objective, data.params() + (data.x, data.wishart)
        yield f"gmm_numpy-{size}", gmm_numpy.gmm_objective, \
            data.params() + (data.x, data.wishart, gmm_numpy.tril_positions(data.x.shape[1]))
    data = load_ba(DATA_DIR / "ba" / "ba1_n49_m7776_p31843.txt", 10)
    yield "ba-reproj_error", ba.reproj_error, data.gathered()
    yield "ba-weight_error", ba.weight_error, (data.w,)


def core_programs():
    """Core definitions written by hand for what no Python function compiles to today (the
    rewrites remove tmul and scatter_add, for instance), as (name, Def, arguments)."""
    from catad.lang.terms import Build, Const, Def, Get, If, Let, Tuple, Var
    from catad.lang.types import Float, Int, Tuple as TT, Vec
    from catad.primitives import prim
    v, w, x = Var("v", Vec(Float)), Var("w", Vec(Float)), Var("x", Float)
    idx, m = Var("idx", Vec(Int)), Var("m", Vec(Vec(Float)))
    i, j, p, k = Var("i", Int), Var("j", Int), Var("p", Vec(TT((Float, Float)))), Var("k", TT((Float, Int)))
    n = prim("size", v)
    a22 = Const(np.array([[1.0, 2.0], [3.0, 4.0]]), Vec(Vec(Float)))

    def at(a, e):
        return prim("index", e, a)

    def build(body, var=i, size=n):
        return Build(size, var, body)
    bodies = {
        "tmul": prim("tmul", v, w),
        "tmul_summed": prim("tsum", build(prim("tmul", at(m, i), at(m, i)))),
        "tmul_rows": build(prim("tmul", at(m, i), w)),
        "scatter_add_arrays": prim("scatter_add", idx, w, n),
        "scatter_add_builds": prim("scatter_add", build(at(idx, i)), build(prim("mul", at(w, i), x)), n),
        "scatter_add_nested": build(prim("scatter_add", build(at(idx, j), j),
                                         build(prim("mul", at(w, j), at(v, i)), j), n)),
        "projection_of_a_build": Let(p, build(Tuple((at(v, i), at(w, i)))), prim("sum", build(Get(1, at(p, i))))),
        "tscale_matrix": build(prim("tscale", at(v, i), m)),
        "tscale_rows": prim("tsum", build(prim("tscale", at(v, i), at(m, i)))),
        "tuple_constant": Let(k, Const((1.5, 2), TT((Float, Int))), prim("mul", Get(0, k), x)),
        "matrix_constant": prim("sum", build(prim("sum", at(a22, i)), size=Const(2, Int))),
        "select_builds": build(If(prim("lt", at(v, i), x), build(at(w, j), j), build(prim("mul", at(w, j), x), j))),
        "tadd_builds": build(prim("tadd", build(at(w, j), j), build(at(v, j), j))),
        "update_summed": prim("tsum", build(prim("update", at(idx, i), prim("tadd", at(w, i), at(v, i)), n))),
    }
    rng = np.random.default_rng(4)
    args = (rng.normal(size=4), rng.normal(size=4), 0.3, np.array([0, 2, 2, 3]), rng.normal(size=(4, 4)))
    for name, body in bodies.items():
        yield f"core-{name}", Def(name, (v, w, x, idx, m), body), args


def core_variants(d, args) -> dict[str, str]:
    """The generated sources of a core definition and the value each computes."""
    out = {}
    for label, options in (("code", {}), ("loops", {"vectorise": False}), ("zero-safe", {"zero_safe": True})):
        try:
            c = compile_def(d, **options)
            out[label] = f"{c.source}{c.report()}\n# -> {c(*args)!r}\n"
        except Exception:
            out[label] = traceback.format_exc(limit=0)
    return out


def variants(fn, args) -> dict[str, str]:
    """Every generated source of fn at args, by variant."""
    out = {"code": catad.explain(fn, *args).stage("code").text}
    pl = pipeline(fn, *args)
    n = len(pl.core.main.params)
    out["primal-loops"] = compile_program(pl.core, vectorise=False).source
    for which, d in (("forward", pl.forward), ("reverse", pl.reverse)):
        out[f"{which}-loops"] = compile_def(d, n, vectorise=False).source
        out[f"{which}-zero-safe"] = compile_def(d, n, zero_safe=True).source
    if n > 1:
        for k in range(n):
            keep = (True, tuple(j == k for j in range(n)))
            out[f"reverse-arg{k}"] = compile_def(pl.reverse, n, keep=keep).source
    return out


def snapshot(directory: Path) -> dict[str, str]:
    sources = directory / "sources"
    sources.mkdir(parents=True, exist_ok=True)
    texts = {}
    jobs = [(name, variants, fn, args) for name, fn, args in programs(sources)]
    jobs += [(name, core_variants, d, args) for name, d, args in core_programs()]
    for name, make, what, args in jobs:
        try:
            for variant, text in make(what, args).items():
                # the checkout's path (in the source lines passed to the runtime) is left out, so
                # that two checkouts can be compared
                texts[f"{name}.{variant}.py"] = text.replace(str(ROOT), "<repository>")
        except Exception:  # the error is part of the snapshot
            texts[f"{name}.error.txt"] = traceback.format_exc(limit=0)
    return texts


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("action", choices=("write", "compare"))
    ap.add_argument("directory", type=Path)
    args = ap.parse_args()
    texts = snapshot(args.directory)
    programs_seen = len({name.split(".")[0] for name in texts})
    if args.action == "write":
        for name, text in texts.items():
            (args.directory / name).write_text(text)
        print(f"wrote {len(texts)} files for {programs_seen} programs to {args.directory}")
        return
    old = {p.name: p.read_text() for p in args.directory.iterdir() if p.is_file()}
    differ = sorted(name for name in old.keys() | texts.keys() if old.get(name) != texts.get(name))
    for name in differ[:5]:
        diff = difflib.unified_diff((old.get(name) or "").splitlines(), (texts.get(name) or "").splitlines(),
                                    f"before/{name}", f"after/{name}", lineterm="")
        print("\n".join(list(diff)[:60]))
    print(f"{len(texts)} files for {programs_seen} programs compared: "
          f"{'all identical' if not differ else f'{len(differ)} differ'}")
    sys.exit(1 if differ else 0)


if __name__ == "__main__":
    main()
