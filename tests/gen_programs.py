"""Random well-typed Python source functions for tests/test_random_programs.py.

``programs()`` is a Hypothesis strategy of source texts of ``def f(x, y, v):`` where x, y
are floats and v a small float vector. Bodies use assignments, arithmetic (with int
promotion), smooth math (sin, cos, tanh, atan, and sqrt / log of ``e*e + 1``), NumPy
elementwise array expressions, ``if``/``elif``/``else`` joining variables, ``if`` without ``else``,
early returns, conditional expressions, tuple packing and unpacking, and comprehensions
summed over the array (with filters). Every expression is a float; every division is by
``1 + e*e``; so the functions are smooth away from their comparisons. Two module-level
helpers are called: ``_pair`` (returns a tuple, indexed or unpacked), ``_scaled`` and
``_shifted`` (called on a vector and a float).

``instrument(source)`` rewrites every comparison ``a < b`` into ``_margin(a, b, "<")``,
which records ``|a - b|`` and returns the comparison: running the instrumented function
tells how far a point is from every branch boundary it meets.
"""
import ast
import math

import numpy as np
from hypothesis import strategies as st

CONSTANTS = ["0.5", "1.5", "2.0", "0.25", "3.0", "-0.75", "-1.25", "1.0"]
UNARY = ["-({})", "math.sin({})", "math.cos({})", "math.tanh({})", "math.atan({})", "np.sin({})", "np.tanh({})",
         "np.cos({})", "math.sqrt(({0}) * ({0}) + 1.0)", "math.log(({0}) * ({0}) + 1.0)", "np.sqrt(({0}) ** 2 + 1.0)",
         "np.arctan({})"]
VEC_UNARY = ["np.sin({})", "np.tanh({})", "np.cos({})", "np.arctan({})", "np.sqrt(({0}) * ({0}) + 1.0)", "-({})"]
COMPARE = ["<", ">", "<=", ">="]


class Scope:
    """Names in scope: float scalars, float vectors (NumPy), lists (comprehension results),
    pairs (tuples of two floats), ints (comprehension indices over range(len(v)))."""

    def __init__(self, scalars, vectors, lists=(), pairs=(), ints=()):
        self.scalars, self.vectors = list(scalars), list(vectors)
        self.lists, self.pairs, self.ints = list(lists), list(pairs), list(ints)

    def copy(self):
        return Scope(self.scalars, self.vectors, self.lists, self.pairs, self.ints)


