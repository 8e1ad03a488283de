"""The differentiation API: grad, value_and_grad, jvp, vjp, jacobian, linearize.

Names and meanings follow JAX. Each call compiles f once per signature of argument
types (cached): its linear-map-free forward (fwd$f) and reverse (rev$f) derivative
programs, and f itself, become vectorised NumPy functions (catad.backend), which
every function here runs. Only the printed form of a :class:`LinearMap` evaluates
the Jacobian as a linear-map value, by the reference semantics.

The values f reads from globals and closures are hidden parameters after the user's
(catad.pipeline.bind reads them at each call). They are never differentiated: their tangents
are the zero tangent, their cotangents are not computed, and argnums, tangents and
cotangents count the user's parameters only.

A derivative program runs in two variants (see :func:`derivative`): the usual one, with
IEEE products, and only when its tangent result is not all finite a zero-safe one, in
which a tangent that is 0 stays 0 when multiplied by an inf or NaN coefficient (the
partial derivative of a branch that np.where or an `if` did not take).
"""
from __future__ import annotations

import math
from typing import Any, Callable, Sequence

import numpy as np

from .binding import call_args
from .errors import ArgumentError, CatadError
from .lang.evaluate import Evaluator
from .lang.terms import Program
from .lang.types import Bool, Float, Int, Tuple as TupleT, Type, coerce_value, float_array_type, scalar_of
from .tangents import no_rows_sum
from .linearmaps import semantics as S
from .linearmaps import terms as L
from .composite import argnums_of
from .pipeline import Bound, band_of, band_width, bind, check_checkpoints, jacobian_refusal, mark_of
from .transforms import Transformation, mark, register_maker
from .trees import matching, of_leaves, unflat


def jacobian_core(fn: Callable, *example_args: Any) -> Program:
    """The core program of D$f: f's value and full Jacobian, f's callees inlined (the
    pipeline's "jacobian" stage, which explain shows)."""
    return bind(fn, example_args).pipeline.jacobian_program


def _params(b: Bound) -> tuple:
    """The user's parameters (the hidden ones follow them)."""
    program = b.core
    params = program.main.params[:len(program.main.params) - len(b.hidden)]
    if len(b.args) != len(params):  # the front end checks too; keep the message uniform
        raise ArgumentError(f"{program.entry} takes {len(params)} argument(s), got {len(b.args)}")
    return params


def _linearize_values(b: Bound) -> tuple[Any, L.LM]:
    """(output, linear-map value) at the point b: the map's source includes the hidden parameters."""
    vals, _ = _canonical(b)
    program = b.pipeline.jacobian_program
    return Evaluator(program).call(program.entry, vals + b.hidden)


def _materialize(x: Any, like: Any) -> Any:
    """A tangent value in the user's terms: zeros instead of ZERO, dense arrays, floats."""
    if isinstance(like, tuple):
        parts = x if isinstance(x, tuple) else (S.ZERO,) * len(like)
        return tuple(_materialize(p, q) for p, q in zip(parts, like))
    if isinstance(like, np.ndarray):
        if type(x) is np.ndarray and x.dtype == _F64 and x.shape == like.shape:
            return x  # what the conversions below return (a view of it), without their 1 us
        x = S.densify(x)
        if x is S.ZERO:  # (a list of zero tangents, a loop's, densifies to ZERO)
            return np.zeros(like.shape)
        dense = _no_rows_sum(np.asarray(x, dtype=np.float64), like)
        if dense.size != like.size:
            raise _wrong_size(f"of shape {dense.shape} for a value of shape {like.shape}")
        return dense.reshape(like.shape)
    if x is S.ZERO:
        return 0.0
    if type(x) is not float and np.size(x) != 1:  # (float() of it would raise a raw TypeError)
        raise _wrong_size(f"of shape {np.shape(x)} for a number")
    return float(x)


def _no_rows_sum(x: Any, like: Any) -> Any:
    """x, but where it is the sum of no rows (zeros of shape (1, ...): lang.evaluate.no_rows, a
    loop that ran no iteration) for a value of more elements, zeros of the value's shape, as that
    sum broadcasts to any row's shape."""
    if isinstance(like, tuple):
        return tuple(_no_rows_sum(p, q) for p, q in zip(x, like)) if isinstance(x, tuple) else x
    if isinstance(like, np.ndarray) and no_rows_sum(x, like.size) and x.ndim == like.ndim:
        return np.zeros(like.shape)
    return x


def _flatten(x: Any, like: Any) -> np.ndarray:
    """S.flatten(x, like), refused where catad computed a tangent of another size than its value's."""
    try:
        return S.flatten(_no_rows_sum(x, like), like)
    except ValueError as e:  # (the reshape to the value's size)
        raise _wrong_size(f"of another size than its value's ({e})") from None


def _wrong_size(what: str) -> CatadError:
    return CatadError(f"catad computed a tangent {what} (catad's own error, not your code's)",
                      construct="generated code",
                      hint="please report it; meanwhile, write the function without the construct involved "
                           "(a loop that runs no iteration around a loop over an array, most likely)")


def _argnums(argnums: int | Sequence[int], params: tuple) -> tuple[int, ...]:
    return argnums_of(argnums, params, empty_ok=True)


def derivative(fn: Callable, args: tuple, which: str, wrt: tuple[int, ...] | None = None) -> Callable:
    """fn's "forward" or "reverse" program for args as a function returning (output,
    tangent); it takes the hidden parameters after the user's (see _derivative)."""
    return _derivative(bind(fn, args), which, wrt)


