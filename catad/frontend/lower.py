"""Lowering one Python function's syntax tree to the body of a core Def.

:class:`FunctionLowerer` holds the state of one function being lowered (env: what each Python
name is bound to; the Builder, which makes terms and knows their shapes; the hidden parameters
made so far) and is composed of one part per concern:

- statements.py (``Statements``): the statement loop and early returns, assignment and
  unpacking, if statements and the join of their branches, each statement's checks;
- expressions.py (``Expressions``): constants, operators, comparisons, boolean operators,
  conditional expressions, attributes, calls;
- freenames.py (``FreeNames``): what a name denotes, a local or a global, closure or builtin
  value read at each call (with reads.py);
- comprehensions.py (``Comprehensions``): comprehensions and what they iterate over;
- subscripts.py (``Subscripts``): subscripts, slices and list displays;
- functions.py (``Functions``): calls of the user's functions (module-level ones, and defs and
  lambdas written in the function, which are lowered where they are called), how arguments bind
  to parameters, default values.

The terms themselves are made by the Builder (build.py), calls of library functions by
calls.py.
"""
from __future__ import annotations

import ast
from typing import Any

from ..errors import CatadTypeError, Loc, Site, UnsupportedSyntax
from .._node import walk
from ..lang.terms import TRUE, Call, Const, Def, Get, If, Term, Tuple, Var, free_vars, is_atom, may_fail, rebuilt, rename, \
    term_children
from ..lang.types import Bool, Float, Int, Tuple as TupleT
from . import errstate
from .build import Builder, Names
from ..primitives import prim
from .common import FALSE_, MIXED, UNDECIDED, ZERO_D, ListAndArray, ListArg, PythonWhere, joined_flags, joined_rows, and_, any_, is_array, is_undecided, reads_undecided
from .shapes import copyable, fresh, in_scope, lin_const, without_checks
from .comprehensions import Comprehensions
from .expressions import Expressions
from .freenames import FreeNames
from .functions import Functions
from .lists import Lists
from .loops import Loops
from .raises import Raises
from .updates import Updates
from .reads import Path
from .source import Source
from .statements import Statements, has_return
from .subscripts import Subscripts
from ..trees import Tree


class _Branch:
    """While it is entered, what is lowered is inside one more conditional (see Builder.hoist)."""

    def __init__(self, b):
        self.b = b

    def __enter__(self):
        self.b.branch_depth += 1

    def __exit__(self, *exc):
        self.b.branch_depth -= 1


