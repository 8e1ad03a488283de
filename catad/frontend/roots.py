"""``scipy.optimize.brentq(f, a, b, args=(), xtol=..., rtol=..., maxiter=..., disp=True)`` with
``f`` a lambda or def written in the compiled function (or a module-level function of the user's).

The value is SciPy's: the ``brentq`` primitive (catad/primitives/roots.py) calls
scipy.optimize.brentq at run time on the user's own function, made again from its source with
the values it reads from the compiled function passed in, so the root is the one Python would
get, and SciPy's errors (``f(a) and f(b) must have different signs``) are SciPy's. The
primitive's derivative is zero; the root's comes from the implicit function theorem (Krantz &
Parks, "The Implicit Function Theorem", 2002, Theorem 1.3.1): at x* with g(x*, t) = 0,

    dx*/dt = -(dg/dt) / (dg/dx)     both partials at (x*, t),

written so that catad's own derivative of g gives it, forward and reverse:

    x = x0 - (g(x0, t) - stop(g(x0, t))) / stop(dg/dx(x0, t))

where x0 is the root (derivative zero) and stop(v) is v with a zero derivative: the fraction is
exactly 0 (x is SciPy's root, bit for bit), and its derivative is -(dg/dt . dt) / (dg/dx), dg/dt
being catad's derivative of g's body at x0 with respect to what it reads. dg/dx is a value of
the program: g's body differentiated in x by forward mode on its core term (``_Forward``: each
scalar primitive's partials from the registry, builds, sums and indexing), so g may compute
with numbers and arrays but not loop (a fold in g is refused). Where dg/dx is 0 (a double
root) the theorem does not apply and the derivative given is 0.

That step is exact for the first derivative only (its slope is held constant). A second Newton
step from it, with its slope differentiated, makes the root exact to the third derivative
(_second_step), so Hessians, hvp and third derivatives through a root are the implicit function's;
the root's marks (implicit_root, catad/primitives/roots.py) count the derivative's order, and
catad.ad.rules refuses the fourth.
"""
from __future__ import annotations

import ast
import copy
import inspect

from ..errors import CatadTypeError
from ..lang.fold import FOLDS
from ..lang.inline import _Renaming
from ..lang.terms import Build, Call, Const, Get, If, Let, Term, Tuple, Var, is_atom, let_chain, make_lets
from ..lang.types import Bool, Float, Int, Site, Tuple as TupleT, Vec, is_differentiable
from ..primitives import PRIMITIVES, prim
from ..primitives.derivatives import partials
from ..primitives.roots import RootSite
from .common import and_
from .freenames import NOT_STATIC
from .shapes import fresh, simple
from .statements import LocalFunction

_NAME = "scipy.optimize.brentq"


