"""Random terms for testing the rewrite rules and the engine (tests/test_rules.py).

One generator, two sources of randomness: a fixed-seed NumPy Generator (fast loops
of instances per rule) or hypothesis' ``draw`` (property tests that shrink). Both
sit behind :class:`Chooser`; by convention a choice shrinks towards its first
option and a ``coin`` towards False, so options are listed simplest first.

A :class:`Gen` holds the random environment of one instance: the vector size ``n``
(every ``Vec Float`` of the instance has it, so maps compose), the values bound to
the free variables it creates, and the flags saying which constructs may appear.

Semantics helpers (``template``, ``meaning``, ``assert_same_meaning``) compare two
terms by evaluating them with :func:`catad.lang.evaluate.eval_term` under the same
environment: linear-map values by their matrices (``to_matrix``), tangents with
``ZERO`` read as zeros of the right shape and ``OneHot`` densified.
"""
from __future__ import annotations

from typing import Any, Callable

import numpy as np
from hypothesis import strategies as st

import catad.linearmaps.terms as L
from catad.lang.evaluate import eval_term
from catad.lang.terms import Build, Call, Const, Get, If, Let, Term, Tuple, Var
from catad.lang.types import Bool, Float, Int, LinMap, Scalar, Tuple as TupleT, Type, Vec
from catad.linearmaps.semantics import tangent_size, to_matrix
from catad.linearmaps.terms import Apply, ApplyR, zero_tangent
from catad.primitives import prim
from catad.tangents import ZERO, OneHot

VF = Vec(Float)
SPECIAL = (0.0, 1.0, -1.0, 2.0, 0.5)


# ================================================================ randomness

class Chooser:
    def int(self, lo: int, hi: int) -> int:  # inclusive
        raise NotImplementedError

    def coin(self, p: float = 0.5) -> bool:
        raise NotImplementedError

    def real(self) -> float:
        raise NotImplementedError

    def pick(self, xs):
        xs = list(xs)
        return xs[self.int(0, len(xs) - 1)]


class RngChooser(Chooser):
    def __init__(self, rng: np.random.Generator):
        self.rng = rng

    def int(self, lo, hi):
        return int(self.rng.integers(lo, hi + 1))

    def coin(self, p=0.5):
        return bool(self.rng.random() < p)

    def real(self):
        if self.rng.random() < 0.1:
            return float(SPECIAL[int(self.rng.integers(len(SPECIAL)))])
        return float(self.rng.uniform(-2.0, 2.0))


class DrawChooser(Chooser):
    def __init__(self, draw):
        self.draw = draw

    def int(self, lo, hi):
        return self.draw(st.integers(lo, hi))

    def coin(self, p=0.5):
        return self.draw(st.integers(0, 999)) >= 1000 - int(p * 1000)

    def real(self):
        return self.draw(st.one_of(st.sampled_from(SPECIAL), st.floats(-2.0, 2.0, allow_nan=False)))


# ================================================================ the generator

