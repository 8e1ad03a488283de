"""The rule catalogue: every rewrite catad uses, one entry each, with its law.

Groups follow the notes: the properties of linear maps (Fig. 4), their forward
application (the semantics of Fig. 4 read left to right), transposition and reverse
application (Fig. 5), then the algebra of tangents and scalars, arrays, and the
floating of lets and ifs needed to reach programs without linear maps.

No rule duplicates a non-atomic term (docs/design.md invariant 1): where a right side
uses a pattern variable twice, the side condition requires it to be *cheap* (a
variable, a constant, or a leaf map over such).

A scaling map applied to a tangent becomes ``tscale`` (``k * x``) or ``tmul`` (elementwise),
never ``mul``: these products are 0 wherever the tangent is 0, even where the coefficient
is inf or NaN (a linear map applied to zero gives zero: catad.tangents.times), while
``mul``, a product of primal values, keeps IEEE semantics. No rule turns one into the
other: lm-scale-scale multiplies two coefficients (primal values), and const-fold,
mul-one and mul-zero apply to ``mul`` only.
"""
from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..lang.fold import FFold, RFold, Scan
from ..lang.terms import Build, Call, Const, Get, If, Let, Term, Tuple, Var, fconst, free_vars, may_fail
from ..lang.types import Tuple as TupleT
from ..lang.types import Float, Int, LinMap, Scalar, Vec
from ..linearmaps import terms as L
from ..linearmaps.terms import Apply, ApplyR, zero_tangent
from ..primitives import prim
from ..primitives.registry import PRIMITIVES
from ..tangents import ZERO
from .rule import Named, P, Rule, V

G4 = "Fig. 4: properties of linear maps"
GF = "Fig. 4: forward application"
GT = "Fig. 5: transposition"
GR = "Fig. 5: reverse application"
GV = "tangent algebra"
GS = "scalar algebra"
GA = "arrays"
GL = "let and if"

RULES: list[Rule] = []


def rule(name, group, law, lhs, rhs, latex, doc, pattern, condition=""):
    def register(build):
        RULES.append(Rule(name, group, law, lhs, rhs, latex, doc, pattern, build, condition))
        return build
    return register


# ---------------------------------------------------------------- helpers

def is_atom(t: Any) -> bool:
    return isinstance(t, (Var, Const))


def cheap(t: Any) -> bool:
    """Copying t duplicates no work: an atom, a projection or tuple of cheap terms, or a
    leaf map over atoms (not an lmLinear: applying each copy would solve again)."""
    if is_atom(t):
        return True
    if isinstance(t, Get):
        return cheap(t.tup)
    if isinstance(t, Tuple):
        return all(cheap(x) for x in t.items)
    if isinstance(t, (L.Zero, L.One)):
        return True
    if isinstance(t, (L.Scale, L.ScaleVec, L.Index, L.IndexUpdate, L.Sum, L.Broadcast)):
        return all(is_atom(getattr(t, f)) for f in t._fields if isinstance(getattr(t, f), Term))
    return False


def is_zero_tangent(t: Any) -> bool:
    return isinstance(t, Const) and t.value is ZERO


def is_const(x: Any, value: float) -> bool:
    return isinstance(x, Const) and x.type == Float and x.value == value


def component(x: Term, k: int) -> Term:
    """pi_k x, reading through a tuple literal."""
    return x.items[k] if isinstance(x, Tuple) else Get(k, x)


def tadd(a: Term, b: Term) -> Term:
    return prim("tadd", a, b)


def tsum(parts: list[Term], t) -> Term:
    parts = [p for p in parts if not is_zero_tangent(p)]
    if not parts:
        return zero_tangent(t)
    out = parts[0]
    for p in parts[1:]:
        out = tadd(out, p)
    return out


def fresh_index(body: Term, base: str = "i") -> Var:
    from .._node import walk
    names = {n.name for n in walk(body) if isinstance(n, Var)}
    k = 0
    while f"{base}{k}" in names:
        k += 1
    return Var(f"{base}{k}", Int)


def maps_of(ms: Term):
    """(size, index variable, body) of a family of maps given as a build."""
    if isinstance(ms, Build):
        return ms.size, ms.var, ms.body
    return None


# ================================================================ Fig. 4 properties

M = V("m")


def _whole(cls, **fields):
    """A pattern that also binds the whole matched term as `_t`."""
    return Named("_t", cls, **fields)


def _zero_like(b):
    t = b["_t"].type
    return L.Zero(t.src, t.tgt)


rule("lm-compose-zero-left", G4, "notes Fig. 4: 0 o m = 0", "lmCompose(lmZero(), m)", "lmZero()",
     r"\mathbf{0} \circ m = \mathbf{0}", "a zero map after any map is zero",
     _whole(L.Compose, m1=P(L.Zero)))(_zero_like)
rule("lm-compose-zero-right", G4, "notes Fig. 4: m o 0 = 0", "lmCompose(m, lmZero())", "lmZero()",
     r"m \circ \mathbf{0} = \mathbf{0}", "any map after a zero map is zero",
     _whole(L.Compose, m2=P(L.Zero)))(_zero_like)
rule("lm-compose-one-left", G4, "notes Fig. 4: 1 o m = m", "lmCompose(lmOne(), m)", "m",
     r"\mathbf{1} \circ m = m", "the identity after m is m",
     P(L.Compose, m1=P(L.One), m2=M))(lambda b: b["m"])
rule("lm-compose-one-right", G4, "notes Fig. 4: m o 1 = m", "lmCompose(m, lmOne())", "m",
     r"m \circ \mathbf{1} = m", "m after the identity is m",
     P(L.Compose, m1=M, m2=P(L.One)))(lambda b: b["m"])
rule("lm-plus-zero-right", G4, "notes Fig. 4: m (+) 0 = m", "lmPlus(m, lmZero())", "m",
     r"m \oplus \mathbf{0} = m", "adding the zero map changes nothing",
     P(L.Plus, m1=M, m2=P(L.Zero)))(lambda b: b["m"])
rule("lm-plus-zero-left", G4, "notes Fig. 4: 0 (+) m = m", "lmPlus(lmZero(), m)", "m",
     r"\mathbf{0} \oplus m = m", "adding the zero map changes nothing",
     P(L.Plus, m1=P(L.Zero), m2=M))(lambda b: b["m"])


@rule("lm-compose-hcat", G4, "notes Fig. 4: m o (n1 |><| n2) = (m o n1) |><| (m o n2)",
      "lmCompose(m, lmHCat(n1, ..., nk))", "lmHCat(lmCompose(m, n1), ..., lmCompose(m, nk))",
      r"m \circ (n_1 \bowtie n_2) = (m \circ n_1) \bowtie (m \circ n_2)",
      "composition distributes over horizontal juxtaposition",
      P(L.Compose, m1=V("m", cheap), m2=P(L.HCat, items=V("ns"))), condition="m is cheap (it is copied)")
def _(b):
    return L.HCat(tuple(L.Compose(b["m"], n) for n in b["ns"]))


@rule("lm-vcat-compose", G4, "notes Fig. 4: (m1 x m2) o n = (m1 o n) x (m2 o n)",
      "lmCompose(lmVCat(m1, ..., mk), n)", "lmVCat(lmCompose(m1, n), ..., lmCompose(mk, n))",
      r"(m_1 \times m_2) \circ n = (m_1 \circ n) \times (m_2 \circ n)",
      "composition distributes over vertical juxtaposition",
      P(L.Compose, m1=P(L.VCat, items=V("ms")), m2=V("n", cheap)), condition="n is cheap (it is copied)")
def _(b):
    return L.VCat(tuple(L.Compose(m, b["n"]) for m in b["ms"]))


@rule("lm-hcat-vcat", G4, "notes Fig. 4: (m1 |><| m2) o (n1 x n2) = (m1 o n1) (+) (m2 o n2)",
      "lmCompose(lmHCat(m1, ..., mk), lmVCat(n1, ..., nk))",
      "lmPlus(lmCompose(m1, n1), ..., lmCompose(mk, nk))",
      r"(m_1 \bowtie m_2) \circ (n_1 \times n_2) = (m_1 \circ n_1) \oplus (m_2 \circ n_2)",
      "the reason (+) exists (notes Section 2.1.2); n-ary",
      P(L.Compose, m1=P(L.HCat, items=V("ms")), m2=P(L.VCat, items=V("ns"))))
def _(b):
    if len(b["ms"]) != len(b["ns"]):
        return None
    parts = [L.Compose(m, n) for m, n in zip(b["ms"], b["ns"])]
    out = parts[0]
    for p in parts[1:]:
        out = L.Plus(out, p)
    return out


