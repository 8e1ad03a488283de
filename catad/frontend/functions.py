"""Calls of the user's functions and how their arguments are bound to their parameters.

- A module-level function of the user's is compiled by the program (one Def per signature,
  inlined before differentiating); a call binds its arguments as Python does (by position, by
  keyword, ``*args``), and the parameters it does not pass take their default values. A
  default value is the object Python made when the def ran, kept in the function's
  ``__defaults__``: it is read like a global at each call (catad.frontend.reads), so an int is
  a constant compared at each call and a float or an array a hidden parameter.
- A def or lambda written inside the compiled function (a :class:`LocalFunction`) is lowered
  where it is called, into the caller's term: its parameters are bound to the arguments, its
  default values are the values computed when the def ran, and the names it does not bind are
  looked up in the enclosing function when it is called (Python's closures are late-binding:
  they see a variable's value at the time of the call, not of the def).
- A bound method's self is a :class:`catad.frontend.freenames.Static`: its attributes are read
  like globals, at each call.

``Functions`` is a part of :class:`catad.frontend.lower.FunctionLowerer`.
"""
from __future__ import annotations

import ast
import inspect
import types
from typing import Any

import numpy as np

from ..errors import CatadTypeError, Loc
from ..lang.terms import Call, Const, Get, Term, Tuple, Var, failing
from ..lang.types import Bool, Float, Int, Tuple as TupleT, rank
from . import complexes
from .calls import user_function
from .common import ZERO_D, ListArg, PythonConstant
from .complexes import Complex
from .freenames import _VALUES, NOT_STATIC, Static
from ..trees import NONE, string
from .source import Source, from_node
from .statements import LocalFunction, has_return


def describe(src: Source) -> str:
    """A function's parameters in words: "2 argument(s) (x, y=...)"."""
    shown = [p + ("=..." if p in src.defaulted else "") for p in src.positional]
    if src.vararg:
        shown.append("*" + src.vararg)
    elif src.kwonly:
        shown.append("*")
    shown += [p + ("=..." if p in src.defaulted else "") for p in src.kwonly]
    if src.varkw:
        shown.append("**" + src.varkw)
    return f"{len(src.positional)} argument(s) ({', '.join(shown)})"


def _default_node(src: Source, name: str) -> ast.AST:
    a = src.node.args
    positional = a.posonlyargs + a.args
    if name in src.positional:
        return a.defaults[src.positional.index(name) - (len(positional) - len(a.defaults))]
    return a.kw_defaults[src.kwonly.index(name)]


def _int_constant(t: Any) -> bool:
    return isinstance(t, Const) and t.type in (Int, Bool)


_FUNCTIONS = (types.FunctionType, types.BuiltinFunctionType, np.ufunc)


def _static_argument(t: Any) -> bool:
    """An argument the callee is specialised to: an Int or Bool constant, None or a function."""
    return _int_constant(t) or isinstance(t, Static)


def describe_static(t: Static) -> str:
    return "None" if t.obj is None else getattr(t.obj, "__name__", type(t.obj).__name__)