class Gen:
    """Random terms of one instance. Flags:

    zero_maps    lmZero may appear inside maps
    index_maps   lmIndex / lmIndexUpdate leaves may appear
    if_maps      `if` may choose between maps; `let` may bind a coefficient around a map
    var_maps     a family of maps may be a variable bound to evaluated maps
    sparse       tangent inputs may be the symbolic zero (syntactic, or bound at run time)
                 or a sparse index update (OneHot) at run time
    applies      tangent terms may contain lmApply / lmApplyR of random maps
    scalevec     lmScaleVec leaves may appear
    compose      lmCompose may appear
    family_leaves  when given, the maps of a build family are leaves of these kinds
    primal_ops_on_tangents  `mul` and `index` may take a tangent operand
    zero_ops     mul(k, ZERO) and add(k, ZERO) may appear (eval_term cannot evaluate them;
                 the left sides of mul-zero-tangent and add-zero-tangent)
    """

    def __init__(self, c: Chooser, n: int | None = None, *, zero_maps=True, index_maps=True, if_maps=True,
                 var_maps=False, sparse=False, applies=False, scalevec=True, compose=True,
                 family_leaves=None, primal_ops_on_tangents=True, zero_ops=False):
        self.c = c
        self.n = n if n is not None else c.int(1, 5)
        self.env: dict[Var, Any] = {}
        self.counter = 0
        self.scope: list[Var] = []   # index variables of enclosing builds
        self.locals: list[Var] = []  # Float variables of enclosing lets
        self.zero_maps, self.index_maps, self.if_maps = zero_maps, index_maps, if_maps
        self.var_maps, self.sparse, self.applies, self.scalevec = var_maps, sparse, applies, scalevec
        self.compose, self.family_leaves, self.primal_ops = compose, family_leaves, primal_ops_on_tangents
        self.zero_ops = zero_ops

    def __repr__(self) -> str:
        return f"Gen(n={self.n}, env={self.env})"

    # ---------------------------------------------------------------- names and values

    def fresh(self, base: str, ty: Type, value: Any = None, bind: bool = True) -> Var:
        v = Var(f"{base}{self.counter}", ty)
        self.counter += 1
        if bind:
            self.env[v] = value
        return v

    def vec(self) -> np.ndarray:
        return np.array([self.c.real() for _ in range(self.n)])

    def dense_value(self, t: Type) -> Any:
        if t == Float:
            return self.c.real()
        if t == VF:
            return self.vec()
        if t == Vec(VF):
            return np.array([self.vec() for _ in range(self.n)])
        if isinstance(t, Vec) and isinstance(t.elem, TupleT):  # a vector of tuples: a list of them
            return [self.dense_value(t.elem) for _ in range(self.n)]
        if isinstance(t, TupleT):
            return tuple(self.dense_value(s) for s in t.items)
        if t == Int:
            return self.c.int(0, self.n - 1)
        if t == Bool:
            return self.c.coin()
        raise AssertionError(t)

    def sparse_value(self, t: Type) -> Any:
        """A tangent value of t that is (or contains) ZERO or a OneHot."""
        if isinstance(t, TupleT):
            if self.c.coin(0.3):
                return ZERO
            return tuple(self.sparse_value(s) if self.c.coin(0.6) else self.dense_value(s) for s in t.items)
        if t == VF and self.c.coin(0.6):
            return OneHot(self.c.int(0, self.n - 1), self.c.real(), self.n)
        return ZERO

    # ---------------------------------------------------------------- types

    def space(self, depth: int = 1) -> Type:
        """A tangent space: Float, Vec Float (size n) or a tuple of these."""
        k = self.c.int(0, 5 if depth > 0 else 3)
        if k <= 1:
            return Float
        if k <= 3:
            return VF
        return TupleT(tuple(self.space(depth - 1) for _ in range(self.c.int(1, 3))))

    def tuple_space(self, depth: int = 1) -> TupleT:
        return TupleT(tuple(self.space(depth - 1) for _ in range(self.c.int(1, 3))))

    # ---------------------------------------------------------------- scalars

    def atom_float(self) -> Term:
        if self.locals and self.c.coin(0.4):
            return self.c.pick(self.locals)
        if self.c.coin():
            return Const(self.c.real(), Float)
        return self.fresh("k", Float, self.c.real())

    def float_term(self, depth: int = 1) -> Term:
        """A Float-valued primal term (a coefficient): atoms, arithmetic, indexing."""
        k = self.c.int(0, 7 if depth > 0 else 1)
        if k <= 1:
            return self.atom_float()
        if k == 2:
            return prim("mul", self.float_term(depth - 1), self.float_term(depth - 1))
        if k == 3:
            return prim("add", self.float_term(depth - 1), self.float_term(depth - 1))
        if k == 4:
            return prim(self.c.pick(["sin", "cos", "exp", "tanh", "neg"]), self.float_term(depth - 1))
        if k == 5:
            return prim("sub", self.float_term(depth - 1), self.float_term(depth - 1))
        if k == 6:
            return prim("index", self.index_term(), self.vec_coef())
        return prim("to_float", self.index_term())

    def noncheap_float(self) -> Term:
        return prim(self.c.pick(["mul", "add"]), self.atom_float(), self.atom_float())

    def coef(self, cheap: bool = False) -> Term:
        if cheap or self.c.coin(0.6):
            return self.atom_float()
        if self.scope and self.c.coin():
            return prim("index", self.c.pick(self.scope), self.vec_coef(atom=True))
        return self.float_term()

    def vec_coef(self, atom: bool = False) -> Term:
        if self.c.coin():
            return Const(self.vec(), VF)
        return self.fresh("v", VF, self.vec())

    def index_term(self) -> Term:
        """An Int in [0, n): a constant, a variable, or an enclosing build's index."""
        k = self.c.int(0, 2)
        if k == 0:
            return Const(self.c.int(0, self.n - 1), Int)
        if k == 1 or not self.scope:
            return self.fresh("j", Int, self.c.int(0, self.n - 1))
        return self.c.pick(self.scope)

    def size_term(self) -> Term:
        if self.c.coin():
            return Const(self.n, Int)
        return self.fresh("n", Int, self.n)

    def cond(self) -> Term:
        k = self.c.int(0, 2)
        if k == 0:
            return self.fresh("b", Bool, self.c.coin())
        if k == 1:
            return prim("lt", self.atom_float(), self.atom_float())
        return Const(self.c.coin(), Bool)

    # ---------------------------------------------------------------- linear maps

    def leaf_options(self, src: Type, tgt: Type) -> list[str]:
        out = ["zero"] if self.zero_maps else []
        if src == tgt:
            out += ["one", "scale"]
        if src == tgt == VF and self.scalevec:
            out.append("scalevec")
        if src == VF and tgt == Float:
            out += ["sum"] + (["index"] if self.index_maps else [])
        if src == Float and tgt == VF:
            out += ["broadcast"] + (["update"] if self.index_maps else [])
        return out

    def leaf(self, src: Type, tgt: Type, kind: str | None = None, cheap: bool = True) -> Term:
        opts = self.leaf_options(src, tgt) or ["zero"]
        kind = kind or self.c.pick(opts)
        if kind == "zero":
            return L.Zero(src, tgt)
        if kind == "one":
            return L.One(src)
        if kind == "scale":
            return L.Scale(self.coef(cheap), src)
        if kind == "scalevec":
            return L.ScaleVec(self.vec_coef())
        if kind == "sum":
            return L.Sum(self.size_term(), VF)
        if kind == "broadcast":
            return L.Broadcast(self.size_term(), VF)
        if kind == "index":
            return L.Index(self.index_term(), self.size_term(), VF)
        if kind == "update":
            return L.IndexUpdate(self.index_term(), self.size_term(), VF)
        raise AssertionError(kind)

    def lmap(self, src: Type, tgt: Type, depth: int = 2) -> Term:
        """A random linear-map term src -o tgt (zero maps are rare: they make everything vanish)."""
        leaves = [k for k in self.leaf_options(src, tgt) if k != "zero"]
        if self.zero_maps and self.c.coin(0.08):
            return L.Zero(src, tgt)
        opts = []
        if depth > 0:
            opts = ["plus", "transpose"] + (["compose"] if self.compose else [])
            if isinstance(tgt, TupleT):
                opts += ["vcat"] * 3
            if isinstance(src, TupleT):
                opts += ["hcat"] * 3
            if tgt == VF:
                opts += ["vcatv"]
            if src == VF:
                opts += ["hcatv"]
            if self.if_maps:
                opts += ["if", "let"]
        if leaves and (not opts or self.c.coin(0.35)):
            opts = leaves
        if not opts:  # a tuple space and no depth left: stack or juxtapose smaller maps
            if isinstance(tgt, TupleT):
                return L.VCat(tuple(self.lmap(src, t, 0) for t in tgt.items))
            return L.HCat(tuple(self.lmap(s, tgt, 0) for s in src.items))
        kind = self.c.pick(opts)
        sub = depth - 1
        if kind in ("zero", "one", "scale", "scalevec", "sum", "broadcast", "index", "update"):
            return self.leaf(src, tgt, kind, cheap=False)
        if kind == "plus":
            return L.Plus(self.lmap(src, tgt, sub), self.lmap(src, tgt, sub))
        if kind == "compose":
            mid = self.space(1 if self.c.coin(0.3) else 0)
            return L.Compose(self.lmap(mid, tgt, sub), self.lmap(src, mid, sub))
        if kind == "transpose":
            return L.Transpose(self.lmap(tgt, src, sub))
        if kind == "vcat":
            return L.VCat(tuple(self.lmap(src, t, sub) for t in tgt.items))
        if kind == "hcat":
            return L.HCat(tuple(self.lmap(s, tgt, sub) for s in src.items))
        if kind == "vcatv":
            return L.VCatV(self.family(src, Float, sub))
        if kind == "hcatv":
            return L.HCatV(self.family(Float, tgt, sub))
        if kind == "if":
            return If(self.cond(), self.lmap(src, tgt, sub), self.lmap(src, tgt, sub))
        if kind == "let":
            return self.let_around(lambda: self.lmap(src, tgt, sub))
        raise AssertionError(kind)

    def let_around(self, body: Callable[[], Term]) -> Term:
        """let x = <coefficient> in body, where body may use x as a coefficient."""
        x = self.fresh("x", Float, bind=False)
        rhs = self.float_term()
        self.locals.append(x)
        try:
            b = body()
        finally:
            self.locals.pop()
        return Let(x, rhs, b)

    def family(self, src: Type, tgt: Type, depth: int = 1, build: bool | None = None) -> Term:
        """A Vec (src -o tgt) of size n: build(n, \\i. m) with m possibly using i, or a variable."""
        if build is None:
            build = not (self.var_maps and self.c.coin(0.2))
        if not build:
            saved, self.scope, self.locals = (self.scope, self.locals), [], []
            try:
                values = [eval_term(self.lmap(src, tgt, 1), self.env) for _ in range(self.n)]
            finally:
                self.scope, self.locals = saved
            return self.fresh("ms", Vec(LinMap(src, tgt)), values)
        i = self.fresh("i", Int, bind=False)
        self.scope.append(i)
        try:
            if self.family_leaves is not None:
                kinds = [k for k in self.leaf_options(src, tgt) if k in self.family_leaves] or ["zero"]
                body = self.leaf(src, tgt, self.c.pick(kinds), cheap=False)
            else:
                body = self.lmap(src, tgt, depth)
        finally:
            self.scope.pop()
        return Build(self.size_term(), i, body)

    def cheap_map(self, src: Type, tgt: Type) -> Term:
        """A map the catalogue calls cheap: a leaf over atoms."""
        return self.leaf(src, tgt, cheap=True)

    def noncheap_map(self, src: Type, tgt: Type) -> Term:
        k = self.c.int(0, 3)
        if k == 0 and src == tgt:
            return L.Scale(self.noncheap_float(), src)
        if k == 1:
            return L.Transpose(self.lmap(tgt, src, 1))
        if k == 2:
            return L.Compose(self.lmap(src, tgt, 1), L.One(src))
        return L.Plus(self.lmap(src, tgt, 1), self.lmap(src, tgt, 1))

    # ---------------------------------------------------------------- tangents

    def tangent_var(self, t: Type, zero_ok: bool = True) -> Term:
        """A variable bound to a tangent value of t: dense, or (sparse mode) possibly the
        symbolic zero (not at the top when zero_ok is False) or a OneHot."""
        if self.sparse and self.c.coin(0.75):
            value = self.sparse_value(t)
            while value is ZERO and not zero_ok:
                value = self.sparse_value(t)
            return self.fresh("z", t, value)
        return self.fresh("d", t, self.dense_value(t))

    def dense(self) -> "_Dense":
        """with g.dense(): ... -- no symbolic zeros or sparse values (operands of primal
        primitives such as mul or a projection, which need a value)."""
        return _Dense(self)

    def cheap_tangent(self, t: Type) -> Term:
        k = self.c.int(0, 4)
        if self.sparse and k == 4:
            return zero_tangent(t)
        if k == 1 and t in (Float, VF):
            return Const(self.c.real(), Float) if t == Float else Const(self.vec(), VF)
        if k == 2:  # a projection of a tuple variable
            holder = TupleT((self.space(0), t) if self.c.coin() else (t,))
            return Get(len(holder.items) - 1, self.tangent_var(holder, zero_ok=False))
        if k == 3 and isinstance(t, TupleT):  # a tuple of cheap terms is cheap
            return Tuple(tuple(self.cheap_tangent(s) for s in t.items))
        return self.tangent_var(t)

    def noncheap_tangent(self, t: Type, depth: int = 1) -> Term:
        opts = ["tadd", "tscale"]
        if isinstance(t, TupleT):
            opts.append("tuple")
        if t == Float and self.primal_ops:
            opts += ["mul", "index"]
        if self.applies and depth > 0:
            opts += ["apply", "applyr"]
        if self.sparse:
            opts += ["apply-zero"] + (["update"] if t == VF else [])
        if self.zero_ops and t == Float:
            opts.append("mul-zero")
        kind = self.c.pick(opts)
        sub = lambda s: self.tangent(s, depth - 1)  # noqa: E731
        if kind == "tadd":
            return prim("tadd", sub(t), sub(t))
        if kind == "tscale":
            return prim("tscale", self.coef(), sub(t))
        if kind == "tuple":
            return Tuple(tuple(sub(s) for s in t.items))
        if kind == "mul":
            with self.dense():
                return prim("mul", self.coef(), sub(t))
        if kind == "index":
            return prim("index", self.index_term(), sub(VF))
        if kind == "apply":
            s = self.space(0)
            return Apply(self.lmap(s, t, 1), sub(s))
        if kind == "applyr":
            s = self.space(0)
            return ApplyR(sub(s), self.lmap(t, s, 1))
        if kind == "apply-zero":
            s = self.space(0)
            return Apply(L.Zero(s, t), sub(s))
        if kind == "update":
            return prim("update", self.index_term(), sub(Float), self.size_term())
        if kind == "mul-zero":  # left sides of mul-zero-tangent and add-zero-tangent
            return prim(self.c.pick(["mul", "add"]), self.coef(), zero_tangent(Float))
        raise AssertionError(kind)

    def tangent(self, t: Type, depth: int = 1, cheap: bool = False) -> Term:
        if cheap or depth <= 0 or self.c.coin(0.5):
            return self.cheap_tangent(t)
        return self.noncheap_tangent(t, depth)