@rule("lm-scale-scale", G4, "notes Fig. 4: S(k1) o S(k2) = S(k1 * k2)", "lmCompose(lmScale(k1), lmScale(k2))",
      "lmScale(k1 * k2)", r"\mathcal{S}(k_1) \circ \mathcal{S}(k_2) = \mathcal{S}(k_1 k_2)",
      "scalings compose by multiplying their coefficients (primal values, a plain mul); applied to 0 both "
      "sides give 0, whatever k1 and k2 are",
      P(L.Compose, m1=P(L.Scale, k=V("k1"), s=V("s")), m2=P(L.Scale, k=V("k2"))))
def _(b):
    return L.Scale(prim("mul", b["k1"], b["k2"]), b["s"])


@rule("lm-scale-plus", G4, "notes Fig. 4: S(k1) (+) S(k2) = S(k1 + k2)", "lmPlus(lmScale(k1), lmScale(k2))",
      "lmScale(k1 + k2)", r"\mathcal{S}(k_1) \oplus \mathcal{S}(k_2) = \mathcal{S}(k_1 + k_2)",
      "scalings add by adding",
      P(L.Plus, m1=P(L.Scale, k=V("k1"), s=V("s")), m2=P(L.Scale, k=V("k2"))))
def _(b):
    return L.Scale(prim("add", b["k1"], b["k2"]), b["s"])


@rule("lm-compose-assoc", G4, "associativity of composition (matrix product)",
      "lmCompose(lmCompose(m1, m2), m3)", "lmCompose(m1, lmCompose(m2, m3))",
      r"(m_1 \circ m_2) \circ m_3 = m_1 \circ (m_2 \circ m_3)", "compositions associate to the right",
      P(L.Compose, m1=P(L.Compose, m1=V("a"), m2=V("b")), m2=V("c")))
def _(b):
    return L.Compose(b["a"], L.Compose(b["b"], b["c"]))


@rule("lm-scale-one", G4, "notes Section 2.8: S(1) = 1", "lmScale(1.0)", "lmOne()",
      r"\mathcal{S}(1) = \mathbf{1}", "scaling by one is the identity",
      P(L.Scale, k=V("k", lambda k: is_const(k, 1.0)), s=V("s")))
def _(b):
    return L.One(b["s"])


@rule("lm-plus-hcat", G4, "(m1 |><| m2) (+) (n1 |><| n2) = (m1 (+) n1) |><| (m2 (+) n2)",
      "lmPlus(lmHCat(m1, ..., mk), lmHCat(n1, ..., nk))", "lmHCat(lmPlus(m1, n1), ..., lmPlus(mk, nk))",
      r"(m_1 \bowtie m_2) \oplus (n_1 \bowtie n_2) = (m_1 \oplus n_1) \bowtie (m_2 \oplus n_2)",
      "sums of juxtapositions, n-ary", P(L.Plus, m1=P(L.HCat, items=V("ms")), m2=P(L.HCat, items=V("ns"))))
def _(b):
    return L.HCat(tuple(L.Plus(m, n) for m, n in zip(b["ms"], b["ns"])))


@rule("lm-plus-vcat", G4, "(m1 x m2) (+) (n1 x n2) = (m1 (+) n1) x (m2 (+) n2)",
      "lmPlus(lmVCat(m1, ..., mk), lmVCat(n1, ..., nk))", "lmVCat(lmPlus(m1, n1), ..., lmPlus(mk, nk))",
      r"(m_1 \times m_2) \oplus (n_1 \times n_2) = (m_1 \oplus n_1) \times (m_2 \oplus n_2)",
      "sums of stackings, n-ary", P(L.Plus, m1=P(L.VCat, items=V("ms")), m2=P(L.VCat, items=V("ns"))))
def _(b):
    return L.VCat(tuple(L.Plus(m, n) for m, n in zip(b["ms"], b["ns"])))


# ================================================================ Fig. 5 transposition

T = L.Transpose

rule("tr-compose", GT, "notes Fig. 5: (m1 o m2)^T = m2^T o m1^T", "lmTranspose(lmCompose(m1, m2))",
     "lmCompose(lmTranspose(m2), lmTranspose(m1))", r"(m_1 \circ m_2)^\top = m_2^\top \circ m_1^\top",
     "note the reversed order", P(T, m=P(L.Compose, m1=V("a"), m2=V("b"))))(
    lambda b: L.Compose(T(b["b"]), T(b["a"])))
rule("tr-vcat", GT, "notes Fig. 5: (m1 x m2)^T = m1^T |><| m2^T", "lmTranspose(lmVCat(m1, ..., mk))",
     "lmHCat(lmTranspose(m1), ..., lmTranspose(mk))", r"(m_1 \times m_2)^\top = m_1^\top \bowtie m_2^\top",
     "stacking transposes to juxtaposition", P(T, m=P(L.VCat, items=V("ms"))))(
    lambda b: L.HCat(tuple(T(m) for m in b["ms"])))
rule("tr-hcat", GT, "notes Fig. 5: (m1 |><| m2)^T = m1^T x m2^T", "lmTranspose(lmHCat(m1, ..., mk))",
     "lmVCat(lmTranspose(m1), ..., lmTranspose(mk))", r"(m_1 \bowtie m_2)^\top = m_1^\top \times m_2^\top",
     "juxtaposition transposes to stacking", P(T, m=P(L.HCat, items=V("ms"))))(
    lambda b: L.VCat(tuple(T(m) for m in b["ms"])))
rule("tr-plus", GT, "notes Fig. 5: (m1 (+) m2)^T = m1^T (+) m2^T", "lmTranspose(lmPlus(m1, m2))",
     "lmPlus(lmTranspose(m1), lmTranspose(m2))", r"(m_1 \oplus m_2)^\top = m_1^\top \oplus m_2^\top",
     "transposition is linear", P(T, m=P(L.Plus, m1=V("a"), m2=V("b"))))(
    lambda b: L.Plus(T(b["a"]), T(b["b"])))
rule("tr-zero", GT, "notes Fig. 5: 0^T = 0", "lmTranspose(lmZero())", "lmZero()", r"\mathbf{0}^\top = \mathbf{0}",
     "the zero map transposes to zero", P(T, m=P(L.Zero, s=V("s"), t=V("t"))))(lambda b: L.Zero(b["t"], b["s"]))
rule("tr-one", GT, "notes Fig. 5: 1^T = 1", "lmTranspose(lmOne())", "lmOne()", r"\mathbf{1}^\top = \mathbf{1}",
     "the identity is symmetric", P(T, m=P(L.One, s=V("s"))))(lambda b: L.One(b["s"]))
rule("tr-scale", GT, "notes Fig. 5: S(k)^T = S(k)", "lmTranspose(lmScale(k))", "lmScale(k)",
     r"\mathcal{S}(k)^\top = \mathcal{S}(k)", "scaling is symmetric", P(T, m=V("m", lambda m: isinstance(
         m, (L.Scale, L.ScaleVec)))))(lambda b: b["m"])
rule("tr-tr", GT, "notes Fig. 5: (m^T)^T = m", "lmTranspose(lmTranspose(m))", "m", r"(m^\top)^\top = m",
     "transposing twice is the identity", P(T, m=P(T, m=V("m"))))(lambda b: b["m"])
rule("tr-index", GT, "transpose of indexing is the index update", "lmTranspose(lmIndex(i, n))",
     "lmIndexUpdate(i, n)", r"\mathrm{ix}_i^\top = \mathrm{upd}_i", "reading v[i] transposes to writing at i",
     P(T, m=P(L.Index, i=V("i"), n=V("n"), s=V("s"))))(lambda b: L.IndexUpdate(b["i"], b["n"], b["s"]))
rule("tr-update", GT, "transpose of the index update is indexing", "lmTranspose(lmIndexUpdate(i, n))",
     "lmIndex(i, n)", r"\mathrm{upd}_i^\top = \mathrm{ix}_i", "writing at i transposes to reading v[i]",
     P(T, m=P(L.IndexUpdate, i=V("i"), n=V("n"), s=V("s"))))(lambda b: L.Index(b["i"], b["n"], b["s"]))
rule("tr-sum", GT, "transpose of sum is broadcast", "lmTranspose(lmSum(n))", "lmBroadcast(n)",
     r"\Sigma^\top = \mathrm{bcast}", "summing transposes to copying (dup <-> add, YOLO)",
     P(T, m=P(L.Sum, n=V("n"), s=V("s"))))(lambda b: L.Broadcast(b["n"], b["s"]))
