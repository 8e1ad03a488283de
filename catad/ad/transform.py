"""AD of CL in tupled form (notes Fig. 7-8, Section 5.3).

For each definition ``f : S => T = c`` we produce the core definition

    D$f(params) = (t, dt)     where dt : S -o T

computing the primal result and the full Jacobian together, so no primal
sub-computation is repeated. A CL term is differentiated under a *context*: for each
position of its input, a primal atom and the linear map ``A -o s_i`` from the
function's input tangent space A (notes Fig. 8: the polymorphic source a). Results
are let-bound as they are produced (``let y = ...; let Dy = lmCompose(...)``), so
every linear map that is used twice is one shared value: evaluation keeps the
sharing and the reverse pass stays linear (docs/design.md invariant 1).

Int and Bool values carry no tangent: their maps are ``lmZero``.
"""
from __future__ import annotations

from ..combinators import terms as cl
from ..combinators.convert import _FromCL, input_arity
from ..combinators.typing import def_input_type
from ..lang import terms as core
from ..lang.fold import Fold, Scan, WhileCount
from ..lang.names import FreshNames
from ..lang.inline import renamed_apart
from ..lang.terms import Build, Call, Const, Def, Get, If, Let, Program, Term, Tuple, Var, make_lets
from ..lang.types import Float, Int, Tuple as TupleT, Type, Unit, is_differentiable
from ..linearmaps import terms as L
from ..primitives import prim
from .rules import jacobian_of_call

JAC_PREFIX = "D$"


def jacobian_name(fn: str) -> str:
    return JAC_PREFIX + fn


def jacobian_program(program: cl.CLProgram, names: dict | None = None) -> Program:
    """D$f for every definition f of a CL program (callees first, like the input). `names`,
    when given, gets for each D$f the set of names its AD handed out: every name of D$f is
    one, but those rewriting makes later (catalogue.fresh_index's i0, i1, ...; names with a
    '$'), so a later pass can take fresh names from it without a walk of D$f
    (catad.rewrite.sweeps.sweep_names)."""
    defs: dict[str, Def] = {}
    out = []
    for d in program.defs:
        ad = _AD(d, defs)
        jd = ad.run()
        defs[d.name] = jd
        out.append(jd)
        if names is not None:
            names[jd.name] = ad.names.taken
    return Program(tuple(out), jacobian_name(program.entry))


Ctx = list[tuple[Term, Term]]  # (primal atom, its linear map A -o type)