class _Dense:
    def __init__(self, g: Gen):
        self.g = g

    def __enter__(self):
        self.saved = self.g.sparse
        self.g.sparse = False

    def __exit__(self, *exc):
        self.g.sparse = self.saved


# ================================================================ meaning

def template(t: Type, n: int) -> Any:
    """A primal value of type t laid out as the tangent layout expects (Vec Float has size n)."""
    if t == Float:
        return 0.0
    if t == Int:
        return 0
    if t == Bool:
        return False
    if isinstance(t, TupleT):
        return tuple(template(s, n) for s in t.items)
    if isinstance(t, Vec) and t.elem in (Float, Int, Bool) or t == Vec(VF):
        shape = (n,) if t.elem != VF else (n, n)
        return np.zeros(shape, dtype=np.float64 if t.elem in (Float, VF) else np.int64)
    raise AssertionError(f"no template for {t}")


def _densify(v: Any) -> Any:
    if isinstance(v, OneHot):
        inner = _densify(v.value)
        if inner is ZERO:
            return ZERO  # update(i, 0, n): all zeros (the zero's shape is not known here)
        inner = np.asarray(inner, dtype=np.float64)
        out = np.zeros((v.n,) + inner.shape)
        out[v.i] = inner
        return out
    if isinstance(v, tuple):
        return tuple(_densify(x) for x in v)
    if isinstance(v, list):
        return [_densify(x) for x in v]
    return v