rule("tr-broadcast", GT, "transpose of broadcast is sum", "lmTranspose(lmBroadcast(n))", "lmSum(n)",
     r"\mathrm{bcast}^\top = \Sigma", "copying transposes to summing",
     P(T, m=P(L.Broadcast, n=V("n"), s=V("s"))))(lambda b: L.Sum(b["n"], b["s"]))


def _map_family(ms: Term, f) -> Term | None:
    """build(n, \\i. f(m)) for a family of maps given as build(n, \\i. m)."""
    fam = maps_of(ms)
    if fam is None:
        return None
    n, i, body = fam
    return Build(n, i, f(body))


rule("tr-vcatv", GT, "notes Fig. 5: V(v)^T = H(map (.)^T v)", "lmTranspose(lmVCatV(build(n, \\i. m)))",
     "lmHCatV(build(n, \\i. lmTranspose(m)))", r"\mathcal{V}(v)^\top = \mathcal{H}(\mathrm{map}\ (\cdot)^\top\ v)",
     "a stacked family transposes to a juxtaposed one", P(T, m=P(L.VCatV, ms=V("ms", maps_of))))(
    lambda b: L.HCatV(_map_family(b["ms"], T)))
rule("tr-hcatv", GT, "notes Fig. 5: H(v)^T = V(map (.)^T v)", "lmTranspose(lmHCatV(build(n, \\i. m)))",
     "lmVCatV(build(n, \\i. lmTranspose(m)))", r"\mathcal{H}(v)^\top = \mathcal{V}(\mathrm{map}\ (\cdot)^\top\ v)",
     "a juxtaposed family transposes to a stacked one", P(T, m=P(L.HCatV, ms=V("ms", maps_of))))(
    lambda b: L.VCatV(_map_family(b["ms"], T)))


# ================================================================ Fig. 4 forward application

A = Apply
X = V("x")
CX = V("x", cheap)

rule("fwd-compose", GF, "notes Fig. 4: (m1 o m2) . x = m1 . (m2 . x)", "lmApply(lmCompose(m1, m2), x)",
     "lmApply(m1, lmApply(m2, x))", r"(m_1 \circ m_2) \odot x = m_1 \odot (m_2 \odot x)",
     "apply the inner map first", P(A, m=P(L.Compose, m1=V("a"), m2=V("b")), x=X))(
    lambda b: A(b["a"], A(b["b"], b["x"])))
rule("fwd-vcat", GF, "notes Fig. 4: (m1 x m2) . x = (m1 . x, m2 . x)", "lmApply(lmVCat(m1, ..., mk), x)",
     "(lmApply(m1, x), ..., lmApply(mk, x))", r"(m_1 \times m_2) \odot x = (m_1 \odot x, m_2 \odot x)",
     "a stacking applies to a tuple", P(A, m=P(L.VCat, items=V("ms")), x=CX), "x is cheap (it is copied)")(
    lambda b: Tuple(tuple(A(m, b["x"]) for m in b["ms"])))


@rule("fwd-hcat", GF, "notes Fig. 4: (m1 |><| m2) . (x1, x2) = m1 . x1 + m2 . x2", "lmApply(lmHCat(m1, ..., mk), x)",
      "lmApply(m1, pi1 x) + ... + lmApply(mk, pik x)",
      r"(m_1 \bowtie m_2) \odot (x_1, x_2) = (m_1 \odot x_1) + (m_2 \odot x_2)",
      "a juxtaposition applies to the components of a tuple", P(A, m=P(L.HCat, items=V("ms")), x=CX),
      "x is cheap (its components are taken)")
def _(b):
    return tsum([A(m, component(b["x"], k)) for k, m in enumerate(b["ms"])], b["ms"][0].type.tgt)


rule("fwd-plus", GF, "notes Fig. 4: (m1 (+) m2) . x = m1 . x + m2 . x", "lmApply(lmPlus(m1, m2), x)",
     "lmApply(m1, x) + lmApply(m2, x)", r"(m_1 \oplus m_2) \odot x = (m_1 \odot x) + (m_2 \odot x)",
     "a sum of maps applies to a sum", P(A, m=P(L.Plus, m1=V("a"), m2=V("b")), x=CX), "x is cheap")(
    lambda b: tadd(A(b["a"], b["x"]), A(b["b"], b["x"])))
rule("fwd-zero", GF, "notes Fig. 4: 0 . x = 0", "lmApply(lmZero(), x)", "0", r"\mathbf{0} \odot x = 0",
     "the zero map gives zero", P(A, m=P(L.Zero, t=V("t"))))(lambda b: zero_tangent(b["t"]))
rule("fwd-one", GF, "notes Fig. 4: 1 . x = x", "lmApply(lmOne(), x)", "x", r"\mathbf{1} \odot x = x",
     "the identity gives its argument", P(A, m=P(L.One), x=X))(lambda b: b["x"])
rule("fwd-scale", GF, "notes Fig. 4: S(k) . x = k * x", "lmApply(lmScale(k), x)", "k * x",
     r"\mathcal{S}(k) \odot x = k x", "scaling multiplies (tscale: 0 wherever x is 0, even for k inf or NaN)",
     P(A, m=P(L.Scale, k=V("k")), x=X))(lambda b: prim("tscale", b["k"], b["x"]))
rule("fwd-transpose", GF, "notes Fig. 5: m^T . x = x ._R m", "lmApply(lmTranspose(m), x)", "lmApplyR(x, m)",
     r"m^\top \odot x = x \odot_R m", "applying a transpose is reverse application",
     P(A, m=P(T, m=V("m")), x=X))(lambda b: ApplyR(b["x"], b["m"]))
rule("fwd-vcatv", GF, "notes Fig. 4: V(m) . x = build(sz(m), \\i. m[i] . x)",
     "lmApply(lmVCatV(build(n, \\i. m)), x)", "build(n, \\i. lmApply(m, x))",
     r"\mathcal{V}(m) \odot x = \mathrm{build}(n, \lambda i.\ m[i] \odot x)", "a stacked family applies elementwise",
     P(A, m=P(L.VCatV, ms=V("ms", maps_of)), x=CX), "x is cheap")(
    lambda b: _map_family(b["ms"], lambda m: A(m, b["x"])))


@rule("fwd-hcatv", GF, "notes Fig. 4: H(m) . x = sum_i (m[i] . x[i])", "lmApply(lmHCatV(build(n, \\i. m)), x)",
      "tsum(build(n, \\i. lmApply(m, x[i])))", r"\mathcal{H}(m) \odot x = \Sigma_i\ m[i] \odot x[i]",
      "a juxtaposed family applies to the elements and sums", P(A, m=P(L.HCatV, ms=V("ms", maps_of)), x=CX),
      "x is cheap")
def _(b):
    n, i, m = maps_of(b["ms"])
    return prim("tsum", Build(n, i, A(m, prim("index", i, b["x"]))))


rule("fwd-index", GF, "indexing map: ix_i . x = x[i]", "lmApply(lmIndex(i, n), x)", "x[i]",
     r"\mathrm{ix}_i \odot x = x[i]", "reads element i", P(A, m=P(L.Index, i=V("i")), x=X))(
    lambda b: prim("index", b["i"], b["x"]))
rule("fwd-update", GF, "index update: upd_i . x = update(i, x, n)", "lmApply(lmIndexUpdate(i, n), x)",
     "update(i, x, n)", r"\mathrm{upd}_i \odot x = \delta_{i}\,x", "writes x at i, sparsely",
     P(A, m=P(L.IndexUpdate, i=V("i"), n=V("n")), x=X))(lambda b: prim("update", b["i"], b["x"], b["n"]))
rule("fwd-sum", GF, "sum map: Sigma . x = sum(x)", "lmApply(lmSum(n), x)", "tsum(x)", r"\Sigma \odot x = \sum x",
     "sums the elements", P(A, m=P(L.Sum), x=X))(lambda b: prim("tsum", b["x"]))


@rule("fwd-broadcast", GF, "broadcast map: bcast_n . x = build(n, \\i. x)", "lmApply(lmBroadcast(n), x)",
      "build(n, \\i. x)", r"\mathrm{bcast}_n \odot x = \mathrm{build}(n, \lambda i.\ x)", "copies x n times",
      P(A, m=P(L.Broadcast, n=V("n")), x=CX), "x is cheap")
def _(b):
    return Build(b["n"], fresh_index(b["x"]), b["x"])


rule("fwd-scalevec", GF, "diag(v) . x = v * x elementwise", "lmApply(lmScaleVec(v), x)", "tmul(v, x)",
     r"\mathrm{diag}(v) \odot x = v \odot x",
     "a diagonal map multiplies elementwise (tmul: 0 wherever x is 0, even where v is inf or NaN)",
     P(A, m=P(L.ScaleVec, v=V("v")), x=X))(lambda b: prim("tmul", b["v"], b["x"]))

