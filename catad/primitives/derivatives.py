"""Partial derivatives of the scalar primitives, as core terms.

``partials(name, args)`` gives, for a scalar primitive call ``name(args)``, one core term
per argument computing the partial derivative of the primitive with respect to that
argument at ``args`` (``None`` where the argument carries no tangent or the partial is
identically zero). The differentiation stage multiplies these by the tangents (or
adjoints) of the arguments.

Derivation. Nothing here is written by hand per primitive except the non-smooth
choices: the partials are derived from the registry's SymPy expression (the
``sympy`` field) with ``sympy.diff``, ONCE per primitive and tuple of argument types,
lazily on first use (:func:`_derive` is an ``lru_cache``). Each derivative is

1. cleaned: the derivative of a piecewise-constant function (``floor``, ``sign``: a
   ``Derivative``/``Subs`` of it, or a ``DiracDelta``) is 0; this is the documented
   choice at the jumps (floordiv has zero partials, mod has 1 and -floor(x/y), the
   derivative of sign is 0 everywhere);
2. dropped (``None``) when it is identically zero;
3. simplified: of the candidates ``d``, ``sympy.simplify(d)``, ``sympy.factor(d)`` and
   ``sympy.cancel(d)`` (only ``d`` for a ``Piecewise``, whose pieces SymPy would merge where
   they agree on the reals but not in IEEE arithmetic) the one whose translation has the fewest core nodes is kept,
   a tie going to the earlier one (so d tanh = 1 - tanh(x)**2 rather than
   1/cosh(x)**2, which is equally small);
4. split by ``sympy.cse`` into shared subexpressions and a body.

The result is a :class:`_Template` over placeholder symbols; instantiating it at the
argument terms of a call translates it to core terms (cheap: a walk over a small
expression).

Translation (:class:`_Translator`, also available as :func:`sympy_to_core`):

=====================================  ==============================================
SymPy                                  core term
=====================================  ==============================================
argument symbol x, y, ...              the argument term (Let-bound when used twice
                                       and not an atom)
cse symbol                             a Let-bound variable ``_d1``, ``_d2``, ...
Integer, Rational, Float, pi, E, any   ``fconst`` (evaluated with 30 digits), or
symbol-free number (log(2), ...)       ``iconst`` where an Int is needed
Add                                    ``add`` / ``sub`` (negative terms subtracted)
Mul                                    numeric coefficient, then ``mul`` of the
                                       numerator over ``div`` by the denominator (the
                                       factors with negative exponents); -1 as ``neg``
Pow b**n, n = 1..4                     repeated ``mul`` (b Let-bound unless an atom;
                                       b**4 as let s = b*b in s*s)
Pow b**n, n > 4                        ``pow(b, n)``
Pow b**(-n)                            ``div(1, b**n)``
Pow b**(k/2)                           ``sqrt(b)`` times b**((k-1)/2) (over 1 if k < 0)
Pow, other exponent                    ``pow(b, e)``; E**e as ``exp(e)``
f(args), f in the reverse table        the primitive whose ``sympy`` field builds f:
                                       sin cos tan exp log tanh sinh cosh asin acos
                                       atan erf loggamma->lgamma Abs->abs sign, and
                                       the special functions of special.py (expit,
                                       log_ndtr, ...)
                                       polygamma(0, x)->digamma polygamma(n, x)->
                                       polygamma(n, x) (n an Int term) atan2
floor(a/b)                             ``floordiv(a, b)`` on Floats
Piecewise((a, c), ..., (z, True))      ``if c then a else ... z``; conditions Eq, Ne,
                                       <, <=, >, >=, And, Or, Not (xlogy's partial in
                                       y is 0 where x == 0, see special.py)
=====================================  ==============================================

The reverse table is built from the registry: a primitive whose ``sympy`` field, applied
to fresh symbols, gives a function application whose arguments are those symbols or
numbers (``sin(a0)``, ``polygamma(0, a0)``, ``atan2(a0, a1)``) maps that function
back to the primitive; more specific patterns (more numeric arguments) win, then
registration order. Expressions such as ``sqrt`` (a Pow) or ``log(x, 2)`` (a Mul) are
not function applications; sqrt is handled by the Pow rule.

Sharing. A subexpression occurring twice in a partial is bound once by a ``Let``
(via ``sympy.cse``, and by the translator where it repeats a base, as in
``tanh(x)**2 -> let _d1 = tanh(x) in _d1 * _d1``); only atoms (variables and
constants) are ever duplicated. Bindings are named ``_d1``, ``_d2``, ... skipping
names free in the arguments, so they never capture an argument variable.

Explicit rules (non-smooth points, documented in the registry's ``nondiff_note``):

* ``max(a, b)``: partials ``if first then 1 else 0`` and ``if first then 0 else 1``
  with ``first = (a >= b) or (a != a) or (b != b)`` (written ``if a >= b then true else
  if a != a then true else b != b``): a tie, or a NaN, goes to the first argument,
  exactly as the implementation (Python's max: a unless b > a) picks its result;
  ``min`` likewise with ``a <= b``;
* ``abs``: sign(x), so 0 at 0 (derived, not explicit);
* ``pow`` on Floats: ``y * x**(y-1)`` and ``x**y * log(x)`` (checked against the
  SymPy derivative), 0 where y is 0 (x**0 is 1 for every x) and where x**y is 0 (0 near
  y too: 0 ** y for y > 0), where they are 0 * inf; when the exponent is a constant, its partial is None, and for
  an integer or half-integer constant c (|c| <= 64) the base partial is derived from
  x**c itself (``pow(x, 2.0)`` gives ``2.0 * x``, ``pow(x, 3.0)`` gives
  ``3.0 * (x * x)``, ``pow(x, 0.5)`` gives ``1.0 / (2.0 * sqrt(x))``);
* ``to_float``: 1 for a Float argument, None for an Int or Bool.

More generally every ``Const`` argument gets ``None``: a constant carries no tangent.
Calls whose result is not a Float (Int arithmetic, comparisons, ``not``) have all
partials None, as do Int and Bool arguments.
"""
from __future__ import annotations