def _is_zero_value(v: Any) -> bool:
    if v is ZERO:
        return True
    if isinstance(v, tuple) or isinstance(v, list):
        return all(_is_zero_value(x) for x in v)
    if isinstance(v, L.LM):
        return False
    return bool(np.all(np.asarray(v) == 0))


def assert_same_value(a: Any, b: Any, t: Type, n: int, what: str = "value") -> None:
    """a and b (values of type t) are equal: ZERO reads as zeros, OneHot densified,
    linear maps compared by their matrices, Int and Bool exactly."""
    a, b = _densify(a), _densify(b)
    if a is ZERO or b is ZERO:
        other = b if a is ZERO else a
        assert _is_zero_value(other), f"{what}: symbolic zero vs non-zero {other!r}"
        return
    if isinstance(t, LinMap):
        src, tgt = template(t.src, n), template(t.tgt, n)
        np.testing.assert_allclose(to_matrix(a, src, tgt), to_matrix(b, src, tgt), rtol=1e-7, atol=1e-9,
                                   err_msg=what)
        return
    if isinstance(t, TupleT):
        assert isinstance(a, tuple) and isinstance(b, tuple) and len(a) == len(b) == len(t.items), \
            f"{what}: {a!r} vs {b!r}"
        for k, (x, y, s) in enumerate(zip(a, b, t.items)):
            assert_same_value(x, y, s, n, f"{what}[{k}]")
        return
    if isinstance(a, list) or isinstance(b, list):
        assert len(a) == len(b), f"{what}: {a!r} vs {b!r}"
        for k, (x, y) in enumerate(zip(a, b)):
            assert_same_value(x, y, t.elem, n, f"{what}[{k}]")
        return
    if t in (Int, Bool):
        kinds = (bool, np.bool_) if t == Bool else (int, np.integer)
        for v in (a, b):
            assert isinstance(v, kinds) and (t == Bool or not isinstance(v, (bool, np.bool_))), \
                f"{what}: a term of type {t} evaluated to {v!r} ({type(v).__name__})"
        assert a == b, f"{what}: {a!r} vs {b!r}"
        return
    if t == Float:
        assert isinstance(a, (float, np.floating)) and isinstance(b, (float, np.floating)), \
            f"{what}: a Float-typed term evaluated to {a!r} and {b!r}"
    aa, bb = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    assert aa.shape == bb.shape, f"{what}: shapes {aa.shape} vs {bb.shape}"
    np.testing.assert_allclose(aa, bb, rtol=1e-7, atol=1e-9, err_msg=what)