_COPYING = (L.VCat, L.HCat, L.Plus, L.VCatV, L.HCatV, L.Broadcast, L.Sum, If, L.LMFold, L.LMScan)
def _bound_argument(x: Term) -> Var:
    """A variable for x, named from a digest of x: deterministic (rules are functions),
    '$' keeps it apart from any Python name, and an inner binding that shadows an
    outer one of the same name binds an equal term, so nothing is captured wrongly."""
    import hashlib
    digest = hashlib.blake2b(str(x).encode(), digest_size=4).hexdigest()
    return Var(f"arg${digest}", x.type)


@rule("fwd-bind", GF, "m . x = let a = x in m . a", "lmApply(m, x)", "let a = x in lmApply(m, a)",
      r"m \odot x = \mathbf{let}\ a = x\ \mathbf{in}\ m \odot a",
      "binds the argument before a law that uses it twice (so no work is duplicated)",
      P(A, m=V("m", lambda m: isinstance(m, _COPYING)), x=V("x", lambda x: not cheap(x))),
      "x is not cheap and m's law copies its argument")
def _(b):
    a = _bound_argument(b["x"])
    return Let(a, b["x"], A(b["m"], a))


# ================================================================ Fig. 5 reverse application

R = V("r")
CR = V("r", cheap)

rule("rev-compose", GR, "notes Fig. 5: r ._R (m1 o m2) = (r ._R m1) ._R m2", "lmApplyR(r, lmCompose(m1, m2))",
     "lmApplyR(lmApplyR(r, m1), m2)", r"r \odot_R (m_1 \circ m_2) = (r \odot_R m_1) \odot_R m_2",
     "the outer map first", P(ApplyR, r=R, m=P(L.Compose, m1=V("a"), m2=V("b"))))(
    lambda b: ApplyR(ApplyR(b["r"], b["a"]), b["b"]))


@rule("rev-vcat", GR, "notes Fig. 5: (r1, r2) ._R (m1 x m2) = (r1 ._R m1) + (r2 ._R m2)",
      "lmApplyR(r, lmVCat(m1, ..., mk))", "lmApplyR(pi1 r, m1) + ... + lmApplyR(pik r, mk)",
      r"(r_1, r_2) \odot_R (m_1 \times m_2) = (r_1 \odot_R m_1) + (r_2 \odot_R m_2)",
      "the components' contributions add up (add <-> dup, YOLO)", P(ApplyR, r=CR, m=P(L.VCat, items=V("ms"))),
      "r is cheap (its components are taken)")
def _(b):
    return tsum([ApplyR(component(b["r"], k), m) for k, m in enumerate(b["ms"])], b["ms"][0].type.src)


rule("rev-hcat", GR, "notes Fig. 5: r ._R (m1 |><| m2) = (r ._R m1, r ._R m2)", "lmApplyR(r, lmHCat(m1, ..., mk))",
     "(lmApplyR(r, m1), ..., lmApplyR(r, mk))", r"r \odot_R (m_1 \bowtie m_2) = (r \odot_R m_1, r \odot_R m_2)",
     "a juxtaposition gives a tuple of cotangents", P(ApplyR, r=CR, m=P(L.HCat, items=V("ms"))), "r is cheap")(
    lambda b: Tuple(tuple(ApplyR(b["r"], m) for m in b["ms"])))
rule("rev-plus", GR, "notes Fig. 5: r ._R (m1 (+) m2) = (r ._R m1) + (r ._R m2)", "lmApplyR(r, lmPlus(m1, m2))",
     "lmApplyR(r, m1) + lmApplyR(r, m2)", r"r \odot_R (m_1 \oplus m_2) = (r \odot_R m_1) + (r \odot_R m_2)",
     "reverse application is linear in the map", P(ApplyR, r=CR, m=P(L.Plus, m1=V("a"), m2=V("b"))), "r is cheap")(
    lambda b: tadd(ApplyR(b["r"], b["a"]), ApplyR(b["r"], b["b"])))
rule("rev-zero", GR, "notes Fig. 5: r ._R 0 = 0", "lmApplyR(r, lmZero())", "0", r"r \odot_R \mathbf{0} = 0",
     "nothing flows back through zero", P(ApplyR, m=P(L.Zero, s=V("s"))))(lambda b: zero_tangent(b["s"]))
rule("rev-one", GR, "notes Fig. 5: r ._R 1 = r", "lmApplyR(r, lmOne())", "r", r"r \odot_R \mathbf{1} = r",
     "the identity passes the cotangent", P(ApplyR, r=R, m=P(L.One)))(lambda b: b["r"])
rule("rev-scale", GR, "notes Fig. 5: r ._R S(k) = k * r", "lmApplyR(r, lmScale(k))", "k * r",
     r"r \odot_R \mathcal{S}(k) = k r", "scaling is symmetric (tscale: 0 wherever r is 0, even for k inf or NaN)",
     P(ApplyR, r=R, m=P(L.Scale, k=V("k"))))(lambda b: prim("tscale", b["k"], b["r"]))
rule("rev-transpose", GR, "notes Fig. 5: r ._R m^T = m . r", "lmApplyR(r, lmTranspose(m))", "lmApply(m, r)",
     r"r \odot_R m^\top = m \odot r", "reverse through a transpose is forward", P(ApplyR, r=R, m=P(T, m=V("m"))))(
    lambda b: A(b["m"], b["r"]))
rule("rev-vcatv", GR, "notes Fig. 5: r ._R V(v) = sum_i (r[i] ._R v[i])", "lmApplyR(r, lmVCatV(build(n, \\i. m)))",
     "tsum(build(n, \\i. lmApplyR(r[i], m)))", r"r \odot_R \mathcal{V}(v) = \Sigma_i\ r[i] \odot_R v[i]",
     "each element's cotangent flows back through its map; the results add up",
     P(ApplyR, r=CR, m=P(L.VCatV, ms=V("ms", maps_of))), "r is cheap")(
    lambda b: prim("tsum", _map_family(b["ms"], lambda m: ApplyR(prim("index", b["ms"].var, b["r"]), m))))
rule("rev-hcatv", GR, "notes Fig. 5: r ._R H(v) = build(sz(v), \\i. r ._R v[i])",
     "lmApplyR(r, lmHCatV(build(n, \\i. m)))", "build(n, \\i. lmApplyR(r, m))",
     r"r \odot_R \mathcal{H}(v) = \mathrm{build}(n, \lambda i.\ r \odot_R v[i])", "one cotangent per element",
     P(ApplyR, r=CR, m=P(L.HCatV, ms=V("ms", maps_of))), "r is cheap")(
    lambda b: _map_family(b["ms"], lambda m: ApplyR(b["r"], m)))
rule("rev-index", GR, "r ._R ix_i = update(i, r, n): an index update, not a one-hot vector",
     "lmApplyR(r, lmIndex(i, n))", "update(i, r, n)", r"r \odot_R \mathrm{ix}_i = \delta_i\,r",
     "the cotangent of v[i] is written at i (docs/design.md invariant 2)",
     P(ApplyR, r=R, m=P(L.Index, i=V("i"), n=V("n"))))(lambda b: prim("update", b["i"], b["r"], b["n"]))
rule("rev-update", GR, "r ._R upd_i = r[i]", "lmApplyR(r, lmIndexUpdate(i, n))", "r[i]",
     r"r \odot_R \mathrm{upd}_i = r[i]", "reads the written element back",
     P(ApplyR, r=R, m=P(L.IndexUpdate, i=V("i"))))(lambda b: prim("index", b["i"], b["r"]))


@rule("rev-sum", GR, "r ._R Sigma = build(n, \\i. r)", "lmApplyR(r, lmSum(n))", "build(n, \\i. r)",
      r"r \odot_R \Sigma = \mathrm{build}(n, \lambda i.\ r)", "every element receives the cotangent of the sum",
      P(ApplyR, r=CR, m=P(L.Sum, n=V("n"))), "r is cheap")
def _(b):
    return Build(b["n"], fresh_index(b["r"]), b["r"])


rule("rev-scalevec", GR, "r ._R diag(v) = v * r elementwise", "lmApplyR(r, lmScaleVec(v))", "tmul(v, r)",
     r"r \odot_R \mathrm{diag}(v) = v \odot r",
     "a diagonal map is symmetric (tmul: 0 wherever r is 0, even where v is inf or NaN)",
     P(ApplyR, r=R, m=P(L.ScaleVec, v=V("v"))))(lambda b: prim("tmul", b["v"], b["r"]))