def h_brentq(lw, obj, node, args, kwargs):
    """scipy.optimize.brentq(f, a, b, args=(), xtol, rtol, maxiter, disp): SciPy's root of your
    function f, differentiated by the implicit function theorem."""
    names = ("f", "a", "b", "args", "xtol", "rtol", "maxiter", "full_output", "disp")
    from .numpy_arrays import bind_args, static_bool
    p = bind_args(lw, obj, node, args, kwargs, names, 3)
    loc = lw.loc(node)
    if static_bool(lw, p["full_output"], obj, "full_output", False) if "full_output" in p else False:
        lw.fail(p["full_output"], _NAME, "full_output=True returns SciPy's RootResults object, which catad does "
                "not compile", hint="leave full_output out: brentq returns the root")
    disp = static_bool(lw, p["disp"], obj, "disp", True) if "disp" in p else True
    defaults = inspect.signature(obj).parameters
    f, make, closure = _function(lw, p["f"], node)
    lo, hi = (lw.b.to_float(_number(lw, p[k], Float, k), loc) for k in ("a", "b"))
    tol = [lw.b.to_float(_number(lw, p[k], Float, k), loc) if k in p else Const(float(defaults[k].default), Float, loc)
           for k in ("xtol", "rtol")]
    maxiter = _number(lw, p["maxiter"], Int, "maxiter") if "maxiter" in p else Const(defaults["maxiter"].default, Int)
    extra = _extra_args(lw, p.get("args"))
    for name, t in closure.items():
        _check_value(lw, t, repr(name), p["f"])
    for k, t in enumerate(extra):
        _check_value(lw, t, f"args[{k}]", node)
    site = Const(RootSite(make, len(closure), getattr(f, "__name__", "f"), loc, (("disp", disp),)), Site, loc)
    binds: list = []
    values = [lw.b.share_atom(t, binds, loc) for t in [lo, hi, *tol, maxiter, *closure.values(), *extra]]
    x0 = lw.b.share_atom(prim("brentq", site, *values, loc=loc), binds, loc)
    extra_atoms = values[5 + len(closure):]
    g = lw.b.share_atom(_call(lw, f, node, [x0, *extra_atoms]), binds, loc)
    if g.type != Float:
        lw.fail(p["f"], _NAME, f"the function given to brentq returns a {g.type}; catad needs a Float (a root of a "
                "number)", CatadTypeError)
    slope = _Forward(lw, p["f"]).derivative(_call(lw, f, node, [x0, *extra_atoms]), x0)
    c = lw.b.share_atom(prim("stop_gradient", slope, loc=loc), binds, loc)
    d = lw.b.share_atom(prim("sub", g, prim("stop_gradient", g, loc=loc), loc=loc), binds, loc)  # 0, with g's derivative
    zero = Const(0.0, Float, loc)
    ok = and_(prim("ne", c, zero, loc=loc), prim("eq", d, zero, loc=loc))
    return make_lets(binds, If(ok, _second_step(lw, f, node, p["f"], x0, d, c, extra_atoms, loc), x0, loc))


def _second_step(lw, f, node, fnode, x0, d, c, extra, loc) -> Term:
    """The root exact to the third derivative: x1 = x0 - d / c is Newton's step with the slope c
    held constant, exact to the first (the module's docstring); x2 = x1 - (g(x1) - stop(g(x1))) /
    g_x(x1), Newton's step with the slope differentiated, is exact to the third. Why: the root
    x*(t) is a fixed point of N(x, t) = x - g(x, t) / g_x(x, t) with N_x(x*(t), t) = 0 for every t,
    so x1 - x* = O(|dt|^2) gives N(x1, t) - x* = N_x (x1 - x*) + O((x1 - x*)^2) = O(|dt|^4) (Newton's
    quadratic convergence, read on Taylor coefficients: Griewank & Walther 2008, "Evaluating
    Derivatives", Section 15.3). Every value is x0 exactly: d and g(x1) - stop(g(x1)) are 0. The
    result is marked (implicit_root) so that a fourth derivative is refused (catad.ad.rules)."""
    binds: list = []
    x1 = lw.b.share_atom(prim("sub", x0, prim("div", d, c, loc=loc), loc=loc), binds, loc)
    g1 = lw.b.share_atom(_call(lw, f, node, [x1, *extra]), binds, loc)
    slope = lw.b.share_atom(_Forward(lw, fnode).derivative(_call(lw, f, node, [x1, *extra]), x1), binds, loc)
    d1 = lw.b.share_atom(prim("sub", g1, prim("stop_gradient", g1, loc=loc), loc=loc), binds, loc)
    x2 = prim("sub", x1, prim("div", d1, slope, loc=loc), loc=loc)
    return make_lets(binds, prim("implicit_root", x2, loc=loc))


def _number(lw, a, ty, what: str) -> Term:
    t = lw.arg(a)
    if t.type not in ((Int, Float, Bool) if ty == Float else (Int,)):
        lw.fail(a if isinstance(a, ast.AST) else None, _NAME, f"brentq's {what} must be a{'n Int' if ty == Int else ' number'}"
                f", got a {t.type}", CatadTypeError)
    return t


def _extra_args(lw, a) -> list[Term]:
    """brentq's args=: a tuple display or value (one value that is not a tuple is (value,), as SciPy)."""
    if a is None:
        return []
    if isinstance(a, ast.Tuple):
        return [lw.expr(e) for e in a.elts]
    t = lw.arg(a)
    if isinstance(t.type, TupleT) and lw.tree(t) is None:
        return list(t.items) if isinstance(t, Tuple) else [Get(k, t, t.loc) for k in range(len(t.type.items))]
    return [t]