def meaning(t: Term, env: dict) -> Any:
    return eval_term(t, env)


def assert_same_meaning(t: Term, u: Term, env: dict, n: int) -> None:
    assert t.type == u.type, f"types differ: {t.type} vs {u.type}"
    assert_same_value(meaning(t, env), meaning(u, env), t.type, n, f"{t}  vs  {u}")


def is_linear_map_value_type(t: Type) -> bool:
    return isinstance(t, LinMap)


# ================================================================ mixed terms (engine tests)

def arith(g: Gen, depth: int = 2) -> Term:
    """A Float term of scalar arithmetic over constants (often 0 and 1) and variables."""
    c = g.c
    k = c.int(0, 9 if depth > 0 else 2)
    if k == 0:
        return Const(c.pick(SPECIAL), Float)
    if k == 1:
        return Const(c.real(), Float)
    if k == 2:
        return g.atom_float()
    sub = lambda: arith(g, depth - 1)  # noqa: E731
    if k == 3:
        return prim(c.pick(["add", "sub", "mul"]), sub(), sub())
    if k == 4:
        return prim("div", sub(), Const(c.pick([1.0, 2.0, -0.5]), Float) if c.coin() else sub())
    if k == 5:
        fn = c.pick(["neg", "sin", "exp", "tanh", "cos", "neg-neg"])
        return prim("neg", prim("neg", sub())) if fn == "neg-neg" else prim(fn, sub())
    if k == 6:  # an element of a build
        j = g.fresh("i", Int, bind=False)
        body = prim("mul", prim("to_float", j), sub())
        return prim("index", g.index_term(), Build(g.size_term(), j, body))
    if k == 7:
        j = g.fresh("i", Int, bind=False)
        return prim("to_float", prim("size", Build(g.size_term(), j, sub())))
    if k == 8:
        return If(prim(c.pick(["lt", "ge"]), sub(), sub()), sub(), sub())
    x = g.fresh("x", Float, bind=False)
    g.locals.append(x)
    try:
        body = sub()
    finally:
        g.locals.pop()
    return Let(x, sub(), body)