@rule("rev-bind", GR, "r ._R m = let a = r in a ._R m", "lmApplyR(r, m)", "let a = r in lmApplyR(a, m)",
      r"r \odot_R m = \mathbf{let}\ a = r\ \mathbf{in}\ a \odot_R m",
      "binds the cotangent before a law that uses it twice (so no work is duplicated)",
      P(ApplyR, r=V("r", lambda r: not cheap(r)), m=V("m", lambda m: isinstance(m, _COPYING))),
      "r is not cheap and m's law copies its cotangent")
def _(b):
    a = _bound_argument(b["r"])
    return Let(a, b["r"], ApplyR(a, b["m"]))


rule("rev-broadcast", GR, "r ._R bcast = sum(r)", "lmApplyR(r, lmBroadcast(n))", "tsum(r)",
     r"r \odot_R \mathrm{bcast} = \sum r", "the copies' cotangents add up",
     P(ApplyR, r=R, m=P(L.Broadcast)))(lambda b: prim("tsum", b["r"]))


# ================================================================ tangent algebra

def _zt(b):
    return zero_tangent(b["_t"].type)


ZT = V("z", is_zero_tangent)

rule("tadd-zero-left", GV, "vector space: 0 + v = v", "0 + v", "v", r"0 + v = v", "adding zero",
     P(Call, fn="tadd", args=V("args", lambda a: is_zero_tangent(a[0]))))(lambda b: b["args"][1])
rule("tadd-zero-right", GV, "vector space: v + 0 = v", "v + 0", "v", r"v + 0 = v", "adding zero",
     P(Call, fn="tadd", args=V("args", lambda a: is_zero_tangent(a[1]))))(lambda b: b["args"][0])
rule("tscale-zero", GV, "vector space: k * 0 = 0 (a symbolic zero stays zero)", "k * 0", "0", r"k \cdot 0 = 0",
     "scaling the symbolic zero: 0 whatever k is (inf and NaN included), as for any linear map",
     _whole(Call, fn="tscale", args=V("args", lambda a: is_zero_tangent(a[1]))))(_zt)
rule("tscale-one", GV, "vector space: 1 * v = v", "1.0 * v", "v", r"1 \cdot v = v", "scaling by one",
     P(Call, fn="tscale", args=V("args", lambda a: is_const(a[0], 1.0))))(lambda b: b["args"][1])
rule("tscale-by-one", GV, "k * 1 = k: a Float coefficient times the constant tangent 1.0", "k * 1.0", "k",
     r"k \cdot 1 = k", "the output cotangent 1.0 of a gradient, differentiated again (exact: the tangent is not 0)",
     P(Call, fn="tscale", args=V("args", lambda a: a[1].type == Float and is_const(a[1], 1.0))))(
    lambda b: b["args"][0])
rule("touter-one", GV, "touter(1, k) = k * 1 = k (Float)", "touter(1.0, k)", "k", r"k \cdot 1 = k",
     "a Float tangent k times the coefficient 1.0",
     P(Call, fn="touter", args=V("args", lambda a: a[0].type == Float and is_const(a[0], 1.0))))(
    lambda b: b["args"][1])
rule("tdot-one", GV, "tdot(1, r) = <1, r> = r (Float)", "tdot(1.0, r)", "r", r"\langle 1, r \rangle = r",
     "the inner product of the Float coefficient 1.0 and a tangent",
     P(Call, fn="tdot", args=V("args", lambda a: a[0].type == Float and is_const(a[0], 1.0))))(
    lambda b: b["args"][1])
@rule("tadd-tuple", GV, "product space: (a1, a2) + (b1, b2) = (a1 + b1, a2 + b2)", "(a1, ..., an) + (b1, ..., bn)",
      "(a1 + b1, ..., an + bn)", r"(a_1, a_2) + (b_1, b_2) = (a_1 + b_1, a_2 + b_2)", "tuples add componentwise",
      P(Call, fn="tadd", args=V("args", lambda a: isinstance(a[0], Tuple) and isinstance(a[1], Tuple))))
def _(b):
    x, y = b["args"]
    return Tuple(tuple(tadd(p, q) for p, q in zip(x.items, y.items)))


rule("get-tuple", GV, "notes Fig. 2: pi_k (e1, ..., en) = ek", "pik (e1, ..., en)", "ek", r"\pi_k(e_1, \dots, e_n) = e_k",
     "projection of a tuple literal (the other components are dropped, not computed)",
     P(Get, index=V("k"), tup=P(Tuple, items=V("items"))))(lambda b: b["items"][b["k"]])
def _eta(items) -> bool:
    """items are pi_1 x, ..., pi_n x of one x of n components, none a linear map (the AD's
    (value, map) pairs stay pairs: the sweeps read them apart)."""
    first = items[0] if items else None
    if type(first) is not Get:
        return False
    x = first.tup
    return (len(x.type.items) == len(items) and not any(isinstance(t, LinMap) for t in x.type.items)
            and all(type(e) is Get and e.index == k and e.tup == x for k, e in enumerate(items)))


rule("tuple-eta", GV, "surjective pairing: (pi_1 x, ..., pi_n x) = x", "(pi1 x, ..., pin x)", "x",
     r"(\pi_1 x, \dots, \pi_n x) = x",
     "a tuple rebuilt from all the components of one tuple, in order, is that tuple (a tuple argument "
     "the front end passes on item by item)",
     P(Tuple, items=V("items", _eta)))(lambda b: b["items"][0].tup)
rule("get-zero", GV, "pi_k 0 = 0", "pik 0", "0", r"\pi_k\,0 = 0", "a component of the zero tangent",
     _whole(Get, tup=ZT))(_zt)
rule("index-zero", GV, "0[i] = 0", "0[i]", "0", r"0[i] = 0", "an element of the zero tangent",
     _whole(Call, fn="index", args=V("args", lambda a: is_zero_tangent(a[1]))))(_zt)
rule("update-zero", GV, "update(i, 0, n) = 0", "update(i, 0, n)", "0", r"\delta_i\,0 = 0",
     "writing zero writes nothing", _whole(Call, fn="update", args=V("args", lambda a: is_zero_tangent(a[1]))))(_zt)
rule("tsum-zero", GV, "sum(0) = 0", "tsum(0)", "0", r"\sum 0 = 0", "summing the zero tangent",
     _whole(Call, fn="tsum", args=V("args", lambda a: is_zero_tangent(a[0]))))(_zt)
rule("tuple-zero", GV, "(0, ..., 0) = 0", "(0, ..., 0)", "0", r"(0, \dots, 0) = 0",
     "a tuple of zero tangents is the zero tangent (a reverse program's cotangents, differentiated again)",
     _whole(Tuple, items=V("items", lambda xs: len(xs) > 0 and all(is_zero_tangent(x) for x in xs))))(_zt)
rule("build-zero", GV, "build(n, \\i. 0) = 0", "build(n, \\i. 0)", "0", r"\mathrm{build}(n, \lambda i.\ 0) = 0",
     "a vector of zero tangents is the zero tangent", _whole(Build, body=ZT))(_zt)


@rule("tsum-build-update", GA, "notes Section 4: sum(build(n, \\i. update(e_i, v_i, m))) is an index update",
      "tsum(build(n, \\i. update(e, v, m)))", "scatter_add(build(n, \\i. e), build(n, \\i. v), m)",
      r"\sum_i \delta_{e_i} v_i = \mathrm{scatter}(e, v)",
      "the sum of a build of one-hot vectors becomes one in-place scatter (O(n), not O(n m))",
      P(Call, fn="tsum", args=V("args", lambda a: isinstance(a[0], Build) and isinstance(a[0].body, Call)
                                and a[0].body.fn == "update")),
      "m does not depend on i")
def _(b):
    bld = b["args"][0]
    e, v, m = bld.body.args
    if bld.var in free_vars(m):
        return None
    return prim("scatter_add", Build(bld.size, bld.var, e), Build(bld.size, bld.var, v), m)


# ================================================================ scalar algebra

def _neg_zero(x) -> bool:
    return is_const(x, 0.0) and math.copysign(1.0, x.value) < 0


def _pos_zero(x) -> bool:
    return is_const(x, 0.0) and math.copysign(1.0, x.value) > 0


def _float_call(fn, which):
    return lambda a: len(a) == 2 and a[0].type == Float and which(a)


rule("mul-one", GS, "x * 1 = x = 1 * x", "x * 1.0", "x", r"x \cdot 1 = x", "multiplying by one",
     P(Call, fn="mul", args=V("args", _float_call("mul", lambda a: is_const(a[0], 1.0) or is_const(a[1], 1.0)))))(
    lambda b: b["args"][1] if is_const(b["args"][0], 1.0) else b["args"][0])