def _derivative(b: Bound, which: str, wrt: tuple[int, ...] | None = None,
                checkpoints: int | None = None, **variant: Any) -> Callable:
    """The "forward" or "reverse" program as a function returning (output, tangent).

    It runs the usual variant, whose tangent products are IEEE products (0 * inf is NaN),
    and only when the tangent it returns is not all finite, the zero-safe variant
    (compiled then, and cached), whose result it returns. That costs one finiteness test
    of the result, and gives the zero-safe result exactly:

    The variants differ only in products k * x of a coefficient k (a primal value) and a
    tangent x: where x is 0 and k is inf or NaN the usual one gives NaN and the zero-safe
    one 0. A derivative program is linear in its tangents: they are only added, scaled by
    primal values, indexed, selected by primal conditions, summed and scattered (never
    compared, never an argument of max). Through each of these such a NaN either stays
    NaN and reaches the result, or is dropped (a selection, an index that does not read
    it), and then the zero-safe variant's 0 in its place is dropped too. So when the
    usual result is all finite, every such NaN was dropped, and the zero-safe variant
    computes the same values.

    Not where the function's value itself is not finite though its inputs are (unless the
    function holds derivatives, whose values are products of tangents too): there something
    overflowed, and a 0 may be a cotangent that underflowed, not one that is 0, beside a
    coefficient that overflowed, whose product is not 0 (`log(exp(x) * 2.0) + x` at 800: its
    cotangent of exp(x) is 1 / inf, its gradient 2; the zero-safe product makes it 1.0, a wrong
    number, where the usual one is NaN, as JAX's). Where the value is finite, a function of an
    overflowed y levels off, so its cotangent of y is smaller than 1 / y and the product tends
    to 0 (`1 / exp(x) + x` at 800: 1.0). An input inf or NaN makes the value so of itself, and
    the zero-safe variant keeps exact the derivatives it does not touch (kl_div(0, inf)'s
    partial in y is 1; a direction's 0 along an element that is NaN is a 0).
    `variant`: a forward program's tangent_only and zero (see catad.pipeline.Pipeline.code)."""
    return _pipeline_derivative(b.pipeline, which, wrt, checkpoints, **variant)


def _pipeline_derivative(pipeline: Any, which: str, wrt: tuple[int, ...] | None, checkpoints: int | None,
                         **variant: Any) -> Callable:
    """_derivative's function, of the pipeline alone (hvp keeps it with the pipeline: it holds
    no argument)."""
    usual = pipeline.code(which, wrt, checkpoints=checkpoints, **variant)
    derived = pipeline.holds_derivatives  # its value is a derivative too (catad.grad(f)): so is checked
    n = len(pipeline.core.main.params)

    def shaped(compiled, inputs):
        """compiled's result, from the variant running only the branches taken where a tangent
        is not shaped as its value: an if on one Python bool computes both branches, and the zero
        tangent of the one not taken is shaped as the other's (`b if c else a` of a and b of two
        shapes), which the values it is added to and selected from never tell (all zeros)."""
        result = compiled(*inputs)
        if which == "reverse":
            tangent, like = (result[1],) if n == 1 else result[1], inputs[:n]
        elif variant.get("tangent_only"):  # no value to hold it against
            return result
        else:
            tangent, like = result[1], result[0]
        return result if _shaped_as(tangent, like) else compiled.branch_taken(*inputs)

    def run(*inputs):
        result = shaped(usual, inputs)
        if _finite(result[1]) and (not derived or _finite(result[0])):
            return result
        if not derived and not _finite(result[0]) and _finite_inputs(inputs[:n]):
            return result  # the value overflowed: its zeros may be underflows (see above)
        return shaped(pipeline.code(which, wrt, zero_safe=True, checkpoints=checkpoints, **variant), inputs)
    return run


def _shaped_as(t: Any, like: Any) -> bool:
    """Whether each dense array in the tangent t has the shape of its value in like (the zero
    tangent and the sparse ones have none of their own)."""
    if type(t) is np.ndarray:
        return t.shape == np.shape(like)
    if type(t) is tuple and type(like) is tuple:
        return all(_shaped_as(x, y) for x, y in zip(t, like))
    return True


def _derived(b: Bound) -> bool:
    """Whether b's program holds derivative programs (its function is made by a transformation,
    or calls one inside), whose products run zero-safe where the usual variant's result is not
    finite."""
    return b.pipeline.holds_derivatives


def primal(b: Bound, *inputs: Any) -> Any:
    """b's primal program on inputs: for a function made by a transformation, the zero-safe
    variant where the usual one's result is not finite (as :func:`_derivative`)."""
    out = b.pipeline.code("primal")(*inputs)
    if not _derived(b) or _finite(out):
        return out
    return b.pipeline.code("primal", zero_safe=True)(*inputs)


def _everywhere(x: Any, holds) -> bool:
    """Whether a tangent value (ZERO, a float, an array, a OneHot, tuples and lists of them)
    has holds(leaf) at every leaf (ZERO holds everything a zero does)."""
    if x is S.ZERO:
        return True
    if isinstance(x, (tuple, list)):
        return all(_everywhere(v, holds) for v in x)
    if isinstance(x, S.OneHot):
        return _everywhere(x.value, holds)
    return holds(x)


def _finite(x: Any) -> bool:
    """Whether a tangent value is finite everywhere."""
    if type(x) is tuple and all(type(v) is np.ndarray for v in x):  # (most results: no recursion)
        return all(_finite_array(v) for v in x)
    return _everywhere(x, _finite_leaf)


_F64 = np.dtype(np.float64)


def _finite_array(v: np.ndarray) -> bool:
    """np.isfinite(v).all(), by np.count_nonzero for a small array (half of .all()'s 1.3 us: hvp
    tests its four results), by .all() for a large one (there the count's pass is slower)."""
    f = np.isfinite(v)
    return bool(f.all()) if v.size >= 2048 else np.count_nonzero(f) == v.size