def mixed(g: Gen, depth: int = 2) -> Term:
    """A random term mixing linear maps, their application, tangent algebra and arithmetic."""
    c = g.c
    k = c.int(0, 7)
    if k == 0:
        return arith(g, depth)
    if k == 1:
        s, t = g.space(), g.space()
        m = g.lmap(s, t, depth + 1)
        return L.Transpose(m) if c.coin() else m
    if k in (2, 3):
        s, t = g.space(), g.space()
        m = g.lmap(s, t, depth + 1)
        if c.coin(0.3):
            m = L.Transpose(g.lmap(t, s, depth + 1))
        return Apply(m, g.tangent(s, 1))
    if k in (4, 5):
        s, t = g.space(), g.space()
        m = g.lmap(s, t, depth + 1)
        if c.coin(0.3):
            m = L.Transpose(g.lmap(t, s, depth + 1))
        return ApplyR(g.tangent(t, 1), m)
    if k == 6:  # tangent algebra
        t = g.space()
        return g.noncheap_tangent(t, depth)
    # projections of tuples, ifs and lets around any of the above
    items = tuple(mixed(g, depth - 1) if depth > 0 else arith(g, 0) for _ in range(c.int(1, 3)))
    j = c.int(0, len(items) - 1)
    form = c.int(0, 2)
    if form == 0:
        return Get(j, Tuple(items))
    if form == 1:
        other = Tuple(tuple(mixed_like(g, x) for x in items))
        return Get(j, If(g.cond(), Tuple(items), other))
    x = g.fresh("x", Float, bind=False)
    g.locals.append(x)
    try:
        used = Tuple(items + (arith(g, 1),)) if c.coin() else Tuple(items)
    finally:
        g.locals.pop()
    return Get(j, Let(x, arith(g, 1), used))