rule("add-zero", GS, "x + (-0) = x = (-0) + x", "x + -0.0", "x", r"x + (-0) = x",
     "adding the zero IEEE adds exactly: -0.0 (x + 0.0 is +0.0 where x is -0.0, so it stays)",
     P(Call, fn="add", args=V("args", _float_call("add", lambda a: _neg_zero(a[0]) or _neg_zero(a[1])))))(
    lambda b: b["args"][1] if _neg_zero(b["args"][0]) else b["args"][0])
rule("sub-zero", GS, "x - 0 = x", "x - 0.0", "x", r"x - 0 = x",
     "subtracting +0.0, which IEEE subtracts exactly (x - (-0.0) is x + 0.0: it stays)",
     P(Call, fn="sub", args=V("args", _float_call("sub", lambda a: _pos_zero(a[1])))))(lambda b: b["args"][0])
rule("div-one", GS, "x / 1 = x", "x / 1.0", "x", r"x / 1 = x", "dividing by one",
     P(Call, fn="div", args=V("args", lambda a: is_const(a[1], 1.0))))(lambda b: b["args"][0])
rule("neg-neg", GS, "-(-x) = x", "-(-x)", "x", r"-(-x) = x", "double negation",
     P(Call, fn="neg", args=V("args", lambda a: isinstance(a[0], Call) and a[0].fn == "neg")))(
    lambda b: b["args"][0].args[0])


def _finite_const(x):
    return isinstance(x, Const) and x.type == Float and math.isfinite(x.value)


rule("mul-zero", GS, "x * 0 = 0 where x is a finite constant", "x * 0.0", "0.0", r"x \cdot 0 = 0",
     "never for a variable: inf * 0 and NaN * 0 are NaN; the zero has IEEE's sign (-2.0 * 0.0 is -0.0, "
     "and 1 / -0.0 is -inf)",
     P(Call, fn="mul", args=V("args", lambda a: len(a) == 2 and (is_const(a[0], 0.0) and _finite_const(a[1])
                                                          or is_const(a[1], 0.0) and _finite_const(a[0])))),
     "the other factor is a finite constant")(lambda b: fconst(b["args"][0].value * b["args"][1].value))

def _scalar_constants(args: tuple) -> bool:
    """Whether there are arguments and each is a scalar constant (not the zero tangent). A loop,
    not all() of a generator: const-fold is tried at every foldable call, and most have a
    variable first."""
    if not args:
        return False
    for x in args:
        if not (isinstance(x, Const) and isinstance(x.type, Scalar) and x.value is not ZERO):
            return False
    return True


_FOLDABLE = {"add", "sub", "mul", "div", "neg", "sin", "cos", "exp", "log", "sqrt", "tanh", "to_float",
             "lt", "le", "gt", "ge", "eq", "ne", "not", "pow", "np_pow", "abs", "max", "min", "floordiv", "mod"}


@rule("const-fold", GS, "evaluation: p(c1, ..., ck) = the value of p at constants", "p(c1, ..., ck)", "c",
      r"p(c_1, \dots, c_k) = c", "a scalar primitive of constants is computed once, at compile time",
      P(Call, fn=V("fn", lambda f: f in _FOLDABLE), args=V("args", _scalar_constants)))
def _(b):
    p = PRIMITIVES[b["fn"]]
    try:
        value = p.impl(*(x.value for x in b["args"]))
    except (ArithmeticError, ValueError):
        return None
    ty = p.result_type(tuple(x.type for x in b["args"]))
    if ty == Int and not isinstance(value, (int, np.integer)):
        return None  # e.g. 2 ** -1 is 0.5 at run time: not an Int, leave it to run time
    if isinstance(value, (bool, np.bool_)):
        return Const(bool(value), ty)
    return Const(int(value) if ty == Int else float(value), ty)


# ================================================================ arrays

def _nonneg_const(t) -> bool:
    return isinstance(t, Const) and t.type == Int and t.value >= 0


def _nonneg_size(t) -> bool:
    return _nonneg_const(t) or isinstance(t, Call) and (t.fn in ("size", "dim") or t.fn == "max" and any(
        _nonneg_const(a) for a in t.args))


@rule("index-build", GA, "notes Section 4: build(n, \\j. e)[i] = e[j := i]", "build(n, \\j. e)[i]",
      "let j = i in e", r"\mathrm{build}(n, \lambda j.\ e)[i] = e[j := i]",
      "reading one element of a build computes just that element (where the left side is defined)",
      P(Call, fn="index", args=V("args", lambda a: isinstance(a[1], Build) and _nonneg_const(a[0]))),
      "i is a non-negative constant (a negative index counts from the end)")
def _(b):
    i, bld = b["args"]
    return Let(bld.var, i, bld.body)


rule("size-build", GA, "sz(build(n, \\i. e)) = n", "size(build(n, \\i. e))", "n", r"|\mathrm{build}(n, f)| = n",
     "the size of a build is its size",
     P(Call, fn="size", args=V("args", lambda a: isinstance(a[0], Build) and _nonneg_size(a[0].size))),
     "n is a size or a non-negative constant (a negative n builds an empty vector)")(
    lambda b: b["args"][0].size)


# ================================================================ let and if

rule("let-dead", GL, "let x = e in b = b where x is not free in b", "let x = e in b", "b",
     r"\mathbf{let}\ x = e\ \mathbf{in}\ b = b", "dead-let elimination (terms are pure; a check is not dead)",
     P(Let, var=V("x"), rhs=V("e"), body=V("b")), "x is not free in b and e runs no shape or bounds check")(
    lambda b: b["b"] if b["x"] not in b.free_vars(b["b"]) and not may_fail(b["e"]) else None)
rule("if-same", GL, "if c then e else e = e", "if c then e else e", "e", r"\mathbf{if}\ c\ e\ e = e",
     "both branches alike (the test is pure; a check in it is not dead)",
     P(If, cond=V("c"), then=V("e"), orelse=V("e")), "c runs no shape or bounds check")(
    lambda b: b["e"] if not may_fail(b["c"]) else None)
rule("if-true", GL, "if True then a else b = a", "if True then a else b", "a", r"\mathbf{if}\ \top\ a\ b = a",
     "a known condition", P(If, cond=P(Const, value=True), then=V("a")))(lambda b: b["a"])
rule("if-false", GL, "if False then a else b = b", "if False then a else b", "b", r"\mathbf{if}\ \bot\ a\ b = b",
     "a known condition", P(If, cond=P(Const, value=False), orelse=V("b")))(lambda b: b["b"])
rule("get-if", GL, "pi_k (if c then a else b) = if c then pi_k a else pi_k b", "pik (if c then a else b)",
     "if c then pik a else pik b", r"\pi_k(\mathbf{if}\ c\ a\ b) = \mathbf{if}\ c\ (\pi_k a)\ (\pi_k b)",
     "projection floats into the branches", P(Get, index=V("k"), tup=P(If, cond=V("c"), then=V("a"), orelse=V("b"))))(
    lambda b: If(b["c"], Get(b["k"], b["a"]), Get(b["k"], b["b"])))
rule("get-let", GL, "pi_k (let x = e in b) = let x = e in pi_k b", "pik (let x = e in b)", "let x = e in pik b",
     r"\pi_k(\mathbf{let}\ x = e\ \mathbf{in}\ b) = \mathbf{let}\ x = e\ \mathbf{in}\ \pi_k b",
     "projection floats into a let body", P(Get, index=V("k"), tup=P(Let, var=V("x"), rhs=V("e"), body=V("b"))))(
    lambda b: Let(b["x"], b["e"], Get(b["k"], b["b"])))
rule("fwd-if", GL, "(if c then m1 else m2) . x = if c then m1 . x else m2 . x", "lmApply(if c then m1 else m2, x)",
     "if c then lmApply(m1, x) else lmApply(m2, x)",
     r"(\mathbf{if}\ c\ m_1\ m_2) \odot x = \mathbf{if}\ c\ (m_1 \odot x)\ (m_2 \odot x)",
     "application floats into the branches", P(A, m=P(If, cond=V("c"), then=V("a"), orelse=V("b")), x=CX),
     "x is cheap")(lambda b: If(b["c"], A(b["a"], b["x"]), A(b["b"], b["x"])))
