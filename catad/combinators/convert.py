"""Conversion between the core language and CL (notes Fig. 10).

``to_cl`` implements C[[e]]Gamma with pruning at every subterm: a subterm is
converted under exactly the variables free in it, reached through a
``Prune[...]`` of the enclosing context (omitted when nothing would be dropped).
Contexts grow at the end (Gamma, x); when a name is shadowed the last occurrence
is the one in scope, so pruning picks it and drops the shadowed one.

Let chains are walked iteratively in both directions so that 10,000-binding
programs convert without RecursionError.
"""
from __future__ import annotations

from ..lang import terms as core
from ..lang.fold import FFold, Fold, RFold, Scan, WhileCount, as_scans
from ..lang.names import FreshNames
from ..lang.terms import free_vars, let_chain, make_lets
from . import terms as cl
from .terms import compose


# ---------------------------------------------------------------- core -> CL

# prune's "nothing dropped", which only ever goes to compose (which drops it): one for all
_KEEP_ALL = cl.Identity()

def to_cl_program(program: core.Program) -> cl.CLProgram:
    return cl.CLProgram(tuple(to_cl_def(d) for d in program.defs), program.entry)


def to_cl_def(d: core.Def) -> cl.CLDef:
    fv_cache: dict = {}
    free_vars(d.body, fv_cache)
    conv = _ToCL(fv_cache, d.body)
    return cl.CLDef(d.name, d.params, conv.convert(d.body, list(d.params)), d.result_type)


class _ToCL:
    def __init__(self, fv_cache: dict, root: core.Term):
        self.fv = fv_cache
        self.root = root  # keeps the terms whose ids key fv_cache alive
        self.keep: list = []  # and the terms made while converting

    def prune(self, fv: frozenset, ctx: list[core.Var]) -> tuple[cl.CL, list[core.Var]]:
        """(Prune combinator or Identity, pruned context) keeping the in-scope variables of
        `fv` (by name: of positions holding one name, the last is in scope)."""
        if not fv:  # a constant's
            return (cl.Prune((), len(ctx)), []) if ctx else (_KEEP_ALL, ctx)
        keep = [i for i, v in enumerate(ctx) if v in fv]
        if len(keep) != len(fv):  # a name held twice in ctx (most contexts hold each once)
            last = {v.name: i for i, v in enumerate(ctx)}
            keep = sorted(last[v.name] for v in fv)
        if len(keep) == len(ctx):
            return _KEEP_ALL, ctx
        return cl.Prune(tuple(keep), len(ctx)), [ctx[i] for i in keep]

    def convert(self, t: core.Term, ctx: list[core.Var]) -> cl.CL:
        """C[[t]]ctx, pruned."""
        cls = type(t)  # (no class derives from a core term's)
        if cls is core.Const:  # (a leaf of most calls) of ctx nothing is kept
            k = cl.Konst(t.value, t.type)
            return cl.Compose(cl.Prune((), len(ctx)), k) if ctx else k
        if cls is core.Var:  # C[[x]](x) is the identity: the pruning alone
            return self.prune_to(t, ctx)
        p, pctx = self.prune(self.fv[id(t)], ctx)
        return compose(p, self.pruned(t, pctx))

    def prune_to(self, x: core.Var, ctx: list[core.Var]) -> cl.CL:
        """prune's combinator for {x} (Identity for all of ctx), its variables compared with x
        by name and type (a Var's ==) rather than each hashed for a look-up in a set."""
        name, ty = x.name, x.type
        keep = [i for i, v in enumerate(ctx) if v.name == name and v.type is ty]
        if len(keep) != 1:  # a name held twice in ctx
            keep = [{v.name: i for i, v in enumerate(ctx)}[name]]
        return cl.Identity() if len(ctx) == 1 else cl.Prune(tuple(keep), len(ctx))

    def pruned(self, t: core.Term, ctx: list[core.Var]) -> cl.CL:
        """C[[t]]ctx where ctx holds exactly the free variables of t."""
        cls = type(t)
        if cls is core.Call:
            return compose(self.arguments(t.args, ctx), cl.Call(t.fn, len(t.args), t.type))
        if cls is core.Let:
            return self.let_chain(t, ctx)
        if cls is core.Var:
            return cl.Identity()
        if cls is core.Const:
            return cl.Konst(t.value, t.type)
        if cls is core.Tuple:
            return cl.Tuple(tuple([self.convert(x, ctx) for x in t.items]))
        if cls is core.Get:
            return compose(self.convert(t.tup, ctx), cl.Proj(t.index, len(t.tup.type.items)))
        if cls is core.If:
            return cl.If(self.convert(t.cond, ctx), self.convert(t.then, ctx), self.convert(t.orelse, ctx))
        if cls is core.Build:
            return cl.Build(self.convert(t.size, ctx), t.var, self.convert(t.body, ctx + [t.var]), len(ctx),
                            t.body.type)
        if isinstance(t, (Fold, Scan)):
            make = cl.Fold if isinstance(t, Fold) else cl.Scan
            return make(self.convert(t.acc, ctx), self.convert(t.vec, ctx), t.var,
                        self.convert(t.body, ctx + [t.var]), len(ctx))
        if isinstance(t, (FFold, RFold)):  # a derivative program differentiated again (issue 17)
            plain = as_scans(t)
            free_vars(plain, self.fv)
            self.keep.append(plain)  # its terms' ids key fv
            return self.pruned(plain, ctx)
        if isinstance(t, WhileCount):  # both lambdas take the step at the same context position
            return cl.WhileCount(self.convert(t.acc, ctx), t.var, self.convert(t.cond, ctx + [t.cvar]),
                                 self.convert(t.body, ctx + [t.var]), len(ctx))
        raise TypeError(f"not a core term: {type(t).__name__}")

    def arguments(self, args: tuple[core.Term, ...], ctx: list[core.Var]) -> cl.CL:
        if len(args) == 1:
            return self.convert(args[0], ctx)
        return cl.Tuple(tuple([self.convert(a, ctx) for a in args]))

    def let_chain(self, t: core.Let, ctx: list[core.Var]) -> cl.CL:
        lets, body = let_chain(t)
        # walk down: the pruned context and the pruning of each let body
        frames = []
        for lt in lets:
            rhs = self.convert(lt.rhs, ctx)
            p, body_ctx = self.prune(self.fv[id(lt.body)], ctx + [lt.var])
            frames.append((lt.var, rhs, p, len(ctx)))
            ctx = body_ctx
        out = self.pruned(body, ctx)
        for var, rhs, p, n in reversed(frames):
            out = cl.Let(var, rhs, compose(p, out), n)
        return out