def _finite_inputs(x: Any) -> bool:
    """Whether the inputs (numbers, arrays, tuples and lists of them) are finite everywhere."""
    return _everywhere(x, _finite_input)


def _finite_input(v: Any) -> bool:
    if type(v) is float:
        return math.isfinite(v)
    v = np.asarray(v)
    return v.dtype.kind not in "fc" or _finite_array(v)


def _finite_leaf(v: Any) -> bool:
    return _finite_array(v) if type(v) is np.ndarray else bool(np.isfinite(v))


def _zero_leaf(v: Any) -> bool:
    if type(v) is float:  # np.any's 3 us for a Python float: NaN is not zero, -0.0 is
        return v == 0.0
    return not (np.count_nonzero(v) if type(v) is np.ndarray else np.any(v))


def _user_out(b: Bound, x: Any) -> Any:
    """The output (or its tangent) in the structure f returns: its lists and dicts back."""
    return unflat(x, b.pipeline.result_tree)


def _user_args(b: Bound, xs: tuple, nums: Sequence[int] | None = None) -> tuple:
    """Values for the arguments nums (all by default) in their structure (catad.trees)."""
    trees = b.trees
    return tuple(unflat(x, trees[k]) for x, k in zip(xs, range(len(xs)) if nums is None else nums))


def _canonical(b: Bound) -> tuple:
    params = _params(b)
    out = []
    for a, p in zip(b.args, params):
        v = _as_is(a, p.type)
        out.append(coerce_value(a, p.type, f"argument {p.name!r}") if v is _CONVERT else v)
    return tuple(out), params


_CONVERT = object()
_INT64_RANGE = range(-2 ** 63, 2 ** 63)


def _as_is(a: Any, ty: Type) -> Any:
    """a when coerce_value would return it as it is (a float array, Python float, int within
    int64 or bool of its own type, and tuples of them: hvp's 13 us for GMM's six arguments, in
    calls whose caches are cold, the tuple's type comparisons most), else _CONVERT."""
    kind = type(a)
    if kind is np.ndarray:
        return a if a.dtype == _F64 and a.ndim and ty is float_array_type(a.ndim) else _CONVERT
    if (kind is float and ty is Float) or (kind is bool and ty is Bool) or (kind is int and ty is Int and a in _INT64_RANGE):
        return a
    if kind is tuple and isinstance(ty, TupleT) and len(a) == len(ty.items):
        items = tuple(_as_is(x, t) for x, t in zip(a, ty.items))
        return _CONVERT if any(x is _CONVERT for x in items) else items
    return _CONVERT


def _run_primal(b: Bound, vals: tuple) -> Any:
    return primal(b, *vals, *b.hidden)


def _forward(b: Bound, vals: tuple, dx: tuple) -> tuple[Any, Any]:
    """(output, its tangent) by fwd$f; the hidden parameters' tangents are zero."""
    return _derivative(b, "forward")(*vals, *b.hidden, *dx, *(S.ZERO,) * len(b.hidden))


def _reverse(b: Bound, vals: tuple, ct: Any, wrt: tuple[int, ...] | None = None,
             checkpoints: int | None = None) -> tuple[Any, tuple]:
    """(output, one cotangent per user parameter) by the reverse-derivative program rev$f;
    with `wrt`, the cotangents of the other parameters are the zero tangent. With
    `checkpoints` k, each reverse loop keeps at most k states (see :func:`grad`)."""
    out, c = _derivative(b, "reverse", wrt, checkpoints)(*vals, *b.hidden, ct)
    n = len(vals) + len(b.hidden)
    cts = (c,) if n == 1 else (S.ZERO,) * n if c is S.ZERO else tuple(c)
    return out, cts[:len(vals)]


def _grad_impl(fn: Callable, argnums, args: tuple, with_value: bool, checkpoints: int | None = None):
    b = bind(fn, args)
    result_type = b.core.main.result_type
    if result_type != Float:
        name = getattr(fn, "__name__", "f")
        ints = [p.name for p in _params(b) if p.type == Int]
        hint = (f"; it does with the Int argument(s) {', '.join(map(repr, ints))}: pass floats (e.g. 3.0, not 3)"
                if result_type == Int and ints else " (use jacobian or vjp instead)")
        raise CatadError(f"grad needs a function returning a float; {name} returns {result_type}{hint}",
                         construct="grad")
    vals, params = _canonical(b)
    nums = _argnums(argnums, params)
    out, cts = _reverse(b, vals, 1.0, nums, checkpoints)
    grads = _user_args(b, tuple(_materialize(cts[k], vals[k]) for k in nums), nums)
    g = grads[0] if isinstance(argnums, (int, np.integer)) else grads
    return (out, g) if with_value else g


def grad(fn: Callable, argnums: int | Sequence[int] = 0, *, has_aux: bool = False,
         checkpoints: int | None = None) -> Callable:
    """The gradient of fn (which must return a float) with respect to argument(s) argnums.

    With ``has_aux=True``, fn returns a pair ``(loss, aux)``: the gradient of the float ``loss``
    is returned with ``aux`` (any value fn computes: arrays, numbers, tuples, lists, dicts), as
    ``(gradient, aux)`` (JAX's has_aux).

    With ``checkpoints=k`` (an int >= 1), reverse mode through a loop keeps at most k of the
    loop's states and recomputes the others (binomial checkpointing, Griewank and Walther's
    Revolve: the fewest recomputations for k kept states; docs/subset.rst, "Memory of
    reverse loops"). The default, None, keeps every iteration's state. Both give the same
    gradient, bit for bit."""
    checkpoints = check_checkpoints(checkpoints)
    if _has_aux(has_aux, "grad"):
        return _with_aux(Transformation("grad", fn, argnums, checkpoints, has_aux=True))
    return mark(_gradient(fn, argnums, checkpoints), Transformation("grad", fn, argnums, checkpoints))