rule("rev-if", GL, "r ._R (if c then m1 else m2) = if c then r ._R m1 else r ._R m2",
     "lmApplyR(r, if c then m1 else m2)", "if c then lmApplyR(r, m1) else lmApplyR(r, m2)",
     r"r \odot_R (\mathbf{if}\ c\ m_1\ m_2) = \mathbf{if}\ c\ (r \odot_R m_1)\ (r \odot_R m_2)",
     "reverse application floats into the branches",
     P(ApplyR, r=CR, m=P(If, cond=V("c"), then=V("a"), orelse=V("b"))), "r is cheap")(
    lambda b: If(b["c"], ApplyR(b["r"], b["a"]), ApplyR(b["r"], b["b"])))
rule("fwd-let", GL, "(let x = e in m) . v = let x = e in m . v", "lmApply(let x = e in m, v)",
     "let x = e in lmApply(m, v)", r"(\mathbf{let}\ x = e\ \mathbf{in}\ m) \odot v = \mathbf{let}\ x = e\ \mathbf{in}\ m \odot v",
     "application floats into a let body", P(A, m=P(Let, var=V("x"), rhs=V("e"), body=V("m")), x=V("v")),
     "x is not free in v")(
    lambda b: Let(b["x"], b["e"], A(b["m"], b["v"])) if b["x"] not in b.free_vars(b["v"]) else None)
rule("rev-let", GL, "r ._R (let x = e in m) = let x = e in r ._R m", "lmApplyR(r, let x = e in m)",
     "let x = e in lmApplyR(r, m)",
     r"r \odot_R (\mathbf{let}\ x = e\ \mathbf{in}\ m) = \mathbf{let}\ x = e\ \mathbf{in}\ r \odot_R m",
     "reverse application floats into a let body", P(ApplyR, r=V("r"), m=P(Let, var=V("x"), rhs=V("e"), body=V("m"))),
     "x is not free in r")(
    lambda b: Let(b["x"], b["e"], ApplyR(b["r"], b["m"])) if b["x"] not in b.free_vars(b["r"]) else None)

# ================================================================ fold (notes Section 8)
GFold = "Fig. 13-15: fold"


def _step_var(m: L.LMFold, suffix: str, ty) -> Var:
    """A variable of the new lambda, named after the fold's own ('$' keeps it apart from
    Python names; rules are functions, so the name is too)."""
    return Var(f"{m.var.name}{suffix}$", ty)


@rule("fwd-fold", GFold, "notes Fig. 13 (FFold: Fig. 14): lmFold (\\t.e) (\\t.e') acc v . dx = FFold (\\t.e) acc v "
      "(\\t_dt. e_dt) d_acc d_v, where e_dt = let t = pi1 t_dt; dt = pi2 t_dt in e' . (ds, dt), ds = pi1 dx, "
      "d_acc = pi1 (pi2 dx), d_v = pi2 (pi2 dx)",
      "lmApply(lmFold(\\t. e, \\t. e', acc, v), dx)",
      "FFold(\\t. e, acc, v, \\t_dt. let t = pi1 t_dt; dt = pi2 t_dt in lmApply(e', (pi1 dx, dt)), pi1 pi2 dx, pi2 pi2 dx)",
      r"\mathrm{lmFold}\,(\lambda t.e)\,(\lambda t.e')\,acc\,v \odot dx = \mathrm{FFold}\,(\lambda t.e)\,acc\,v\,"
      r"(\lambda t_{dt}.\,e' \odot (ds, dt))\,d_{acc}\,d_v",
      "the tangent of a fold is carried along its loop: each step applies the body's Jacobian",
      P(A, m=Named("m", L.LMFold), x=CX), "dx is cheap (its part ds is read at every step)")
def _(b):
    m, dx = b["m"], b["x"]
    step = m.var.type
    t_dt = _step_var(m, "_dt", TupleT((step, step)))  # ((a, b), (da, db)): tangents have the primal types
    dt = _step_var(m, "_d", step)
    body = Let(m.var, Get(0, t_dt), Let(dt, Get(1, t_dt), A(m.dbody, Tuple((component(dx, 0), dt)))))
    rest = component(dx, 1)
    return FFold(m.acc, m.vec, m.var, m.body, component(rest, 0), component(rest, 1), t_dt, body)


@rule("rev-fold", GFold, "notes Fig. 13 (RFold: Fig. 15): dr ._R lmFold (\\t.e) (\\t.e') acc v = RFold (\\t.e) "
      "(\\t_dr. e_dr) acc v dr, where e_dr = let t = pi1 t_dr; dr = pi2 t_dr in dr ._R e'",
      "lmApplyR(r, lmFold(\\t. e, \\t. e', acc, v))",
      "RFold(\\t. e, \\t_dr. let t = pi1 t_dr; dr = pi2 t_dr in lmApplyR(dr, e'), acc, v, r)",
      r"dr \odot_R \mathrm{lmFold}\,(\lambda t.e)\,(\lambda t.e')\,acc\,v = \mathrm{RFold}\,(\lambda t.e)\,"
      r"(\lambda t_{dr}.\,dr \odot_R e')\,acc\,v\,dr",
      "the cotangent of a fold runs its loop backwards: the steps' cotangents of s add up, each element gets its own",
      P(ApplyR, r=R, m=Named("m", L.LMFold)))
def _(b):
    m = b["m"]
    step, a = m.var.type, m.acc.type
    t_dr = _step_var(m, "_dr", TupleT((step, a)))  # ((a, b), da)
    dr = _step_var(m, "_r", a)
    body = Let(m.var, Get(0, t_dr), Let(dr, Get(1, t_dr), ApplyR(dr, m.dbody)))
    return RFold(m.acc, m.vec, m.var, m.body, b["r"], t_dr, body)


# A scan (all the accumulators of a fold: catad.lang.fold.Scan) is what a loop's derivatives are
# written with when they are differentiated again (issue 17). Its Jacobian lmScan holds the
# accumulators S, so neither application runs the forward loop again: forward, the tangents of
# all the accumulators are a scan; in reverse, their cotangents are a scan backwards, and each
# step's transposed Jacobian, at the cotangent that scan gave it, a build over the steps.

def _range(n: Term, m: L.LMScan) -> Term:
    k = _step_var(m, "_k", Int)
    return Build(n, k, k)


@rule("fwd-scan", GFold, "lmScan (\\t. e') S v . dx = scan (\\u. let j = pi2 u; t = (S[j], v[j]) in "
      "e' . (pi1 dx, (pi1 u, d_v[j]))) d_acc (range n): the tangent of each accumulator from the one before",
      "lmApply(lmScan(\\t. e', S, v), dx)",
      "scan(\\u. let j = pi2 u; t = (S[j], v[j]) in lmApply(e', (pi1 dx, (pi1 u, (pi2 pi2 dx)[j]))), "
      "pi1 pi2 dx, range(size(v)))",
      r"\mathrm{lmScan}\,(\lambda t.e')\,S\,v \odot dx = \mathrm{scan}\,(\lambda u.\,e' \odot (ds, (u_1, "
      r"dv_{u_2})))\,d_{acc}\,(0..n-1)",
      "the tangents of a loop's accumulators are carried along it: each step applies the body's Jacobian",
      P(A, m=Named("m", L.LMScan), x=CX), "dx is cheap (its part ds is read at every step)")
def _(b):
    m, dx = b["m"], b["x"]
    a = m.states.type.elem
    n = prim("size", m.vec)
    u = _step_var(m, "_u", TupleT((a, Int)))
    j, dvj = _step_var(m, "_j", Int), _step_var(m, "_dv", m.vec.type.elem)
    rest = component(dx, 1)
    dv = component(rest, 1)
    body = Let(j, Get(1, u), Let(m.var, Tuple((prim("index", j, m.states), prim("index", j, m.vec))),
               Let(dvj, prim("index", j, dv),
                   prim("densify", A(m.dbody, Tuple((component(dx, 0), Tuple((Get(0, u), dvj))))),
                        prim("index", prim("add", j, Const(1, Int)), m.states)))))
    start = prim("densify", component(rest, 0), prim("index", Const(0, Int), m.states))
    return Scan(start, _range(n, m), u, body)


@rule("rev-scan", GFold, "r ._R lmScan (\\t. e') S v = (sum_j pi1 R[j], (C[n], build(n, \\j. pi2 pi2 R[j]))) where "
      "C = scan backwards of the accumulators' cotangents (C[k] that of S[n - k]: C[k + 1] = r[j] + "
      "pi1 pi2 (C[k] ._R e') at step j = n - 1 - k) and R[j] = C[n - 1 - j] ._R e' at step j",
      "lmApplyR(r, lmScan(\\t. e', S, v))",
      "let C = scan(\\u. let j = n - 1 - pi2 u; t = (S[j], v[j]) in r[j] + pi1 pi2 lmApplyR(pi1 u, e'), r[n], "
      "range(n)); R = build(n, \\j. let t = (S[j], v[j]) in lmApplyR(C[n - 1 - j], e')) in "
      "(tsum(build(n, \\j. pi1 R[j])), (C[n], build(n, \\j. pi2 pi2 R[j])))",
      r"r \odot_R \mathrm{lmScan}\,(\lambda t.e')\,S\,v = (\textstyle\sum_j \pi_1 R_j, (C_n, "
      r"[\pi_2 \pi_2 R_j]_j))",
      "the cotangents of a loop's accumulators run it backwards over the accumulators kept; each step's cotangents "
      "of the environment add up, each element gets its own",
      P(ApplyR, r=CR, m=Named("m", L.LMScan)), "r is cheap (it is read at every step)")
