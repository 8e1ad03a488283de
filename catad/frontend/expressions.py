"""Lowering expressions: constants, names, attributes, tuples, operators and comparisons,
conditional expressions, boolean operators, and calls (dispatched to calls.py, or to a user
function compiled by the program). What a name denotes (a local, or a global, closure or
builtin value) is in freenames.py; subscripts and list displays in subscripts.py;
comprehensions in comprehensions.py.

Each ``x_<Node>`` method lowers one kind of ``ast`` node; ``expr`` dispatches on the node's class.
Recursion follows the nesting of expressions. ``Expressions`` is a part of
:class:`catad.frontend.lower.FunctionLowerer`.
"""
from __future__ import annotations

import ast
import builtins
import math
import types

import numpy as np

from ..errors import ArgumentError, CatadError, CatadTypeError
from ..lang.terms import FALSE, TRUE, Const, If, Term, Tuple, Var, let_chain, make_lets
from ..lang.types import Bool, Float, Int, Tuple as TupleT, rank, scalar_of
from ..primitives import prim
from . import calls, complexes, int_range, numpy_arrays, numpy_power
from .complexes import Complex
from .common import and_, both_python, is_array, or_, static_bool, where_python
from .freenames import NOT_STATIC, Static
from .shapes import lin_const, without_checks
from .statements import LocalFunction
from .source import relocate
from .subscripts import DictKey
from ..trees import NONE, Tree, string

_BINOPS = {ast.Add: "add", ast.Sub: "sub", ast.Mult: "mul", ast.Div: "div", ast.FloorDiv: "floordiv",
           ast.Mod: "mod", ast.Pow: "pow"}
_LOGICAL = {  # & | ^ of Bools (masks): NumPy's logical and, or, xor
    ast.BitAnd: lambda lw, x, y, loc: If(x, y, FALSE, loc), ast.BitOr: lambda lw, x, y, loc: If(x, TRUE, y, loc),
    ast.BitXor: lambda lw, x, y, loc: lw.b.share(y, lambda v: If(x, prim("not", v, loc=loc), v, loc), loc)}
_BOOL_LOGICAL = {ast.Add: ast.BitOr(), ast.Mult: ast.BitAnd()}  # NumPy's + and * of bools
_CMPOPS = {ast.Lt: "lt", ast.LtE: "le", ast.Gt: "gt", ast.GtE: "ge", ast.Eq: "eq", ast.NotEq: "ne"}
_SYMBOLS = {k: "operator " + v for k, v in {  # how a shape error names the operation
    ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.FloorDiv: "//", ast.Mod: "%", ast.Pow: "**",
    ast.BitAnd: "&", ast.BitOr: "|", ast.BitXor: "^", ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">=", ast.Eq: "==", ast.NotEq: "!="}.items()}

_STRINGS = ("string", "strings are not supported; catad functions compute with numbers, arrays and tuples")
# a class of node -> the name of the method lowering it ("x_BinOp"), made once: a name made
# again at each look-up misses the class's cache of attributes, and is looked up in each base
_METHODS: dict[type, str] = {}
_UNSUPPORTED_EXPRS = {
    ast.Lambda: ("lambda", "a lambda can be assigned to a name (f = lambda x: ...) and called, but not used as a "
                           "value otherwise (higher-order functions are not supported)"),
    ast.NamedExpr: ("walrus", "assignment expressions (:=) are not supported; assign in a separate statement"),
    ast.Starred: ("starred", "starred expressions (*x) are not supported; write the elements out"),
    ast.Dict: ("dict", "dicts are not supported; use tuples or arrays"),
    ast.Set: ("set", "sets are not supported; use tuples or arrays"),
    ast.SetComp: ("set", "set comprehensions are not supported; use a list comprehension"),
    ast.JoinedStr: _STRINGS,
    ast.FormattedValue: _STRINGS,
    ast.Await: ("await", "await is not supported; use a plain def"),
    ast.Yield: ("yield", "generator functions are not supported; return an array built with a comprehension"),
    ast.YieldFrom: ("yield", "generator functions are not supported; return an array built with a comprehension"),
    ast.Slice: ("slice", "slices are only supported inside subscripts, e.g. v[a:b]"),
}