import functools
import math
import re
from dataclasses import dataclass
from fractions import Fraction
from typing import Callable

import sympy

from ..errors import CatadTypeError
from ..lang.terms import TRUE, Call, Const, If, Term, Var, fconst, free_vars, iconst, is_atom, make_lets, rename
from ..lang.types import Bool, Float, Int, Scalar
from . import prim, result_type
from .registry import PRIMITIVES, X, Y

__all__ = ["partials", "sympy_to_core", "clear_cache", "UntranslatableError"]


class UntranslatableError(NotImplementedError):
    """A SymPy derivative uses a function no primitive stands for."""


# ---------------------------------------------------------------- public API

def partials(name: str, args: tuple[Term, ...]) -> tuple[Term | None, ...]:
    """Core terms for the partial derivatives of scalar primitive `name` at `args`.

    One entry per argument: a term of type Float, or None where the argument carries no
    tangent (an Int, a Bool, a constant) or the partial is identically zero. Raises
    KeyError for an unknown primitive, ValueError for a non-scalar one (vector
    primitives are differentiated elsewhere), CatadTypeError for ill-typed arguments and
    UntranslatableError when a derivative has no core translation.
    """
    args = tuple(args)
    arg_types = tuple(a.type for a in args)
    float_result = _checked(name, arg_types)
    tangents = [a.type is Float and type(a) is not Const for a in args]  # _has_tangent's, without a call each
    if not float_result or not any(tangents):
        return (None,) * len(args)
    if name in _EXPLICIT:
        out = _EXPLICIT[name](args)
    elif name == "pow" and isinstance(args[1], Const) and _nice_exponent(args[1].value) is not None:
        d = _derive_pow_const(_nice_exponent(args[1].value))
        out = (None if d is None else d.instantiate(args[:1]), None)
    else:
        if PRIMITIVES[name].sympy is None:
            raise ValueError(f"partials: primitive {name} has no SymPy expression to differentiate")
        atoms = _plain_atoms(args)  # asked once for all the partials
        return tuple(None if d is None or not has else d._at_atoms(args, arg_types) if atoms else d.instantiate(args)
                     for d, has in zip(_derive(name, arg_types), tangents))
    return tuple(t if has else None for t, has in zip(out, tangents))