def _(b):
    m, r = b["m"], b["r"]
    a, elem = m.states.type.elem, m.vec.type.elem
    n = prim("size", m.vec)

    def back(k: Term) -> Term:  # n - 1 - k
        return prim("sub", prim("sub", n, k), Const(1, Int))
    u = _step_var(m, "_u", TupleT((a, Int)))
    j, c = _step_var(m, "_j", Int), _step_var(m, "_c", a)
    at = Tuple((prim("index", j, m.states), prim("index", j, m.vec)))
    step_ct = Let(j, back(Get(1, u)), Let(m.var, at, Let(c, Get(0, u), prim("densify", prim(
        "tadd", prim("index", j, r), Get(0, Get(1, ApplyR(c, m.dbody)))), prim("index", j, m.states)))))
    C = _step_var(m, "_C", m.states.type)
    start = prim("densify", prim("index", n, r), prim("index", n, m.states))
    i = _step_var(m, "_i", Int)
    steps_ty = TupleT((m.env_type, TupleT((a, elem))))
    R = _step_var(m, "_R", Vec(steps_ty))
    each = Let(j, i, Let(m.var, at, ApplyR(prim("index", back(i), C), m.dbody)))
    i2 = _step_var(m, "_i2", Int)
    ds = prim("tsum", Build(n, i2, Get(0, prim("index", i2, R))))
    dbs = Build(n, i2, Get(1, Get(1, prim("index", i2, R))))
    return Let(C, Scan(start, _range(n, m), u, step_ct),
               Let(R, Build(n, i, each), Tuple((ds, Tuple((prim("index", n, C), dbs))))))


# ================================================================ opaque linear maps (linear algebra)
# lmLinear(fwd, rev, args): a linear map given by its forward and transposed actions, two
# primitives at fixed primal values (the Jacobians of det, slogdet, inv, solve and cholesky,
# catad.ad.rules). Applying it calls the action; transposing it swaps them.

GLin = "linear algebra: lmLinear"

rule("fwd-linear", GLin, "lmLinear(f, f', a) . x = f(a, x) (the map is defined by its action)",
     "lmApply(lmLinear(f, f', a), x)", "f(a, x)", r"\mathcal{L}_{f,f'}(a) \odot x = f(a, x)",
     "an opaque map applies its forward action, a primitive (e.g. -B dx B for inv, A^{-1} dx for solve)",
     P(A, m=P(L.Linear, fwd=V("f"), args=V("a")), x=X))(lambda b: prim(b["f"], *b["a"], b["x"]))
rule("rev-linear", GLin, "r ._R lmLinear(f, f', a) = f'(a, r) (f' is the transpose of f: <f(a, x), r> = "
     "<x, f'(a, r)>)", "lmApplyR(r, lmLinear(f, f', a))", "f'(a, r)",
     r"r \odot_R \mathcal{L}_{f,f'}(a) = f'(a, r)",
     "an opaque map's cotangent is its transposed action (e.g. A^{-T} r for solve: a solve, no inverse)",
     P(ApplyR, r=R, m=P(L.Linear, rev=V("f"), args=V("a"))))(lambda b: prim(b["f"], *b["a"], b["r"]))
rule("tr-linear", GT, "notes Fig. 5, for an opaque map: lmLinear(f, f', a)^T = lmLinear(f', f, a)",
     "lmTranspose(lmLinear(f, f', a))", "lmLinear(f', f, a)",
     r"\mathcal{L}_{f,f'}(a)^\top = \mathcal{L}_{f',f}(a)", "transposing swaps the two actions",
     P(T, m=Named("m", L.Linear)))(lambda b: L.Linear(b["m"].rev, b["m"].fwd, b["m"].args, b["m"].t, b["m"].s))


BY_NAME = {r.name: r for r in RULES}
assert len(BY_NAME) == len(RULES), "rule names must be unique"


# ================================================================ rules applied by passes
# These rewrite whole let chains, so the engine does not try them at single terms: the
# sweeps (catad.rewrite.sweeps) and the cleanup passes (catad.rewrite.cleanup) apply them
# and record them in the trace under these names. They are checked by comparing the
# programs they produce with the reference semantics (tests/test_explain.py).

GP = "passes over let chains"


def _never(b):
    return None


PASSES: list[Rule] = [
    Rule("fwd-let-bound", GP, "lmApply(Dy, dx) = dy where dy = lmApply(e, dx) is bound for let Dy = e: every "
         "let-bound map of a Jacobian is applied to the one input tangent dx (notes Fig. 8, property CP)",
         "let Dy = e in ... lmApply(Dy, dx) ...", "let dy = lmApply(e, dx) in ... dy ...",
         r"\mathbf{let}\ D_y = e\ \mathbf{in}\ C[D_y \odot dx] = \mathbf{let}\ dy = e \odot dx\ \mathbf{in}\ C[dy]",
         "the forward sweep: a shared map is applied once, where it is bound", P(Let), _never),
    Rule("rev-let-bound", GP, "sum_k (r_k ._R Dy) = (sum_k r_k) ._R Dy for let Dy = e (linearity; Krawiec et al. "
         "2022, Sec. 5; YOLO: the transpose of a let duplicates nothing)",
         "let Dy = e in ... lmApplyR(r1, Dy) + ... + lmApplyR(rk, Dy)",
         "... let ct = r1 + ... + rk in lmApplyR(ct, e)",
         r"\textstyle\sum_k r_k \odot_R D_y = (\sum_k r_k) \odot_R e",
         "the reverse sweep: a shared map's cotangents are summed, then pushed through it once", P(Let), _never),
    Rule("fwd-sweep-nested", GP, "lmApply(let Dy = e in m, x) = let dy = lmApply(e, x) in lmApply(m, x)[Dy := dy] "
         "when every map the chain binds has x's space as its source (a fold's step Jacobian e', notes Fig. 13): "
         "the forward sweep, run inside the step",
         "lmApply(let Dy = e in m, x)", "let dy = lmApply(e, x) in lmApply(m, x)",
         r"(\mathbf{let}\ D_y = e\ \mathbf{in}\ m) \odot x = \mathbf{let}\ dy = e \odot x\ \mathbf{in}\ m \odot x",
         "the forward sweep of a fold step's Jacobian (inside FFold)", P(Let), _never,
         "the chain's maps all have x's space as source"),
    Rule("rev-sweep-nested", GP, "r ._R (let Dy = e in m) = the reverse sweep of the chain with r at m, when every "
         "map the chain binds has m's source (a fold's step Jacobian e', notes Fig. 13)",
         "lmApplyR(r, let Dy = e in m)", "... let ct = (sum of Dy's cotangents) in lmApplyR(ct, e)",
         r"r \odot_R (\mathbf{let}\ D_y = e\ \mathbf{in}\ m) = \textstyle\sum_k r_k \odot_R e",
         "the reverse sweep of a fold step's Jacobian (inside RFold)", P(Let), _never,
         "the chain's maps all have m's source"),
    Rule("cse", GP, "notes Section 3 (last step): common subexpression elimination",
         "let x = e in ... let y = e in b", "let x = e in ... b[y := x]",
         r"\mathbf{let}\ x = e\ \dots\ \mathbf{let}\ y = e\ \mathbf{in}\ b = \mathbf{let}\ x = e\ \dots\ b[y := x]",
         "a value computed twice is computed once (after ANF, so every subexpression counts)", P(Let), _never),
    Rule("inline-single-use", GP, "let x = e in C[x] = C[e] when x occurs once in C, not inside a build",
         "let x = e in C[x]", "C[e]", r"\mathbf{let}\ x = e\ \mathbf{in}\ C[x] = C[e]",
         "undoes ANF where nothing is shared (the work is the same; the program reads like the notes)",
         P(Let), _never, "x is used once, outside any build, and the result is at most 32 levels deep"),
]

ALL_RULES = RULES + PASSES
ALL_BY_NAME = {r.name: r for r in ALL_RULES}