def _has_aux(has_aux: Any, what: str) -> bool:
    if not isinstance(has_aux, (bool, np.bool_)):
        raise ArgumentError(f"{what}'s has_aux must be True or False, got {type(has_aux).__name__} {has_aux!r}",
                            construct="has_aux")
    return bool(has_aux)


def _with_aux(t: Transformation) -> Callable:
    """The function t makes of a function returning (a float, aux): its program is made from
    the function's reverse program (catad.composite), the float's cotangent 1 and aux's the zero
    tangent, and returns what t's function does (aux beside the gradient), which it runs."""
    def transformed(*args, **kwargs):
        b = bind(marked, call_args(t.fn, args, kwargs))
        return _user_out(b, _run_primal(b, _canonical(b)[0]))
    marked = mark(transformed, t)
    return marked


def _gradient(fn: Callable, argnums, checkpoints: int | None) -> Callable:
    def gradient(*args, **kwargs):
        return _grad_impl(fn, argnums, call_args(fn, args, kwargs), with_value=False, checkpoints=checkpoints)
    return gradient


def value_and_grad(fn: Callable, argnums: int | Sequence[int] = 0, *, has_aux: bool = False,
                   checkpoints: int | None = None) -> Callable:
    """Like :func:`grad`, returning ``(fn(*args), gradient)``: with ``has_aux=True``, fn returns
    ``(loss, aux)`` and this ``((loss, aux), gradient of loss)``, as JAX's. ``checkpoints`` as
    for :func:`grad`."""
    checkpoints = check_checkpoints(checkpoints)
    if _has_aux(has_aux, "value_and_grad"):
        return _with_aux(Transformation("value_and_grad", fn, argnums, checkpoints, has_aux=True))

    def value_and_gradient(*args, **kwargs):
        return _grad_impl(fn, argnums, call_args(fn, args, kwargs), with_value=True, checkpoints=checkpoints)
    return mark(value_and_gradient, Transformation("value_and_grad", fn, argnums, checkpoints))


def jvp(fn: Callable, primals: Sequence, tangents: Sequence) -> tuple[Any, Any]:
    """``(fn(*primals), J tangents)``: the forward derivative at primals."""
    primals, tangents = _sequence(primals, "primals"), _sequence(tangents, "tangents")
    b = bind(fn, primals)
    vals, params = _canonical(b)
    dx = _check_tangents(_flat_tangents(b, tangents, params), vals, params)
    out, dt = _forward(b, vals, dx)
    return _user_out(b, out), _user_out(b, _materialize(dt, out))


def _flat_tangents(b: Bound, tangents: tuple, params) -> tuple:
    """Tangents given in the arguments' structure (lists and dicts) as compiled code takes them."""
    if len(tangents) != len(b.trees):
        return tangents  # _check_tangents says what is wrong
    return tuple(matching(t, tree, f"tangent for {p.name!r}", "its primal")
                 for t, tree, p in zip(tangents, b.trees, params))


def _sequence(x: Any, what: str) -> tuple:
    if not isinstance(x, (tuple, list)):
        raise ArgumentError(f"{what} must be a tuple or list with one entry per argument, got {type(x).__name__}",
                            hint="e.g. jvp(f, (x,), (dx,))")
    return tuple(x)


def _check_tangents(tangents: tuple, vals: tuple, params) -> tuple:
    if len(tangents) != len(vals):
        raise ArgumentError(f"expected {len(vals)} tangent(s), one per primal, got {len(tangents)}")
    out = []
    for t, v, p in zip(tangents, vals, params):
        out.append(_tangent_value(t, v, p.type, f"tangent for {p.name!r}", "its primal"))
    return tuple(out)


def _tangent_value(t: Any, v: Any, ty: Type, what: str, like: str = "the output") -> Any:
    """t checked and converted as a tangent (or cotangent) of the value v of type ty;
    `like` names v in messages ("its primal" for a tangent, "the output" for a cotangent)."""
    if type(t) is np.ndarray and type(v) is np.ndarray and t.dtype == _F64 and t.shape == v.shape and \
            t.ndim and ty is float_array_type(t.ndim):
        return t  # the common case, a float array for a float array: what the checks below return
    if ty is Int or ty is Bool:
        return S.ZERO  # (as below: Int and Bool carry no tangent)
    if type(t) is float and ty is Float and type(v) is not np.ndarray:
        return t  # a float for a float: float(np.asarray(t)) below
    if isinstance(ty, TupleT):
        if not isinstance(t, tuple) or len(t) != len(ty.items):
            raise ArgumentError(f"{what} must be a tuple of {len(ty.items)}, like {like}")
        return tuple(_tangent_value(a, b, s, f"{what}[{i}]", like) for i, (a, b, s) in enumerate(zip(t, v, ty.items)))
    if scalar_of(ty) != Float:
        return S.ZERO  # Int and Bool carry no tangent
    if isinstance(t, (complex, np.complexfloating)) or np.asarray(t).dtype.kind == "c":
        raise ArgumentError(f"{what} is complex; {like} is real, so its tangents are real too")  # not cast away
    if isinstance(t, np.ma.MaskedArray):
        raise ArgumentError(f"{what} is a masked array; catad would ignore its mask",
                            hint="pass np.ma.filled(x, 0.0)")
    try:
        a = np.asarray(t, dtype=np.float64)
    except (TypeError, ValueError):
        raise ArgumentError(f"{what} must be numeric like {like}, got {type(t).__name__}") from None
    if isinstance(t, (str, bytes)) or t is None or a.dtype.kind != "f":
        raise ArgumentError(f"{what} must be numeric like {like}, got {type(t).__name__}")
    if isinstance(v, np.ndarray):
        if a.shape != v.shape:
            raise ArgumentError(f"{what} has shape {a.shape}, {like} has shape {v.shape}")
        return a
    if a.ndim != 0:
        raise ArgumentError(f"{what} must be a float, like {like}")
    return float(a)