class FunctionLowerer(Statements, Expressions, FreeNames, Comprehensions, Subscripts, Loops, Updates, Lists, Functions,
                      Raises):
    """Lowers one Python function (src) for one signature (arg_types, units) to a Def; program
    compiles the user functions it calls (catad.frontend.program.ProgramCompiler).

    `given` names the parameter each argument fills (*args once per item; by default the first
    positional ones), `statics` binds parameters to what is not a value (a bound method's self);
    the other parameters take their default values. With a `parent`, the lowerer of a def or
    lambda written in the parent's function, lowered into the parent's Def where it is called
    (functions.py): it shares the parent's names, Builder and hidden parameters, and reads the
    names it does not bind from the parent."""

    parent: "FunctionLowerer | None" = None

    def __init__(self, program: Any, src: Source, arg_types: tuple, units: tuple | None = None,
                 trees: tuple | None = None, given: tuple | None = None, statics: tuple = (),
                 parent: "FunctionLowerer | None" = None, pys: tuple | None = None):
        self.program = program  # compiles the user functions this one calls
        self.src = src
        self.fn = src.fn if parent is None else parent.fn
        self.arg_types = arg_types
        self.units = units if units is not None else (None,) * len(arg_types)  # see catad.pipeline.signature
        self.given = given if given is not None else src.positional[:len(arg_types)]
        self.statics = statics
        self.parent = parent
        self.env: dict[str, Any] = {}
        self.param_trees = trees or (None,) * len(arg_types)
        self.result_tree: Tree | None = None
        self._returned = False  # a return statement was lowered (its tree is result_tree)
        self.result_py = False  # every return returns one of Python's own numbers
        self.result_maybe_py = False  # some return may return one (where a condition holds)
        self.result_flags = False  # python_flags of a tuple or list result (joined over the returns)
        self.result_zero_d = False  # some return returns an array of no axes (np.where's of numbers)
        self.pys = pys if pys is not None else (False,) * len(arg_types)
        if parent is not None:  # terms of one Def: one set of names, shapes, hidden parameters
            self.names, self.b, self.lists, self.views = parent.names, parent.b, parent.lists, parent.views
            self.py_numbers, self.int_bounds = parent.py_numbers, parent.int_bounds
            self.py_whens, self.numpy_numbers = parent.py_whens, parent.numpy_numbers
            self.py_items, self.py_layouts = parent.py_items, parent.py_layouts
            self.multiplied = parent.multiplied
            self.hidden, self.trees = parent.hidden, parent.trees
            self.zero_d, self.zero_d_names = parent.zero_d, parent.zero_d_names
            self.undecided_states = parent.undecided_states
            self.copies, self.zero_d_lists = parent.copies, parent.zero_d_lists
            self.made_syntax = parent.made_syntax
            self.list_rows, self.row_kinds, self.unknown_rows = parent.list_rows, parent.row_kinds, parent.unknown_rows
            return
        self.names = Names(src.identifiers)
        self.made_syntax: list = []  # syntax made while lowering (iterators.py), alive until the compile ends
        # rows of lists (m_list[0]): a list's or an array's, which catad does not tell apart (see binop)
        self.list_rows: dict[int, Term] = {}
        # lists whose rows are known to be lists or arrays, as they were made, level by level
        # ([m[0], m[1]]: ("array",); [[x, 1.0], [2.0, x]]: ("list",)): their rows are not list_rows
        self.row_kinds: dict[int, tuple[Term, tuple[str, ...]]] = {}
        self.unknown_rows: dict[int, tuple[Term, bool]] = {}  # unknown_row's answers, by term
        self.b = Builder(self.names)
        # terms holding Python lists (displays, comprehensions): they lower to vectors, but
        # Python's + and * concatenate and repeat lists, so operators on them are refused
        self.lists: dict[int, Term] = {}
        # terms holding a read-only view (sliding_window_view's): assigning into one is refused
        self.views: dict[int, Term] = {}
        # the subscripts (syntax nodes) that index with an integer array or a mask: NumPy's result
        # is a copy, which a name assigned it owns (updates.py)
        self.copies: set[int] = set()
        # lists holding an array of no axes (np.where's of numbers) among their items: an item read
        # from one may be such an array (round() of it raises TypeError in Python), so it is marked one
        self.zero_d_lists: dict[int, Term] = {}
        # Float, Int or Bool terms holding an array of no axes (np.where and np.select of numbers
        # give one, not a number): x += 1 changes it in place, as it changes an array, which every
        # other name for it sees (s = x), so it is refused unless x owns it (updates.py)
        self.zero_d: dict[int, Term] = {}
        self.zero_d_names: set[str] = set()  # the names given one somewhere (a loop's state may hold one after it)
        self.undecided_states: dict[tuple, Var] = {}  # (loop, state) -> its undecided mark (loops.py)
        # terms holding one of Python's own numbers (a literal, len(x), float(x), a Python float
        # argument, arithmetic of these): Python's arithmetic on them raises where NumPy's gives
        # inf or nan (1.0 / 0.0), and the front end checks it (expressions.py: python_checks)
        self.py_numbers: dict[int, Term] = {}
        # terms holding one of Python's own numbers only where a Bool term holds, and its
        # Python type there: sum(x) of a float array is Python's int 0 where x is empty and a
        # NumPy float elsewhere (so sum(x) / len(x) raises ZeroDivisionError for an empty x)
        self.py_whens: dict[int, tuple[Term, Term, Any]] = {}
        # terms surely holding one of NumPy's numbers (an element of an array, arithmetic with
        # one): a loop's Python float state updated by one is NumPy's after the first iteration
        self.numpy_numbers: dict[int, Term] = {}
        # list terms holding Python's own numbers ([0.5 for e in v], [x, 2.0]), and which items
        # they are (a tuple of bools by position, or None: every item): max() and min() of a
        # list of them only are Python's; l[1] of [a[0], x] is
        self.py_items: dict[int, tuple[Term, tuple | None]] = {}
        # list terms of a length known only at run time that hold Python's numbers at some
        # positions only ([e for e in v] + [0.0]): their layout (see py_layout)
        self.py_layouts: dict[int, tuple[Term, tuple]] = {}
        # Int terms -> what bounds their magnitude (int_range.IntBound): Ints that could leave
        # int64, where Python's ints grow and NumPy's wrap around, are checked (int_range.py)
        self.int_bounds: dict[int, tuple[Term, Any]] = {}
        self.multiplied: set[str] = set()  # loops' Int states a product of which the body computes
        # globals and closure values read, as parameters after the user's (see reads.py)
        self.hidden: dict[tuple, tuple[Path, Var, Any]] = {}  # path -> (path, parameter, its length-1 axes)
        # terms holding a Python list or dict of values (arguments, dict displays, globals): they
        # lower to tuples, and their Tree (catad.trees) says which item a key or index reads
        self.trees: dict[int, tuple[Term, Tree]] = {}

    # ------------------------------------------------------------ helpers

    def loc(self, node: ast.AST | None) -> Loc:
        return self.src.loc(node)

    def fail(self, node: ast.AST | None, construct: str, message: str, cls=UnsupportedSyntax, hint=None):
        raise cls(message, self.loc(node), construct, hint)

    def branch(self):
        """A context in which what is lowered runs only on some condition (see Builder.hoist)."""
        return _Branch(self.b)

    # ------------------------------------------------------------ the function

    def lower(self, name: str) -> Def:
        loc = self.loc(self.src.node)
        errstate.check(self, self.src.contexts)  # the with statements whose bodies stand in their place
        params = self.bind_params(loc)  # functions.py
        entry = self.parent is None and len(self.program.active) == 1  # not a function it calls
        if not any(has_return(s) for s in reversed(self.src.body)):  # (from the end: most end with one)
            if not self.raises_always():
                self.fail(self.src.node, "return", f"{self.src.name} has no return statement; a compiled "
                                                   "function must return its result")
            if not entry:
                self.refuse_raise_always(self.src.body[-1])
        body, _ = self.returning_block(self.src.body, self.src.node, top=entry)
        if self.program.undecided:
            body = _settled(body)
        return Def(name, tuple(params) + tuple(v for _, v, _ in self.hidden.values()), body, loc)

    # ------------------------------------------------------------ Python lists and dicts

    def with_tree(self, t: Term, tree: Tree | None) -> Term:
        """t, marked as holding the list or dict `tree` describes (nothing for None)."""
        if tree is not None:
            self.trees[id(t)] = (t, tree)
        return t

    def tuple_of(self, items, loc) -> Term:
        """The tuple of items, keeping the structure of those that are lists or dicts (a Tree
        "tuple" when any is; a plain tuple has none)."""
        t = Tuple(tuple(items), loc)
        trees = tuple(self.tree(x) for x in items)
        return self.with_tree(t, Tree("tuple", trees)) if any(x is not None for x in trees) else t

    def dict_of(self, keys, items, loc) -> Term:
        """The dict of items under keys (distinct): the tuple of the items, marked with the keys."""
        return self.with_tree(Tuple(tuple(items), loc), Tree("dict", tuple(self.tree(x) for x in items), tuple(keys)))

    def tree(self, t: Term) -> Tree | None:
        entry = self.trees.get(id(t))
        return entry[1] if entry is not None and entry[0] is t else None

    def item_tree(self, t: Term, k: int) -> Tree | None:
        """The tree of item k of t (None for a leaf or a plain tuple)."""
        tree = self.tree(t)
        return tree.items[k] if tree is not None else None

    def returned(self, value: Term, node: ast.AST) -> None:
        """A return statement's value: its tree is the function's result tree, the same at
        every return (the caller rebuilds the result from it)."""
        tree = self.tree(value)
        if self._returned and tree != self.result_tree:
            what = lambda t: t.describe() if t is not None else "a value that is not a list or dict"
            self.fail(node, "return", f"{self.src.name} returns {what(tree)} here and {what(self.result_tree)} "
                      "at another return", hint="return values of one structure at every return")
        self.result_py = self.is_py(value) and (self.result_py or not self._returned)
        self.result_maybe_py = self.result_maybe_py or self.py_when(value) is not None
        flags = self.python_flags(value) if isinstance(value.type, TupleT) or self.is_list(value) else False
        self.result_zero_d = self.result_zero_d or flags is False and self.is_zero_d(value)
        try:
            self.result_flags = joined_flags(self.result_flags, flags) if self._returned else flags
        except ListAndArray:
            self.fail(node, "return", f"{self.src.name} returns a list here and an array at another return (or the "
                      "other way round, or as an item of a tuple): catad holds both as arrays, but Python's + "
                      "concatenates a list", hint="return np.array(l) for the list, or a list at every return")
        self._returned, self.result_tree = True, tree

    def python_flags(self, t: Term, conditions: list | None = None):
        """What the callee (or the caller, of a result) must be told of value t besides its type
        and tree: a list held as an array is a ListArg; a tuple display gives a tuple of its items'
        flags; one of Python's own numbers is True; one that is only where a Bool term holds is a
        PythonWhere, whose term is appended to `conditions` (passed on after the arguments; None:
        a result's, undecided); an array of no axes is ZERO_D; False where none of these is (or,
        for a tuple, in no item)."""
        if isinstance(t, Tuple):
            flags = tuple(self.python_flags(x, conditions) for x in t.items)
            return flags if any(f is not False for f in flags) else False
        if self.is_list(t) and is_array(t):
            return ListArg(self.py_items_of(t), self.laid_out(t), self.holds_zero_d(t), self.rows_kind(t),
                           self.unknown_row(t))
        if is_array(t) and self.unknown_row(t):  # (a list's row of a kind not known: it stays one there)
            return ListArg(unknown=True)
        got = self.py_when(t)
        if got is None:
            return ZERO_D if self.is_zero_d(t) else False
        if got[0] is TRUE:
            return True
        if conditions is None or is_undecided(got[0]):
            return PythonWhere(got[1], True)
        conditions.append(got[0])
        return PythonWhere(got[1])

    def keep_marks(self, old: Term, new: Term) -> Term:
        """new, a value that is old's (old under lets), marked as old is: its tree, whether it is a
        list and where that holds Python's numbers, whether it is one of Python's numbers."""
        self.with_tree(new, self.tree(old))
        if self.is_list(old):
            self.as_list(new)
        if id(old) in self.list_rows and self.list_rows[id(old)] is old:
            self.list_rows[id(new)] = new
        self.mark_rows(new, self.rows_kind(old))
        got = self.py_items_of(old)
        if got is not None:
            self.mark_py_items(new, *got)
        self.mark_py_layout(new, self.laid_out(old))
        self.mark_zero_d_items(new, old)
        return self.keep_py(old, new)

    def flagged(self, t: Term, flags, loc: Loc | None, where: list | None = None) -> Term:
        """t, a parameter or a projection of one (or of a call's result), marked as python_flags
        says its value was: a tuple becomes the display of its items, each marked. An item that is
        Python's where a condition holds is appended to `where` with its Python type (bind_params
        gives it that condition's parameter); undecided without `where`."""
        if isinstance(flags, tuple):
            items = tuple(self.flagged(self.with_tree(Get(k, t, loc), self.item_tree(t, k)), f, loc, where)
                          for k, f in enumerate(flags))
            return self.with_tree(Tuple(items, loc), self.tree(t))
        if isinstance(flags, ListArg):
            self.mark_rows(self.as_list(t), flags.rows)
            if flags.unknown:
                self.list_rows[id(t)] = t
            if flags.zero_d:
                self.mark_zero_d_items(t)
            if flags.py_items is not None:
                self.mark_py_items(t, *flags.py_items)
            return self.mark_py_layout(t, flags.layout)
        if flags == ZERO_D:
            return self.as_zero_d(t)
        if isinstance(flags, PythonWhere) and not flags.undecided and where is not None:
            where.append((t, flags.type))
            return t
        if isinstance(flags, PythonWhere):
            return self.as_py_when(t, self.undecided(loc), flags.type or t.type)
        return self.as_py(t) if flags else t

    def mark_readonly(self, t: Term) -> Term:
        self.views[id(t)] = t
        return t

    def as_zero_d(self, t: Term) -> Term:
        """t, a number, marked as an array of no axes (np.where's of numbers)."""
        self.zero_d[id(t)] = t
        return t

    def is_zero_d(self, t) -> bool:
        return self.zero_d.get(id(t)) is t

    def mark_zero_d_items(self, t: Term, *sources) -> Term:
        """t, a list, marked as holding arrays of no axes where any of sources is one or a list
        holding one (no sources: t holds them)."""
        if not sources or any(self.is_zero_d(x) or self.holds_zero_d(x) for x in sources):
            self.zero_d_lists[id(t)] = t
        return t

    def holds_zero_d(self, t) -> bool:
        return self.zero_d_lists.get(id(t)) is t

    def is_readonly(self, t) -> bool:
        return self.views.get(id(t)) is t

    def as_py(self, t: Term) -> Term:
        """t, marked as holding one of Python's own numbers."""
        return _marked(self.py_numbers, t, t)

    def is_py(self, t) -> bool:
        return self.py_numbers.get(id(t)) is t

    def as_py_when(self, t: Term, when: Term, python_type: Any, value: Term | None = None) -> Term:
        """t, marked as holding one of Python's own numbers, of type python_type, where the Bool
        term `when` holds (and a NumPy number elsewhere); `value`: a Const it is there, if known
        (the sum of nothing is 0), which the checks of its arithmetic read."""
        return _marked(self.py_whens, t, (t, when, python_type, value))

    def _py_when_mark(self, t):
        got = self.py_whens.get(id(t))
        return got[1:] if got is not None and got[0] is t else None

    def py_when(self, t) -> tuple[Term, Any, Term | None] | None:
        """(where t is one of Python's own numbers, its Python type there, its value there if
        known): (TRUE, its type, None) for a number that always is, None for one that never is
        or may be where nothing says."""
        return (TRUE, t.type, None) if self.is_py(t) else self._py_when_mark(t)

    def where_py(self, t) -> Term:
        """Where t is one of Python's own numbers, as a Bool term: TRUE, FALSE or its condition."""
        got = self.py_when(t)
        return FALSE_ if got is None else got[0]

    def joined_kind(self, a, b):
        """The mark of a value that is a or b by a branch (an if statement or expression):
        "py" where both are Python's own numbers, "numpy" where both are surely NumPy's, None
        where neither is Python's anywhere (unmarked numbers are NumPy's), else (its Python type,
        its Const there if both agree on one): Python's where the branch taken gave Python's,
        a Bool the caller computes from where_py of each and marks with as_py_when."""
        wa, wb = self.py_when(a), self.py_when(b)
        if wa is None and wb is None:
            return "numpy" if self.is_numpy(a) and self.is_numpy(b) else None
        if wa is not None and wb is not None and wa[0] is TRUE and wb[0] is TRUE:
            return "py"
        types = {w[1] for w in (wa, wb) if w is not None}
        known = {w[2] for w in (wa, wb) if w is not None}
        return (types.pop() if len(types) == 1 else Float), (known.pop() if len(known) == 1 else None)

    def mark_chosen(self, t: Term, test: Term, a: Term, b: Term) -> Term:
        """t, which is a where the Bool `test` holds and b elsewhere (a conditional expression,
        max(a, b)), marked as they are: Python's where the one chosen is. `test` is read again
        after t, its checks left out (they have passed); where it cannot be (it binds), or a
        mark's condition reads what a or b binds inside itself, t is NumPy's as before."""
        kind = self.joined_kind(a, b)
        if not isinstance(kind, tuple):
            return self.mark_joined(t, kind)
        wa, wb, cond = self.where_py(a), self.where_py(b), without_checks(test)
        when = wa if wa is wb else If(cond, wa, wb, t.loc) if cond is not None else None
        if when is None or not (in_scope(wa, a) and in_scope(wb, b) and copyable(when)):
            when = self.undecided(t.loc)
        return self.mark_joined(t, kind, when)

    def undecided(self, loc) -> Term:
        """The condition of a mark that cannot be read where the value is used (its test binds,
        or reads what a branch binds inside itself): a Bool that makes the function refused if
        anything reads it (a division by the value, where Python's 0.0 raises and NumPy's gives inf),
        rather than a guess of either kind (see _settled)."""
        self.program.undecided += 1
        return Var(f"{UNDECIDED}{self.program.undecided}", Bool, loc)

    def hoisted(self, t: Term) -> Term:
        """t, or a variable bound to it before the statement being lowered, where its value can be
        computed there (outside comprehensions and conditionals, reading only what is known before
        the statement, running no check, nothing in the statement so far raising where it is): a
        mark's condition can then read it anywhere after (min(np.sum(w * 2.0), 0.5) / s)."""
        b, st = self.b, self.b.statement
        if is_atom(t) or st is None or b.frames or b.branch_depth != st.depth or st.raised or may_fail(t) or \
                any(self.names.serial.get(v.name, 0) > st.serial for v in free_vars(t)):
            return t
        got = self.py_when(t)
        if got is not None and got[0] is not TRUE and not (in_scope(got[0], t) and copyable(got[0])):
            return t
        v = b.bound(b.var(t.type, t.loc), t)
        st.checks.append((v, t, t.loc))
        self.keep_zero_d(t, v)  # (an array of no axes stays one: changed in place, every name for it sees it)
        return self.keep_py(t, v)

    def chosen_extreme(self, pair: str, a: Term, b: Term, loc) -> Term:
        """Python's max(a, b) (pair "max") or min(a, b) of numbers: a unless b > a (b < a),
        marked Python's where the one chosen is. Of a bool and a number, Python gives the bool
        itself where it is chosen, which NumPy then computes with as a bool (np.exp(True) is a
        float16, np.add(True, True) is True): a kind known only at run time, refused."""
        if (a.type == Bool) != (b.type == Bool):
            raise CatadTypeError(f"{pair}() of a bool and a number: Python gives the bool itself where it is chosen, "
                                 "which NumPy computes with as a bool (np.exp(True) is a float16), the number "
                                 "where not; catad cannot follow a kind chosen at run time", loc, pair,
                                 f"convert the bool first: {pair}(int(b), n)")
        if isinstance(self.joined_kind(a, b), tuple):  # Python's on one side only: its mark reads the test
            a, b = self.hoisted(a), self.hoisted(b)
        if a.type == Bool:  # (two bools: compared as the ints they are, the one chosen given)
            def chosen(x, y):
                return self.b.scalar("gt" if pair == "max" else "lt", [self.b.numeric(y, Int, loc),
                                                                       self.b.numeric(x, Int, loc)], loc)
            out = self.b.share_all([a, b], lambda x, y: If(chosen(x, y), y, x, loc), loc)
            return self.mark_chosen(out, chosen(a, b), b, a)
        test = self.b.scalar("gt" if pair == "max" else "lt", [b, a], loc)
        out = self.mark_chosen(self.b.scalar(pair, [a, b], loc), test, b, a)
        if self.is_zero_d(a) or self.is_zero_d(b):  # Python's max gives that array itself where chosen
            self.as_zero_d(out)
        return out

    def mark_py_items(self, t: Term, which: tuple | None = None) -> Term:
        """t, a list, marked as holding only Python's own numbers (a comprehension of them), or
        at the positions `which` says (True: Python's), where it is a display of known length."""
        if which is None or any(which):
            self.py_items[id(t)] = (t, which)
        return t

    def py_items_of(self, t) -> tuple | None:
        """(which, as mark_py_items takes it) for a list t holding Python's numbers, else None."""
        got = self.py_items.get(id(t))
        return (got[1],) if got is not None and got[0] is t else None

    def item_kind(self, t: Term) -> str:
        """What an item of a list is: "py" (one of Python's numbers, or a list of only them),
        "numpy" (NumPy's, an array, or a list of only NumPy's), or "either" (Python's or NumPy's
        by a test, or a list holding both kinds)."""
        if self.is_list(t) and is_array(t):
            if self.has_py_items(t):
                return "py"
            if self.laid_out(t) is not None:
                return "either"
            pos = self.py_positions(t)
            return "either" if isinstance(pos, tuple) and any(pos) else "numpy"
        if self.is_py(t):
            return "py"
        return "numpy" if is_array(t) or self.py_when(t) is None else "either"

    def mark_items(self, out: Term, items: list) -> Term:
        """out, the list of items (a display, an unrolled comprehension), marked where they are
        Python's numbers: by position; MIXED where an item is Python's or NumPy's by a test; of
        lists (rows), as a whole where every row holds only Python's, MIXED where rows hold both
        kinds (their items read as of a kind catad cannot tell)."""
        self.mark_zero_d_items(out, *items)
        kinds = [self.item_kind(t) for t in items]
        if "either" in kinds:
            return self.mark_py_layout(out, MIXED)
        if any(self.is_list(t) and is_array(t) for t in items):  # rows: marked as a whole
            return self.mark_py_items(out) if set(kinds) == {"py"} else \
                out if set(kinds) == {"numpy"} else self.mark_py_layout(out, MIXED)
        return self.mark_py_items(out, tuple(k == "py" for k in kinds))

    def mark_rows(self, t: Term, levels: tuple[str, ...] | None) -> Term:
        """t, a list, marked as holding lists or arrays as `levels` says ("list" or "array": its rows',
        then its rows' rows', as far as known); None or (): not known (a mark t had is taken off)."""
        if levels:
            self.row_kinds[id(t)] = (t, levels)
        elif self.rows_kind(t) is not None:
            del self.row_kinds[id(t)]
        return t

    def rows_kind(self, t) -> tuple[str, ...] | None:
        got = self.row_kinds.get(id(t))
        return got[1] if got is not None and got[0] is t else None

    def unknown_row(self, t) -> bool:
        """Whether t is, or is made from, a row of a list whose rows catad does not know to be
        lists or arrays (list_row's list_rows: a slice of one, a variable bound to one, ...)."""
        if not self.list_rows or not isinstance(t, Term) or not is_array(t):  # (np.sum(row) is a number either way)
            return False
        # Each term's answer is kept (a term is marked when it is made, before anything is made of
        # it), so that asking of every operand of a long expression stays linear.
        rows, memo = self.list_rows, self.unknown_rows
        stack = [(t, False)]
        while stack:
            n, done = stack.pop()
            got = memo.get(id(n))
            if got is not None and got[0] is n:
                continue
            if rows.get(id(n)) is n:
                memo[id(n)] = (n, True)
                continue
            kids = () if type(n) is Var or type(n) is Const else term_children(n)
            if not done:
                stack.append((n, True))
                stack.extend((k, False) for k in kids)
                continue
            memo[id(n)] = (n, any(memo[id(k)][1] for k in kids))
        return memo[id(t)][1]

    def made_rows(self, items: list) -> tuple[str, ...] | None:
        """The rows_kind of a list made of items (a display's, a comprehension's element): arrays
        (not lists), or lists whose own rows are known as far as the first item's are; None where
        an item is made from a row of a kind catad does not know."""
        if not items or not all(is_array(t) for t in items) or any(self.unknown_row(t) for t in items):
            return None
        if not any(self.is_list(t) for t in items):
            return ("array",)
        if not all(self.is_list(t) for t in items):
            return None
        common = self.rows_kind(items[0]) or ()
        for t in items[1:]:
            common = joined_rows(common, self.rows_kind(t)) or ()
        return ("list",) + common

    def list_row(self, row: Term, t: Term) -> Term:
        """row, an array read from the list t (an item): an array where t's rows are known to be
        arrays; a list where known to be lists (its own rows as t's say); else a list of a kind
        catad does not know (list_rows: + and * of it are refused, see Expressions.binop)."""
        levels = self.rows_kind(t)
        if levels is None:
            self.list_rows[id(row)] = row
            return self.as_list(row)
        if levels[0] == "array":
            return row
        self.mark_row(row, t)  # (Python's numbers where t's rows hold them)
        return self.mark_rows(self.as_list(row), levels[1:])

    def mark_row(self, row: Term, t: Term) -> Term:
        """row, an item of the list of lists t, marked as t's items are: all Python's, or MIXED."""
        self.mark_zero_d_items(row, t)
        if self.has_py_items(t):
            return self.mark_py_items(row)
        return self.mark_py_layout(row, MIXED) if self.laid_out(t) is MIXED else row

    def py_positions(self, t: Term):
        """Where list t holds Python's numbers: a tuple of bools by position; "all" where every
        item is one, however many; None where not known (or t is no list)."""
        if isinstance(t.type, TupleT):
            return tuple(self.is_py(x) for x in t.items) if isinstance(t, Tuple) else None
        if not self.is_list(t):
            return None
        got = self.py_items_of(t)
        if got is not None:
            return "all" if got[0] is None else got[0]
        n = lin_const(self.b.shapes.lin(self.b.length(t, t.loc)))  # none of Python's, by position
        return None if n is None else (False,) * n

    def mark_py_positions(self, t: Term, positions) -> Term:
        """t, a list, marked as py_positions describes it."""
        if positions is not None:
            self.mark_py_items(t, None if positions == "all" else positions)
        return t

    def py_layout(self, t: Term):
        """Where list t holds Python's numbers, as (head, middle, tail): bools by position for its
        first and its last items, and for the items between, of a number known only at run time,
        True where they are Python's, False where NumPy's, None where there are none (then tail
        is ()); MIXED where both kinds are at places known only at run time (its items are
        refused where read); None where not known. An unmarked list of unknown length holds
        NumPy's numbers (a comprehension over an array), as its items read unmarked are taken to be."""
        got = self.laid_out(t)
        if got is not None:
            return got
        pos = self.py_positions(t)
        if pos == "all":
            return (), True, ()
        if isinstance(pos, tuple):
            return pos, None, ()
        if self.is_list(t) and is_array(t) and self.py_items_of(t) is None:
            return (), False, ()
        return None

    def partly_py(self, t: Term) -> bool:
        """Whether list t holds Python's numbers at some places and NumPy's at others (or may:
        a layout unknown): then its max(), min() or sum() is one kind or the other by the values."""
        if not self.is_list(t) or self.has_py_items(t):
            return False
        layout = self.py_layout(t)
        if layout is MIXED or layout is None:
            return layout is MIXED
        head, middle, tail = layout
        return any(head) or middle is True or any(tail)

    def laid_out(self, t: Term):
        """The layout mark_py_layout gave list t (its Python's numbers known by their place only,
        or MIXED), else None."""
        got = self.py_layouts.get(id(t))
        return got[1] if got is not None and got[0] is t else None

    def mark_py_layout(self, t: Term, layout) -> Term:
        """t, a list, marked as py_layout describes it."""
        if layout is None:
            return t
        if layout is MIXED:
            self.py_layouts[id(t)] = (t, layout)
            return t
        head, middle, tail = layout
        if middle is None:
            return self.mark_py_positions(t, head + tail)
        if all(head) and all(tail) and middle:
            return self.mark_py_positions(t, "all")
        if any(head) or any(tail) or middle:  # (unmarked, every item would be taken for NumPy's)
            self.py_layouts[id(t)] = (t, layout)
        return t

    def py_item_where(self, t: Term, i: Term, loc) -> Term | None:
        """Where t[i] is one of Python's numbers, as a Bool term (TRUE, FALSE_ or a condition on
        i), for a list t marked by mark_py_layout and an index i in its bounds, i >= 0 (an atom,
        t too); None for a list not so marked; an undecided mark's Bool for a MIXED one (whose
        items' kinds are at places known only at run time)."""
        layout = self.py_layout(t)  # (by position, known or from the ends, or as a whole)
        if layout is None:
            return None
        if layout is MIXED:  # Python's or NumPy's, which catad cannot tell: what reads the kind is refused
            return self.undecided(loc)
        head, middle, tail = layout
        k = len(head)
        if isinstance(i, Const) and i.value < k:
            return TRUE if head[i.value] else FALSE_
        n = self.b.length(t, loc)
        start = prim("sub", n, Const(len(tail), Int), loc=loc)  # the tail's first index
        conds = [prim("eq", fresh(i, loc), Const(j, Int), loc=loc) for j, py in enumerate(head) if py]
        conds += [prim("eq", fresh(i, loc), prim("add", fresh(start, loc), Const(j, Int), loc=loc), loc=loc)
                  for j, py in enumerate(tail) if py]
        if middle:
            conds.append(and_(prim("ge", fresh(i, loc), Const(k, Int), loc=loc),
                              prim("lt", fresh(i, loc), fresh(start, loc), loc=loc)))
        return any_(conds)

    def mark_item_at(self, out: Term, t: Term, i: Term, loc) -> Term:
        """out, the item of list t at i (in its bounds, >= 0), marked Python's where it is one
        (py_item_where: for a list whose Python numbers are known by their place only)."""
        if is_array(out):
            return out
        if self.holds_zero_d(t):
            self.as_zero_d(out)
        when = self.py_item_where(t, i, loc)
        if when is None or when is FALSE_:
            return out
        return self.as_py(out) if when is TRUE else self.as_py_when(out, when, out.type)

    def has_py_items(self, t) -> bool:
        got = self.py_items_of(t)
        return got is not None and (got[0] is None or all(got[0]))

    def items_kind(self, t) -> str | bool:
        """What a loop or comprehension over t reads: "py" for a list of Python's numbers only,
        True for another list (its items may be Python's), False for a NumPy array."""
        if not self.is_list(t):
            return False
        return "py" if self.has_py_items(t) and not self.holds_zero_d(t) else True

    def py_item(self, t, k: int) -> bool:
        """Whether t[k] (k known while compiling) of a list t is one of Python's numbers."""
        got = self.py_items_of(t)
        if got is None or got[0] is None:
            return got is not None
        which = got[0]
        return -len(which) <= k < len(which) and which[k]

    def mark_let(self, out: Term, t: Term, rhs: Term) -> Term:
        """out, b.share's let of a variable to rhs around t, marked as t is; a condition of t's
        mark that reads the variable reads rhs instead (without its checks, which have passed)."""
        got = self.py_when(t)
        if got is None or got[0] is TRUE:
            return self.keep_py(t, out)
        when = got[0]
        if not in_scope(when, out):
            value = without_checks(rhs)
            if value is None or not copyable(value):
                return out  # (as a conditional expression whose test holds a comprehension: NumPy's)
            when = rename(when, {out.var: value})
            if not in_scope(when, out):
                return out
        return self.as_py_when(out, when, *got[1:])

    def mark_joined(self, t: Term, kind, when: Term | None = None) -> Term:
        """t marked by joined_kind's answer (when: the Bool it asks for, where it asks)."""
        if kind == "py":
            return self.as_py(t)
        if kind == "numpy":
            return self.as_numpy(t)
        return t if kind is None else self.as_py_when(t, when, *kind)

    def as_numpy(self, t: Term) -> Term:
        """t, marked as surely holding one of NumPy's numbers."""
        return _marked(self.numpy_numbers, t, t)

    def is_numpy(self, t) -> bool:
        return self.numpy_numbers.get(id(t)) is t

    def numpy_operand(self, t):
        """t as an operand of a NumPy function of numbers (np.mod, np.divide, np.power): NumPy
        computes on its own scalars whatever it is given, so np.mod(0.1, 0.0) is nan, not
        Python's ZeroDivisionError. A number that is Python's (or may be) is made again, marked
        NumPy's (marks go by identity), keeping its Int bound; others are t."""
        if not isinstance(t, Term) or is_array(t) or self.is_numpy(t) or self.is_list(t) \
                or t.type not in (Int, Float, Bool):
            return t
        if not self.is_py(t) and self._py_when_mark(t) is None:
            return t
        out = t.replace()
        self.with_int_bound(out, self.int_bound(t))
        return self.as_numpy(out)

    def keep_py(self, old, new: Term) -> Term:
        """new, with old's mark of one of Python's own numbers (always, or where it holds) or of
        NumPy's."""
        if self.is_py(old):
            return self.as_py(new)
        if self.is_numpy(old):
            return self.as_numpy(new)
        got = self._py_when_mark(old)
        return self.as_py_when(new, *got) if got is not None else new

    def with_int_bound(self, t: Term, bound) -> Term:
        """t, noted to hold an Int bounded by bound (an int_range.IntBound; None: nothing known)."""
        if bound is not None:
            self.int_bounds[id(t)] = (t, bound)
        return t

    def int_bound(self, t):
        got = self.int_bounds.get(id(t))
        return got[1] if got is not None and got[0] is t else None

    def as_list(self, t: Term) -> Term:
        self.lists[id(t)] = t
        return t

    def is_list(self, t: Term) -> bool:
        return id(t) in self.lists

    def refuse_lists(self, node: ast.AST, operands: list[Term], what: str) -> None:
        """Python applies `what` to lists differently from arrays (or not at all), unless
        an ndarray among the operands makes NumPy convert the lists."""
        arrays = [t for t in operands if is_array(t)]
        if arrays and all(self.is_list(t) for t in arrays):
            self.fail(node, "list arithmetic", f"{what} on a Python list does not work elementwise in Python "
                      "(+ concatenates, * repeats)", hint="make it an array: np.array([...])")