class Functions:
    """Uses the lowerer's env, program, src, b, fail, loc, arg, expr, bind, bind_temp, tree,
    with_tree, constant, guard, hidden_param and returning_block."""

    # ------------------------------------------------------------ the compiled function's parameters

    def bind_params(self, loc: Loc) -> list[Var]:
        """The Def's parameters: one per argument given (`given` names the parameter each fills,
        *args once per item), in the order of the signature; the others are bound to what a
        bound method's self is (`statics`) or to their default values."""
        params, items, where = [], [], []
        for p, ty, units, tree, py in zip(self.given, self.arg_types, self.units, self.param_trees, self.pys):
            v = Var(self.names.user(p), ty, loc)
            self.b.shapes.param(v, units)
            params.append(v)
            # Python's numbers, arrays of no axes (the callee writes into the caller's, or refuses)
            # and lists, also as the items of a tuple, list or dict (see python_flags)
            value = self.flagged(self.with_tree(v, tree), py, loc, where)
            if py == ZERO_D:
                self.zero_d_names.add(p)  # (also where a loop's state holds it)
            if p == self.src.vararg:
                items.append(value)
            else:
                self.env[p] = value
        for v, python_type in where:  # the Bools that say where they are Python's, in order
            flag = Var(self.names.user("python_" + (v.name if isinstance(v, Var) else "item")), Bool, loc)
            params.append(flag)
            self.as_py_when(v, flag, python_type)
        for p, static in self.statics:
            self.env[p] = self.as_py(static.const.replace()) if isinstance(static, PythonConstant) else static
        if self.src.vararg:
            self.env[self.src.vararg] = self.tuple_of(items, loc)
        for p in self.src.params:
            if p not in self.env:  # **kwargs given no keyword is an empty dict
                self.env[p] = self.dict_of((), (), loc) if p == self.src.varkw else self.default_value(p)
        return params

    def default_value(self, p: str) -> Any:
        """The default value of parameter p of the function being compiled, read at each call."""
        node = _default_node(self.src, p)
        path = self.program.default_path(self.fn, p)
        obj = path.get()
        if isinstance(obj, _VALUES):
            return self.constant(obj, path, node, f"the default value of {p!r}")
        self.guard(obj, path)  # a function or None: compared by identity at each call
        return Static(obj, path)

    # ------------------------------------------------------------ calls

    def call_arguments(self, src: Source, node: ast.Call, args: list, bound: tuple = ()) -> list[tuple[str, Term]]:
        """(parameter, argument) pairs of a call, in the order of the parameters, bound as Python
        binds them (*args: one pair per item); `bound` are the values of the first parameters
        given already (a bound method's self). Arguments are lowered in the order written;
        `*t` and `**d` give the items of a tuple or list and of a dict known while compiling."""
        values = list(bound)
        for a in args:
            values += self.starred(a, src) if isinstance(a, ast.Starred) else [self.call_value(a, src)]
        n, keywords = len(values), {}
        for kw in node.keywords:
            pairs = self.double_starred(kw.value) if kw.arg is None else [(kw.arg, self.call_value(kw.value, src))]
            for key, v in pairs:
                if key in keywords:  # only through **: Python's syntax forbids it written twice
                    self.fail(kw, "call", f"{src.name}() got multiple values for keyword argument {key!r}",
                              CatadTypeError)
                keywords[key] = len(values)
                values.append(v)
        try:
            arguments = src.signature().bind(*range(n), **keywords).arguments
        except TypeError as e:  # what Python would raise: missing, unexpected or repeated arguments
            self.fail(node, "call", f"{src.name} takes {describe(src)}: {e}", CatadTypeError)
        out = []
        for p, k in arguments.items():
            if p == src.vararg:
                out += [(p, values[i]) for i in k]
            elif p == src.varkw:
                out.append((p, self.keywords_dict(k, values, node, src)))
            else:
                out.append((p, values[k]))
        return out

    def starred(self, a: ast.Starred, src: Source) -> list[Term]:
        """The items `*t` passes: those of a tuple or list (its length known while compiling)."""
        if isinstance(a.value, (ast.List, ast.Tuple)) and not any(isinstance(e, ast.Starred) for e in a.value.elts):
            return [self.call_value(e, src) for e in a.value.elts]  # *[a, b]: as if written a, b
        t = self.value(a.value)
        if not isinstance(t, Term) or not isinstance(t.type, TupleT) or self.tree(t) is NONE:
            self.fail(a, "*args", f"*{ast.unparse(a.value)} in a call of {src.name}: catad passes the items of a "
                      "tuple or a list this way, not of " + (f"a {t.type}" if isinstance(t, Term) else "this value"),
                      hint="pass a tuple or a list, or the arguments one by one")
        return self.items_of(t, a)

    def double_starred(self, node: ast.expr) -> list[tuple[str, Term]]:
        """The keywords `**d` passes: a dict's string keys and its values."""
        t = self.value(node)
        tree = self.tree(t) if isinstance(t, Term) else None
        if tree is None or tree.kind != "dict" or not all(isinstance(k, str) for k in tree.keys):
            self.fail(node, "**kwargs", f"**{ast.unparse(node)} in a call: catad passes a dict's items this way, "
                      "and its keys must be strings", hint="pass a dict such as {'scale': s}, or the keywords "
                                                            "one by one")
        return list(zip(tree.keys, self.items_of(t, node)))

    def items_of(self, t: Term, node: ast.AST) -> list[Term]:
        """The items of a tuple, list or dict term, each with its own structure; t is read once
        (a name, or a display whose items are at hand)."""
        if isinstance(t, Tuple):
            return list(t.items)
        if not isinstance(t, Var):
            self.fail(node, "*args", f"{ast.unparse(node)} is computed in the call; catad unpacks a name or a "
                      "display here", hint="assign it to a name first")
        return [self.with_tree(Get(k, t, self.loc(node)), self.item_tree(t, k)) for k in range(len(t.type.items))]

    def keywords_dict(self, where: dict, values: list, node: ast.Call, src: Source) -> Term:
        """**kwargs of src: the dict of the keywords no other parameter takes, in the order given."""
        for key, i in where.items():
            if isinstance(values[i], Static):
                self.fail(node, "**kwargs", f"{describe_static(values[i])} is passed to {src.name} through "
                          f"**{src.varkw} (keyword {key!r}); catad passes values there",
                          hint=f"make {key!r} a parameter of {src.name}")
        return self.dict_of(tuple(where), [values[i] for i in where.values()], self.loc(node))

    def call_value(self, a: ast.expr | Term, src: Source | None = None) -> Term | Static:
        """An argument of a call of the user's function: a value, or None (written so, or a name
        that is None or a function, such as a default), passed on as what it is, for the callee's
        `is None` tests and calls. A complex value is refused: the callee's arguments are real."""
        if isinstance(a, ast.Constant) and a.value is None:
            return Static(None, None)
        if isinstance(a, ast.Name) and isinstance(self.env.get(a.id), Static):
            return self.env[a.id]
        if isinstance(a, ast.Name) and isinstance(self.env.get(a.id), Term) and self.tree(self.env[a.id]) is NONE:
            return Static(None, None)  # an argument that is None
        if isinstance(a, (ast.Name, ast.Attribute)):
            # a module-level function or a library's (np.sin, math.exp): the callee is specialised
            # to it and calls it where it calls its parameter (each call checks it is the same)
            obj, path = self.static_path(a)
            if path is not None and isinstance(obj, _FUNCTIONS):
                self.guard(obj, path)
                return Static(obj, path)
            if isinstance(obj, LocalFunction):  # a def of this function: to a def of it (call_local)
                return obj
        if isinstance(a, ast.Lambda):
            return self.local_function(a, None)
        if isinstance(a, ast.expr) and not isinstance(a, ast.Starred):
            text = self.static_str(a)  # a str: passed on as the callee's str argument (catad.trees)
            if text is not NOT_STATIC:
                return self.with_tree(Tuple((), self.loc(a)), string(text))
        t = a if isinstance(a, Term) else self.value(a, objects=True)
        if isinstance(t, Complex):
            name = src.name if src is not None else "your function"
            complexes.refuse(self, a, t, f"it is passed to {name}, whose arguments are real",
                             f"pass real values of it (z.real and z.imag, or np.abs(z)), or write the complex "
                             f"arithmetic in the function that calls {name}")
        return t

    def call_user(self, fn: Any, node: ast.Call, args: list, bound_self: Static | None = None) -> Term:
        """A call of a module-level function of the user's (or a method: bound_self is its self)."""
        src, loc = self.program.source(fn), self.loc(node)
        if bound_self is not None and not src.positional:
            self.fail(node, "method", f"the method {src.name} has no parameter for self")
        pairs = self.call_arguments(src, node, args, (None,) if bound_self is not None else ())
        statics = ((pairs.pop(0)[0], bound_self),) if bound_self is not None else ()
        # an Int or Bool constant argument (an axis, a count, a flag) is compiled into the callee,
        # which is specialised to it, as NumPy's axis= and friends need a constant there
        statics += tuple((p, PythonConstant(t) if self.is_py(t) else t) for p, t in pairs
                         if _static_argument(t) and p != src.vararg)
        pairs = [(p, t) for p, t in pairs if not (_static_argument(t) and p != src.vararg)]
        for p, t in pairs:
            if isinstance(t, Static):
                self.fail(node, "*args", f"{describe_static(t)} cannot be an item of *{p}; pass values there")
            if isinstance(t, LocalFunction):
                self.fail(node, "function value", f"{t.src.name}, a def or lambda of this function, is passed to "
                          f"{src.name}, a module-level function, which catad compiles on its own: what this function "
                          "defines cannot be called there", hint=f"pass a module-level function, or define {src.name} "
                          "inside this function")
        given, ts = tuple(p for p, _ in pairs), [t for _, t in pairs]
        units = tuple(self.b.units(t) for t in ts)
        trees = tuple(self.tree(t) for t in ts)
        # Python's own numbers stay Python's in the callee; one that is Python's only where a
        # condition holds (a sum by a loop) passes that Bool too, after the other arguments
        # (the items of a tuple, list or dict, and a list held as an array, see python_flags)
        conditions: list = []  # (in the order of the arguments, and of a tuple's items)
        pys = tuple(self.python_flags(t, conditions) for t in ts)
        name, result = self.program.function(fn, tuple(t.type for t in ts), loc, units, trees, given, statics,
                                             pys=pys if any(pys) else None)
        ts += conditions
        ts += [self.hidden_param(path, ty, loc, units) for path, ty, units in self.program.hidden[name]]
        self.b.may_raise_here()  # the callee's checks run in it, after what the statement did before
        call = Call(name, tuple(ts), result, loc)
        out = self.with_tree(failing(call) if self.program.fails(name) else call, self.program.result_trees.get(name))
        p = self.program
        return self.marked_result(out, name in p.result_pys, name in p.result_maybe_pys, name in p.result_zero_ds,
                                  p.result_flags.get(name, False), loc)

    def marked_result(self, out: Term, py: bool, maybe_py: bool, zero_d: bool, flags, loc) -> Term:
        """A call's result out, marked as the callee's returns were (FunctionLowerer.result_py, ...):
        one of Python's numbers, or where (undecided here), an array of no axes, a tuple's or list's
        items (python_flags)."""
        if zero_d:  # (changed in place, it is refused: updates.py)
            self.as_zero_d(out)
        if isinstance(flags, ListArg):
            return self.flagged(out, flags, loc)
        if flags is not False:  # a tuple: the display of its items (each read once), each marked
            tree = self.tree(out)
            if isinstance(out, Tuple) and isinstance(flags, tuple):  # a display (a def's in the function): its items
                items = tuple(x if f is False else self.flagged(self.with_tree(x.replace(), self.item_tree(out, k)), f,
                                                                loc) for k, (x, f) in enumerate(zip(out.items, flags)))
                return self.with_tree(Tuple(items, out.loc), tree)
            return self.with_tree(self.b.share(out, lambda t: self.flagged(self.with_tree(t, tree), flags, loc), loc),
                                  tree)
        if py:
            return self.as_py(out)
        if maybe_py:  # (where is the callee's: undecided here)
            return self.as_py_when(out, self.undecided(loc), out.type)
        return out

    def call_transformed(self, t: Any, node: ast.Call, args: list, tangents: list | None = None,
                         tangent_nodes: list = (), what: str | None = None) -> Term:
        """A call of the function a catad transformation makes (catad.grad(f)(x), or h(x) for a
        global h = catad.grad(f); a catad.transforms.Transformation t): f's derivative program,
        compiled by the pipeline for these arguments' types, is a Def of this program (issue 17).
        `tangents`: for catad.jvp(f, primals, tangents), the tangents' terms (after the primals), each
        of its primal's type (their nodes: `tangent_nodes`; `what`: catad's function called)."""
        from ..transforms import innermost
        fn = innermost(t.fn)
        what = what or f"catad.{t.kind}"
        if not isinstance(fn, types.FunctionType) or user_function(fn) is None:
            self.fail(node, what, f"{what} of {getattr(fn, '__name__', fn)!r}: catad differentiates a function of "
                      "yours written with def at module level here", hint="write f with def at module level")
        src, loc = self.program.source(fn), self.loc(node)
        pairs = self.call_arguments(src, node, args)
        given = tuple(p for p, _ in pairs)
        if src.vararg in given or given != tuple(src.positional[:len(given)]):
            self.fail(node, what, f"the arguments of {what}({src.name}) must fill its first parameters in order "
                      "(no *args, no keyword that skips one)", hint="pass them by position")
        ts = [x for _, x in pairs]
        if tangents is not None:
            for k, (p, x) in enumerate(zip(ts, tangents)):
                if p.type != x.type:
                    self.fail(tangent_nodes[k], what, f"{what}: tangent {k} is a {x.type}, its primal a {p.type}",
                              hint="give each tangent its primal's type (a float for a float, an array of its shape)")
            ts += tangents
            units = tuple(self.b.units(x) for x in ts[:len(given)])
            trees = tuple(self.tree(x) for x in ts[:len(given)])
            arg_types = tuple(x.type for x in ts[:len(given)])
        else:
            units, trees = tuple(self.b.units(x) for x in ts), tuple(self.tree(x) for x in ts)
            arg_types = tuple(x.type for x in ts)
        # which are Python's own numbers (a condition that decides it is not passed: undecided)
        pys = tuple(self.python_flags(x) for x in ts[:len(given)])
        name, result = self.program.transformed(t, arg_types, loc, units, trees, pys if any(pys) else None)
        ts += [self.hidden_param(path, ty, loc, u) for path, ty, u in self.program.hidden[name]]
        out = self.with_tree(Call(name, tuple(ts), result, loc), self.program.result_trees.get(name))
        flags = _api_flags(t, result, [x.type for x in ts[:len(given)]], pys)
        if not isinstance(flags, tuple):
            return self.flagged(out, flags, loc)
        tree = self.tree(out)  # (the display of its items, each marked: see call_user)

        def shown(v):
            pair = self.flagged(self.with_tree(v, tree), flags, loc)
            if t.kind != "jvp":
                return pair
            # catad.jvp's tangent of an int or a bool result is the float 0.0 (the zero tangent here)
            return self.with_tree(Tuple((pair.items[0], self.float_zeros(pair.items[1], loc)), loc), tree)
        return self.with_tree(self.b.share(out, shown, loc), tree)

    def float_zeros(self, t: Term, loc: Loc | None) -> Term:
        """t, a display marked by flagged, with each Int or Bool in it Python's 0.0."""
        if t.type in (Int, Bool):
            return self.as_py(Const(0.0, Float, loc))
        if not isinstance(t, Tuple):
            return t
        return self.with_tree(Tuple(tuple(self.float_zeros(x, loc) for x in t.items), loc), self.tree(t))

    def transformation_made(self, node: ast.Call) -> Any:
        """The Transformation a call such as catad.grad(f, argnums=1) makes, evaluated while
        compiling (f a function of yours, the options constants); None when node is not a call of
        one of catad's transformations."""
        from ..transforms import maker_kind, mark, transformation_of
        maker, path = self.static_path(node.func)
        if maker is NOT_STATIC or maker_kind(maker) in (None, "jvp", "hvp"):
            return None
        self.guard(maker, path)
        what = f"catad.{maker_kind(maker)}"
        try:
            bound = inspect.signature(maker).bind(*node.args, **{kw.arg: kw.value for kw in node.keywords})
        except TypeError as e:
            self.fail(node, what, f"{what}: {e}", CatadTypeError)
        options = {}
        for name, value in bound.arguments.items():
            if name == "fn":
                fn = self.function_operand(value, what)
            else:
                options[name] = self.static_option(value, what, name)
        return transformation_of(maker(fn, **options))

    def function_operand(self, node: ast.AST, what: str) -> Any:
        """The function a transformation is applied to: a module-level function (or one made by a
        transformation, written in place: catad.grad(catad.grad(f)))."""
        from ..transforms import mark
        if isinstance(node, ast.Call):
            t = self.transformation_made(node)
            if t is not None:
                return mark(lambda *a: None, t)
        obj, path = self.static_path(node)
        if obj is NOT_STATIC or path is None or not callable(obj):
            self.fail(node, what, f"{what} of a function defined inside the compiled one, or of a value, is not "
                      "supported here", hint="define the function with def at module level")
        self.guard(obj, path)
        return obj

    def static_option(self, node: ast.AST, what: str, name: str) -> Any:
        """An option of a transformation (argnums, checkpoints): a constant, or a global int."""
        try:
            return ast.literal_eval(node)
        except ValueError:
            pass
        obj, path = self.static_path(node)
        if path is not None and (obj is None or isinstance(obj, (int, np.integer, tuple))):
            self.program.reads.equal(path, obj)
            return obj
        self.fail(node, what, f"{what}'s {name} must be a constant here", hint=f"e.g. {name}=0")

    def call_local(self, f: LocalFunction, node: ast.Call, args: list) -> Term:
        """A call of a def or lambda written in the compiled function: its body lowered here, its
        parameters let-bound to the arguments, the names it does not bind read in its enclosing
        function now."""
        if any(g is f for g in self.program.active):
            self.fail(node, "recursion", f"recursive call of {f.src.name}; recursion is not supported",
                      hint="express the computation with sum(...), comprehensions or a loop")
        loc = self.loc(node)
        pairs = self.call_arguments(f.src, node, args)
        inner = type(self)(self.program, f.src, (), parent=f.owner)
        pieces: list = []
        items = [t for p, t in pairs if p == f.src.vararg]
        given = {p: t for p, t in pairs if p != f.src.vararg}
        if f.src.vararg:
            given[f.src.vararg] = self.tuple_of(items, loc)
        if f.src.varkw and f.src.varkw not in given:
            given[f.src.varkw] = self.dict_of((), (), loc)
        for p in f.src.params:
            value = given[p] if p in given else f.defaults[p]
            if isinstance(value, (Static, LocalFunction)):
                inner.env[p] = value
            else:
                inner.bind(p, value, pieces, loc)
        if not any(has_return(s) for s in f.src.body):
            self.fail(f.src.node, "return", f"{f.src.name} has no return statement (it returns None); a function "
                      "catad compiles must return a value")
        self.program.active.append(f)
        try:
            body, ret_loc = inner.returning_block(f.src.body, f.src.node)
        finally:
            self.program.active.pop()
        self.b.may_raise_here()  # its checks run in its body, after what the statement did before
        out = self.with_tree(inner.assemble(pieces, body, ret_loc), inner.result_tree)
        # (its returns' marks are the inner lowerer's: Python's numbers it returns stay Python's)
        return self.marked_result(out, inner.result_py, inner.result_maybe_py, inner.result_zero_d, inner.result_flags,
                                  loc)

    # ------------------------------------------------------------ defs and lambdas in the function

    def local_function(self, node: ast.FunctionDef | ast.Lambda, pieces: list | None) -> LocalFunction:
        """The function a def statement or a lambda makes; its default values are computed now,
        as Python computes them when the def runs (bound in pieces)."""
        if isinstance(node, ast.FunctionDef) and node.decorator_list:
            self.fail(node.decorator_list[0], "decorator", "a decorated def inside a compiled function is not "
                      "supported", hint="define the decorated function at module level")
        src = from_node(self.src, node)
        a, defaults = node.args, {}
        nodes = list(zip(src.positional[len(src.positional) - len(a.defaults):], a.defaults)) + \
            [(p, d) for p, d in zip(src.kwonly, a.kw_defaults) if d is not None]
        for p, d in nodes:
            if pieces is None:
                self.fail(d, "lambda", "a lambda called where it is written cannot have default values",
                          hint="assign the lambda to a name first")
            value = self.call_value(d)
            defaults[p] = value if isinstance(value, Static) else self.bind_temp(value, pieces, self.loc(d))
        return LocalFunction(src, self, defaults)

    def assign_functions(self, s: ast.Assign, pieces: list) -> bool:
        """`f = lambda ...` (also `f, g = lambda ..., lambda ...`) and `g = catad.grad(f)`: binds the
        names to the functions; False when the value is neither a lambda (or a tuple of them) nor
        a call of a catad transformation."""
        if isinstance(s.value, ast.Call) and all(isinstance(t, ast.Name) for t in s.targets):
            made = self.transformation_made(s.value)
            if made is not None:  # made while compiling, as where it is called at once (catad.grad(f)(x))
                from ..transforms import mark
                for target in s.targets:
                    self.env[target.id] = mark(lambda *a: None, made)
                return True

        def lambdas(v):
            return isinstance(v, ast.Lambda) or isinstance(v, ast.Tuple) and any(lambdas(e) for e in v.elts)
        found = lambdas(s.value)
        del lambdas  # a function calling itself through its closure: a cycle (see broadcast.elementwise)
        if not found:
            return False

        def assign(target, value):
            if isinstance(target, ast.Name) and isinstance(value, ast.Lambda):
                self.env[target.id] = self.local_function(value, pieces)
            elif isinstance(target, (ast.Tuple, ast.List)) and isinstance(value, ast.Tuple) \
                    and len(target.elts) == len(value.elts) and not any(isinstance(e, ast.Starred) for e in target.elts):
                for t, v in zip(target.elts, value.elts):
                    assign(t, v)
            elif isinstance(value, ast.Lambda):
                self.fail(target, "lambda", "a lambda can only be assigned to a name", hint="f = lambda x: ...")
            else:
                self.fail(value, "lambda", "a tuple holding a lambda can only be unpacked into names, one per item",
                          hint="f, g = lambda x: ..., lambda x: ...")
        for target in s.targets:
            assign(target, s.value)
        return True