# ---------------------------------------------------------------- CL -> core

def from_cl_program(program: cl.CLProgram) -> core.Program:
    return core.Program(tuple(from_cl_def(d) for d in program.defs), program.entry)


def from_cl_def(d: cl.CLDef) -> core.Def:
    conv = _FromCL({p.name for p in d.params})
    return core.Def(d.name, d.params, conv.convert(d.body, list(d.params)))


class _FromCL:
    """t <> c read as a term: the input is a list of terms, one per context position,
    each an atom or a projection of one, so copying them duplicates no work."""

    def __init__(self, taken: set[str]):
        self.names = FreshNames(taken)

    def fresh(self, var: core.Var) -> core.Var:
        return self.names.rename(var)

    def convert(self, c: cl.CL, ctx: list[core.Term]) -> core.Term:
        bindings: list[tuple[core.Var, core.Term]] = []
        while True:  # Let bodies and the second half of a Compose are tail positions
            if isinstance(c, cl.Let):
                x = self.fresh(c.var)
                bindings.append((x, self.convert(c.rhs, ctx)))
                ctx, c = ctx + [x], c.body
            elif isinstance(c, cl.Compose):
                value = self.convert(c.first, ctx)
                ctx, c = self.split(value, c.second, bindings), c.second
            else:
                return make_lets(bindings, self.leaf(c, ctx))

    def split(self, value: core.Term, consumer: cl.CL, bindings: list) -> list[core.Term]:
        """The context positions `consumer` reads, from the term `value`, binding compound
        parts to variables unless the consumer reads its input exactly once."""
        if isinstance(consumer, (cl.Call, cl.Proj)) and (consumer.n if isinstance(consumer, cl.Proj)
                                                         else consumer.nargs) == 1:
            return [value]
        n = input_arity(consumer)
        if n is None or n == 1:
            return [self.atom(value, bindings)]
        if isinstance(value, core.Tuple) and len(value.items) == n:
            return [self.atom(x, bindings) for x in value.items]
        value = self.atom(value, bindings)
        return [core.Get(i, value) for i in range(n)]

    def atom(self, value: core.Term, bindings: list) -> core.Term:
        if core.is_atom(value):
            return value
        x = self.fresh(core.Var("c", value.type))
        bindings.append((x, value))
        return x

    def leaf(self, c: cl.CL, ctx: list[core.Term]) -> core.Term:
        if isinstance(c, cl.Identity):
            return _tuple(ctx)
        if isinstance(c, cl.Konst):
            return core.Const(c.value, c.ty)
        if isinstance(c, cl.Prune):
            return _tuple([ctx[i] for i in c.indices])
        if isinstance(c, cl.Proj):
            value = _tuple(ctx)
            if isinstance(value, core.Tuple):
                return value.items[c.index]
            return core.Get(c.index, value)
        if isinstance(c, cl.Call):
            args = ctx if c.nargs != 1 else [_tuple(ctx)]
            if c.nargs >= 2 and len(args) != c.nargs:
                args = [core.Get(i, _tuple(ctx)) for i in range(c.nargs)]
            return core.Call(c.fn, tuple(args), c.ty)
        if isinstance(c, cl.Tuple):
            return core.Tuple(tuple(self.convert(x, ctx) for x in c.items))
        if isinstance(c, cl.If):
            return core.If(self.convert(c.cond, ctx), self.convert(c.then, ctx), self.convert(c.orelse, ctx))
        if isinstance(c, cl.Build):
            i = self.fresh(c.var)
            return core.Build(self.convert(c.size, ctx), i, self.convert(c.body, ctx + [i]))
        if isinstance(c, (cl.Fold, cl.Scan)):
            t = self.fresh(c.var)
            make = Fold if isinstance(c, cl.Fold) else Scan
            return make(self.convert(c.acc, ctx), self.convert(c.vec, ctx), t, self.convert(c.body, ctx + [t]))
        if isinstance(c, cl.WhileCount):
            tc, t = self.fresh(c.var), self.fresh(c.var)
            return WhileCount(self.convert(c.acc, ctx), tc, self.convert(c.cond, ctx + [tc]), t,
                              self.convert(c.body, ctx + [t]))
        raise TypeError(f"not a CL term: {type(c).__name__}")