class Gen:
    def __init__(self, draw):
        self.draw = draw
        self.count = 0

    def pick(self, seq):
        return self.draw(st.sampled_from(list(seq)))

    def below(self, n):
        return self.draw(st.integers(0, n - 1))

    def fresh(self, prefix):
        self.count += 1
        return f"{prefix}{self.count}"

    # ------------------------------------------------------------ expressions

    def leaf(self, sc):
        # Hypothesis favours the ends of a choice list: keep the common choices there
        options = ["scalar", "const", "len", "index"]
        if sc.lists:
            options.append("list")
        if sc.pairs:
            options.append("pair")
        if sc.ints:
            options += ["int_index", "int_float"]
        options += ["index", "scalar"]
        kind = self.pick(options)
        if kind == "scalar":
            return self.pick(sc.scalars)
        if kind == "const":
            return self.pick(CONSTANTS)
        if kind == "index":
            return f"{self.pick(sc.vectors)}[{self.pick([0, 1, -1, -2])}]"
        if kind == "list":
            return f"{self.pick(sc.lists)}[{self.pick([0, 1, -1])}]"
        if kind == "pair":
            return f"{self.pick(sc.pairs)}[{self.below(2)}]"
        if kind == "int_index":
            return f"{self.pick(sc.vectors + sc.lists)}[{self.pick(sc.ints)}]"
        if kind == "int_float":
            return f"float({self.pick(sc.ints)})"
        return f"float(len({self.pick(sc.vectors)}))"

    def expr(self, sc, depth):
        if depth <= 0:
            return self.leaf(sc)
        kind = self.pick(["binary", "leaf", "unary", "cond", "promote", "call", "reduce", "binary", "unary",
                          "binary"])
        if kind == "leaf":
            return self.leaf(sc)
        if kind == "binary":
            a, b = self.expr(sc, depth - 1), self.expr(sc, depth - 1)
            op = self.pick(["+", "-", "*", "*", "/", "**"])
            if op == "/":
                return f"({a}) / (1.0 + ({b}) * ({b}))"
            if op == "**":
                return f"({a}) ** 2"
            return f"({a} {op} {b})"
        if kind == "unary":
            return self.pick(UNARY).format(self.expr(sc, depth - 1))
        if kind == "cond":
            c = self.cond(sc, depth - 1)
            return f"({self.expr(sc, depth - 1)} if {c} else {self.expr(sc, depth - 1)})"
        if kind == "call":
            return f"_pair({self.expr(sc, depth - 1)}, {self.expr(sc, depth - 1)})[{self.below(2)}]"
        if kind == "promote":
            k = self.pick(sc.ints + ["len(v)", "2", "3"]) if sc.ints else self.pick(["len(v)", "2", "3"])
            return f"({k} * {self.expr(sc, depth - 1)})"
        return self.reduction(sc, depth - 1)

    def cond(self, sc, depth):
        kind = self.pick(["cmp", "cmp", "and", "not", "or", "cmp", "cmp"])
        if kind == "cmp":
            a, b = self.expr(sc, depth), self.expr(sc, max(depth - 1, 0))
            if a == b:  # a comparison of an expression with itself sits on its boundary
                b = self.pick(CONSTANTS)
            return f"{a} {self.pick(COMPARE)} {b}"
        if kind == "not":
            return f"not ({self.cond(sc, max(depth - 1, 0))})"
        return f"({self.cond(sc, max(depth - 1, 0))}) {kind} ({self.cond(sc, max(depth - 1, 0))})"

    def body(self, inner, var, depth, index=False):
        """A comprehension body that uses its variable (an element, or an index into v)."""
        e = self.expr(inner, depth)
        use = f"{self.pick(inner.vectors)}[{var}]" if index else var
        form = self.pick(["({u} * {e})", "({e} + {u})", "math.sin({u} * {e})", "{e}", "({u} - {e}) ** 2"])
        return form.format(u=use, e=e)

    def reduction(self, sc, depth):
        kind = self.pick(["gen_elem", "gen_index", "list_comp", "dot", "sum_list", "filtered", "np_sum"])
        if kind == "sum_list" and not sc.lists:
            kind = "np_sum"
        if kind == "gen_elem":
            w = self.fresh("w")
            inner = sc.copy()
            inner.scalars.append(w)
            return f"sum({self.body(inner, w, depth)} for {w} in {self.pick(sc.vectors + sc.lists)})"
        if kind == "gen_index":
            i = self.fresh("i")
            inner = sc.copy()
            inner.ints.append(i)
            return f"sum({self.body(inner, i, depth, index=True)} for {i} in range(len(v)))"
        if kind == "list_comp":
            w = self.fresh("w")
            inner = sc.copy()
            inner.scalars.append(w)
            return f"sum([{self.body(inner, w, depth)} for {w} in {self.pick(sc.vectors)}])"
        if kind == "filtered":
            w = self.fresh("w")
            inner = sc.copy()
            inner.scalars.append(w)
            return (f"sum({self.body(inner, w, depth)} for {w} in {self.pick(sc.vectors)} "
                    f"if {w} {self.pick(COMPARE)} {self.expr(sc, 0)})")
        if kind == "np_sum":
            return f"np.sum({self.vec(sc, depth)})"
        if kind == "dot":
            return f"np.dot({self.vec(sc, depth)}, {self.vec(sc, max(depth - 1, 0))})"
        return f"sum({self.pick(sc.lists)})"

    def vec(self, sc, depth):
        if depth <= 0:
            return self.pick(sc.vectors)
        kind = self.pick(["unary", "name", "shift", "add", "mul", "call", "call_shift", "scale"])
        if kind == "call":
            return f"_scaled({self.vec(sc, depth - 1)}, {self.expr(sc, depth - 1)})"
        if kind == "call_shift":
            return f"_shifted({self.vec(sc, depth - 1)}, {self.expr(sc, depth - 1)})"
        if kind == "name":
            return self.pick(sc.vectors)
        if kind == "unary":
            return self.pick(VEC_UNARY).format(self.vec(sc, depth - 1))
        if kind == "scale":
            return f"({self.vec(sc, depth - 1)} * {self.expr(sc, depth - 1)})"
        if kind == "shift":
            return f"({self.vec(sc, depth - 1)} - {self.expr(sc, depth - 1)})"
        if kind == "add":
            return f"({self.vec(sc, depth - 1)} + {self.vec(sc, depth - 1)})"
        return f"({self.vec(sc, depth - 1)} * {self.vec(sc, depth - 1)})"

    # ------------------------------------------------------------ statements

    def statements(self, sc, count, depth, indent, nested=0):
        lines = []
        for _ in range(count):
            lines += self.statement(sc, depth, indent, nested)
        return lines

    def statement(self, sc, depth, indent, nested):
        pad = "    " * indent
        kinds = ["assign", "vector", "list", "unpack", "pair", "if_only", "augment"]
        if nested < 1:
            kinds += ["early_return", "if_else"]
        kinds.append("assign")
        kind = self.pick(kinds)
        if kind == "assign":
            name = self.fresh("t")
            line = f"{pad}{name} = {self.expr(sc, depth)}"
            sc.scalars.append(name)
            return [line]
        if kind == "vector":
            name = self.fresh("a")
            line = f"{pad}{name} = {self.vec(sc, depth)}"
            sc.vectors.append(name)
            return [line]
        if kind == "list":
            name, w = self.fresh("l"), self.fresh("w")
            inner = sc.copy()
            if self.below(2):
                inner.scalars.append(w)
                line = f"{pad}{name} = [{self.body(inner, w, depth - 1)} for {w} in {self.pick(sc.vectors)}]"
            else:
                inner.ints.append(w)
                line = f"{pad}{name} = [{self.body(inner, w, depth - 1, index=True)} for {w} in range(len(v))]"
            sc.lists.append(name)
            return [line]
        if kind == "unpack":
            if sc.pairs and self.below(2):
                a, b = self.fresh("t"), self.fresh("t")
                line = f"{pad}{a}, {b} = {self.pick(sc.pairs)}"
            elif len(sc.scalars) >= 2 and self.below(3) == 0:
                a, b = self.pick(sc.scalars), self.pick(sc.scalars)  # a swap or a copy of existing names
                if a == b:
                    b = self.fresh("t")
                line = f"{pad}{a}, {b} = {b if b in sc.scalars else self.expr(sc, depth)}, {a}"
            elif self.below(2):
                a, b = self.fresh("t"), self.fresh("t")
                line = f"{pad}{a}, {b} = _pair({self.expr(sc, depth)}, {self.expr(sc, depth)})"
            else:
                a, b = self.fresh("t"), self.fresh("t")
                line = f"{pad}{a}, {b} = {self.expr(sc, depth)}, {self.expr(sc, depth)}"
            for n in (a, b):
                if n not in sc.scalars:
                    sc.scalars.append(n)
            return [line]
        if kind == "pair":
            name = self.fresh("p")
            line = f"{pad}{name} = ({self.expr(sc, depth)}, {self.expr(sc, depth)})"
            sc.pairs.append(name)
            return [line]
        if kind == "augment":
            name = self.pick(sc.scalars)
            return [f"{pad}{name} {self.pick(['+=', '-='])} {self.expr(sc, depth)}"]
        if kind == "early_return":
            return [f"{pad}if {self.cond(sc, depth)}:", f"{pad}    return {self.expr(sc, depth)}"]
        if kind == "if_only":
            name = self.pick(sc.scalars)
            inner = sc.copy()
            body = self.statements(inner, self.below(2), max(depth - 1, 0), indent + 1, nested + 1)
            body.append(f"{pad}    {name} = {self.expr(inner, depth)}")
            return [f"{pad}if {self.cond(sc, depth)}:"] + body
        # if / else joining one or two variables (new ones, or existing ones rebound)
        targets = []
        for _ in range(1 + self.below(2)):
            t = self.pick(sc.scalars) if self.below(3) == 0 else self.fresh("j")
            if t not in targets:
                targets.append(t)
        heads = [f"{pad}if {self.cond(sc, depth)}:"]
        if self.below(3) == 0:
            heads.append(f"{pad}elif {self.cond(sc, depth)}:")
        heads.append(f"{pad}else:")
        lines = []
        for head in heads:
            lines.append(head)
            inner = sc.copy()
            lines += self.statements(inner, self.below(2), max(depth - 1, 0), indent + 1, nested + 1)
            for t in targets:
                lines.append(f"{pad}    {t} = {self.expr(inner, depth)}")
        for t in targets:
            if t not in sc.scalars:
                sc.scalars.append(t)
        return lines