def vjp(fn: Callable, *primals: Any, has_aux: bool = False, checkpoints: int | None = None,
        **kw_primals: Any) -> tuple:
    """``(fn(*primals), vjp_fn)`` where ``vjp_fn(ct)`` is the tuple of cotangents, one per
    primal (zeros for Int and Bool primals, which have no tangent). Globals and closures
    are read once, by ``vjp``: ``vjp_fn`` is the derivative at that point. Primals given
    by keyword take their parameter's place, and so does their cotangent. With
    ``has_aux=True``, fn returns a pair ``(out, aux)``: this is ``(out, vjp_fn, aux)``, and
    ``vjp_fn`` takes a cotangent shaped like ``out`` (aux's is zero), as JAX's. ``has_aux``
    and ``checkpoints`` (keyword only: they are not primals) as for :func:`grad`."""
    checkpoints = check_checkpoints(checkpoints)
    has_aux = _has_aux(has_aux, "vjp")
    b = bind(fn, call_args(fn, primals, kw_primals))
    vals, params = _canonical(b)
    out = _run_primal(b, vals)
    ty, tree = b.core.main.result_type, b.pipeline.result_tree
    if has_aux and not (isinstance(ty, TupleT) and len(ty.items) == 2):
        raise CatadError(f"vjp with has_aux=True needs a function returning a pair: the output, then the auxiliary "
                         f"data; {getattr(fn, '__name__', 'f')} returns {ty}", construct="vjp",
                         hint="return (out, aux)")

    def vjp_fn(*cts):
        if len(cts) != 1:
            raise ArgumentError(f"vjp_fn takes one cotangent, shaped like the output, got {len(cts)}")
        if not has_aux:
            ct = matching(cts[0], tree, "cotangent", "the output")
            c = _tangent_value(ct, out, ty, "cotangent")
        else:  # the output's cotangent, and aux's zero
            ct = matching(cts[0], tree and tree.items[0], "cotangent", "the output")
            c = (_tangent_value(ct, out[0], ty.items[0], "cotangent"), _zero_cotangent(out[1], ty.items[1]))
        _, cts = _reverse(b, vals, c, checkpoints=checkpoints)
        return _user_args(b, tuple(_materialize(x, v) for x, v in zip(cts, vals)))
    user = _user_out(b, out)
    return (user[0], vjp_fn, user[1]) if has_aux else (user, vjp_fn)


def _zero_cotangent(v: Any, ty: Type) -> Any:
    """The zero cotangent of the value v of type ty, as the reverse program takes it."""
    if isinstance(ty, TupleT):
        return tuple(_zero_cotangent(x, t) for x, t in zip(v, ty.items))
    if scalar_of(ty) != Float:
        return S.ZERO  # (Int and Bool carry no tangent)
    return np.zeros_like(v) if isinstance(v, np.ndarray) else 0.0


def jacobian(fn: Callable, argnums: int | Sequence[int] = 0, *, checkpoints: int | None = None) -> Callable:
    """The Jacobian with respect to argument(s) argnums, shaped output.shape + input.shape, by
    whichever of :func:`jacrev` (a reverse pass per element of the output) and :func:`jacfwd`
    (a forward pass per element of the arguments argnums) takes fewer passes at the arguments
    given; ``checkpoints`` as for :func:`grad` (it applies to the reverse passes)."""
    checkpoints = check_checkpoints(checkpoints)

    def jac(*args, **kwargs):
        return _jacobian_impl(fn, argnums, call_args(fn, args, kwargs), None, checkpoints, "jacobian")
    return mark(jac, Transformation("jacobian", fn, argnums, checkpoints))


def jacfwd(fn: Callable, argnums: int | Sequence[int] = 0, *, checkpoints: int | None = None) -> Callable:
    """The Jacobian by columns: one forward pass per element of the arguments argnums (JAX's
    jacfwd), shaped output.shape + input.shape; a tuple of blocks for a tuple of argnums, and a
    tuple of such for a function returning a tuple. For one array argument and an array result
    the passes run as one vectorised program over slices of the basis (memory bounded by the
    slices' length), else one by one. ``checkpoints`` as for :func:`grad` (it applies where the
    function itself runs reverse passes: jacfwd of jacrev)."""
    checkpoints = check_checkpoints(checkpoints)

    def jac(*args, **kwargs):
        return _jacobian_impl(fn, argnums, call_args(fn, args, kwargs), "forward", checkpoints, "jacfwd")
    return mark(jac, Transformation("jacfwd", fn, argnums, checkpoints))


def jacrev(fn: Callable, argnums: int | Sequence[int] = 0, *, checkpoints: int | None = None) -> Callable:
    """The Jacobian by rows: one reverse pass per element of the output (JAX's jacrev), shaped
    and structured as :func:`jacfwd`'s; ``checkpoints`` as for :func:`grad`."""
    checkpoints = check_checkpoints(checkpoints)

    def jac(*args, **kwargs):
        return _jacobian_impl(fn, argnums, call_args(fn, args, kwargs), "reverse", checkpoints, "jacrev")
    return mark(jac, Transformation("jacrev", fn, argnums, checkpoints))