@functools.lru_cache(maxsize=None)
def _checked(name: str, arg_types: tuple) -> bool:
    """Whether primitive `name` on arguments of these types gives a Float, once it is known to
    be a scalar primitive call (partials' errors otherwise). The AD asks at every call it
    differentiates, of a few pairs of primitive and types: the answer is kept (clear_cache)."""
    if name not in PRIMITIVES:
        raise KeyError(f"partials: unknown primitive {name!r}")
    result = result_type(name, arg_types)  # checks the argument types
    if not isinstance(result, Scalar) or not all(isinstance(t, Scalar) for t in arg_types):
        raise ValueError(f"partials: {name} on ({', '.join(map(str, arg_types))}) is not a scalar primitive call")
    return result == Float


def sympy_to_core(expr: sympy.Expr, env: dict[sympy.Symbol, Term]) -> Term:
    """Translate a SymPy expression to a core term, symbols replaced per `env` (with
    sympy.cse first, so repeated subexpressions are Let-bound)."""
    reps, (body,) = sympy.cse(expr, symbols=sympy.numbered_symbols("_c", cls=sympy.Dummy))
    taken = {v.name for t in env.values() for v in free_vars(t)}
    return _Translator(env, taken).translate(reps, body)


def clear_cache() -> None:
    """Forget the derived partials (after registering or changing a primitive)."""
    _derive.cache_clear()
    _checked.cache_clear()
    _derive_pow_const.cache_clear()
    _reverse_table.cache_clear()


def _has_tangent(a: Term) -> bool:
    return a.type is Float and not isinstance(a, Const)  # (types are interned: == is identity)


# ---------------------------------------------------------------- derivation (cached)

@dataclass(frozen=True)
class _Template:
    """One partial derivative: `expr` over `symbols` (one per primitive argument), split by
    cse into `reps` (shared subexpressions, in dependency order) and `body`."""

    symbols: tuple[sympy.Symbol, ...]
    expr: sympy.Expr
    reps: tuple[tuple[sympy.Symbol, sympy.Expr], ...]
    body: sympy.Expr

    def instantiate(self, args: tuple[Term, ...]) -> Term:
        if _plain_atoms(args):
            return self._at_atoms(args, tuple(a.type for a in args))
        env = dict(zip(self.symbols, args))
        taken = {v.name for a in args for v in free_vars(a)}
        return _Translator(env, taken, self.counts).translate(self.reps, self.body)

    def _at_atoms(self, args: tuple[Term, ...], types: tuple) -> Term:
        """instantiate(args) for atoms (_plain_atoms) of these types: the translation made once
        per argument types, over placeholders, with the atoms put in their place (the
        translation reads of an atom its type only, and names its bindings _d1, _d2, ... after
        the names of the atoms, none of which is one of those). The AD differentiates a
        primitive call at every statement: walking the SymPy expression each time was most of
        the time it took."""
        made = self._translations.get(types)
        if made is None:
            made = self._translations[types] = self._over_placeholders(types)
        holders, term, slots = made
        if slots is None:
            return rename(term, dict(zip(holders, args)))  # rename reads only variables: atoms may replace them
        cls = type(term)
        if cls is Call:
            return Call(term.fn, tuple(a if k is None else args[k] for a, k in zip(term.args, slots)), term.ty, term.loc)
        if cls is Var:
            return term if slots[0] is None else args[slots[0]]
        return term  # a constant (d(x + y)/dx = 1.0)

    def _over_placeholders(self, types: tuple) -> tuple:
        """(placeholders, the translation over them, slots): for a translation that is an atom
        or a call of atoms (most: cos(x), y, 1.0), which argument each atom is (its position
        in the placeholders, or None), so an instance is made without a walk; else None."""
        holders = tuple(Var(f"$arg{k}", t) for k, t in enumerate(types))
        term = _Translator(dict(zip(self.symbols, holders)), set(), self.counts).translate(self.reps, self.body)
        cls = type(term)
        atoms = (term,) if cls is Var or cls is Const else term.args if cls is Call else None
        if atoms is None or not all(type(a) is Var or type(a) is Const for a in atoms):
            return holders, term, None
        return holders, term, tuple(holders.index(a) if a in holders else None for a in atoms)

    @functools.cached_property
    def _translations(self) -> dict:
        return {}

    @functools.cached_property
    def counts(self) -> dict:
        """How often each argument symbol occurs (a non-atomic argument used twice is Let-bound)."""
        counts: dict = {}
        for e in [r for _, r in self.reps] + [self.body]:
            for s in self.symbols:
                counts[s] = counts.get(s, 0) + _occurrences(e, s)
        return counts


