"""Where each construct is compiled: one table for terms, one for primitives (catad.backend).

``TERMS`` maps a term's class to the function ``(compiler, term)`` that compiles it;
``Compiler.comp`` looks terms up here. A call of a primitive is compiled by ``call``: a
primitive the backend compiles itself has a row in ``CODEGEN``, the function
``(compiler, call term, *its compiled arguments)``; every other primitive is elementwise, the
registry's ``vector`` template over its broadcast arguments, or ``each`` (element by element,
reported by explain) where it has none. A new construct is a module of its own and one row
here.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from ..errors import CatadError
from ..lang import terms as K
from ..lang.fold import FFold, Fold, RFold, Scan, WhileCount
from ..lang.types import Bool, Int, is_differentiable, rank, scalar_of
from ..primitives.fft import ACTIONS as _FFT_ACTIONS, TRANSFORMS as _FFT_TRANSFORMS
from ..primitives.registry import PRIMITIVES
from ..primitives.spectral import EIGVECS_AGAIN, SVALS_AGAIN, SVDVECS_AGAIN
from ..primitives.roots import IMPLICIT_MARKS, IMPLICIT_ZEROS
from ..tangents import ZERO as RT_ZERO
from . import arrays, checks, control, fft, folds, gathers, linalg, reductions, roots, scatters, tangent_ops
from .values import ZERO, RT, Arr, Stacked, Unvectorisable, kind_of

if TYPE_CHECKING:
    from .compiler import Compiler


def var(c: Compiler, t: K.Var):
    return c.env[t.name]


def const(c: Compiler, t: K.Const):
    if t.value is RT_ZERO:
        return ZERO
    if isinstance(t.value, tuple):
        return tuple(c.const(v, ty) for v, ty in zip(t.value, t.type.items))
    return c.const(t.py_value, t.type)


def tuple_(c: Compiler, t: K.Tuple):
    return tuple(c.comp(x) for x in t.items)


def get(c: Compiler, t: K.Get):
    x = project(c, c.comp(t.tup), t.index, is_differentiable(t.tup.type))
    if isinstance(x, RT) and scalar_of(t.type) in (Int, Bool):
        # an integer or boolean read from a tuple known at run time (a loop's result) carries
        # no tangent: a plain value at depth 0, which indices, checks and arithmetic take
        return Arr(x.code, 0, frozenset(), rank(t.type), kind_of(t.type))
    return x


def project(c: Compiler, tup, index: int, tangent: bool = False):
    """Component `index` of a tuple value (a vector of tuples is a tuple of vectors); a
    `tangent` known only at run time may be ZERO for the whole tuple (a loop's zero cotangents)."""
    if tup is ZERO:
        return ZERO
    if isinstance(tup, tuple):
        return tup[index]
    if isinstance(tup, Stacked):
        return Stacked(project(c, tup.body, index, tangent), tup.depth, tup.n, tup.N, tup.mask)
    if isinstance(tup, RT):
        return RT(c.assign(f"rt_index({tup.code}, {index})" if tangent else f"{tup.code}[{index}]"))
    raise Unvectorisable("a projection of a value that is not a tuple")


def call(c: Compiler, t: K.Call):
    fn = t.fn
    p = PRIMITIVES.get(fn)
    if p is None:
        raise CatadError(f"the backend compiles one definition; {fn!r} should have been inlined", t.loc,
                         "backend")
    args = [c.comp(a) for a in t.args]  # (not map: Python 3.11 calls c.comp faster from here than from C)
    special = CODEGEN.get(fn)
    if special is not None:
        start = len(c.lines)
        out = special(c, t, *args)
        if p.raises:  # the lines computing it are kept, read or not (Compiler.kept)
            c.keep_lines(start)
        return out
    for a in args:
        if not isinstance(a, Arr):
            args = [arrays.scalar(c, a) for a in args]
            break
    if fn in _PYTHON_MINMAX and all(a.depth == 0 and a.rank == 0 and a.kind == "i" for a in args):
        # Python's max and min of two ints (a loop's shape arithmetic asks at every step): an
        # operator, not first_max's call (b if b > a else a there too: ties give a)
        return c.op(_PYTHON_MINMAX[fn], args, "i")
    if p.vector is not None:
        out = c.op(p.vector, args, kind_of(t.type))
        if fn in _LOGIC:
            c.logic[out.code] = (fn, *args)
        return gathers.clamped(c, out, *args) if fn == "min" else gathers.shifted(c, out, *args) if fn == "add" else out
    c.element_loops.add(fn)
    return c.op(f"each({fn!r}, " + ", ".join("{%d}" % k for k in range(len(args))) + ")",
                args, kind_of(t.type))


# kept in c.logic: the parts of math's overflow test (checks.py), and i == j of a build's index j
# (control.one_hot)
_LOGIC = ("abs", "gt", "le", "not", "eq")
_PYTHON_MINMAX = {"max": "({1} if {1} > {0} else {0})", "min": "({1} if {1} < {0} else {0})"}

TERMS = {
    K.Let: control.let, K.Var: var, K.Const: const, K.Tuple: tuple_, K.Get: get, K.If: control.if_,
    K.Build: control.build, K.Call: call,
    Fold: folds.fold, FFold: folds.ffold, RFold: folds.rfold, Scan: folds.scan, WhileCount: folds.while_count,
}

FFT_NAMES = _FFT_TRANSFORMS + tuple(_FFT_ACTIONS)

# The primitives whose code the backend writes itself (the structural ones, and those whose
# whole-array form depends on the values: not a `vector` template of the registry).
CODEGEN = {
    "index": gathers.p_index, "size": gathers.p_size, "dim": gathers.p_dim, "flatnonzero": gathers.p_flatnonzero,
    "update": scatters.p_update, "scatter_add": scatters.p_scatter_add,
    "sum": reductions.p_sum, "fsum": reductions.p_fsum, "tsum": reductions.p_tsum, "vmax": reductions.p_vmax, "vmin": reductions.p_vmin,
    "argmax": reductions.p_argmax, "argmin": reductions.p_argmin, "last_hit": scatters.p_last_hit,
    "brentq": roots.p_brentq, "stop_gradient": roots.p_stop_gradient,
    **{name: roots.p_implicit_root for name in IMPLICIT_MARKS + IMPLICIT_ZEROS},
    "tadd": tangent_ops.p_tadd, "tscale": tangent_ops.p_tscale, "tmul": tangent_ops.p_tmul,
    "touter": tangent_ops.p_touter, "tdot": tangent_ops.p_tdot, "tprod": tangent_ops.p_tprod,
    "densify": tangent_ops.p_densify,
    "vector": arrays.p_vector,
    "check": checks.p_check,
    # linear algebra (catad/backend/linalg.py): the functions and their derivatives' actions
    **{name: getattr(linalg, "p_" + name) for name in (
        "det", "slogdet", "inv", "solve", "cholesky", "det_jvp", "det_vjp", "logdet_jvp", "logdet_vjp", "inv_jvp",
        "inv_vjp", "lsolve",
        "lsolve_t", "neg_matmul", "neg_matmul_t", "chol_jvp", "chol_vjp",
        # and the actions of their second derivatives (issue 17)
        "neg_tmatmul", "neg_tmatmul_t", "mul_neg", "mul_neg_t", "det_hvp", "det_hvp_t", "det_vjp_da", "logdet_hvp",
        "logdet_hvp_t", "logdet_vjp_da",
        "inv_jvp_db", "inv_jvp_db_t", "inv_vjp_db", "inv_vjp_db_t", "chol_jvp_dl", "chol_jvp_dl_t", "chol_vjp_dl",
        "chol_vjp_dl_t")},
    # discrete Fourier transforms (catad/backend/fft.py): the transforms and their derivatives' actions
    **{name: getattr(fft, "p_" + name) for name in FFT_NAMES},
    # decompositions, SciPy's solvers and np.lexsort (catad/backend/linalg.py)
    **{name: getattr(linalg, "p_" + name) for name in (
        "svd", "svdvals", "eigh", "eigvalsh", "expm", "lstsq", "trisolve", "sp_cholesky", "cho_solve", "lexsort",
        "svals_jvp", "svals_vjp", "svdu_jvp", "svdu_vjp", "svdvt_jvp", "svdvt_vjp", "eigvals_jvp", "eigvals_vjp",
        "eigvecs_jvp", "eigvecs_vjp", "expm_jvp", "expm_vjp", "tri_lsolve", "tri_lsolve_t", "tri_neg_matmul",
        "tri_neg_matmul_t", "sp_chol_jvp", "sp_chol_vjp", "cho_lsolve", "cho_neg_matmul", "cho_neg_matmul_t",
        # and the actions of their second derivatives (issue 17)
        "tri_neg_tmatmul", "tri_neg_tmatmul_t", "tri_mul_neg", "tri_mul_neg_t", "sp_chol_jvp_dc", "sp_chol_jvp_dc_t",
        "sp_chol_vjp_dc", "sp_chol_vjp_dc_t", "cho_mul_neg", "cho_sym_mul", "expm_jvp_da", "expm_jvp_da_t",
        "expm_vjp_da", "expm_vjp_da_t", "eigvals_jvp_dv", "eigvals_jvp_dv_t", "eigvals_vjp_dv", "eigvals_vjp_dv_t",
        *SVALS_AGAIN, *EIGVECS_AGAIN, *SVDVECS_AGAIN)},
}