def _check_value(lw, t: Term, name: str, node) -> None:
    """What the user's function receives at run time: numbers, arrays, and tuples of them."""
    ty = t.type
    ok = lambda u: u in (Float, Int, Bool) or isinstance(u, Vec) or isinstance(u, TupleT) and all(ok(x) for x in u.items)
    if not ok(ty) or lw.tree(t) is not None:
        lw.fail(node, _NAME, f"the function given to brentq reads {name}, a {ty if lw.tree(t) is None else 'list or dict'}; "
                "catad passes it numbers, arrays and tuples of them", CatadTypeError)


# ---------------------------------------------------------------- the user's function, twice

def _function(lw, node, call: ast.Call):
    """(the function as the lowerer calls it, the maker of the Python function SciPy calls,
    {name: term} of the values it reads from the compiled function, in the maker's order)."""
    if isinstance(node, ast.Lambda):
        f = lw.local_function(node, None)
    elif isinstance(node, ast.Name) and isinstance(lw.env.get(node.id), LocalFunction):
        f = lw.env[node.id]
    else:
        from .calls import user_function
        obj = lw.static(node) if isinstance(node, (ast.Name, ast.Attribute)) else NOT_STATIC
        fn = user_function(obj) if obj is not NOT_STATIC else None
        if fn is None:
            lw.fail(node, _NAME, "brentq's function must be a lambda, a def written in the function, or a function "
                    "of yours defined at module level", hint="e.g. brentq(lambda x: x ** 3 - a, 0.0, 2.0)")
        return fn, (lambda: fn), {}
    if f.defaults:
        lw.fail(node, _NAME, "a function given to brentq cannot have default values here",
                hint="pass the values by brentq's args=(...)")
    free = _free_names(f)
    closure = {name: f.owner.lookup(name, node) for name in free}
    return f, _maker(lw, f, list(closure)), closure


def _free_names(f: LocalFunction) -> list[str]:
    """The names f reads from the compiled function (its locals and closure), in order: those
    it reads, does not bind itself, and the lowerers of the functions around it bind."""
    node = f.src.node
    own = set(f.src.params) | set(f.src.local_names)
    read = [n.id for n in ast.walk(node.body if isinstance(node, ast.Lambda) else ast.Module(body=node.body,
                                                                                          type_ignores=[]))
            if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load) and n.id not in own]
    out = []
    for name in dict.fromkeys(read):
        lw = f.owner
        while lw is not None:
            if name in lw.env or name in lw.src.local_names or name in lw.fn.__code__.co_freevars:
                out.append(name)
                break
            lw = lw.parent
    return out


def _maker(lw, f: LocalFunction, free: list[str]):
    """A Python function of the values `free` that makes f as Python made it (its source, the
    enclosing function's globals), so that SciPy calls the user's code itself."""
    node = copy.deepcopy(f.src.node)
    if isinstance(node, ast.Lambda):
        made = [ast.Assign(targets=[ast.Name(id="__catad_f", ctx=ast.Store())], value=node)]
        name = "__catad_f"
    else:
        made, name = [node], node.name
    maker = ast.FunctionDef(name="__catad_make", args=ast.arguments(
        posonlyargs=[], args=[ast.arg(arg=n) for n in free], vararg=None, kwonlyargs=[], kw_defaults=[],
        kwarg=None, defaults=[]), body=made + [ast.Return(value=ast.Name(id=name, ctx=ast.Load()))],
        decorator_list=[], returns=None, type_comment=None, type_params=[])
    module = ast.Module(body=[maker], type_ignores=[])
    ast.copy_location(maker, node)
    ast.fix_missing_locations(module)
    ast.increment_lineno(module, f.src.line_offset)
    namespace: dict = {}
    exec(compile(module, f.src.file, "exec"), lw.fn.__globals__, namespace)  # noqa: S102 (the user's own code)
    return namespace["__catad_make"]