def hessian(fn: Callable, argnums: int | Sequence[int] = 0, *, checkpoints: int | None = None) -> Callable:
    """The Hessian of a float-valued fn with respect to argument(s) argnums: ``jacfwd(jacrev(fn,
    argnums), argnums)`` as in JAX, shaped input.shape + input.shape (for a tuple of argnums, a
    tuple of tuples of blocks: block [i][j] is shaped like argument i then argument j). Each
    column is a forward pass over fn's reverse derivative program (forward over reverse: a
    Hessian-vector product, see :func:`hvp`). For a dict argument it is a dict of dicts,
    ``H[k1][k2]`` the block of keys k1 and k2, as JAX's. ``checkpoints`` as for :func:`grad` (the reverse
    loops of the gradient keep at most that many states)."""
    checkpoints = check_checkpoints(checkpoints)
    gradient = jacrev(fn, argnums, checkpoints=checkpoints)

    def hess(*args, **kwargs):
        args = call_args(fn, args, kwargs)
        refusal = jacobian_refusal("hessian", gradient, Float, bind(fn, args).core.main.result_type)
        if refusal is not None:
            raise CatadError(refusal, construct="hessian")
        return _jacobian_impl(gradient, argnums, args, "forward", checkpoints, "hessian")
    return mark(hess, Transformation("hessian", gradient, argnums, checkpoints))


def hvp(fn: Callable, primals: Sequence, tangents: Sequence, *, argnums: int | Sequence[int] = 0,
        checkpoints: int | None = None) -> Any:
    """The Hessian-vector product H t of a float-valued fn at primals, without forming H:
    ``jvp(grad(fn, argnums), primals, tangents)[1]`` (JAX's autodiff cookbook), the forward
    derivative of fn's reverse derivative program (forward over reverse). `tangents` has one
    entry per primal (those of arguments not in argnums give the mixed second derivatives);
    the result is shaped like the argument(s) argnums. ``checkpoints`` as for :func:`grad`.
    It runs the gradient's forward program compiled for the tangent alone, the tangents that
    are zero here (the data's, typically) compiled as the zero tangent: their products are
    not computed."""
    primals, tangents = _sequence(primals, "primals"), _sequence(tangents, "tangents")
    # grad(fn) as bind knows it; no one calls it by keyword, so it is not given fn's signature
    # (inspect.signature: a tenth of hvp's own Python)
    checkpoints = check_checkpoints(checkpoints)
    g = mark(_gradient(fn, argnums, checkpoints), Transformation("grad", fn, argnums, checkpoints), signature=False)
    b = bind(g, primals)
    vals, params = _canonical(b)
    dx = _check_tangents(_flat_tangents(b, tangents, params), vals, params)
    # the gradient's forward program, its tangent alone, with the tangents that are zero here
    # (those of the data, typically) the zero tangent: their products are not computed
    # (np.count_nonzero: a fifth of ndarray.any's 1 us for a small array; NaN is not zero, -0.0 is)
    zero = tuple(k for k, t in enumerate(dx) if (not np.count_nonzero(t) if type(t) is np.ndarray else _is_zero(t)))
    nums, run = _hvp_program(b, argnums, params, zero)
    _, dt = run(*vals, *b.hidden, *(S.ZERO if k in zero else t for k, t in enumerate(dx)),
                *(S.ZERO,) * len(b.hidden))
    like = vals[nums[0]] if isinstance(argnums, (int, np.integer)) else tuple(vals[k] for k in nums)
    return _user_out(b, _materialize(dt, like))


def _hvp_program(b: Bound, argnums, params: tuple, zero: tuple) -> tuple:
    """(argnums as positions, the gradient's forward program for the tangent alone, the
    tangents `zero` compiled as zero) for hvp: functions of the pipeline, argnums and zero
    alone (argnums_of reads the pipeline's parameters), kept with the pipeline, so that a
    second call skips their 7 us of Python."""
    key = (repr(argnums), zero)  # repr: 1, True, np.int64(1) and (1,) are different argnums
    programs = vars(b.pipeline).setdefault("_hvp_programs", {})
    hit = programs.get(key)
    if hit is None:
        hit = programs[key] = (_argnums(argnums, params),
                               _pipeline_derivative(b.pipeline, "forward", None, None, tangent_only=True, zero=zero))
    return hit


def _is_zero(t: Any) -> bool:
    """Whether a tangent value is zero everywhere."""
    return _everywhere(t, _zero_leaf)


def _jacobian_impl(fn: Callable, argnums, args: tuple, mode: str | None, checkpoints: int | None, what: str):
    """The Jacobian of fn at args with respect to argnums (see :func:`jacfwd`): by forward or
    reverse passes (mode), or by whichever takes fewer (None)."""
    b = bind(fn, args)
    vals, params = _canonical(b)
    nums = _argnums(argnums, params)
    out = _run_primal(b, vals)
    refusal = jacobian_refusal(what, fn, b.core.main.result_type)
    if refusal is not None:
        raise CatadError(refusal, construct=what)
    banded = _by_band(b, vals, out, nums, argnums, mode, checkpoints)
    if banded is not None:
        return banded
    sliced = _by_slices(fn, args, vals, out, nums, argnums, mode, checkpoints)
    if sliced is not None:  # one array argument: no structure to give it
        return sliced
    outs = out if isinstance(out, tuple) else (out,)
    columns = _columns_by_slices(fn, args, vals, outs, nums, checkpoints) if mode == "forward" else None
    if columns is not None:  # several array arguments or results: each block by its own program
        per_result = []
        for i in range(len(outs)):
            blocks = _user_args(b, tuple(columns[k][i] for k in nums), nums)
            per_result.append(blocks[0] if isinstance(argnums, (int, np.integer)) else tuple(blocks))
        return _in_result_structure(b, tuple(per_result)) if isinstance(out, tuple) else per_result[0]
    full = _jacobian_matrix(b, vals, out, nums, checkpoints, mode)
    rows = np.cumsum([0] + [S.tangent_size(o) for o in outs])
    offsets = np.cumsum([0] + [S.tangent_size(v) for v in vals])
    per_result = []
    for o, r0, r1 in zip(outs, rows, rows[1:]):
        blocks = tuple(_blocks(full[r0:r1, offsets[k]:offsets[k + 1]], np.shape(o), vals[k]) for k in nums)
        blocks = _user_args(b, blocks, nums)
        per_result.append(blocks[0] if isinstance(argnums, (int, np.integer)) else tuple(blocks))
    return _in_result_structure(b, tuple(per_result)) if isinstance(out, tuple) else per_result[0]