# catad's functions that give Jacobians and Hessians: NumPy arrays, of no axes for a number's
# (np.asarray of each block); the others give Python's own numbers
_ARRAY_RESULTS = ("jacobian", "jacfwd", "jacrev", "hessian")


def _api_flags(t: Any, result: Any, arg_types: list, arg_flags: tuple) -> Any:
    """python_flags of what the transformation t returns in Python (catad.differentiate), of type
    `result`, for arguments of these types and python_flags: a gradient has its argument's
    structure, a Python float for each number (a list of them for a list held as an array); a
    value, a tangent, each number of its tree a Python number; a Jacobian's and a Hessian's
    numbers are arrays of no axes."""
    if t.kind not in ("grad", "value_and_grad"):
        return _numbers(result, ZERO_D if t.kind in _ARRAY_RESULTS else True)
    one = isinstance(t.argnums, int)
    parts = tuple(_gradient_flags(arg_types[k], arg_flags[k]) for k in ((t.argnums,) if one else t.argnums))
    grad = parts[0] if one else parts if any(f is not False for f in parts) else False
    return (True, grad) if t.kind == "value_and_grad" else grad


def _gradient_flags(ty: Any, flags: Any) -> Any:
    """python_flags of the gradient with respect to an argument of type ty and these python_flags."""
    if isinstance(flags, ListArg):  # a list held as an array: a list of floats, or of arrays
        return ListArg((None,)) if rank(ty) == 1 else ListArg()
    if isinstance(ty, TupleT):
        items = tuple(_gradient_flags(s, flags[k] if isinstance(flags, tuple) else False)
                      for k, s in enumerate(ty.items))
        return items if any(f is not False for f in items) else False
    return ty is Float


def _numbers(ty: Any, number: Any) -> Any:
    """python_flags of a value of type ty each of whose numbers is `number` (True: Python's own;
    ZERO_D: an array of no axes), in its tuples (a list or dict is the tuple of its items here,
    see catad.trees), and whose arrays are arrays."""
    if isinstance(ty, TupleT):
        flags = tuple(_numbers(s, number) for s in ty.items)
        return flags if any(f is not False for f in flags) else False
    if ty is Float or number is True and ty in (Int, Bool):
        return number
    return False