class _AD:
    def __init__(self, d: cl.CLDef, done: dict[str, Def]):
        self.d = d
        self.done = done
        self.src = def_input_type(d)
        self.names = FreshNames(p.name for p in d.params)
        # per let chain being made (by the id of its list of bindings, kept beside it): the
        # values bound there -> their variables (see bind)
        self.bound: dict[int, tuple[list, dict]] = {}

    # ------------------------------------------------------------ names and bindings
    def fresh(self, base: str, ty: Type) -> Var:
        return Var(self.names.name(base), ty)  # (names.var(base, ty), a call fewer: asked per binding)

    def bind(self, out: list, base: str, value: Term) -> Term:
        """value bound to a fresh variable in `out` (an atom, 0 or 1 as it is), or the variable
        a call equal to it is bound to in that chain already: a subterm read twice (the fused
        element x[i] * 0.5 + sin(x[i]) reads x[i] twice) makes one primal and one map, so its
        cotangents are summed before they are pushed on (terms are pure: the same value)."""
        cls = type(value)  # (no class derives from these)
        if cls is Var or cls is Const or cls is L.Zero or cls is L.One:
            return value
        if cls is not Call:  # only calls are looked up: a larger value's hash would
            v = self.fresh(base, value.type)  # cost more than the rare repeat saves
            out.append((v, value))
            return v
        scope = self.bound.get(id(out))
        if scope is None or scope[0] is not out:
            scope = self.bound[id(out)] = (out, {})
        key = (value.fn, value.args)  # a call's type is its function's of its arguments'
        known = scope[1].get(key)
        if known is not None:
            return known
        v = self.fresh(base, value.type)
        out.append((v, value))
        scope[1][key] = v
        return v

    def zero(self, t: Type) -> L.Zero:
        return L.Zero(self.src, t)

    # ------------------------------------------------------------ the definition
    def run(self) -> Def:
        params = list(self.d.params)
        out: list = []
        ctx: Ctx = []
        for k, p in enumerate(params):
            ctx.append((p, self.bind(out, "D" + p.name, self.select(k, len(params), p.type))))
        t, dt = self.diff(self.d.body, ctx, out)
        body = make_lets(out, Tuple((t, dt)))
        return Def(jacobian_name(self.d.name), tuple(params), body)

    def select(self, k: int, n: int, t: Type) -> Term:
        """The map from the input tangent space to that of parameter k (1 when it is all)."""
        if not is_differentiable(t):
            return self.zero(t)
        if n == 1:
            return L.One(t)
        items = self.src.items
        return L.HCat(tuple(L.One(s) if j == k else L.Zero(s, t) for j, s in enumerate(items)))

    # ------------------------------------------------------------ combinators
    def diff(self, c: cl.CL, ctx: Ctx, out: list) -> tuple[Term, Term]:
        """(t, dt) for c applied to the context; bindings are appended to `out`."""
        while True:  # let bodies and second halves of compositions are tail positions
            kind = type(c)  # (CL's classes have no subclasses)
            if kind is cl.Let:
                t, dt = self.diff(c.rhs, ctx, out)
                x = self.bind_named(out, c.var, t)
                ctx, c = ctx + [(x, self.bind(out, "D" + x.name, dt))], c.body
            elif kind is not cl.Compose:
                return self.leaf(c, ctx, out)
            elif type(c.first) is cl.Prune:
                ctx, c = [ctx[i] for i in c.first.indices], c.second
            elif type(c.first) is cl.Tuple and len(c.first.items) == input_arity(c.second) != 1:
                # (a, b) ; f, an operation's operands: split's bindings of the tuple's parts
                # (theirs, then their maps'), without the tuple and vcat split would take apart
                parts = [self.diff(x, ctx, out) for x in c.first.items]
                ts = [self.bind(out, "c", t) for t, _ in parts]
                ctx, c = list(zip(ts, [self.bind(out, "Dc", dt) for _, dt in parts])), c.second
            else:
                t, dt = self.diff(c.first, ctx, out)
                ctx, c = self.split(t, dt, input_arity(c.second), out), c.second

    def bind_named(self, out: list, var: Var, value: Term) -> Term:
        v = self.fresh(var.name, var.type)
        out.append((v, value))
        return v

    def split(self, t: Term, dt: Term, n: int | None, out: list) -> Ctx:
        if n is None or n == 1:
            return [(self.bind(out, "c", t), self.bind(out, "Dc", dt))]
        if isinstance(t, Tuple) and len(t.items) == n:
            ts = [self.bind(out, "c", x) for x in t.items]
        else:
            whole = self.bind(out, "c", t)
            ts = [Get(i, whole) for i in range(n)]
        if isinstance(dt, L.VCat) and len(dt.items) == n:
            dts = [self.bind(out, "Dc", m) for m in dt.items]
        else:
            whole_dt = self.bind(out, "Dc", dt)
            dts = [self.bind(out, "Dc", self.project(whole_dt, i)) for i in range(n)]
        return list(zip(ts, dts))

    def project(self, dt: Term, i: int) -> Term:
        """pi_i o dt, the map to component i of a tuple-valued map's target."""
        items = dt.type.tgt.items
        if isinstance(dt, L.Zero):
            return self.zero(items[i])
        sel = L.HCat(tuple(L.One(s) if j == i else L.Zero(s, items[i]) for j, s in enumerate(items)))
        return L.Compose(sel, dt)

    def whole(self, ctx: Ctx) -> tuple[Term, Term]:
        if len(ctx) == 1:
            return ctx[0]
        if not ctx:
            return Tuple(()), self.zero(Unit)
        return Tuple(tuple(s for s, _ in ctx)), L.VCat(tuple(d for _, d in ctx))

    def leaf(self, c: cl.CL, ctx: Ctx, out: list) -> tuple[Term, Term]:
        kind = type(c)  # (CL's classes have no subclasses)
        if kind is cl.Call:  # (most leaves)
            args = ctx if c.nargs != 1 else [self.whole(ctx)]
            return self.call(c, args, out)
        if kind is cl.Identity:
            return self.whole(ctx)
        if kind is cl.Konst:
            return Const(c.value, c.ty), self.zero(c.ty)
        if kind is cl.Prune:
            return self.whole([ctx[i] for i in c.indices])
        if kind is cl.Proj:
            t, dt = self.whole(ctx)
            if isinstance(t, Tuple):
                return t.items[c.index], dt.items[c.index] if isinstance(dt, L.VCat) else self.project(dt, c.index)
            return Get(c.index, t), self.project(dt, c.index)
        if kind is cl.Tuple:
            parts = [self.diff(x, ctx, out) for x in c.items]
            return Tuple(tuple(t for t, _ in parts)), L.VCat(tuple(d for _, d in parts)) if parts else self.zero(Unit)
        if kind is cl.If:
            cond, _ = self.diff(c.cond, ctx, out)
            branches = []
            for b in (c.then, c.orelse):
                inner: list = []
                t, dt = self.diff(b, ctx, inner)
                branches.append(make_lets(inner, Tuple((t, dt))))
            r = self.bind(out, "br", If(cond, branches[0], branches[1]))
            return Get(0, r), Get(1, r)
        if kind is cl.Build:
            return self.build(c, ctx, out)
        if kind is cl.Fold:
            return self.fold(c, ctx, out)
        if kind is cl.Scan:
            return self.scan(c, ctx, out)
        if kind is cl.WhileCount:
            return self.while_count(c, ctx, out)
        raise TypeError(f"not a CL term: {type(c).__name__}")

    def build(self, c: cl.Build, ctx: Ctx, out: list) -> tuple[Term, Term]:
        size, _ = self.diff(c.size, ctx, out)
        n = self.bind(out, "n", size)
        i = self.fresh(c.var.name, Int)
        inner: list = []
        t, dt = self.diff(c.body, ctx + [(i, self.zero(Int))], inner)
        pairs = self.bind(out, "p", Build(n, i, make_lets(inner, Tuple((t, dt)))))
        j = self.fresh("j", Int)
        primal = Build(n, j, Get(0, prim("index", j, pairs)))
        maps = Build(n, j, Get(1, prim("index", j, pairs)))
        return primal, L.VCatV(maps)

    def fold(self, c: cl.Fold, ctx: Ctx, out: list) -> tuple[Term, Term]:
        """notes Fig. 13: D fold (\\t. e) acc v = lmFold (\\t. e) (\\t. e') acc v o p, with
        p = 1_s x (D acc x D v) : A -o (s, (a, Vec b)). Here s, the fold's environment, is the
        tuple of the variables its body reads whose maps are not zero (p's first part is
        their maps), so e' : (s, (a, b)) -o a is the body's Jacobian with respect to s and t
        alone, and a cotangent of s is as small as the body's dependence on the outside."""
        acc, dacc, vec, dvec, env, in_s, s, t = self.loop_parts(c, ctx, out)
        primal_body = self.primal(c.body, [x for x, _ in env] + [t])
        dbody = self.step_jacobian(c.body, env, in_s, s, t)
        lmf = L.LMFold(acc, vec, t, primal_body, dbody)
        if not is_differentiable(acc.type):
            return Fold(acc, vec, t, primal_body), self.zero(acc.type)
        ds = L.VCat(tuple(env[k][1] for k in in_s)) if in_s else self.zero(s)
        p = L.VCat((ds, L.VCat((dacc, dvec))))
        return Fold(acc, vec, t, primal_body), L.Compose(lmf, p)

    def scan(self, c: cl.Scan, ctx: Ctx, out: list) -> tuple[Term, Term]:
        """D scan (\\t. e) acc v = lmScan (\\t. e') S v o p, S the scan's value (its accumulators), p
        and e' as for fold: the Jacobian reads the accumulators instead of running the loop again."""
        acc, dacc, vec, dvec, env, in_s, s, t = self.loop_parts(c, ctx, out)
        states = self.bind(out, "S", Scan(acc, vec, t, self.primal(c.body, [x for x, _ in env] + [t])))
        if not is_differentiable(acc.type):
            return states, self.zero(states.type)
        dbody = self.step_jacobian(c.body, env, in_s, s, t)
        ds = L.VCat(tuple(env[k][1] for k in in_s)) if in_s else self.zero(s)
        return states, L.Compose(L.LMScan(states, vec, t, dbody), L.VCat((ds, L.VCat((dacc, dvec)))))

    def loop_parts(self, c: cl.Fold | cl.Scan, ctx: Ctx, out: list):
        """What fold's and scan's Jacobians share: the accumulator and the vector with their maps
        (bound), the context (the variables the body reads bound), in_s (those of them whose maps
        are not zero, in order), their tuple type s, and a fresh variable for the lambda's."""
        acc, dacc = self.diff(c.acc, ctx, out)
        vec, dvec = self.diff(c.vec, ctx, out)
        acc, vec = self.bind(out, "acc", acc), self.bind(out, "v", vec)
        reads = _body_reads(c.body, len(ctx))
        env = [(self.bind(out, "e", x), d) if k in reads else (x, d) for k, (x, d) in enumerate(ctx)]
        in_s = [k for k in sorted(reads) if is_differentiable(env[k][0].type) and not isinstance(env[k][1], L.Zero)]
        s = TupleT(tuple(env[k][0].type for k in in_s))
        t = self.fresh(c.var.name, c.var.type)
        return acc, dacc, vec, dvec, env, in_s, s, t

    def while_count(self, c: cl.WhileCount, ctx: Ctx, out: list) -> tuple[Term, Term]:
        """A while loop's trip count is an Int: its derivative is zero, and the fold over
        range(count) that follows it carries the loop's derivative (notes Fig. 13)."""
        acc, _ = self.diff(c.acc, ctx, out)
        acc = self.bind(out, "acc", acc)
        reads = _body_reads(c.cond, len(ctx)) | _body_reads(c.body, len(ctx))
        env = [self.bind(out, "e", x) if k in reads else x for k, (x, _) in enumerate(ctx)]
        tc, t = self.fresh(c.var.name, c.var.type), self.fresh(c.var.name, c.var.type)
        count = WhileCount(acc, tc, self.primal(c.cond, env + [tc]), t, self.primal(c.body, env + [t]))
        return count, self.zero(Int)

    def primal(self, c: cl.CL, ctx: list[Term]) -> Term:
        """The core term of c applied to ctx (no linear maps: the body of fold's lambda)."""
        conv = _FromCL(set())
        conv.names = self.names  # one supply of names: no binder here shadows one outside
        return conv.convert(c, ctx)

    def step_jacobian(self, body: cl.CL, env: Ctx, in_s: list[int], s: Type, t: Var) -> Term:
        """e' of notes Fig. 13: the body's Jacobian, its maps from (s, (a, b)): variable x_k of
        s is reached by the k-th projection (the notes' D x o (1_s |><| 0)), t by 0 |><| 1."""
        step = t.type
        src = TupleT((s, step))
        outer, self.src = self.src, src
        try:
            inner: list = []
            ctx: Ctx = []
            for k, (x, _) in enumerate(env):
                if k in in_s:
                    j = in_s.index(k)
                    sel = L.HCat(tuple(L.One(y) if i == j else L.Zero(y, x.type) for i, y in enumerate(s.items)))
                    m = L.HCat((sel, L.Zero(step, x.type)))
                else:
                    m = self.zero(x.type)
                ctx.append((x, self.bind(inner, "D" + getattr(x, "name", "e"), m)))
            ctx.append((t, self.bind(inner, "D" + t.name, L.HCat((L.Zero(s, step), L.One(step))))))
            _, dt = self.diff(body, ctx, inner)
            return make_lets(inner, dt)
        finally:
            self.src = outer

    # ------------------------------------------------------------ calls
    def call(self, c: cl.Call, args: Ctx, out: list) -> tuple[Term, Term]:
        xs = tuple([self.bind(out, "a", s) for s, _ in args])
        dxs = [d for _, d in args]
        if c.fn in self.done:
            r = self.bind(out, "r", Call(jacobian_name(c.fn), xs, TupleT((c.ty, self.done[c.fn].body.type.items[1]))))
            d_in = dxs[0] if len(dxs) == 1 else (L.VCat(tuple(dxs)) if dxs else self.zero(Unit))
            return Get(0, r), L.Compose(Get(1, r), d_in)
        primal = Call(c.fn, xs, c.ty)
        if c.ty is not Float and not is_differentiable(c.ty):  # (most calls give a Float)
            return primal, self.zero(c.ty)
        return primal, jacobian_of_call(c.fn, xs, dxs, self.src, lambda base, v: self.bind(out, base, self.apart(v)),
                                        primal.type)

    def apart(self, value: Term) -> Term:
        """A partial derivative's formula with its own lets' names (_d1, _d2, ...: chosen to
        capture none of its arguments, catad.primitives.derivatives) made fresh in this
        program, so that they shadow none of its variables: CSE and the inliner take a name
        for one value in the scope it is bound in (a program's own _d1, the partial of a
        derivative program differentiated again, or the user's variable of that name)."""
        return renamed_apart(value, self.names) if type(value) is Let else value


def _body_reads(body: cl.CL, n: int) -> set[int]:
    """The positions of the context (of n, before the lambda's variable) a fold's body
    reads: those its pruning keeps, all of them when it has none."""
    if isinstance(body, cl.Compose) and isinstance(body.first, cl.Prune):
        return {i for i in body.first.indices if i < n}
    return set(range(n))


__all__ = ["jacobian_program", "jacobian_name"]