def _occurrences(e: sympy.Expr, s: sympy.Symbol) -> int:
    if e == s:
        return 1
    return sum(_occurrences(a, s) for a in e.args)


def _symbols_for(arg_types: tuple) -> tuple[sympy.Symbol, ...]:
    floats = [X, Y]
    out = []
    for i, t in enumerate(arg_types):
        if t == Float:
            out.append(floats[i] if i < len(floats) else sympy.Symbol(f"x{i}", real=True))
        elif t == Int:
            out.append(sympy.Symbol(f"n{i}", integer=True))
        else:
            out.append(sympy.Symbol(f"b{i}"))
    return tuple(out)


_PIECEWISE_CONSTANT = (sympy.floor, sympy.ceiling, sympy.sign, sympy.Heaviside)


def _clean(d: sympy.Expr) -> sympy.Expr:
    """Derivatives of piecewise-constant functions are 0 (the choice at their jumps too)."""
    d = d.replace(lambda e: isinstance(e, sympy.Derivative) and e.expr.has(*_PIECEWISE_CONSTANT),
                  lambda e: sympy.S.Zero)
    d = d.replace(lambda e: isinstance(e, sympy.DiracDelta), lambda e: sympy.S.Zero)
    return d.replace(lambda e: isinstance(e, sympy.Subs), lambda e: e.doit())  # Subs(0, ...) -> 0


# Hand-chosen forms (equal to the SymPy derivative; checked when first derived).
# pow's partials are 0 where the function is constant in that argument: x**0 is 1 for every x
# (0 * inf at x = 0 otherwise), and where x**y is 0 (x = 0, y > 0) it is 0 near y too (0 * -inf).
# The first is taken to be 0 only where y * x**(y-1) would be 0 * inf (x is 0 or below the least
# normal float, whose reciprocal overflows): elsewhere at y = 0 that formula is 0 itself, and its
# own derivative there is pow's second (d/dy of it is 1/x: a constant 0 for all x made the
# Hessian of (x + 1) ** x at 0 half what it is).
_FORMS: dict[str, Callable[..., tuple]] = {
    "pow": lambda x, y: (sympy.Piecewise((0, sympy.Eq(y, 0) & (sympy.Abs(x) < sympy.Float(2.0 ** -1022))),
                                         (y * x ** (y - 1), True)),
                         sympy.Piecewise((0, sympy.Eq(x ** y, 0)), (x ** y * sympy.log(x), True))),
}
_FORMS["np_pow"] = _FORMS["pow"]  # (pow but at -inf and -0.0 of the exponent 0.5, where its partials are inf)


