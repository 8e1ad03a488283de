"""Printing linear maps: in the notes' text style (``lmCompose(m1, m2)``, ``lmVCat(a, b)``)
and in mathematical notation for LaTeX (``m_1 \\circ m_2``, ``a \\times b``, ``\\mathcal{S}(k)``)."""
from __future__ import annotations

from typing import Callable

from ..lang.terms import Const, Term
from . import terms as L

_TEXT = {L.Compose: "lmCompose", L.VCat: "lmVCat", L.HCat: "lmHCat", L.Plus: "lmPlus",
         L.VCatV: "lmVCatV", L.HCatV: "lmHCatV", L.Transpose: "lmTranspose", L.Scale: "lmScale",
         L.ScaleVec: "lmScaleVec", L.Index: "lmIndex", L.IndexUpdate: "lmIndexUpdate", L.Sum: "lmSum",
         L.Broadcast: "lmBroadcast"}


def show_lm(m: L.LM, show: Callable[[Term], str]) -> str:
    if isinstance(m, L.LMFold):
        return (f"lmFold(\\{m.var.name}. {show(m.body)}, \\{m.var.name}. {show(m.dbody)}, "
                f"{show(m.acc)}, {show(m.vec)})")
    if isinstance(m, L.LMScan):
        return f"lmScan(\\{m.var.name}. {show(m.dbody)}, {show(m.states)}, {show(m.vec)})"
    if isinstance(m, L.Linear):  # lmLinear(fwd/rev, args): the two actions named, then the primal values
        return f"lmLinear({m.fwd}/{m.rev}, {', '.join(show(a) for a in m.args)})"
    if isinstance(m, L.Zero):
        return "lmZero()"
    if isinstance(m, L.One):
        return "lmOne()"
    name = _TEXT[type(m)]
    if isinstance(m, (L.VCat, L.HCat)):
        return f"{name}({', '.join(show(x) for x in m.items)})"
    if isinstance(m, (L.VCatV, L.HCatV)) and isinstance(m.ms, Const):
        return f"{name}([{', '.join(show(x) for x in m.ms.py_value)}])"
    args = [getattr(m, f) for f in m._fields if isinstance(getattr(m, f), Term)]
    return f"{name}({', '.join(show(a) for a in args)})"


_LATEX_BIN = {L.Compose: r" \circ ", L.Plus: r" \oplus "}


def latex_lm(m: Term, coef: Callable[[Term], str] | None = None) -> str:
    """m in the notation of notes Fig. 3; `coef` renders coefficient terms."""
    coef = coef or (lambda t: str(t))
    if not isinstance(m, L.LM):
        return coef(m)
    if isinstance(m, L.Zero):
        return r"\mathbf{0}"
    if isinstance(m, L.One):
        return r"\mathbf{1}"
    if type(m) in _LATEX_BIN:
        return "(" + latex_lm(m.m1, coef) + _LATEX_BIN[type(m)] + latex_lm(m.m2, coef) + ")"
    if isinstance(m, L.VCat):
        return "(" + r" \times ".join(latex_lm(x, coef) for x in m.items) + ")"
    if isinstance(m, L.HCat):
        return "(" + r" \bowtie ".join(latex_lm(x, coef) for x in m.items) + ")"
    if isinstance(m, L.Scale):
        return r"\mathcal{S}(" + coef(m.k) + ")"
    if isinstance(m, L.ScaleVec):
        return r"\mathrm{diag}(" + coef(m.v) + ")"
    if isinstance(m, L.Transpose):
        return latex_lm(m.m, coef) + r"^\top"
    if isinstance(m, (L.VCatV, L.HCatV)):
        inner = (", ".join(latex_lm(x, coef) for x in m.ms.py_value) if isinstance(m.ms, Const)
                 else coef(m.ms))
        return (r"\mathcal{V}(" if isinstance(m, L.VCatV) else r"\mathcal{H}(") + inner + ")"
    if isinstance(m, L.Index):
        return r"\mathrm{ix}_{" + coef(m.i) + "}"
    if isinstance(m, L.IndexUpdate):
        return r"\mathrm{upd}_{" + coef(m.i) + "}"
    if isinstance(m, L.Sum):
        return r"\Sigma"
    if isinstance(m, L.Broadcast):
        return r"\mathrm{bcast}_{" + coef(m.n) + "}"
    if isinstance(m, L.Linear):
        return (r"\mathcal{L}_{\mathrm{" + m.fwd.replace("_", r"\_") + "}}(" + ", ".join(coef(a) for a in m.args)
                + ")")
    if isinstance(m, L.LMFold):
        lam = r"(\lambda " + coef(m.var) + ". "
        return (r"\mathrm{lmFold}\," + lam + coef(m.body) + r")\," + lam + latex_lm(m.dbody, coef) + r")\,"
                + coef(m.acc) + r"\," + coef(m.vec))
    if isinstance(m, L.LMScan):
        return (r"\mathrm{lmScan}\,(\lambda " + coef(m.var) + ". " + latex_lm(m.dbody, coef) + r")\,"
                + coef(m.states) + r"\," + coef(m.vec))
    raise TypeError(type(m).__name__)