def _tuple(items: list[core.Term]) -> core.Term:
    return items[0] if len(items) == 1 else core.Tuple(tuple(items))


def input_arity(c: cl.CL) -> int | None:
    """How many context positions c reads its input as (None: it takes it whole)."""
    return _reads(c)[0]


_POSITIONAL = (cl.Prune, cl.Let, cl.Build, cl.Fold, cl.Scan, cl.WhileCount)


def _reads(c: cl.CL) -> tuple[int | None, bool]:
    """(input_arity, whether c needs exactly that many positions): a let, a prune, a build or a
    loop index their positions; a projection or a call reads its n positions or one holding
    their tuple alike, so where the items of a tuple (the branches of an if) disagree, those
    that need their number of positions say it (`(pi_1, L(x, pi_3, ...))` of a 3-tuple read
    as three positions gave the let's body the wrong ones)."""
    while True:
        if isinstance(c, _POSITIONAL):
            return c.n, True
        if isinstance(c, cl.Call):
            return (c.nargs if c.nargs != 1 else 1), False
        if isinstance(c, cl.Proj):
            return c.n, False
        if isinstance(c, cl.Compose):
            c = c.first
        elif isinstance(c, (cl.Tuple, cl.If)):
            reads = [r for r in (_reads(x) for x in c.children()) if r[0] is not None]
            needed = [r for r in reads if r[1]]
            return (needed or reads or [(None, False)])[0]
        else:
            return None, False


__all__ = ["to_cl_program", "to_cl_def", "from_cl_program", "from_cl_def", "input_arity"]