@functools.lru_cache(maxsize=None)
def _derive(name: str, arg_types: tuple) -> tuple[_Template | None, ...]:
    p = PRIMITIVES[name]
    syms = _symbols_for(arg_types)
    expr = p.sympy(*syms)
    forms = _FORMS[name](*syms) if name in _FORMS else None
    out = []
    for i, (s, t) in enumerate(zip(syms, arg_types)):
        if t != Float:
            out.append(None)
            continue
        d = _clean(sympy.diff(expr, s))
        if d == 0 or sympy.simplify(d) == 0:
            out.append(None)
            continue
        if forms is not None:
            general = forms[i].args[-1][0] if isinstance(forms[i], sympy.Piecewise) else forms[i]
            if sympy.simplify(general - d) != 0:  # (a piece before it: where d's value is a 0 * inf)
                raise AssertionError(f"the hand-chosen partial {forms[i]} of {name} is not {d}")
            candidates = [forms[i]]
        elif d.has(sympy.Piecewise):
            candidates = [d]  # simplify merges pieces that IEEE tells apart (x/y is 0 at x = 0, y = 0)
        else:
            candidates = [d, sympy.simplify(d), sympy.factor(d), sympy.cancel(d)]
        out.append(_best(candidates, syms, arg_types, f"d{name}/d{s}"))
    return tuple(out)


@functools.lru_cache(maxsize=256)
def _derive_pow_const(c: sympy.Rational) -> _Template | None:
    d = sympy.diff(X ** c, X)
    if d == 0:
        return None
    return _best([d, sympy.simplify(d)], (X,), (Float,), f"d(x**{c})/dx")


def _nice_exponent(v) -> sympy.Rational | None:
    """An integer or half-integer constant exponent of at most 64 in magnitude, exactly."""
    if not isinstance(v, float) or not math.isfinite(v) or abs(v) > 64 or (2 * v) != int(2 * v):
        return None
    f = Fraction(v)
    return sympy.Rational(f.numerator, f.denominator)


def _best(candidates: list, syms: tuple, arg_types: tuple, what: str) -> _Template:
    """The candidate whose translation is smallest (first on ties)."""
    placeholders = tuple(Var(str(s), t) for s, t in zip(syms, arg_types))
    best, best_size, errors, seen = None, None, [], []
    for c in candidates:
        if any(c == s for s in seen):
            continue
        seen.append(c)
        reps, (body,) = sympy.cse(c, symbols=sympy.numbered_symbols("_c", cls=sympy.Dummy))
        tpl = _Template(syms, c, tuple(reps), body)
        try:
            size = _size(tpl.instantiate(placeholders))
        except UntranslatableError as e:
            errors.append(str(e))
            continue
        if best_size is None or size < best_size:
            best, best_size = tpl, size
    if best is None:
        raise UntranslatableError(f"{what} = {candidates[0]}: {errors[0]}")
    return best


def _size(t: Term) -> int:
    n, stack = 0, [t]
    while stack:
        x = stack.pop()
        n += 1
        stack.extend(k for k in x.children() if isinstance(k, Term))
    return n


# ---------------------------------------------------------------- reverse table

@dataclass(frozen=True)
class _Pattern:
    func: type
    slots: tuple  # per SymPy argument: an int (which primitive argument) or a SymPy number
    name: str


@functools.lru_cache(maxsize=4)
def _reverse_table(_registry_size: int) -> dict[type, tuple[_Pattern, ...]]:
    table: dict[type, list[tuple[int, int, _Pattern]]] = {}
    for order, p in enumerate(PRIMITIVES.values()):
        if p.sympy is None or p.arity is None:
            continue
        dummies = tuple(sympy.Dummy(f"a{i}") for i in range(p.arity))
        try:
            e = p.sympy(*dummies)
        except Exception:  # noqa: BLE001 - a field we cannot apply to plain symbols
            continue
        if not isinstance(e, sympy.Function) or isinstance(e, sympy.core.function.AppliedUndef):
            continue
        slots = []
        for a in e.args:
            if a in dummies:
                slots.append(dummies.index(a))
            elif a.is_Number:
                slots.append(a)
            else:
                break
        else:
            if sorted(s for s in slots if isinstance(s, int)) == list(range(p.arity)):
                specific = sum(1 for s in slots if not isinstance(s, int))
                table.setdefault(e.func, []).append((-specific, order, _Pattern(e.func, tuple(slots), p.name)))
    return {f: tuple(pt for _, _, pt in sorted(v, key=lambda x: x[:2])) for f, v in table.items()}