def mixed_like(g: Gen, t: Term) -> Term:
    """Another term of t's type (for the other branch of an if)."""
    ty = t.type
    if isinstance(ty, LinMap):
        return g.lmap(ty.src, ty.tgt, 1)
    if ty == Float and g.c.coin():
        return arith(g, 1)
    if ty in (Float, VF) or isinstance(ty, TupleT) and all(s in (Float, VF) for s in ty.items):
        return g.tangent(ty, 1)
    return t


# ================================================================ lmFold instances (notes Fig. 13)

def _first_float(x: Term) -> Term:
    """A Float read from a value of type Float, Vec Float, Vec (Vec Float) or a tuple of these."""
    t = x.type
    if t == Float:
        return x
    if isinstance(t, TupleT):
        return _first_float(Get(0, x))
    return _first_float(prim("index", Const(0, Int), x))


def _step_value(g: Gen, t: Var, a: Type, acc: Term, summary: Term) -> Term:
    """One step of a fold: a value of type a from the accumulator and a Float summary of t."""
    if a == Float:
        return prim("tanh", prim("add", prim("mul", acc, g.coef(cheap=True)), summary))
    if a == VF:
        i = g.fresh("i", Int, bind=False)
        return Build(Const(g.n, Int), i, _step_value(g, t, Float, prim("index", i, acc), summary))
    return Tuple(tuple(_step_value(g, t, s, Get(k, acc), summary) for k, s in enumerate(a.items)))


