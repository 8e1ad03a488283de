"""``a ** b`` of arrays, and ``np.power``, as NumPy's power ufunc computes them.

The ufunc is C's ``pow`` (the primitive ``pow``, which Python's ``**`` of floats and NumPy's
scalars' are too) but for an exponent that is one value for the whole result: a scalar, or an
array of one element broadcast to a shape other than its own. NumPy computes that as ``np.sqrt``
where the value is 0.5, and the two differ at two points: ``np.sqrt`` gives nan at -inf and
-0.0 at -0.0, where ``pow`` gives inf and 0.0 (``np.array([-np.inf]) ** 0.5`` is nan,
``np.float64(-np.inf) ** 0.5`` inf). So such an exponent is ``sqrt`` where it is the constant
0.5, the primitive ``np_pow`` where it is another Float; where only the lengths known when the
function runs say whether an exponent array is one value, the choice is made there.
"""
from __future__ import annotations

from ..lang.terms import TRUE, Const, If, Term
from ..primitives import prim
from .common import ONE, all_, any_, and_, is_array
from .shapes import fresh


def ufunc_power(lw, a: Term, b: Term, loc) -> Term:
    """a ** b by NumPy's power ufunc, elementwise with broadcasting (b a Float or Float array)."""
    if not is_array(a) and not is_array(b):
        return _one_value(lw, a, b, loc)
    one = _is_one_value(lw, a, b)
    if one is not None:
        f = (lambda x, y: _one_value(lw, x, y, loc)) if one else (lambda x, y: lw.b.arith("pow", x, y, loc))
        return lw.b.elementwise(f, [a, b], loc, "**")

    def decided(x, y):  # atoms: their lengths are there to test
        def either(c):
            return If(c, lw.b.elementwise(lambda p, q: _one_value(lw, p, q, loc), [x, y], loc, "**"),
                      lw.b.elementwise(lambda p, q: lw.b.arith("pow", p, q, loc), [x, y], loc, "**"), loc)
        return lw.b.share(_one_value_test(lw, x, y, loc), either, loc)
    return lw.b.share_all([a, b], decided, loc)


def _one_value(lw, x: Term, y: Term, loc) -> Term:
    """x ** y of scalars, y the one exponent of the whole result."""
    x = lw.b.to_float(x, loc)
    if isinstance(y, Const):  # (pow is np_pow at any other constant)
        return prim("sqrt", x, loc=loc) if y.value == 0.5 else lw.b.arith("pow", x, y, loc)
    return prim("np_pow", x, y, loc=loc)


def _is_one_value(lw, a: Term, b: Term) -> bool | None:
    """Whether the exponent b is one value for the whole result (its one element broadcast to a
    shape other than its own), as far as the lengths known while compiling tell (None: not)."""
    if not is_array(b):
        return True
    infer = lw.b.shapes.infer
    ones_b = [None if d is None else d.one for d in infer(b) or ()]
    ones_a = [None if d is None else d.one for d in infer(a) or ()] if is_array(a) else []
    if False in ones_b:
        return False  # more than one element
    if len(ones_a) > len(ones_b):
        wider = True  # the result has axes b has not
    else:
        wider = True if False in ones_a else False if all(o is True for o in ones_a) else None
    if wider is False:
        return False  # b has the result's shape: NumPy's loop reads it as many values
    return True if wider and all(o is True for o in ones_b) else None


def _one_value_test(lw, x: Term, y: Term, loc) -> Term:
    """The Bool that _is_one_value could not decide, of atoms x and y: y has one element, and
    the result's shape is not y's (it has more axes, or x is longer than 1 along one)."""
    sy = lw.b.shape(y)
    ones = [prim("eq", fresh(d.size, loc), ONE, loc=loc) for d in sy]
    sx = lw.b.shape(x) if is_array(x) else ()
    wider = TRUE if len(sx) > len(sy) else \
        any_([prim("ne", fresh(d.size, loc), ONE, loc=loc) for d in sx])
    return and_(all_(ones), wider)