# ---------------------------------------------------------------- translation

_FRESH = re.compile(r"_d[0-9]+")  # the names _Translator.fresh makes


def _plain_atoms(args: tuple[Term, ...]) -> bool:
    """Are the arguments atoms, none a variable named as a translation's binding (_d1, ...)?"""
    for a in args:
        cls = type(a)
        if cls is not Const and (cls is not Var or _FRESH.fullmatch(a.name)):
            return False
    return True


class _Translator:
    """SymPy -> core terms, collecting Let bindings (in dependency order) as it goes."""

    def __init__(self, env: dict, taken: set[str], counts: dict | None = None):
        self.env: dict = {}
        self.taken = set(taken)
        self.counter = 0
        self.bindings: list[tuple[Var, Term]] = []
        self.pending = {}  # argument symbols whose non-atomic term is bound on first use
        for s, t in env.items():
            if not is_atom(t) and (counts is None or counts.get(s, 0) > 1):
                self.pending[s] = t
            else:
                self.env[s] = t

    def translate(self, reps, body) -> Term:
        for s, e in reps:
            t = self.auto(e)
            self.env[s] = self.bind(t)
        out = self.float(body)
        return make_lets(self.bindings, out)

    # -- helpers

    def fresh(self, ty) -> Var:
        while True:
            self.counter += 1
            name = f"_d{self.counter}"
            if name not in self.taken:
                self.taken.add(name)
                return Var(name, ty)

    def bind(self, t: Term) -> Term:
        if is_atom(t):
            return t
        v = self.fresh(t.type)
        self.bindings.append((v, t))
        return v

    def lookup(self, e) -> Term | None:
        if e in self.pending:
            self.env[e] = self.bind(self.pending.pop(e))
        return self.env.get(e)

    def is_int(self, e) -> bool:
        """An integer-valued expression over Int-typed terms only: translate it as an Int."""
        if e.is_integer is not True:
            return False
        for s in e.free_symbols:
            t = self.env.get(s, self.pending.get(s))
            if t is None or t.type != Int:
                return False
        return True

    def auto(self, e) -> Term:
        return self.int(e) if self.is_int(e) else self.float(e)

    # -- Int mode (integer arithmetic over Int arguments, e.g. polygamma(n + 1, x))

    def int(self, e) -> Term:
        t = self.lookup(e) if isinstance(e, sympy.Symbol) or e in self.env else None
        if t is not None:
            return t
        if e.is_Integer:
            return iconst(int(e))
        if isinstance(e, (sympy.Add, sympy.Mul)):
            op = "add" if isinstance(e, sympy.Add) else "mul"
            return functools.reduce(lambda a, b: prim(op, a, b), [self.int(a) for a in e.args])
        if isinstance(e, sympy.Pow) and e.exp.is_Integer and e.exp > 0:
            return prim("pow", self.int(e.base), iconst(int(e.exp)))
        raise UntranslatableError(f"cannot translate {e} to an Int term")

    # -- Float mode

    def float(self, e) -> Term:
        t = self._float(e)
        if t.type == Int or t.type == Bool:
            t = prim("to_float", t)
        if t.type != Float:
            raise UntranslatableError(f"{e} translates to a {t.type}, not a Float")
        return t

    def _float(self, e) -> Term:
        if isinstance(e, sympy.Symbol) or e in self.env:
            t = self.lookup(e)
            if t is None:
                raise UntranslatableError(f"unbound symbol {e}")
            return t
        if e.is_number:
            return self.number(e)
        if isinstance(e, sympy.Add):
            return self.add(e)
        if isinstance(e, sympy.Mul):
            return self.mul(e)
        if isinstance(e, sympy.Pow):
            return self.pow(e)
        if isinstance(e, sympy.exp):
            return prim("exp", self.float(e.args[0]))
        if isinstance(e, sympy.floor):
            num, den = sympy.fraction(e.args[0])
            return prim("floordiv", self.float(num), self.float(den))
        if isinstance(e, sympy.Piecewise):
            return self.piecewise(e.args)
        if isinstance(e, sympy.Function):
            return self.call(e)
        raise UntranslatableError(f"no core translation of {e} ({type(e).__name__})")

    def piecewise(self, pieces) -> Term:
        """Piecewise((a, c1), (b, c2), ..., (z, True)) as if c1 then a else if c2 ... else z."""
        (value, cond), rest = pieces[0], pieces[1:]
        if cond == sympy.true or not rest:
            return self.float(value)
        return If(self.boolean(cond), self.float(value), self.piecewise(rest))

    _RELATIONS = {sympy.Eq: "eq", sympy.Ne: "ne", sympy.StrictLessThan: "lt", sympy.LessThan: "le",
                  sympy.StrictGreaterThan: "gt", sympy.GreaterThan: "ge"}

    def boolean(self, c) -> Term:
        """A condition of a Piecewise: comparisons of Floats, and, or, not."""
        if c == sympy.true:
            return TRUE
        if c == sympy.false:
            return prim("not", TRUE)
        op = self._RELATIONS.get(type(c))
        if op is not None:
            return prim(op, self.float(c.lhs), self.float(c.rhs))
        if isinstance(c, sympy.Not):
            return prim("not", self.boolean(c.args[0]))
        if isinstance(c, (sympy.And, sympy.Or)):
            first, *others = [self.boolean(a) for a in c.args]
            for b in others:  # a and b = if a then b else false; a or b = if a then true else b
                first = If(first, b, prim("not", TRUE)) if isinstance(c, sympy.And) else If(first, TRUE, b)
            return first
        raise UntranslatableError(f"no core translation of the condition {c}")

    def number(self, e) -> Term:
        v = float(e) if e.is_Rational else float(sympy.N(e, 30))
        if not math.isfinite(v) and e.is_finite:
            raise UntranslatableError(f"the constant {e} does not fit a Float")
        return fconst(v)

    def add(self, e) -> Term:
        pos, neg = [], []
        for a in e.args:
            (neg if a.could_extract_minus_sign() else pos).append(a)
        terms = [self.float(a) for a in pos]
        if not terms:  # all negative: -(a + b + ...)
            return prim("neg", functools.reduce(lambda a, b: prim("add", a, b), [self.float(-a) for a in neg]))
        out = functools.reduce(lambda a, b: prim("add", a, b), terms)
        for a in neg:
            out = prim("sub", out, self.float(-a))
        return out

    def mul(self, e) -> Term:
        coeff = sympy.S.One
        num, den = [], []
        for f in e.args:
            if f.is_number:
                coeff *= f
            elif isinstance(f, sympy.Pow) and f.exp.is_number and f.exp.is_negative:
                den.append(sympy.Pow(f.base, -f.exp))
            else:
                num.append(f)
        negative = bool(coeff.is_negative)
        if negative:
            coeff = -coeff
        den_terms = []
        if coeff.is_Rational and coeff.p == 1 and coeff.q != 1 and coeff.q & (coeff.q - 1):
            den_terms.append(fconst(coeff.q))  # 1/3 as a divisor: exact; 1/2, 1/4 are exact factors
            coeff = sympy.S.One
        num_terms = [self.float(f) for f in num]
        if negative and coeff != 1:  # -2/x**3 as -2.0 / (x * x * x), not -(2.0 / ...)
            coeff, negative = -coeff, False
        if coeff != 1:
            num_terms.insert(0, self.number(coeff))
        den_terms += [self.float(f) for f in den]
        top = functools.reduce(lambda a, b: prim("mul", a, b), num_terms) if num_terms else None
        if den_terms:
            if top is None:
                top = fconst(-1.0 if negative else 1.0)
                negative = False
            out = prim("div", top, functools.reduce(lambda a, b: prim("mul", a, b), den_terms))
        else:
            out = top if top is not None else fconst(1.0)
        return prim("neg", out) if negative else out

    def ipow(self, base: Term, n: int) -> Term:
        """base**n for an integer n >= 1: repeated multiplication up to 4, pow beyond."""
        if n == 1:
            return base
        if n > 4:
            return prim("pow", base, fconst(n))
        b = self.bind(base)
        if n == 2:
            return prim("mul", b, b)
        if n == 3:
            return prim("mul", prim("mul", b, b), b)
        s = self.bind(prim("mul", b, b))
        return prim("mul", s, s)

    def pow(self, e) -> Term:
        b, x = e.base, e.exp
        if b == sympy.E:
            return prim("exp", self.float(x))
        if x.is_Integer:
            n = int(x)
            if n == 0:
                return fconst(1.0)
            t = self.ipow(self.float(b), abs(n))
            return t if n > 0 else prim("div", fconst(1.0), t)
        if x.is_Rational and x.q == 2:
            k = (abs(x.p) - 1) // 2
            base = self.float(b)
            if k > 0:
                base = self.bind(base)
            t = prim("sqrt", base)
            if k > 0:
                t = prim("mul", self.ipow(base, k), t)
            return t if x.p > 0 else prim("div", fconst(1.0), t)
        return prim("pow", self.float(b), self.float(x))

    def call(self, e) -> Term:
        for pat in _reverse_table(len(PRIMITIVES)).get(e.func, ()):
            if len(pat.slots) != len(e.args):
                continue
            if any(not isinstance(s, int) and s != a for s, a in zip(pat.slots, e.args)):
                continue
            slot_args = sorted((s, a) for s, a in zip(pat.slots, e.args) if isinstance(s, int))
            exprs = [a for _, a in slot_args]
            for mode in ("auto", "float"):
                if mode == "float" and not any(self.is_int(a) for a in exprs):
                    break
                mark = len(self.bindings)
                try:
                    terms = [self.auto(a) if mode == "auto" else self.float(a) for a in exprs]
                    return prim(pat.name, *terms)
                except CatadTypeError:
                    del self.bindings[mark:]
        raise UntranslatableError(f"no primitive stands for {e.func.__name__}{tuple(e.args)}")