def _call(lw, f, node: ast.Call, args: list[Term]) -> Term:
    """f(*args) lowered where brentq is called (a lambda or def: its body; else a call of the
    user's function, inlined where its derivative is taken)."""
    plain = ast.copy_location(ast.Call(func=node.func, args=[], keywords=[]), node)
    if isinstance(f, LocalFunction):
        return lw.call_local(f, plain, list(args))
    return lw.call_user(f, plain, list(args))


# ---------------------------------------------------------------- dg/dx by forward mode

class _Unsupported(Exception):
    pass


class _Forward:
    """Forward-mode differentiation of a core term in one Float variable: the term that
    computes d(term)/d(var) beside the term's own values (its lets are kept, each followed by
    its tangent's). Scalar primitives take their partials from the registry (the partials the
    differentiation stage uses); a build, a sum, an index, max/min and a vector literal map their
    tangents; Ints and Bools have none. Lambdas (folds) are not differentiated here."""

    def __init__(self, lw, node):
        self.lw, self.node = lw, node
        from .loops import _Fresh
        self.renaming = lambda: _Renaming(_Fresh(lw.names))

    def derivative(self, t: Term, x: Var) -> Term:
        t = self._inlined(t)
        try:
            d = self.renaming().term(self.chain(t, {x.name: Const(1.0, Float)}), {})  # every binder its own name
        except _Unsupported as e:
            self.lw.fail(self.node, _NAME, f"catad differentiates brentq's root through the derivative of its function "
                         f"in x, which it computes for numbers, arrays, builds and sums; this function uses {e}",
                         hint="write the function with NumPy calls and arithmetic, without loops")
        return d

    def _inlined(self, t: Term) -> Term:
        """t with the calls of the user's module-level functions replaced by their bodies."""
        defs = {d.name: d for d in self.lw.program.defs}
        from ..lang.inline import _Inliner
        from .loops import _Fresh
        for _ in range(64):
            if not any(isinstance(n, Call) and n.fn in defs for n in _walk(t)):
                return t
            t = _Inliner(defs, _Fresh(self.lw.names)).term(t, {})
        raise _Unsupported("calls nested too deeply")

    def chain(self, t: Term, tan: dict) -> Term:
        """The tangent of t (a Float or an array of them) as a term with t's lets in it."""
        tan = dict(tan)
        lets, body = let_chain(t)
        out: list = []
        for lt in lets:
            p, d = self.value(lt.rhs, tan, out)
            out.append((lt.var, p, lt.loc))
            if d is not None:
                dv = self.lw.b.var(lt.var.type, lt.loc, "_dx")
                out.append((dv, d, lt.loc))
                tan[lt.var.name] = dv
        p, d = self.value(body, tan, out)
        return make_lets(out, d if d is not None else self.zero(p, out))

    def atom(self, t: Term, tan: dict, out: list):
        """(an atom of t's value, its tangent or None), t's computation bound in out."""
        p, d = self.value(t, tan, out)
        if not is_atom(p):
            v = self.lw.b.var(p.type, p.loc, "_fx")
            out.append((v, p, p.loc))
            p = v
        if d is not None and not is_atom(d):
            dv = self.lw.b.var(d.type, d.loc, "_dx")
            out.append((dv, d, d.loc))
            d = dv
        return p, d

    def value(self, t: Term, tan: dict, out: list):
        """(t's value, its tangent or None for zero)."""
        if isinstance(t, Var):
            return t, tan.get(t.name)
        if isinstance(t, Const) or not is_differentiable(t.type):
            return t, None
        if isinstance(t, Let):
            return t, self.branch(t, tan) if self._touches(t, tan) else None
        if isinstance(t, If):
            if not self._touches(t, tan):
                return t, None
            c, _ = self.atom(t.cond, tan, out)  # the condition once, for the value and its tangent
            return If(c, t.then, t.orelse, t.loc), If(c, self.branch(t.then, tan), self.branch(t.orelse, tan), t.loc)
        if isinstance(t, Build):
            if not self._touches(t.body, tan) or not simple(t.size):
                if self._touches(t.body, tan):
                    raise _Unsupported("an array whose length is computed with lets")
                return t, None
            i = self.lw.b.var(Int, t.loc, "_i")
            body = self.renaming().term(t.body, {t.var: i})
            return t, Build(fresh(t.size), i, self.chain(body, tan), t.loc)
        if isinstance(t, Tuple):
            items = [self.atom(x, tan, out) for x in t.items]
            if all(d is None for _, d in items):
                return Tuple(tuple(p for p, _ in items), t.loc), None
            return Tuple(tuple(p for p, _ in items), t.loc), Tuple(tuple(
                d if d is not None else self.zero(p, out) for p, d in items), t.loc)
        if isinstance(t, Get):
            p, d = self.atom(t.tup, tan, out)
            return Get(t.index, p, t.loc), None if d is None else Get(t.index, d, t.loc)
        if isinstance(t, Call):
            return self.call(t, tan, out)
        if isinstance(t, FOLDS):
            raise _Unsupported("a loop")
        raise _Unsupported(f"a {type(t).__name__}")

    def call(self, t: Call, tan: dict, out: list):
        args = [self.atom(a, tan, out) for a in t.args]
        ps, ds = [p for p, _ in args], [d for _, d in args]
        primal = Call(t.fn, tuple(ps), t.ty, t.loc)
        if all(d is None for d in ds):
            return primal, None
        loc = t.loc
        if t.fn == "index":
            return primal, None if ds[1] is None else prim("index", ps[0], ds[1], loc=loc)
        if t.fn == "sum":
            return primal, prim("sum", ds[0], loc=loc)
        if t.fn == "vector":
            return primal, prim("vector", *(d if d is not None else self.zero(p, out) for p, d in args), loc=loc)
        if t.fn in ("vmax", "vmin"):  # the tangent where the first extreme element is (as the Jacobian rule)
            at = prim("argmax" if t.fn == "vmax" else "argmin", ps[0], loc=loc)
            return primal, prim("index", at, ds[0], loc=loc)
        if t.fn == "stop_gradient":
            return primal, None
        if t.fn not in PRIMITIVES or any(isinstance(a.type, (Vec, TupleT)) for a in ps):
            raise _Unsupported(f"the operation {t.fn}")
        try:
            ks = partials(t.fn, tuple(ps))
        except (ValueError, KeyError):
            raise _Unsupported(f"the operation {t.fn}") from None
        total = None
        for k, d in zip(ks, ds):
            if k is None or d is None:
                continue
            term = prim("mul", k, d, loc=loc)
            total = term if total is None else prim("add", total, term, loc=loc)
        return primal, total

    def branch(self, t: Term, tan: dict) -> Term:
        """The tangent of a branch of an if, its lets renamed apart (the branch itself stays where it is)."""
        return self.chain(self.renaming().term(t, {}), tan)

    def zero(self, p: Term, out: list) -> Term:
        """The zero tangent of the value p (an atom): 0.0, or zeros of p's shape."""
        ty = p.type
        if ty == Float:
            return Const(0.0, Float)
        if isinstance(ty, Vec):
            i = self.lw.b.var(Int, p.loc, "_i")
            return Build(prim("size", p), i, self.zero_of(prim("index", i, p), out), p.loc)
        if isinstance(ty, TupleT):
            return Tuple(tuple(self.zero_of(Get(k, p), out) for k in range(len(ty.items))), p.loc)
        raise _Unsupported(f"a value of type {ty}")

    def zero_of(self, t: Term, out: list) -> Term:
        if t.type == Float:
            return Const(0.0, Float)
        if not is_differentiable(t.type) and not isinstance(t.type, (Vec, TupleT)):
            return t
        if isinstance(t.type, Vec):
            i = self.lw.b.var(Int, t.loc, "_i")
            return Build(prim("size", t), i, self.zero_of(prim("index", i, t), out), t.loc)
        return Tuple(tuple(self.zero_of(Get(k, t), out) for k in range(len(t.type.items))), t.loc)

    def _touches(self, t: Term, tan: dict) -> bool:
        return any(isinstance(n, Var) and tan.get(n.name) is not None for n in _walk(t))


def _walk(t: Term):
    from .._node import walk
    return walk(t)