@st.composite
def programs(draw, name="f"):
    """The source text of a random function ``f(x, y, v)`` returning a float."""
    g = Gen(draw)
    sc = Scope(["x", "y"], ["v"])
    depth = draw(st.integers(1, 3))
    body = g.statements(sc, draw(st.integers(0, 7)), depth, 1)
    body.append(f"    return {g.expr(sc, depth)}")
    return "\n".join(HEADER + [f"def {name}(x, y, v):"] + body) + "\n"


HEADER = ["import math", "import numpy as np", "", "",
          "def _pair(a, b):", "    return a * b + 1.0, math.sin(a) - b", "", "",
          "def _scaled(w, k):", "    return w * k", "", "",
          "def _shifted(w, k):", "    return w + k", "", ""]


# ---------------------------------------------------------------- margins from branch boundaries

_OPS = {ast.Lt: "<", ast.Gt: ">", ast.LtE: "<=", ast.GtE: ">="}


class _Instrument(ast.NodeTransformer):
    def visit_Compare(self, node):
        self.generic_visit(node)
        assert len(node.ops) == 1 and type(node.ops[0]) in _OPS
        return ast.Call(func=ast.Name("_margin", ast.Load()),
                        args=[node.left, node.comparators[0], ast.Constant(_OPS[type(node.ops[0])])], keywords=[])


def instrument(source, name="f"):
    """(fn, margins): the function compiled with every comparison recording |a - b| into margins."""
    tree = ast.fix_missing_locations(_Instrument().visit(ast.parse(source)))
    margins = []

    def _margin(a, b, op):
        margins.append(abs(float(a) - float(b)))
        return {"<": a < b, ">": a > b, "<=": a <= b, ">=": a >= b}[op]

    namespace = {"_margin": _margin, "math": math, "np": np}
    exec(compile(tree, "<instrumented>", "exec"), namespace)
    return namespace[name], margins
