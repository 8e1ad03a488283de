"""Sums of products as einsums (catad.backend).

A product of scalars per lane is recorded in ``c.defs`` as it is made (``Compiler.op``), so
that summing it over a batch axis (``reductions.reduce``) or moving axes by a scatter
(``scatters.moved_axes``) becomes one ``runtime.contract`` (an einsum) of its factors, and
the product itself is never formed: GMM's triangular ``Q x`` is a batched matrix-vector
product, not an N x K x D x D array. A ragged range's mask and, in the zero-safe variant,
a tangent enter an einsum as marked operands (see runtime.contract).
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from .values import Arr, is_scalar0

if TYPE_CHECKING:
    from .compiler import Compiler


LETTERS = "abcdefghijklmnopqrstuvwxyz"  # einsum letters: batch axis b is LETTERS[b]


class TangentFactor(Arr):
    """The tangent factor of a product in the zero-safe variant: an einsum's `zero`
    operand, whose 0 makes its term 0 whatever the other factors are (runtime.contract)."""

    __slots__ = ()


def _has_tangent(fs: list[Arr]) -> bool:
    return any(isinstance(f, TangentFactor) for f in fs)


def factors(c: Compiler, x: Arr) -> list[Arr]:
    """The factors x is a product of (itself if it is not one), as defs recorded them."""
    how = c.defs.get(x.code)
    if how is None or how[0] not in ("mul", "where0", "tmul") or \
            x.depth != max([x.depth] + [a.depth for a in how[1:]]):
        return [x]
    if how[0] == "mul":
        return factors(c, how[1]) + factors(c, how[2])
    if how[0] == "tmul":
        # zero-safe k * x: the tangent x stays whole (k2 * (k1 * x) is 0 where k1 * x
        # is, not only where x is), and marked, so the einsum drops its zeros' terms
        t = how[2]
        return factors(c, how[1]) + [TangentFactor(t.code, t.depth, t.deps, t.rank, t.kind, t.iota)]
    return [how[1]] + factors(c, how[2])  # where(mask, y, 0) = mask * y: a ragged mask's lanes are finite


def summed(code: str, ax: int) -> str:
    """The code of the sum of an array over its axis ax: over the first, runtime.sum0 (NumPy's
    values by a faster loop); over another, runtime.sum_rows (short rows by einsum's loop)."""
    return f"sum0({code})" if ax == 0 else f"sum_rows({code}, {ax})"


def contract(c: Compiler, x: Arr, ax: int) -> str | None:
    """sum over axis ax of a product of arrays (a sum of products: matmul, a batched
    matrix-vector product, ...) as one einsum, without forming the product."""
    how = c.defs.get(x.code)
    if how is not None and how[0] == "einsum":  # an einsum summed over one more axis
        _, ops, specs, out, pads, scalars, masks = how
        pads = {k - 1: n for k, n in pads.items()}  # pads are on element axes, after ax
        return einsum(c, ("einsum", ops, specs, out[:ax] + out[ax + 1:], pads, scalars, masks),
                      0, frozenset(), 0).code
    if how is not None and how[0] == "add" and not x.rank:
        return _distributed(c, x, ax, how[1], how[2])
    if x.code in c.scaled and not x.rank:
        code = scaled_sum(c, x, ax, *c.scaled[x.code])
        if code is not None:
            return code
    parts = factors(c, x)
    sums = [k for k, f in enumerate(parts) if c.defs.get(f.code, ("",))[0] == "add" and not f.rank
            and f.depth == x.depth]
    if len(sums) == 1 and not x.rank and not _has_tangent(parts):  # k * (a + b): k * a + k * b
        return _expanded(c, x, ax, parts, sums[0])
    whole = _has_tangent(parts)  # zero-safe: no scalar is taken out (see einsum_of)
    scalars = [] if whole else [f for f in parts if is_scalar0(f)]
    fs = parts if whole else [f for f in parts if not is_scalar0(f)]
    if x.rank:
        return None
    if len(fs) == 1 and scalars and fs[0].depth == x.depth and ax in fs[0].deps:
        total = c.assign(summed(fs[0].code, ax))  # k * a summed is k times a's sum: no temporary,
        out, finite = total, [f"all_finite({total})"]  # where k and the sum are finite (scaled_sum)
        for f in scalars:
            out = f"({f.code} * {out})"
            finite.append(f"all_finite({f.code})")
        finite.append(f"products_finite({fs[0].code}, {', '.join(f.code for f in scalars)})")
        own = _own_expression(c, x)
        if own is None:
            own = fs[0].code
            for f in scalars:
                own = f"({f.code} * {own})"
        return c.assign(f"({_signed(c, out, [f.code for f in scalars])} if {' and '.join(finite)} else "
                        f"{summed(own, ax)})")
    if len(fs) < 2:
        return None
    axes = set().union(*(f.deps for f in fs))
    out = [LETTERS[b] if b in axes else None for b in range(x.depth) if b != ax]
    return einsum(c, einsum_of(c, parts, 0, out), 0, frozenset(), 0, hint="t", record=False).code


def scaled_sum(c: Compiler, x: Arr, ax: int, k: Arr, a: Arr) -> str | None:
    """sum over ax of x = k * a, k constant along ax: k times a's sum (often made already: GMM's
    sum of exp(...) over the components, scaled by a cotangent per point), equal up to rounding
    (as `k * a summed` below), where k and a's sum are finite; x's own sum where they are not
    (an infinite k times a 0 among the terms is NaN in the sum, not in the product of sums; a
    zero k times a sum that overflowed is NaN, the sum of the products 0). None where k varies
    along ax."""
    if k.rank or a.rank or ax in k.deps or a.depth != x.depth or ax not in a.deps or "f" != k.kind or \
            "f" != a.kind:
        return None
    made = _own_expression(c, x)
    if made is None:
        return None
    total = contract(c, a, ax) or c.assign(summed(a.code, ax))
    scale = c.lift(c.drop(k, ax), x.depth - 1).code
    # x's own expression in the other branch: its line is then dead code (the product is made
    # only where k is not finite)
    return c.assign(f"({_signed(c, f'({scale} * {total})', [scale])} if all_finite({scale}) and all_finite({total}) "
                    f"and products_finite({scale}, {a.code}) else "
                    f"{summed(made, ax)})")


def _signed(c: Compiler, product: str, scales: list[str]) -> str:
    """k times a sum, with the sign of a zero NumPy's sum gives: NumPy adds from +0.0, so its sum
    is never -0.0 (of -0.0s, or of a * -0.0), where k * sum may be (-0.0 * 3.0); adding 0.0
    changes nothing else (1.0 / np.sum(a * -0.0) is inf, not -inf). Not needed (no pass over
    the result) where every k is a positive constant: the sum is never -0.0 either."""
    if all(isinstance(v := c.consts.get(k), float) and v > 0 for k in scales):  # (np.float64 too)
        return product
    return f"({product} + 0.0)"


def _own_expression(c: Compiler, x: Arr) -> str | None:
    """The expression of the line that made x (None if none did): x's own sum of products is
    made of it only where it is needed (its line is then dead code)."""
    return next((line.lstrip(" ")[len(x.code) + 3:] for line in reversed(c.lines)
                 if line.lstrip(" ").startswith(f"{x.code} = ")), None)


def _distributed(c: Compiler, x: Arr, ax: int, a: Arr, b: Arr) -> str | None:
    """sum over ax of a + b as the sum of each, when each is a product that contracts: the
    product rule's d(Q x) = dQ x + Q dx summed is two einsums, not an N x K x D x D array."""
    codes = []
    for term in (a, b):
        if term.depth != x.depth or ax not in term.deps:
            return None
        code = contract(c, term, ax)
        if code is None:
            return None
        codes.append(code)
    return c.assign(f"({codes[0]} + {codes[1]})")


def _expanded(c: Compiler, x: Arr, ax: int, parts: list[Arr], k: int) -> str | None:
    """sum over ax of a product one of whose factors is a sum a + b: the sum of the two products,
    each one einsum (a ragged mask times d(Q x) in GMM's reverse program, differentiated again)."""
    _, a, b = c.defs[parts[k].code]
    codes = []
    for term in (a, b):
        fs = parts[:k] + factors(c, term) + parts[k + 1:]
        if len([f for f in fs if not is_scalar0(f)]) < 2:
            return None
        axes = set().union(*(f.deps for f in fs))
        if ax not in axes:
            return None
        out = [LETTERS[q] if q in axes else None for q in range(x.depth) if q != ax]
        codes.append(einsum(c, einsum_of(c, fs, 0, out), 0, frozenset(), 0, hint="t", record=False).code)
    return c.assign(f"({codes[0]} + {codes[1]})")


def operand(c: Compiler, f: Arr) -> str:
    """An einsum operand: f's view without its size-1 batch axes (a Bool that is not a
    ragged build's mask counts as 0 or 1)."""
    view = f.code if f.depth == 0 else \
        f"{f.code}[{', '.join(':' if b in f.deps else '0' for b in range(f.depth))}]"
    return f"{view}.astype(np.float64)" if f.kind == "b" and f.code not in c.ragged_masks else view


def masks_of(c: Compiler, fs: list[Arr]) -> str:
    """The keywords naming the operands that are ragged masks and, in the zero-safe
    variant, tangents (see runtime.contract)."""
    where = tuple(k for k, f in enumerate(fs) if f.code in c.ragged_masks)
    zero = tuple(k for k, f in enumerate(fs) if isinstance(f, TangentFactor))
    return (f", where={where}" if where else "") + (f", zero={zero}" if zero else "")


def einsum_of(c: Compiler, parts: list[Arr], d: int, out: list, pads: dict | None = None) -> tuple:
    """The `how` (see einsum) of the product of factors with output axes `out`: batch
    axis b is letter b, a factor's element axes are the letters from d on."""
    # a scalar factor multiplies the einsum, except with a tangent factor (zero-safe):
    # then inf * (a sum of terms whose tangent is 0) would be NaN, not 0
    whole = _has_tangent(parts)
    scalars = () if whole else tuple(f.code for f in parts if is_scalar0(f))
    fs = parts if whole else [f for f in parts if not is_scalar0(f)]
    ops = tuple(operand(c, f) for f in fs)
    specs = tuple("".join(LETTERS[b] for b in sorted(f.deps)) + LETTERS[d:d + f.rank] for f in fs)
    return ("einsum", ops, specs, tuple(out), pads or {}, scalars, masks_of(c, fs))


def einsum(c: Compiler, how: tuple, depth: int, deps: frozenset, rank: int, hint: str = "ct",
           record: bool = True) -> Arr:
    """The array `how` describes (see einsum_of): an einsum whose output axes are
    letters, or None for a size-1 batch axis; pads: output axis -> the length its
    lanes are padded to with zeros (an update's vector longer than the build). With
    `record`, kept in defs, so that a later sum joins the einsum (contract)."""
    _, ops, specs, out, pads, scalars, masks = how

    def made(ops, specs):
        code = f"contract({','.join(specs) + '->' + ''.join(x for x in out if x)!r}, {', '.join(ops)}{masks})"
        ones = tuple(k for k, x in enumerate(out) if x is None)
        if ones:
            code = f"np.expand_dims({code}, {ones})"
        for k, n in sorted(pads.items()):
            code = f"update_vector({code}, {k}, {n})"
        return code
    code = made(ops, specs)
    if scalars:  # they multiply the sum, where they and it are finite; else each term (inf * 0 is NaN)
        total = c.assign(code, hint)
        scaled = total
        for s in scalars:
            scaled = f"({s} * {scaled})"
        finite = " and ".join([f"all_finite({v})" for v in (total,) + tuple(scalars)] +
                              [f"products_finite({', '.join(tuple(scalars) + tuple(ops))})"])
        code = f"({_signed(c, scaled, list(scalars))} if {finite} else "
        code += f"{made(ops + tuple(scalars), specs + ('',) * len(scalars))})"
    name = c.assign(code, hint)
    if record:
        c.defs[name] = how
    return Arr(name, depth, deps, rank, "f")