def _in_result_structure(b: Bound, blocks: tuple) -> Any:
    """The Jacobian's blocks, one per component of a tuple result, in the result's structure: a
    dict of them for a dict result (the Hessian of a function of a dict is a dict of dicts, as
    JAX's), a list for a list."""
    tree = of_leaves(b.pipeline.result_tree)
    return blocks if tree is None else unflat(blocks, tree)


def _by_band(b: Bound, vals: tuple, out: Any, nums, argnums, mode: str | None, checkpoints: int | None) -> Any:
    """The Jacobian of one vector argument and a vector result whose forward program shows a
    band (a diagonal Hessian of a sum over independent elements, a tridiagonal one of
    Rosenbrock's function): w = its width forward passes, the seeds s_r[j] = [j mod w == r]
    (Curtis, Powell and Reid 1974; catad.lang.structure), then the dense result filled from
    them; None where that does not apply or costs no fewer passes than the basis."""
    if mode == "reverse" or checkpoints is not None or len(nums) != 1 or not isinstance(argnums, (int, np.integer)):
        return None
    k = nums[0]
    offsets = band_of(b, vals, out, k)
    if offsets is None or band_width(offsets) >= min(vals[k].size, out.size if mode is None else vals[k].size):
        return None
    n, m, w = vals[k].size, out.size, band_width(offsets)
    start = int(np.cumsum([0] + [S.tangent_size(v) for v in vals])[k])
    products = []
    for r in range(w):  # the tangents as _jacobian_matrix makes them: the others' are zeros
        flat = np.zeros(S.tangent_size(vals))
        flat[start:start + n] = np.arange(n) % w == r
        products.append(_materialize(_forward(b, vals, S.unflatten(flat, vals))[1], out))
    jac = np.zeros((m, n))
    for c in offsets:  # J[o, o + c] is the product of the seed of column o + c, at row o
        rows = np.arange(max(0, -c), min(m, n - c))
        cols = rows + c
        jac[rows, cols] = np.stack(products)[cols % w, rows]
    return jac


# The most elements a slice of a Jacobian's passes holds at once, over the size of its arguments and
# result: passes run as one vectorised program for a slice of the basis, whose arrays have the
# slice's length as one more axis (catad.composite: the Jacobian's program over a slice).
_SLICE_ELEMENTS = 1 << 22