class Expressions:
    """Expressions to terms. Uses the lowerer's b (the Builder), program (for callees), branch,
    the marking of Python lists (as_list, is_list, refuse_lists), and lookup, static_path,
    static, constant and hidden_param (freenames.py)."""

    def expr(self, node: ast.expr) -> Term:
        """node's term; a complex value is refused here (complexes.py): the places that take one
        call ``value``."""
        t = self.value(node)
        if isinstance(t, Complex):
            complexes.refuse(self, node, t)
        return t

    def value(self, node: ast.expr, objects: bool = False) -> Term | Complex:
        """node's term, or the Complex it denotes. A dataclass's value (catad.trees: an "object") is
        taken only where `objects` says so (its fields read, assigned, returned, passed to your
        function): anything else would compute with the tuple of its fields, which Python does not
        (len(p), p[0], p + q raise there)."""
        try:
            name = _METHODS.get(type(node))
            if name is None:
                name = _METHODS[type(node)] = "x_" + type(node).__name__
            method = getattr(self, name, None)
            if method is None:
                construct, message = _UNSUPPORTED_EXPRS.get(
                    type(node), (type(node).__name__, f"{type(node).__name__} expressions are not supported"))
                self.fail(node, construct, message)
            out = method(node)
            if not objects and type(out) is not Complex and type(out.type) is TupleT:
                self.refuse_object(out, node)
            return out
        except CatadError as e:
            if e.loc is None:
                relocate(e, self.loc(node))
            raise

    def refuse_object(self, t: Term, node: ast.AST, what: str | None = None) -> None:
        """A dataclass's value where it is not taken (see `value`): refused."""
        tree = self.tree(t)
        if tree is not None and tree.kind == "object":
            what = what or ast.unparse(node)
            self.fail(node, "dataclass", f"{what} is {tree.describe()}: catad reads its fields "
                      f"(p.{tree.keys[0] if tree.keys else 'x'}), assigns, returns and passes it to "
                      "your functions, and does nothing else with it", hint="compute with its fields")

    def arg(self, a: ast.expr | Term) -> Term:
        return a if isinstance(a, Term) else self.expr(a)

    def value_arg(self, a: ast.expr | Term | Complex) -> Term | Complex:
        """An argument that may be complex (np.abs, np.fft.fft, ...)."""
        return a if isinstance(a, (Term, Complex)) else self.value(a)

    def condition(self, node: ast.expr, what: str) -> Term:
        """The Bool of what an if, while, assert, conditional expression, filter or `not` tests:
        Python's truth of a number (x != 0; a NaN is true), a list (not empty) or a tuple."""
        if isinstance(node, ast.BoolOp):  # a and b tested: the truth of a, then of b
            return self.x_BoolOp(node, tested=True)
        t = self.expr(node)
        if t.type == Bool:
            return t
        loc = self.loc(node)
        if t.type in (Int, Float):
            return self.as_py(prim("ne", t, Const(0 if t.type == Int else 0.0, t.type, loc), loc=loc))
        if isinstance(t.type, TupleT):  # (a dict, a list of arrays of different shapes too)
            return self.as_py(Const(bool(t.type.items), Bool, loc))
        if is_array(t) and self.is_list(t):
            return self.as_py(prim("ne", self.b.length(t, loc), Const(0, Int, loc), loc=loc))
        article = "an" if str(t.type)[:1] in "AEIOU" else "a"
        why = "Python raises ValueError for an array of more than one element" if is_array(t) else \
            "catad tests the truth of a bool, a number, a list or a tuple"
        self.fail(node, "truthiness", f"the condition of this {what} is {article} {t.type}, not a Bool; {why}",
                  hint="compare explicitly, e.g. v.size > 0, np.any(v) or len(v) > 0")

    def operand(self, node: ast.expr, word: str) -> Term:
        """An operand of `and` or `or` as a value: a Bool (Python's `a and b` of other values is one of them)."""
        t = self.expr(node)
        if t.type != Bool:
            article = "an" if str(t.type)[:1] in "AEIOU" else "a"
            self.fail(node, "truthiness", f"an operand of {word} is {article} {t.type}, not a Bool; Python's "
                      f"{word} of other values gives one of them, which catad does not support",
                      hint="compare explicitly (n != 0 and m != 0), or write a conditional expression")
        return t

    def x_Constant(self, node: ast.Constant) -> Term:
        """int, float and bool constants (a string only as a dict's key; None is refused)."""
        v, loc = node.value, self.loc(node)
        if isinstance(v, bool):
            return self.as_py(Const(v, Bool, loc))
        if isinstance(v, int):
            return self.as_py(Const(v, Int, loc))
        if isinstance(v, float):
            return self.as_py(Const(v, Float, loc))
        if isinstance(v, complex):
            return complexes.constant(v, loc, repr(v))
        if isinstance(v, (str, bytes)):
            self.fail(node, *_STRINGS)
        self.fail(node, "constant", f"the constant {v!r} is not supported; constants are ints, floats, "
                                    "True and False")

    def x_Name(self, node: ast.Name) -> Term:
        """a local variable, or a global, closure or builtin value read at each call."""
        t = self.lookup(node.id, node)
        tree = self.tree(t)
        if tree is not None and tree.kind == "str":
            message = (f"{node.id!r} is the str {tree.keys[0]!r} here, where it is used as a value; catad compares "
                       "strings (==, !=, in) and reads dicts with them")
            hint = f"compare it, e.g. if {node.id} == {tree.keys[0]!r}:"
            if self.parent is None and len(self.program.active) == 1 and node.id in self.src.params:
                raise ArgumentError(f"argument {message}", self.loc(node), "argument", hint=hint)
            self.fail(node, "str", message, CatadTypeError, hint=hint)
        if tree is NONE:  # an argument that is None (catad.trees), used as a value
            message = f"{node.id!r} is None (NoneType) here, where it is used as a value"
            hint = f"test it with `if {node.id} is None:` first, or pass a value"
            if self.parent is None and len(self.program.active) == 1 and node.id in self.src.params:
                raise ArgumentError(f"argument {message}", self.loc(node), "argument", hint=hint)
            self.fail(node, "None", message, CatadTypeError, hint=hint)
        return t

    def x_Attribute(self, node: ast.Attribute) -> Term:
        """x.shape, x.T, x.ndim, x.size of arrays; module attributes (np.pi, math.e) and globals' attributes read at each call."""
        obj, path = self.static_path(node)
        if obj is not NOT_STATIC:
            return self.constant(obj, path, node, ast.unparse(node))
        base, loc, attr = self.value(node.value, objects=True), self.loc(node), node.attr
        if isinstance(base, Complex):
            return complexes.attribute(self, base, attr, node)
        tree = self.tree(base) if isinstance(base.type, TupleT) else None
        if tree is not None and tree.cls is not None:  # a named tuple's or a dataclass's field
            if attr not in tree.keys:
                self.fail(node, "attribute", f"attribute .{attr} of a {tree.cls.__name__} is not supported; its fields "
                          f"are {', '.join(tree.keys)}")
            return self.tuple_item(base, tree.keys.index(attr), loc)
        if is_array(base) and not self.is_list(base) and attr in ("shape", "T", "ndim", "size", "real", "imag"):
            return self.array_attribute(base, attr, loc)
        if scalar_of(base.type) in (Int, Float, Bool) and attr in ("real", "imag") and not self.is_list(base):
            return self.array_attribute(base, attr, loc)
        what = "a Python list" if self.is_list(base) else f"a {base.type}"
        self.fail(node, "attribute", f"attribute .{attr} of {what} is not supported; supported: "
                                     ".shape, .T, .ndim, .size, .real and .imag of arrays (make lists arrays with "
                                     "np.array)")

    def array_attribute(self, base: Term, attr: str, loc) -> Term:
        """x.shape, x.T, x.ndim, x.size of an array; x.real (x itself) and x.imag (zeros) of a real
        array or number, as NumPy gives them."""
        if attr == "shape":
            return self.b.share(base, lambda a: Tuple(tuple(int_range.size(self, self.b.size(a, k, loc))
                                                            for k in range(rank(a.type))), loc), loc)
        if attr == "T":
            return self.b.transpose(base, loc)
        if attr == "ndim":
            return self.as_py(Const(rank(base.type), Int, loc))
        if attr == "size":
            return int_range.size(self, self.b.share(base, lambda a: self.b.count(a, loc), loc))
        if attr == "real":
            return base
        zero = Const({Float: 0.0, Int: 0, Bool: False}[scalar_of(base.type)], scalar_of(base.type), loc)
        # (a Python float's .imag is Python's 0.0: 1.0 / x.imag raises)
        return self.b.elementwise(lambda x: zero, [base], loc) if is_array(base) else self.keep_py(base, zero)

    def x_Tuple(self, node: ast.Tuple) -> Term:
        """a tuple display (a tuple of lists or dicts keeps their structure)."""
        return self.tuple_of([self.str_or_expr(e) for e in node.elts], self.loc(node))  # lower.py

    def x_BinOp(self, node: ast.BinOp) -> Term:
        """+ - * / // % ** and @ with NumPy's broadcasting (lists beside arrays made arrays, as NumPy
        does); complex values' + - * / ** by complexes.py."""
        return self.binop(node.op, self.value(node.left), self.value(node.right), node)

    def binop(self, op: ast.operator, a: Term | Complex, b: Term | Complex, node: ast.AST,
              ufunc: bool = False) -> Term | Complex:
        """a op b; `ufunc`: by NumPy's ufunc (np.power) where both are numbers too."""
        if isinstance(a, Complex) or isinstance(b, Complex):
            return complexes.binop(self, op, a, b, node)
        loc = self.loc(node)
        py = self.is_py(a) and self.is_py(b)  # two of Python's own numbers (before a Bool is made a number)
        # Neither operand a Python list, dict or None (no list mark, no tree: most operands): the
        # checks below that concern those have nothing to find, and are not asked
        plain = not self.is_list(a) and not self.is_list(b) and self.tree(a) is None and self.tree(b) is None
        for t, side in ((a, node.left), (b, node.right)) if isinstance(node, ast.BinOp) and not plain else ():
            if self.tree(t) is NONE:  # d["k"] of a dict holding None (a name that is None is refused where read)
                self.fail(side, "None", f"{ast.unparse(side)} is None (NoneType) here, where it is used as a value",
                          CatadTypeError, hint=f"test it with `if {ast.unparse(side)} is None:` first")
        unknown = [self.unknown_row(t) for t in (a, b)]
        if any(unknown) and (isinstance(op, (ast.Add, ast.Mult)) or not any(
                is_array(t) and not self.is_list(t) and not u for t, u in zip((a, b), unknown))):
            # A list's row is a list where the list holds lists ([[1.0, 2.0], ...]) and an array where
            # it holds arrays ([r for r in m], [m[0], m[1]]): + concatenates the one and adds the
            # other, and catad does not tell the two apart
            self.fail(node, "list row", "an item of a list that holds lists or arrays is one or the other as the "
                      "list was made: + concatenates lists and adds arrays, * repeats lists and multiplies arrays, "
                      "other operators work on arrays only, and catad does not tell the two apart here", hint="make the list an array first, "
                      "np.array(xs), or its item: np.asarray(xs[0]) (or list(xs[0]) for a list)")
        if not plain and isinstance(op, ast.Add) and self.list_kind(a) and self.list_kind(b):
            return self.concatenated(a, b, node)  # lists.py: xs + ys is a longer list
        if not plain and isinstance(op, ast.Mult) and bool(self.list_kind(a)) != bool(self.list_kind(b)):
            xs, k = (a, b) if self.list_kind(a) else (b, a)
            if k.type in (Int, Bool):
                return self.repeated(xs, k, node)  # lists.py: Python's repetition of a list
        tuples = self.plain_tuple(a) or self.plain_tuple(b)
        if tuples:
            out = self.tuple_operator(op, a, b, node)
            if out is not None:
                return out
        if not plain or tuples:  # (a tuple beside an array is made one)
            a, b = self.list_operands(node, a, b)
            self.refuse_lists(node, [a, b], "an arithmetic operator")
        if isinstance(op, ast.MatMult):
            if not is_array(a) or not is_array(b):
                self.fail(node, "@", f"@ multiplies arrays, got {a.type} and {b.type}", CatadTypeError,
                          "use * to scale by a scalar")
            if rank(a.type) > 2 or rank(b.type) > 2:
                return numpy_arrays.matmul(self, a, b, loc)  # stacks of matrices
            return self.b.dot(a, b, loc, "matmul")
        sa, sb = scalar_of(a.type), scalar_of(b.type)
        symbol = _SYMBOLS.get(type(op))  # (of the operator written: + of masks is computed as |)
        if sa == Bool and sb == Bool and type(op) in _BINOPS:
            if not self.numpy_bools(op, a, b, py, node):  # Python's bools are ints: True + True is 2
                a, b = self.keep_py(a, self.b.numeric(a, Int, loc)), self.keep_py(b, self.b.numeric(b, Int, loc))
            elif type(op) in _BOOL_LOGICAL:  # NumPy's + and * of bools are its logical or and and
                op = _BOOL_LOGICAL[type(op)]
            else:  # NumPy's / of bools divides floats
                a, b = self.b.numeric(a, Float, loc), self.b.numeric(b, Float, loc)
            sa, sb = scalar_of(a.type), scalar_of(b.type)
        if type(op) in _LOGICAL and sa == Bool and sb == Bool:
            f = lambda x, y: _LOGICAL[type(op)](self, x, y, loc)
            if is_array(a) or is_array(b):
                return self.b.elementwise(f, [a, b], loc, symbol)
            out = f(a, b)  # a bool of Python's where both are (True & True is True, not np.True_)
            return self.as_py(out) if py else self.as_numpy(out) if self.is_numpy(a) or self.is_numpy(b) else out
        if (sa == Bool) != (sb == Bool) and {sa, sb} <= {Bool, Int, Float}:  # a mask or a flag beside numbers
            # (keeping its kind: Python's True / 0.0 raises, NumPy's gives inf)
            a, b = (self.keep_py(a, self.b.numeric(a, sb, loc)), b) if sa == Bool else \
                (a, self.keep_py(b, self.b.numeric(b, sa, loc)))
        name = _BINOPS.get(type(op))
        if name is None:
            self.fail(node, "operator", f"operator {type(op).__name__} is not supported; supported: "
                                        "+ - * / // % ** @, and & | ^ of Bools")
        if name == "pow" and (is_array(a) or is_array(b)) and scalar_of(a.type) == Int and scalar_of(b.type) == Int:
            return self.b.elementwise(lambda x, y: self.int_power(x, y, loc), [a, b], loc, "**")
        if name == "pow" and scalar_of(b.type) == Float and (
                ufunc or is_array(a) or is_array(b) or self.is_zero_d(a) or self.is_zero_d(b)):
            out = numpy_power.ufunc_power(self, a, b, loc)  # (an array of no axes: NumPy's ufunc too)
            return out if is_array(out) else self.as_numpy(out)
        f = lambda x, y: self.b.arith(name, x, y, loc)
        if is_array(a) or is_array(b):
            return self.b.elementwise(f, [a, b], loc, _SYMBOLS[type(op)])
        if name in int_range.CHECKED and {a.type, b.type} <= {Int, Bool} and Int in (a.type, b.type):
            # (its checks read the operands again: bound to names first, as python_arith does)
            compute = (lambda x, y: self.b.share_all([x, y], lambda p, q: self.python_power(p, q, loc), loc)) \
                if name == "pow" and py else f
            wa, wb = self.py_when(a), self.py_when(b)
            # Python's ints on some paths only (a count a loop makes NumPy's where it runs): the
            # result is Python's where both are
            maybe = not py and wa is not None and wb is not None
            if name == "pow" and {a.type, b.type} == {Int} and (wa is None or wb is None):
                compute = lambda x, y: self.int_power(x, y, loc)  # a NumPy int either side: NumPy's (an Int)
            elif name == "pow" and {a.type, b.type} == {Int} and int_range.bound_of(self, b).nonneg:
                compute = lambda x, y: prim("pow", x, y, loc=loc)  # Python's int: its power >= 0 is one (2 ** i)
            elif name == "pow" and maybe and isinstance(b, Const) and b.value < 0:
                compute = lambda x, y: self.maybe_python_int_power(x, y, both_python(wa[0], wb[0]), loc)
            elif name == "pow" and maybe:
                self.fail(node, "**", f"an int to a power not known to be >= 0, the ints Python's on some paths "
                          "and NumPy's on others (Python's 2 ** -1 is 0.5, NumPy's int64 raises ValueError; a "
                          "count a loop adds NumPy's bools to is NumPy's only where the loop runs)",
                          CatadTypeError, hint="convert first: float(n) ** k for a float, or int(n) for Python's int")
            out = int_range.arith(self, name, a, b, loc, _SYMBOLS[type(op)], compute)
            if maybe:
                return self.as_py_when(out, both_python(wa[0], wb[0]), Int if out.type == Int else Float)
            return self.as_py(out) if py else out
        # Python's errors where both are Python's numbers
        out = self.python_arith(name, a, b, loc, _SYMBOLS[type(op)]) if py else \
            self.maybe_python_arith(name, a, b, loc, _SYMBOLS[type(op)], f)
        if name in ("floordiv", "mod") and out.type == Int:
            int_range.quotient(self, name, a, b, out)
        if py:
            return self.as_py(out)
        return self.as_numpy(out) if self.is_numpy(a) or self.is_numpy(b) else out  # NumPy's wins

    def numpy_bools(self, op: ast.operator, a: Term, b: Term, py: bool, node: ast.AST) -> bool:
        """Whether a op b of two Bools is NumPy's (an array, or a NumPy bool either side: + and *
        are logical or and and, / divides floats) rather than Python's (bools are the ints 0 and
        1); refused where NumPy raises or neither is known."""
        if py:
            return False
        if not (is_array(a) or is_array(b)) and self.py_when(a) is not None and self.py_when(b) is not None:
            self.fail(node, "operator", f"{_SYMBOLS[type(op)]} of two bools that are Python's (ints: True + True "
                      "is 2) on some paths and NumPy's (True + True is True) on others", CatadTypeError,
                      hint="convert them first: int(a) + int(b) counts, a | b is a logical or")
        if isinstance(op, ast.Sub):
            self.fail(node, "operator", "numpy boolean subtract, the `-` operator, is not supported, use the "
                      "bitwise_xor, the `^` operator, or the logical_xor function instead (NumPy's error)",
                      CatadTypeError)
        if type(op) not in _BOOL_LOGICAL and not isinstance(op, ast.Div):
            self.fail(node, "operator", f"{_SYMBOLS[type(op)]} of NumPy's bools gives int8, which catad does not "
                      "have", CatadTypeError, hint="convert them first, e.g. mask.astype(int)")
        return True

    def maybe_python_arith(self, name: str, a: Term, b: Term, loc, symbol: str, f) -> Term:
        """a op b of numbers that are Python's own only where a condition holds (sum(x) of an
        empty array is Python's int 0): Python's checks where both are, NumPy's inf and nan
        elsewhere; the result is Python's where both are."""
        wa, wb = self.py_when(a), self.py_when(b)
        if wa is None or wb is None:
            return f(a, b)
        when = both_python(wa[0], wb[0])
        ints = wa[1] in (Int, Bool) and wb[1] in (Int, Bool)
        out = self.python_arith(name, a, b, loc, symbol, when, ints, (wa[2], wb[2]))
        return self.as_py_when(out, when, Int if ints and name != "div" else Float)

    def python_arith(self, name: str, a: Term, b: Term, loc, symbol: str, when: Term = TRUE,
                     ints: bool | None = None, known: tuple = (None, None)) -> Term:
        """a op b of two of Python's own numbers, with Python's checks: a division by zero is its
        ZeroDivisionError; 0.0 ** -1 too; a negative number to a fractional power, which Python
        makes a complex number, is refused; a float power beyond the largest float is its
        OverflowError. `when`: where a and b are Python's numbers (the checks hold only there);
        `ints`: whether both are Python's ints there (by default: their types say); `known`: the
        Consts a and b are there, where known (the checks read those)."""
        if ints is None:
            ints = a.type in (Int, Bool) and b.type in (Int, Bool)
        zero_message = {"div": "division by zero" if ints else "float division by zero",
                        "floordiv": "integer division or modulo by zero" if ints else "float floor division by zero",
                        "mod": "integer modulo by zero" if ints else "float modulo"}.get(name)
        if zero_message is None and name != "pow":
            return self.b.arith(name, a, b, loc)

        kb = known[1] if known[1] is not None else b
        if zero_message is not None and isinstance(kb, Const) and kb.value != 0:
            return self.b.arith(name, a, b, loc)  # x / 2.0: nothing to check

        def checked(x, y):
            zero = Const(0, Int) if y.type in (Int, Bool) else Const(0.0, Float)
            if zero_message is not None:
                if isinstance(known[1], Const):  # 0 there, by the test above
                    binds = self.b.check(prim("not", when, loc=loc), (), loc, symbol, zero_message, "zerodiv")
                    return make_lets(binds, self.b.arith(name, x, y, loc))
                y0 = y if y.type != Bool else self.b.numeric(y, Int, loc)
                binds = self.b.check(where_python(when, prim("ne", y0, zero, loc=loc), loc), (), loc, symbol, zero_message,
                                     "zerodiv")
                return make_lets(binds, self.b.arith(name, x, y, loc))
            return self.python_power(x, y, loc, when, *(k if k is not None else v for k, v in zip(known, (x, y))))
        return self.b.share_all([a, b], checked, loc)

    def python_power(self, x: Term, y: Term, loc, when: Term = TRUE, cx: Term | None = None,
                     cy: Term | None = None) -> Term:
        """x ** y with Python's checks, where `when` holds, on the values cx and cy (x and y, or
        the Consts they are where they are Python's)."""
        r = self.b.arith("pow", x, y, loc)
        x, y = cx if cx is not None else x, cy if cy is not None else y
        if x.type == Int and y.type == Int and r.type == Float and not isinstance(y, Const):
            r = self.b.share(r, lambda p: self.whole_power(p, y, when, loc), loc)
        known_zero = any(isinstance(t, Const) and t.value == 0 for t in (x, y))  # 0 ** y, x ** 0: no overflow
        xf = x if x.type == Float else self.b.numeric(x, Float, loc) if x.type == Bool else self.b.to_float(x, loc)
        yf = y if y.type == Float else self.b.numeric(y, Float, loc) if y.type == Bool else self.b.to_float(y, loc)
        zero = Const(0.0, Float)
        binds = []
        if not (isinstance(y, Const) and y.value >= 0 or isinstance(x, Const) and x.value != 0):
            negative = and_(prim("lt", yf, zero, loc=loc), prim("ne", yf, Const(-math.inf, Float), loc=loc))
            binds += self.b.check(where_python(when, prim("not", and_(prim("eq", xf, zero, loc=loc), negative),
                                                      loc=loc), loc),  # (0.0 ** -inf is inf)
                                  (), loc, "**", "0.0 cannot be raised to a negative power", "zerodiv")
        if y.type == Float and not (isinstance(y, Const) and float(y.value).is_integer() or
                                    isinstance(x, Const) and x.value >= 0):
            fractional = and_(prim("ne", yf, prim("floor", yf, loc=loc), loc=loc), prim("eq", yf, yf, loc=loc))
            # (-inf ** 0.5 is inf, -2.0 ** nan is nan)
            negative = and_(prim("lt", xf, zero, loc=loc), prim("ne", xf, Const(-math.inf, Float), loc=loc))
            binds += self.b.check(where_python(when, prim("not", and_(negative, fractional), loc=loc),
                                         loc), (xf, yf),
                                  loc, "**", "({0}) ** {1} is a complex number in Python; catad computes real numbers "
                                  "(np.power gives nan there; abs(x) ** y is real)", "domain")
        out = r
        if (x.type == Float or y.type == Float) and not known_zero:
            def finite(r):
                big = Const(float(np.finfo(np.float64).max), Float)
                over = and_(prim("gt", prim("abs", r, loc=loc), big, loc=loc),
                            and_(prim("le", prim("abs", xf, loc=loc), big, loc=loc),
                                 prim("le", prim("abs", yf, loc=loc), big, loc=loc)))
                return make_lets(self.b.check(where_python(when, prim("not", over, loc=loc), loc), (), loc, "**",
                                              "(34, 'Numerical result out of range')", "range"), r)
            out = self.b.share(out, finite, loc)
        return make_lets(binds, out)

    def whole_power(self, r: Term, y: Term, when: Term, loc) -> Term:
        """r = x ** y of Python's ints where y is not known >= 0 while compiling (int_range's
        `nonneg`): a Float, as Python's is for y < 0; for y >= 0 Python's is an exact int, which
        the Float is below 2**53 only: above, catad refuses."""
        inexact = and_(prim("le", Const(0, Int), y, loc=loc),
                       prim("ge", prim("abs", r, loc=loc), Const(2.0 ** 53, Float), loc=loc))
        return make_lets(self.b.check(where_python(when, prim("not", inexact, loc=loc), loc), (r,), loc, "**",
                                      "an int ** int reaches {0} here: Python's int is exact, catad's value a float "
                                      "(the power is not known to be >= 0 while compiling, and Python's int to a "
                                      "negative power is a float); write float(a) ** n for a float, or a power "
                                      "known >= 0 (a range's variable, len(), abs(n)) for an int", "unsupported"), r)

    def int_power(self, x: Term, y: Term, loc) -> Term:
        """An element of an Int array to an Int power: NumPy's Int, and its ValueError for a
        negative power (Python's ints give a float there, NumPy's arrays do not)."""
        def checked(p, e):  # p in the check's data keeps it with the elements: an empty array raises nothing
            return make_lets(self.b.check(prim("le", Const(0, Int), e, loc=loc), (p,), loc, "**",
                                          "Integers to negative integer powers are not allowed.", "domain"),
                             prim("pow", p, e, loc=loc))
        return self.b.share_all([x, y], checked, loc)  # (the check copies its data: atoms)

    def maybe_python_int_power(self, x: Term, y: Term, when: Term, loc) -> Term:
        """x ** y of an Int x to a negative Int constant y, both Python's ints where `when` holds:
        Python's float there (0 ** -1 its ZeroDivisionError), NumPy's ValueError elsewhere."""
        def checked(p, e):
            binds = self.b.check(when, (p,), loc, "**", "Integers to negative integer powers are not allowed.",
                                 "domain")
            return make_lets(binds, self.python_power(p, e, loc, when))
        return self.b.share_all([x, y], checked, loc)

    def x_UnaryOp(self, node: ast.UnaryOp) -> Term:
        """-x, +x, not b."""
        loc = self.loc(node)
        if isinstance(node.op, ast.Not):
            # Python's bool, whatever it negates
            return self.as_py(prim("not", self.condition(node.operand, getattr(node, "catad_what", "not")), loc=loc))
        a = self.value(node.operand)
        if isinstance(a, Complex):
            if isinstance(node.op, ast.UAdd):
                return a
            if isinstance(node.op, ast.USub):
                return complexes.negate(self, a, node)
            complexes.refuse(self, node, a, f"unary {type(node.op).__name__} is not defined for complex values")
        self.refuse_lists(node, [a], "a unary operator")
        if scalar_of(a.type) == Bool and isinstance(node.op, (ast.USub, ast.UAdd)):
            if not self.is_py(a):  # (a Python bool is the int 0 or 1: -True is -1)
                self.fail(node, "operator", f"unary {'-' if isinstance(node.op, ast.USub) else '+'} of NumPy's bools "
                          "raises in NumPy", CatadTypeError, hint="use ~ for a logical not, or convert first, e.g. "
                          "mask.astype(int)")
            a = self.as_py(self.b.numeric(a, Int, loc))
        if isinstance(node.op, ast.USub):
            if isinstance(a, Const) and a.type in (Int, Float):
                out = Const(-a.value, a.type, loc)  # so that -1 is a literal, as in v[-1]
                return self.as_py(out) if self.is_py(a) else out
            f = lambda x: prim("neg", x, loc=loc)
            if is_array(a):
                return self.b.elementwise(f, [a], loc)
            return self.keep_py(a, f(a))
        if isinstance(node.op, ast.UAdd) and scalar_of(a.type) in (Int, Float):
            return a
        if isinstance(node.op, ast.Invert) and scalar_of(a.type) == Bool and not self.is_py(a):
            if not is_array(a) and self.py_when(a) is not None:
                self.fail(node, "operator", "~ of a bool that is Python's or NumPy's by a test at run time: Python's "
                          "~True is the int -2, NumPy's ~np.True_ is False", hint="write `not b` (the same for "
                          "both), or make the bool one kind first: bool(b), or np.bool_(b)")
            f = lambda x: prim("not", x, loc=loc)  # NumPy's logical not
            return self.b.elementwise(f, [a], loc) if is_array(a) else self.as_numpy(f(a))
        if isinstance(node.op, ast.Invert) and scalar_of(a.type) in (Int, Bool):  # (Python's ~True is -2)
            n = self.b.numeric(a, Int, loc) if scalar_of(a.type) == Bool else a
            f = lambda x: prim("sub", prim("neg", x, loc=loc), Const(1, Int), loc=loc)  # two's complement: -x - 1
            return self.b.elementwise(f, [n], loc) if is_array(n) else self.keep_py(a, self.b.share(n, f, loc))
        self.fail(node, "operator", f"unary {type(node.op).__name__} is not supported on a {a.type}; "
                                    "supported: -x, +x, not b, ~mask (NumPy's logical not of Bools), ~n of Ints")

    def x_BoolOp(self, node: ast.BoolOp, tested: bool = False) -> Term:
        """and, or on Bools (both sides evaluated only as Python would); `tested`: of what a
        condition tests, the truth of each side (condition)."""
        # a and b = if a then b else False: the right side is only evaluated when needed
        word = "and" if isinstance(node.op, ast.And) else "or"
        side = (lambda v: self.condition(v, f"'{word}'")) if tested else (lambda v: self.operand(v, f"'{word}'"))
        vals = [side(node.values[0])]
        with self.branch():
            for v in node.values[1:]:
                if static_bool(vals[-1]) is (word == "or"):  # decided while compiling: Python reads no more
                    break
                vals.append(side(v))
        acc, loc = vals[-1], self.loc(node)
        for v in reversed(vals[:-1]):  # (a and b is a where a is False: Python's where a is)
            acc = self.mark_chosen(If(v, acc, FALSE, loc), v, acc, v) if word == "and" else \
                self.mark_chosen(If(v, TRUE, acc, loc), v, v, acc)
        return acc

    def x_Compare(self, node: ast.Compare) -> Term:
        """< <= > >= == != (chained on scalars; elementwise on arrays); `x is None`, `x is not None`."""
        known = self.static_test(node)
        if known is not None:
            return self.as_py(Const(known, Bool, self.loc(node)))  # (x is None: Python's bool)
        return self.compare_chain(self._compared(node.left), node.ops, node.comparators, node)

    def _compared(self, node: ast.expr) -> Term:
        t = self.value(node)
        if isinstance(t, Complex):
            complexes.refuse(self, node, t, "comparing complex values is not supported (NumPy orders them by their "
                                            "real parts first)", "compare np.abs(z), z.real or z.imag")
        return t

    def static_test(self, node: ast.expr) -> bool | None:
        """The value of a test known while compiling, else None: `x is None` and `x is not None`
        (a value catad computes with is never None; a default, global or closure that is None
        is compared at each call), `not` of one, True and False. An `if` on such a test runs only
        the branch Python runs, so the other may use x as the None it is not."""
        if isinstance(node, ast.Constant) and isinstance(node.value, bool):
            return node.value
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            inner = self.static_test(node.operand)
            return None if inner is None else not inner
        strings = self.string_test(node)
        if strings is not None:
            return strings
        if isinstance(node, ast.Call) and self.static(node.func) in (isinstance, np.isscalar):
            return self.type_test(node)
        if isinstance(node, ast.BoolOp):  # decided by its static parts before any other is read
            for v in node.values:
                known = self.static_test(v)
                if known is None:
                    return None
                if known is isinstance(node.op, ast.Or):
                    return known
            return not isinstance(node.op, ast.Or)
        if not (isinstance(node, ast.Compare) and len(node.ops) == 1 and isinstance(node.ops[0], (ast.Is, ast.IsNot))):
            return None
        a, b = node.left, node.comparators[0]
        other = b if _is_none(a) else a if _is_none(b) else None
        if other is None:
            self.fail(node, "comparison", f"comparison {type(node.ops[0]).__name__} is supported only against None "
                      "(x is None, x is not None); supported: < <= > >= == !=")
        obj, path = self.static_path(other) if isinstance(other, (ast.Name, ast.Attribute)) else (NOT_STATIC, None)
        if obj is NOT_STATIC or not (obj is None or callable(obj) or isinstance(obj, types.ModuleType)):
            # a value, read (and its type checked) at each call; None when the argument was (catad.trees)
            t = self.lookup(other.id, other) if isinstance(other, ast.Name) else self.expr(other)
            none = self.tree(t) is NONE
        else:
            self.guard(obj, path)  # None, a function, a module: the same object at each call
            none = obj is None
        return none if isinstance(node.ops[0], ast.Is) else not none

    def type_test(self, node: ast.Call) -> bool:
        """isinstance(x, cls) and np.isscalar(x), known while compiling from what catad knows of x:
        the classes a value of its type can have when the function runs (a Float is a Python
        float or a NumPy float64, an array an ndarray, a list argument a list, ...); refused
        where they answer differently (isinstance(n, int) of an Int: np.int64 is not an int)."""
        fn = self.static(node.func)
        if node.keywords or len(node.args) != (2 if fn is isinstance else 1):
            self.fail(node, fn.__name__, f"{fn.__name__}() takes {2 if fn is isinstance else 1} argument(s) here")
        if fn is isinstance:
            spec = node.args[1]
            cls = tuple(self.static(e) for e in spec.elts) if isinstance(spec, ast.Tuple) else self.static(spec)
            classes = cls if isinstance(cls, tuple) else (cls,)
            if not classes or not all(isinstance(c, type) for c in classes):
                self.fail(node.args[1], "isinstance", "the second argument of isinstance() must be a class or a tuple "
                          "of classes known while compiling")
            test = lambda k: issubclass(k, classes)  # noqa: E731
        else:
            test = lambda k: k in _SCALAR_CLASSES  # noqa: E731
        answers = {test(k) for k in self.runtime_classes(node.args[0])}
        if len(answers) != 1:
            self.fail(node, fn.__name__, f"{ast.unparse(node)} depends on whether {ast.unparse(node.args[0])} is a "
                      "Python or a NumPy number, which catad does not tell apart",
                      hint="test both: isinstance(n, (int, np.integer)), or use np.ndim(x) == 0")
        return answers.pop()

    def runtime_classes(self, node: ast.expr) -> set:
        """The classes the value of node may have when the function runs."""
        obj, path = self.static_path(node) if isinstance(node, (ast.Name, ast.Attribute)) else (NOT_STATIC, None)
        if obj is not NOT_STATIC and not isinstance(obj, (bool, int, float, str, np.number, np.ndarray, tuple,
                                                          list, dict)):
            self.guard(obj, path)  # a module, a function, None: itself, each call checks
            return {type(obj)}
        t = self.lookup(node.id, node) if isinstance(node, ast.Name) else self.value(node)
        if isinstance(t, Complex):
            return {np.ndarray} if is_array(t.re) else {complex, np.complex128}
        tree = self.tree(t)
        if tree is not None:
            return {tree.cls or {"none": type(None), "str": str, "dict": dict, "list": list, "tuple": tuple}[tree.kind]}
        if self.is_list(t):
            return {list}
        if is_array(t):
            return {np.ndarray}
        if isinstance(t.type, TupleT):
            return {tuple}
        return {Float: {float, np.float64}, Int: {int, np.int64}, Bool: {bool, np.bool_}}[t.type]

    def static_str(self, node: ast.expr):
        """The str node denotes while compiling, else NOT_STATIC: a constant; an argument, a
        default or a global that is a str (catad.trees; a global compared again at each call);
        d["key"] of a dict holding one."""
        if isinstance(node, ast.Constant):
            return node.value if isinstance(node.value, str) else NOT_STATIC
        if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and \
                isinstance(node.slice, ast.Constant):
            base = self._named_tree(node.value)
            k = base.index(node.slice.value) if base is not None and base.kind == "dict" else None
            tree = base.items[k] if k is not None else None
        elif isinstance(node, ast.Name):
            tree = self._named_tree(node)
        elif isinstance(node, ast.Attribute):
            obj, path = self.static_path(node)
            if not isinstance(obj, str):
                return NOT_STATIC
            self.program.reads.equal(path, obj)
            return obj
        else:
            return NOT_STATIC
        return tree.keys[0] if tree is not None and tree.kind == "str" else NOT_STATIC

    def _named_tree(self, node: ast.Name):
        """The tree of what a name holds (an argument's, a global's), without reading a value."""
        v = self.env.get(node.id)
        if v is None and self.static_path(node)[0] is NOT_STATIC:
            return None
        t = self.lookup(node.id, node) if v is None or isinstance(v, (Term, Static)) else None
        return self.tree(t) if isinstance(t, Term) else None

    def static_members(self, node: ast.expr, compare: ast.Compare) -> tuple:
        """What `kind in node` looks in: a global (or a default, an attribute) tuple, list or set of
        plain constants, or a dict's keys, each compared again at each call; or a tuple or list
        whose items are strs known while compiling."""
        obj, path = self.static_path(node) if isinstance(node, (ast.Name, ast.Attribute)) else (NOT_STATIC, None)
        if isinstance(obj, dict) and path is not None:
            self.program.reads.keys(path, tuple(obj))
            return tuple(obj)
        plain = (str, int, float, bool, type(None))
        if isinstance(obj, (tuple, list, set, frozenset)) and path is not None and all(isinstance(x, plain) for x in obj):
            self.program.reads.equal(path, obj)
            return tuple(obj)
        t = self.value(node) if obj is NOT_STATIC else None
        tree = self.tree(t) if isinstance(t, Term) else None
        if tree is not None and tree.kind == "dict":
            return tree.keys
        if tree is not None and tree.kind in ("tuple", "list") and all(x is not None and x.kind == "str"
                                                                        for x in tree.items):
            return tuple(x.keys[0] for x in tree.items)
        self.fail(compare, "comparison", f"`in` with a str looks in a tuple, list, set or dict of constants; "
                  f"{ast.unparse(node)} is not one catad knows while compiling",
                  hint="write the choices out, e.g. kind in ('l1', 'l2')")

    def str_or_expr(self, node: ast.expr) -> Term:
        """node's term; a str known while compiling kept as one (an item of a dict or a tuple)."""
        text = self.static_str(node)
        return self.expr(node) if text is NOT_STATIC else self.with_tree(Tuple((), self.loc(node)), string(text))

    def string_test(self, node: ast.expr) -> bool | None:
        """`kind == "l2"`, `!=`, `kind in ("a", "b")` and `not in` with a str known while compiling
        (a str is never equal to a number or an array); None when no str is compared."""
        if not (isinstance(node, ast.Compare) and len(node.ops) == 1):
            return None
        op, left, right = node.ops[0], node.left, node.comparators[0]
        if isinstance(op, (ast.In, ast.NotIn)):
            a = self.static_str(left)
            if a is NOT_STATIC:
                return None
            if isinstance(right, (ast.Tuple, ast.List, ast.Set)):
                found = any(self.static_str(e) == a for e in right.elts)
            else:
                found = a in self.static_members(right, node)
            return found if isinstance(op, ast.In) else not found
        if not isinstance(op, (ast.Eq, ast.NotEq)):
            return None
        a, b = self.static_str(left), self.static_str(right)
        if a is NOT_STATIC and b is NOT_STATIC:
            return None
        same = a is not NOT_STATIC and b is not NOT_STATIC and a == b
        return same if isinstance(op, ast.Eq) else not same

    def compare_chain(self, left: Term, ops: list, comps: list, node: ast.Compare) -> Term:
        right = self._compared(comps[0])
        if len(ops) == 1:
            return self.compare(ops[0], left, right, node)
        loc = self.loc(node)

        def rest(r):  # a < b < c = a < b and b < c, b evaluated once
            r = self.keep_py(right, r)
            first = self.compare(ops[0], left, r, node)
            if first.type != Bool:
                self.fail(node, "comparison", "chained comparisons of arrays are not supported",
                          hint="combine elementwise tests with np.where")
            with self.branch():
                later = self.compare_chain(r, ops[1:], comps[1:], node)
            chain.append(self.mark_chosen(If(first, later, FALSE, loc), first, later, first))  # (first where False)
            return chain[-1]
        chain = []
        out = self.b.share(right, rest, loc)
        return out if out is chain[0] else self.mark_let(out, chain[0], right)

    def compare(self, op: ast.cmpop, a: Term, b: Term, node: ast.AST) -> Term:
        name, loc = _CMPOPS.get(type(op)), self.loc(node)
        self.refuse_lists(node, [a, b], "a comparison")
        if name is None:
            self.fail(node, "comparison", f"comparison {type(op).__name__} is not supported; supported: "
                                          "< <= > >= == !=")
        def f(x, y):
            if x.type != y.type and Bool in (x.type, y.type) and {x.type, y.type} <= {Bool, Int, Float}:
                # a bool beside a number compares as 0 or 1, in Python and NumPy alike
                x, y = (self.b.numeric(x, y.type, loc), y) if x.type == Bool else (x, self.b.numeric(y, x.type, loc))
            return self.b.scalar(name, [x, y], loc)
        if is_array(a) or is_array(b):
            return self.b.elementwise(f, [a, b], loc, _SYMBOLS[type(op)])
        return self.mark_compared(f(a, b), a, b)

    def mark_compared(self, out: Term, a: Term, b: Term) -> Term:
        """The Bool of comparing numbers a and b, marked: Python's bool where both are Python's
        numbers, NumPy's elsewhere (Python's True / 0.0 raises, NumPy's gives inf)."""
        wa, wb = self.py_when(a), self.py_when(b)
        if wa is None or wb is None:
            return self.as_numpy(out) if self.is_numpy(a) or self.is_numpy(b) else out
        when = both_python(wa[0], wb[0])
        return self.as_py(out) if when is TRUE else self.as_py_when(out, when, Bool)

    def x_IfExp(self, node: ast.IfExp) -> Term:
        """a if c else b (only the chosen branch's derivative counts)."""
        known = self.static_test(node.test)
        if known is not None:
            return self.expr(node.body if known else node.orelse)
        c = self.condition(node.test, "conditional expression")
        if without_checks(c) is None:  # a test the mark of Python's number cannot read again: bound first
            c = self.hoisted(c)
        with self.branch():
            a, b = self.expr(node.body), self.expr(node.orelse)
        t = self.b.if_(c, a, b, self.loc(node), "the branches of this conditional expression have types {a} "
                                                "and {b}; give them one type")
        if self.is_list(a) or self.is_list(b):
            ra, rb = self.rows_kind(a), self.rows_kind(b)  # (rows of one kind either way)
            return self.mark_zero_d_items(self.mark_rows(self.as_list(t), ra if ra == rb else None), a, b)
        if self.is_zero_d(a) or self.is_zero_d(b):  # an array of no axes on one branch: taken for one
            self.as_zero_d(t)  # (round() of it raises TypeError there: refused)
        return self.mark_chosen(t, c, a, b)

    def x_Call(self, node: ast.Call) -> Term:
        """calls of library functions (see the table above), of your functions, methods and lambdas."""
        func = node.func
        if isinstance(func, ast.Lambda):  # (lambda x: ...)(y)
            return self.call_local(self.local_function(func, None), node, list(node.args))
        if isinstance(func, ast.Call):  # catad.grad(f)(x): the transformation, made while compiling
            made = self.transformation_made(func)
            if made is not None:
                return self.call_transformed(made, node, list(node.args))
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Call):
            made = self._frozen_distribution_call(node)
            if made is not None:
                return self.x_Call(made)
        if isinstance(func, ast.Attribute):
            receiver, where = self.static_path(func.value)  # only static(func) needs checking at each call
            if receiver is NOT_STATIC or isinstance(receiver, np.ndarray):  # v.sum(), or GLOBAL_ARRAY.sum()
                base = self.value(func.value)
                if isinstance(base, Complex):
                    return complexes.method(self, base, func.attr, node)
                return calls.method(self, base, func.attr, node)
            obj, path = self.static_attribute(func, receiver, where)  # (the receiver found once)
        else:
            obj, path = self.static_path(func)
        self.guard(obj, path)
        if obj is isinstance or obj is np.isscalar:
            return self.as_py(Const(self.type_test(node), Bool, self.loc(node)))
        if obj is NOT_STATIC:
            if isinstance(func, ast.Name):
                self.lookup(func.id, func)  # says why a name that is not a value is not defined here
            self.fail(node, "call", "only functions named directly can be called, e.g. f(x), np.exp(x)")
        if isinstance(obj, LocalFunction):  # a def or lambda written in this function
            return self.call_local(obj, node, list(node.args))
        if isinstance(obj, types.MethodType) and calls.user_function(obj.__func__) is not None:
            return self.call_user(calls.user_function(obj.__func__), node, list(node.args),
                                  Static(obj.__self__, path.attr("__self__")))
        t = calls.call(self, obj, node, list(node.args))
        if obj is builtins.abs or obj is builtins.max or obj is builtins.min or obj is builtins.sum or \
                obj is builtins.pow or obj is math.prod or obj is builtins.round and calls.rounds_to_digits(node):
            return t  # Python's where the argument chosen is, or where what it adds is (calls.py marks it)
        python = id(obj) in _PYTHON_RESULTS or getattr(obj, "__module__", None) == "math"
        if isinstance(t, Term) and not is_array(t) and (python or self.is_py(t)) and calls.user_function(obj) is None \
                and not calls.catad_function(obj):  # your function's result keeps its mark, as catad's do
            t = t.replace()  # a node of its own (marks go by identity): np.float64(x) is not Python's x
            if python:
                self.as_py(t)
            if obj is len and t.type == Int:
                int_range.size(self, t)
        return t

    def plain_tuple(self, t: Term) -> bool:
        """Whether t is a Python tuple (not a list, dict, str or None held as one: catad.trees)."""
        if not isinstance(t.type, TupleT):
            return False
        tree = self.tree(t)
        return tree is None or tree.kind == "tuple"

    def tuple_operator(self, op: ast.operator, a: Term, b: Term, node: ast.AST) -> Term | None:
        """t + u and t * k (or k * t) of tuples: Python's concatenation and repetition, a display of
        their items (k known while compiling); None for a tuple beside an array, which NumPy makes
        an array (list_operands). Any other operator on a tuple raises TypeError in Python."""
        arrays = [is_array(t) and not self.is_list(t) for t in (a, b)]
        if any(arrays):
            return None
        t, other = (a, b) if self.plain_tuple(a) else (b, a)
        if isinstance(op, ast.Add) and self.plain_tuple(other):
            return self.tuple_joined([a, b], lambda x, y: x + y, node, once=True)
        if isinstance(op, ast.Mult) and other.type in (Int, Bool):
            k = other.value if isinstance(other, Const) else lin_const(self.b.shapes.lin(other)) \
                if other.type is Int else None
            if k is None:
                self.fail(node, "tuple repetition", "a tuple repeated a number of times known only at run time: "
                          "catad's tuples have a length known while compiling",
                          hint="repeat it by a constant, or make it an array: np.tile(np.array(t), k)")
            return self.b.share(other, lambda _: self.tuple_joined([t], lambda x: x * max(int(k), 0), node),
                                self.loc(node))
        what = "a list" if self.list_kind(other) else \
            "a tuple" if self.plain_tuple(other) else f"{'an' if str(other.type)[0] in 'AEIOU' else 'a'} {other.type}"
        self.fail(node, "tuple operator", f"{_SYMBOLS.get(type(op), 'this operator')} of a tuple and {what}: Python "
                  "raises TypeError (a tuple takes + of a tuple, which concatenates, and * of an int, which "
                  "repeats)", CatadTypeError, hint="for arithmetic on the items, make it an array: np.array(t)")

    def tuple_joined(self, ts: list[Term], join, node: ast.AST, once: bool = False, kind: str = "tuple") -> Term:
        """The tuple (or, `kind` "list", the list of values of different types) of join(items of
        ts[0], ...), each tuple's items computed once: a display's items as they are where join puts
        each `once` (in order), else bound where they are not atoms (marked as they were); another
        tuple's read by Get."""
        loc = self.loc(node)
        binds, lists = [], []
        once = once and all(isinstance(t, (Tuple, Var)) for t in ts)  # (else all bound, in Python's order)
        for t in ts:
            lets, body = let_chain(t)
            if lets and isinstance(body, Tuple):  # (a call's result, the display of its items: see call_user)
                binds += [(x.var, x.rhs, x.loc) for x in lets]
                t = self.with_tree(body, self.tree(t))
            if isinstance(t, Tuple) and once:
                lists.append(list(t.items))
            elif isinstance(t, Tuple):
                items = []
                for x in t.items:
                    v = self.b.share_atom(x, binds, loc)
                    items.append(x if v is x else self.keep_marks(x, v))
                lists.append(items)
            else:  # a name, or a tuple computed here, bound to one first (functions.items_of reads its items)
                v = t if isinstance(t, Var) else self.with_tree(self.b.share_atom(t, binds, loc), self.tree(t))
                lists.append(self.items_of(v, node))
        items = join(*lists)
        out = self.tuple_of(items, loc) if kind == "tuple" else \
            self.with_tree(Tuple(tuple(items), loc), Tree("list", tuple(self.tree(x) for x in items)))
        return make_lets(binds, out) if not binds else self.with_tree(make_lets(binds, out), self.tree(out))

    def list_operands(self, node: ast.AST, a: Term, b: Term) -> tuple[Term, Term]:
        """Operands of an arithmetic operator when one is a list (catad.trees): beside an array,
        NumPy makes it an array; beside a number or a list, Python's operators do not work
        elementwise (+ concatenates, * repeats), which catad does not compile."""
        lists = [self.tree(t) is not None and self.tree(t).kind == "list" or self.plain_tuple(t) for t in (a, b)]
        if not any(lists):
            return a, b
        arrays = [is_array(t) and not self.is_list(t) for t in (a, b)]
        if lists[0] and arrays[1] or lists[1] and arrays[0]:
            made = [calls.list_array(self, t, node, tuples=True) if is_list else t for t, is_list in zip((a, b), lists)]
            if all(t is not None for t in made):
                return made[0], made[1]
            self.fail(node, "list arithmetic", "a list or tuple beside an array, whose items are not numbers or "
                      "arrays of one type: NumPy would make it an array of objects", hint="make it an array of numbers")
        self.fail(node, "list arithmetic", "arithmetic on a Python list does not work elementwise in Python "
                  "(+ concatenates, * repeats)", hint="make it an array: np.array(xs)")

    def _frozen_distribution_call(self, node: ast.Call) -> ast.Call | None:
        """st.norm(mu, sigma).logpdf(x), a method of a frozen scipy.stats distribution, as the
        distribution's own method given the frozen arguments after its own (SciPy's rv_frozen
        does that): st.norm.logpdf(x, mu, sigma). None for any other call."""
        frozen = node.func.value
        if any(isinstance(a, ast.Starred) for a in frozen.args) or any(k.arg is None for k in frozen.keywords):
            return None
        if len(node.args) > 1 or node.keywords:  # (a frozen method takes x only: Python's TypeError otherwise)
            return None
        dist, _ = self.static_path(frozen.func)
        if dist is NOT_STATIC or not any(c.__name__ == "rv_generic" for c in type(dist).__mro__):
            return None
        method = ast.Attribute(value=frozen.func, attr=node.func.attr, ctx=ast.Load())
        made = ast.Call(func=method, args=[*node.args, *frozen.args], keywords=[*node.keywords, *frozen.keywords])
        for n in (method, made):
            ast.copy_location(n, node)
            n.end_lineno, n.end_col_offset = node.end_lineno, node.end_col_offset
        self.made_syntax.append(made)  # (alive until the compile ends: nodes are known by identity)
        return made

    def x_Dict(self, node: ast.Dict) -> Term:
        """{"W": w, "b": b}: the tuple of its values, marked with its keys (catad.trees); {**d, "b": b}
        takes d's keys and values where it stands."""
        keys = []
        for k in node.keys:
            if k is None:
                keys.append(None)
                continue
            key = k.value if isinstance(k, ast.Constant) else \
                self.env[k.id].key if isinstance(k, ast.Name) and isinstance(self.env.get(k.id), DictKey) else None
            if not isinstance(key, (str, int)) or isinstance(key, bool):
                self.fail(k, "dict", "a dict's keys must be string or int constants here, e.g. {'W': w}")
            keys.append(key)
        kept: dict = {}
        for key, v in zip(keys, node.values):  # a repeated key keeps its first place and its last value
            if key is not None:
                kept[key] = self.str_or_expr(v)
                continue
            d = self.expr(v)
            tree = self.tree(d)
            if tree is None or tree.kind != "dict":
                self.fail(v, "dict", f"** in a dict display unpacks a dict, got {tree.describe() if tree else d.type}",
                          CatadTypeError)
            for k, name in enumerate(tree.keys):
                kept[name] = self.tuple_item(d, k, self.loc(v))
        return self.dict_of(tuple(kept), tuple(kept.values()), self.loc(node))


# each returns one of Python's own numbers (or bools), by id (as calls._CONSUMERS)
_PYTHON_RESULTS = frozenset(map(id, (float, int, round, len, bool, any, all)))


_SCALAR_CLASSES = {float, int, bool, complex, np.float64, np.int64, np.bool_, np.complex128, str}


def _is_none(node: ast.expr) -> bool:
    return isinstance(node, ast.Constant) and node.value is None