def lmscan(g: Gen) -> Term:
    """A random lmScan (\\t. e') S v : (s, (a, Vec b)) -o Vec a. Its meaning reads the accumulators
    S and the step maps e' only (not the body that made S), so the laws of fwd-scan and rev-scan
    hold for any S of size(v) + 1 accumulators: S is random, e' as lmfold's."""
    a = g.c.pick([Float, VF, TupleT((Float, VF))])
    b = g.c.pick([Float, VF])
    s = TupleT(tuple(g.c.pick([Float, VF]) for _ in range(g.c.int(0, 2))))
    for x in s.items:
        g.fresh("e", x, g.dense_value(x))
    step = TupleT((a, b))
    t = g.fresh("t", step, bind=False)
    summary = prim("tanh", prim("add", _first_float(Get(0, t)), _first_float(Get(1, t))))
    src = TupleT((s, step))
    d = g.fresh("Dm", LinMap(src, a), bind=False)
    m = g.lmap(src, a, 1) if s.items else L.HCat((L.Zero(s, a), g.lmap(step, a, 1)))
    de = Let(d, m, L.Compose(L.Scale(summary, a), d))
    v = g.fresh("v", Vec(b), g.dense_value(Vec(b))[:g.n - 1])  # n - 1 steps: the n accumulators are a vector
    states = [g.dense_value(a) for _ in range(g.n)]
    S = g.fresh("S", Vec(a), np.array(states) if not isinstance(a, TupleT) else states)
    return L.LMScan(S, v, t, de)


def lmfold(g: Gen) -> Term:
    """A random lmFold (\\t. e) (\\t. e') acc v : (s, (a, Vec b)) -o a. The law of fwd-fold and
    rev-fold holds for any family of step maps e', so e' is a random map from (s, (a, b)) whose
    coefficients read t (a let-bound map scaled by a function of t, as AD's e' binds its maps)
    and the variables of s, which are bound in g.env."""
    a = g.c.pick([Float, VF, TupleT((Float, VF))])
    b = g.c.pick([Float, VF])
    s = TupleT(tuple(g.c.pick([Float, VF]) for _ in range(g.c.int(0, 2))))
    for x in s.items:  # the environment's primal values, read by the body
        g.fresh("e", x, g.dense_value(x))
    step = TupleT((a, b))
    t = g.fresh("t", step, bind=False)
    summary = prim("tanh", prim("add", _first_float(Get(0, t)), _first_float(Get(1, t))))
    e = _step_value(g, t, a, Get(0, t), summary)
    src = TupleT((s, step))
    d = g.fresh("Dm", LinMap(src, a), bind=False)
    m = g.lmap(src, a, 1) if s.items else L.HCat((L.Zero(s, a), g.lmap(step, a, 1)))  # lmap needs a non-empty s
    de = Let(d, m, L.Compose(L.Scale(summary, a), d))
    acc = g.fresh("acc", a, g.dense_value(a))
    v = g.fresh("v", Vec(b), g.dense_value(Vec(b)))
    return L.LMFold(acc, v, t, e, de)