# ---------------------------------------------------------------- explicit rules

def _bind_args(args: tuple[Term, ...], uses: int) -> tuple[list[tuple[Var, Term]], tuple[Term, ...]]:
    """Let-bind the non-atomic arguments an explicit rule uses more than once."""
    if uses <= 1:
        return [], args
    taken = {v.name for a in args for v in free_vars(a)}
    tr = _Translator({}, taken)
    return tr.bindings, tuple(tr.bind(a) for a in args)


def _first_rule(cmp: str):
    """max (cmp = ge) / min (cmp = le): the derivative goes to the first argument when
    `a cmp b` or either is NaN (exactly when the implementation, Python's, returns a),
    else to b."""
    def rule(args):
        bindings, (a, b) = _bind_args(args, 2)
        first = If(prim(cmp, a, b), TRUE, If(prim("ne", a, a), TRUE, prim("ne", b, b)))
        one, zero = fconst(1.0), fconst(0.0)
        return (make_lets(bindings, If(first, one, zero)), make_lets(bindings, If(first, zero, one)))
    return rule


_EXPLICIT: dict[str, Callable[[tuple[Term, ...]], tuple[Term | None, ...]]] = {
    "max": _first_rule("ge"),
    "min": _first_rule("le"),
    "to_float": lambda args: (fconst(1.0) if args[0].type == Float else None,),
}