def _by_slices(fn: Callable, args: tuple, vals: tuple, out: Any, nums, argnums, mode: str | None,
               checkpoints: int | None) -> Any:
    """The Jacobian of one array argument and one array result, by the program that runs the
    passes of a slice of the basis at once (catad.composite, `chunked`), slice after slice (so
    that memory stays bounded); None where that does not apply (several arguments or results,
    a float one, an empty one: one pass each, as _jacobian_matrix runs them)."""
    if mode is None or len(nums) != 1 or isinstance(out, tuple) or not isinstance(argnums, (int, np.integer)):
        return None
    x = vals[nums[0]]
    basis = x if mode == "forward" else out
    if not isinstance(x, np.ndarray) or not isinstance(out, np.ndarray) or x.dtype.kind != "f" or \
            basis.ndim == 0 or basis.shape[0] == 0:
        return None
    t = Transformation("jacfwd" if mode == "forward" else "jacrev", fn, nums[0], checkpoints, chunked=True)
    cb = bind(mark_of(t), args)
    work = max(1, _elements(vals) + np.size(out) + _elements(cb.hidden))
    count = max(1, min(basis.shape[0], _SLICE_ELEMENTS // (work * max(1, basis[0].size))))
    slices = [primal(cb, *cb.args, *cb.hidden, start, min(count, basis.shape[0] - start))
              for start in range(0, basis.shape[0], count)]
    return np.concatenate(slices, axis=out.ndim if mode == "forward" else 0)


def _columns_by_slices(fn: Callable, args: tuple, vals: tuple, outs: tuple, nums, checkpoints: int | None):
    """{k: [the Jacobian of each result with respect to argument k]} for float array arguments
    and results, each argument's columns by the forward program over slices of its basis (as
    _by_slices, one program per argument: JAX's vmap of a jvp over the basis); None where one
    is not a float array (one forward pass per element then, by _jacobian_matrix)."""
    if not all(isinstance(o, np.ndarray) and o.dtype.kind == "f" for o in outs) or \
            not all(isinstance(vals[k], np.ndarray) and vals[k].dtype.kind == "f" and vals[k].ndim and
                    vals[k].shape[0] for k in nums):
        return None
    columns = {}
    for k in nums:
        x = vals[k]
        t = Transformation("jacfwd", fn, k, checkpoints, chunked=True)
        cb = bind(mark_of(t), args)
        work = max(1, _elements(vals) + _elements(outs) + _elements(cb.hidden))
        count = max(1, min(x.shape[0], _SLICE_ELEMENTS // (work * max(1, x[0].size))))
        slices = [primal(cb, *cb.args, *cb.hidden, start, min(count, x.shape[0] - start))
                  for start in range(0, x.shape[0], count)]
        slices = [s if len(outs) > 1 else (s,) for s in slices]
        columns[k] = [np.concatenate([s[i] for s in slices], axis=o.ndim) for i, o in enumerate(outs)]
    return columns


def _elements(x: Any) -> int:
    """How many numbers x holds (tuples walked)."""
    return sum(_elements(v) for v in x) if isinstance(x, (tuple, list)) else int(np.size(x))


def _jacobian_matrix(b: Bound, vals: tuple, out: Any, wrt: tuple[int, ...] | None = None,
                     checkpoints: int | None = None, mode: str | None = None) -> np.ndarray:
    """Rows: the flattened output; columns: the flattened inputs in order (with `wrt`, only
    those arguments' columns are filled). One reverse pass per output (mode "reverse") or one
    forward pass per input of wrt ("forward"); by default whichever are fewer."""
    m, n = S.tangent_size(out), S.tangent_size(vals)
    offsets = np.cumsum([0] + [S.tangent_size(v) for v in vals])
    columns = [j for k in (range(len(vals)) if wrt is None else wrt) for j in range(offsets[k], offsets[k + 1])]
    if mode == "reverse" or mode is None and m <= len(columns):
        rows = [np.zeros(n)]
        for k in range(m):
            _, cts = _reverse(b, vals, S.unflatten(np.eye(1, m, k)[0], out), wrt, checkpoints)
            rows.append(_flatten(cts, vals))
        return np.array(rows[1:]).reshape(m, n)
    full = np.zeros((m, n))
    for j in columns:
        _, dt = _forward(b, vals, S.unflatten(np.eye(1, n, j)[0], vals))
        full[:, j] = _flatten(dt, out)
    return full


def _blocks(columns: np.ndarray, out_shape: tuple, like: Any) -> Any:
    """The Jacobian columns of one argument shaped like it: output.shape + input.shape, or
    for a tuple argument a tuple of such blocks (JAX's structure)."""
    if isinstance(like, tuple):
        sizes = np.cumsum([0] + [S.tangent_size(x) for x in like])
        return tuple(_blocks(columns[:, a:b], out_shape, x) for a, b, x in zip(sizes, sizes[1:], like))
    if columns.shape[1] != int(np.prod(np.shape(like))):  # an Int or Bool part: zeros, as vjp gives
        return np.zeros(out_shape + np.shape(like))
    return columns.reshape(out_shape + np.shape(like))


class LinearMap:
    """The derivative of a function at a point, as a linear map (from :func:`linearize`).

    ``lm(*tangents)`` applies it (one tangent per primal), ``lm.T(ct)`` applies its
    transpose (a tuple with one cotangent per primal), ``lm.to_matrix()`` is the
    dense Jacobian (rows: the flattened output, columns: the flattened inputs in
    order), and ``str(lm)`` prints the linear-map value in the notes' notation.
    Applying it runs fn's compiled forward or reverse program at the point (with the
    globals and closures as ``linearize`` read them)."""

    # NumPy must not take a LinearMap for a 0-d object array (x @ lm came out as a matmul
    # dimension error from inside NumPy): it defers to __rmatmul__
    __array_ufunc__ = None

    def __matmul__(self, other: Any):
        raise ArgumentError("a LinearMap is applied by calling it, lm(dx), not with @",
                            construct="LinearMap", hint="or use lm.to_matrix() @ x for the dense Jacobian")

    __rmatmul__ = __matmul__

    def __init__(self, bound: Bound, vals: tuple, params, out: Any, transposed: bool = False):
        self.bound, self.vals, self.params, self.out = bound, vals, params, out
        self.transposed = transposed

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if self.transposed:
            if len(args) != 1 or kwargs:
                raise ArgumentError("the transpose takes one cotangent")
            return self._reverse(args[0])
        args = call_args(self.bound.fn, args, kwargs)  # tangents by keyword take their primal's place
        dx = _check_tangents(_flat_tangents(self.bound, tuple(args), self.params), self.vals, self.params)
        _, dt = _forward(self.bound, self.vals, dx)
        return _user_out(self.bound, _materialize(dt, self.out))

    def _reverse(self, ct: Any) -> tuple:
        ct = matching(ct, self.bound.pipeline.result_tree, "cotangent", "the output")
        c = _tangent_value(ct, self.out, self.bound.core.main.result_type, "cotangent")
        _, cts = _reverse(self.bound, self.vals, c)
        return _user_args(self.bound, tuple(_materialize(x, v) for x, v in zip(cts, self.vals)))

    @property
    def T(self) -> "LinearMap":
        return LinearMap(self.bound, self.vals, self.params, self.out, not self.transposed)

    def to_matrix(self) -> np.ndarray:
        m = _jacobian_matrix(self.bound, self.vals, self.out)
        return m.T.copy() if self.transposed else m

    @property
    def lm(self) -> L.LM:
        """The Jacobian at the point as a linear-map value (by the reference semantics); its
        source includes the hidden parameters that carry globals, after the user's."""
        return _linearize_values(self.bound)[1]

    def __str__(self) -> str:
        text = str(self.lm)
        return f"lmTranspose({text})" if self.transposed else text

    def __repr__(self) -> str:
        return f"<catad.LinearMap {self}>"


def linearize(fn: Callable, *primals: Any, **kw_primals: Any) -> tuple[Any, LinearMap]:
    """``(fn(*primals), lm)``: the derivative at primals as a :class:`LinearMap` (primals
    given by keyword take their parameter's place)."""
    b = bind(fn, call_args(fn, primals, kw_primals))
    vals, params = _canonical(b)
    out = _run_primal(b, vals)
    return _user_out(b, out), LinearMap(b, vals, params, out)


for _kind in ("grad", "value_and_grad", "jacobian", "jacfwd", "jacrev", "hessian", "jvp", "hvp"):
    register_maker(globals()[_kind], _kind)  # the front end compiles calls of them (catad.transforms)