def _settled(body: Term) -> Term:
    """body with its undecided marks (FunctionLowerer.undecided) settled. A check whose condition
    reads one holds where Python's number would pass it, and where it would not, refuses at run
    time (Python raises there only if the number is Python's, which catad cannot tell); anything
    else that reads one (a loop's state) makes the function refused."""
    def settled_check(n: Term) -> Term:
        if type(n) is not Call or n.fn != "check" or not reads_undecided(n.args[0]):
            return n
        cond = rebuilt(n.args[0], lambda a: TRUE if is_undecided(a) else a)  # Python's: the strictest
        site = n.args[2]
        return Call(n.fn, (cond, n.args[1], Const(_refusing(site.value), site.type, site.loc)), n.type, n.loc)
    out = rebuilt(body, lambda a: a, settled_check)
    left = next((n for n in walk(out) if is_undecided(n)), None)
    if left is not None:
        raise UnsupportedSyntax(
            "this value is one of Python's own numbers or one of NumPy's, chosen at run time by a test catad "
            "cannot read again where the value is used, and what is done with it later depends on which",
            left.loc, "Python or NumPy number", _UNDECIDED_HINT)
    return out


_UNDECIDED_HINT = ("compute the operands (or the test) in statements of their own first (t = np.sum(w * r); "
                   "max(t, 0.0)), or make both numbers of one kind (float(x), or np.float64(0.0))")


def _refusing(site: Site) -> Site:
    """The site of a check Python passes or fails by which kind of number it meets, where catad
    cannot tell which: a refusal where Python's would fail."""
    return Site(site.loc, site.construct,
                f"catad cannot tell whether Python raises here: where this number is one of Python's own it "
                f"raises ({site.message}), where it is one of NumPy's it does not, and which it is a test "
                f"decides at run time that catad could not read again", "unsupported", _UNDECIDED_HINT)


def _marked(table: dict, t, entry):
    """t, with entry kept for it in table (a mark of the kind of number it holds; marks go by
    identity, so a table holds t itself in its entry)."""
    if isinstance(t, Term) and t.type in (Int, Float, Bool):
        table[id(t)] = entry
    return t
