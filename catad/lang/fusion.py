"""Vertical fusion of builds, before differentiation: the Knossos rule
``index i (build n f) = f i`` (Ksc/Opt.hs, optPrimCall "index") applied to a whole chain.

A statement of elementwise NumPy code is a build over the array's elements, and the next
statement reads it only at its own element:

    let y = build(n, \\i. sin(x[i]))
    let z = build(n, \\j. y[j] * 2.0)        ~>   let z = build(n, \\i. let e = sin(x[i])
                                                                      e * 2.0)

Differentiated as it stands, every statement costs a build, its vector of local linear
maps and their sums in every later stage; fused, the whole chain is one build whose body
is a scalar program, and AD, the rewriting stages and the backend do scalar work per
statement. The vectorised backend computes the fused build as it computed the chain (each
let of the body is a whole-array operation), so the run time does not change.

A build y is fused into the build z that reads it when:
- z is y's only reader (y is not kept: nothing is computed twice), in the same let chain;
- z reads y only as y[j] (j z's own index) or size(y), and z's size is y's (the same
  term, or size(y)): j is then in y's bounds, so no bounds check is lost;
- y's elements are scalars, or rows that a build makes (a matrix's statement): then the
  row moves into z's body, whose chain of row builds is fused in turn;
- evaluating y cannot fail (may_fail: no check), so computing it later, inside z, is not
  observable: Python's order of errors is kept.

A let that only names a vector again (let a = b, a loop's result) is dropped first, its
readers reading b; a size bound to a variable (let n = size(x)) is compared by its term.

Work is linear in the program: each statement's body is renamed apart once, the body of a
fused chain is a list extended in place (the largest reader's list is kept), and the terms
of a fused build are made once, when nothing fuses into it any more.
"""
from __future__ import annotations

from dataclasses import dataclass

from .inline import renamed_apart
from .names import FreshNames
from .terms import Build, Call, Const, Def, Let, Program, Term, Var, let_chain, make_lets, rename, term_children
from .types import Int, Scalar, Vec


@dataclass
class _Fused:
    """A build being fused: build(size, \\var. lets in result), its lets a list."""
    size: Term
    var: Var
    lets: list
    result: Term
    loc: object

    def term(self) -> Build:
        return Build(self.size, self.var, make_lets(self.lets, self.result), self.loc)


def fuse_program(program: Program) -> Program:
    """The program (one definition, its calls inlined) with its chains of builds fused."""
    d = _without_aliases(program.main)
    body = _fuse_chain(d.body, {p.name for p in d.params}, None)
    if body is program.main.body:
        return program
    return Program((Def(d.name, d.params, body, d.loc),), program.entry)


def _fuse_chain(t: Term, taken: set, names: FreshNames | None) -> Term:
    """t, a let chain, with its builds fused; its body is a reader too. A build fused from
    builds of rows (a matrix's statements) has its body, a chain of row builds, fused in turn."""
    lets, body = let_chain(t)
    entries = [(lt.var, lt.rhs, lt.loc) for lt in lets] + [(None, body, None)]
    # a size bound to a variable (let n = size(x)) is compared by what it is bound to
    ints = {lt.var: lt.rhs for lt in lets if lt.var.type == Int}
    index = {lt.var: k for k, lt in enumerate(lets)}
    by_name = {lt.var.name: lt.var for lt in lets}
    taken |= set(by_name)
    scans = [_scan(rhs, by_name, taken) for _, rhs, _ in entries]  # each: (what it reads, may it fail, loose)
    readers: dict[Var, list] = {}  # a let's variable -> the entries that read it
    for k, (reads, _, _) in enumerate(scans):
        for v in reads:
            readers.setdefault(v, []).append(k)
    names = FreshNames(taken) if names is None else names
    fused: dict[int, _Fused] = {}
    gone: set[int] = set()
    for k, (_, rhs, _) in enumerate(entries):
        if type(rhs) is not Build:
            continue
        producers = [lets[index[v]] for v in sorted(scans[k][0], key=index.get)
                     if _fusable(lets[index[v]], scans[index[v]][1], k, readers)]
        producers = [index[p.var] for p in _read_at_index(rhs, producers, ints, scans[k][2])]
        if producers:
            fused[k] = _fuse(rhs, [(lets[p], _open(lets[p].rhs, fused.pop(p, None), names)) for p in producers],
                             names)
            gone.update(producers)
    if not fused:
        return t
    made = {k: _made(f, names) for k, f in fused.items()}
    kept = [(v, made.get(k, rhs), loc) for k, (v, rhs, loc) in enumerate(entries[:-1]) if k not in gone]
    return make_lets(kept, made.get(len(lets), body))


def _made(f: "_Fused", names: FreshNames) -> Build:
    b = f.term()
    if isinstance(b.body.type, Scalar):
        return b
    return Build(b.size, b.var, _fuse_chain(b.body, names.taken, names), b.loc)


def _scan(t: Term, by_name: dict, taken: set) -> tuple[list[Var], bool, set[Var]]:
    """The let-bound variables of the chain that t mentions, whether t runs a check
    (may_fail), and, when t is a build, the variables of the chain its body reads otherwise
    than as v[i] (i its index) or size(v) (_read_at_index's), in one walk that also adds the
    names of its variables to `taken`. The front end's and the inliner's names are unique in
    scope: an inner binder never has a chain variable's name (a name it had would only make
    fusion less frequent)."""
    reads: set[Var] = set()
    loose: set[Var] = set()
    fails = False
    seen: set[int] = set()
    # a build's body first, its reads at its index told apart; then the rest (its size and
    # index, or t), every node seen before not walked again
    if type(t) is Build:
        i = t.var
        parts = [([t.body], True), ([t], False)]
    else:
        i = None
        parts = [([t], False)]
    for stack, body in parts:
        while stack:
            n = stack.pop()
            cls = type(n)
            if cls is Var:
                taken.add(n.name)
                v = by_name.get(n.name)
                if v is not None:
                    reads.add(v)
                    if body and n.ty is v.ty:  # n == v (types are interned)
                        loose.add(v)
            elif cls is not Const and id(n) not in seen:
                seen.add(id(n))
                if cls is Call:
                    if n.fn == "check":
                        fails = True
                    elif body and _at_index_or_size(n, i):  # v[i] or size(v): v read, not loosely
                        for a in n.args:
                            taken.add(a.name)
                            v = by_name.get(a.name)
                            if v is not None:
                                reads.add(v)
                        continue
                stack.extend(term_children(n))
    return list(reads), fails, loose


def _at_index_or_size(n: Call, i: Var) -> bool:
    """Is the call index(i, v) or size(v), v a variable?"""
    args = n.args
    if n.fn == "index":  # (`is` first: Node's == is a call of Python's)
        return len(args) == 2 and (args[0] is i or args[0] == i) and type(args[1]) is Var
    return n.fn == "size" and len(args) == 1 and type(args[0]) is Var


def _fusable(lt: Let, fails: bool, k: int, readers: dict) -> bool:
    rhs = lt.rhs
    return readers.get(lt.var) == [k] and type(rhs) is Build and not fails and _scalar_or_row(rhs)


def _scalar_or_row(b: Build) -> bool:
    """Are b's elements scalars, or rows of scalars that a build makes (a matrix's)?"""
    t = b.body.type
    if isinstance(t, Scalar):
        return True
    return isinstance(t, Vec) and isinstance(t.elem, Scalar) and type(let_chain(b.body)[1]) is Build


def _without_aliases(d: Def) -> Def:
    """d without the lets of its chain that only name a vector again (let a = b, as a loop's
    result is named): a's readers read b, so b's reader is seen to be the only one."""
    lets, body = let_chain(d.body)
    aliases: dict[Var, Term] = {}
    for lt in lets:
        if type(lt.rhs) is Var and isinstance(lt.rhs.type, Vec):
            aliases[lt.var] = aliases.get(lt.rhs, lt.rhs)
    if not aliases:
        return d
    kept = [(lt.var, rename(lt.rhs, aliases), lt.loc) for lt in lets if lt.var not in aliases]
    return Def(d.name, d.params, make_lets(kept, rename(body, aliases)), d.loc)


def _read_at_index(consumer: Build, producers: list[Let], ints: dict, loose: set[Var]) -> list[Let]:
    """Those of the producers (lets of builds) that the consumer reads only as p[j] (j its
    own index) or size(p) (none of `loose`, see _scan), and whose size is the consumer's: the
    same term (or bound to the same term), or size(p)."""
    size = ints.get(consumer.size, consumer.size)
    return [lt for lt in producers if lt.var not in loose and
            (size == ints.get(lt.rhs.size, lt.rhs.size) or _size_of(consumer.size, {lt.var}))]


def _index_of(t: Term, i: Var, vecs) -> Var | None:
    """v when t is index(i, v) with v among vecs."""
    if (type(t) is Call and t.fn == "index" and (t.args[0] is i or t.args[0] == i) and type(t.args[1]) is Var
            and t.args[1] in vecs):
        return t.args[1]
    return None


def _size_of(t: Term, vecs) -> Var | None:
    """v when t is size(v) with v among vecs."""
    if type(t) is Call and t.fn == "size" and len(t.args) == 1 and type(t.args[0]) is Var and t.args[0] in vecs:
        return t.args[0]
    return None


def _open(rhs: Build, done: _Fused | None, names: FreshNames) -> _Fused:
    """A producer as a list of lets: a build that earlier builds fused into, or a build of the
    program renamed apart (its binders unique in the whole body it joins)."""
    if done is not None:
        return done
    b = renamed_apart(rhs, names)
    lets, result = let_chain(b.body)
    return _Fused(b.size, b.var, [(lt.var, lt.rhs, lt.loc) for lt in lets], result, b.loc)


def _fuse(consumer: Build, producers: list, names: FreshNames) -> _Fused:
    """The consumer with the producers' bodies in front of its own, each read p[j] replaced by
    the producer's element. The fused build's index is the largest producer's (whose list is
    kept); the other producers' indices are bound to it, the consumer's renamed to it."""
    base = max(producers, key=lambda lp: len(lp[1].lets))[1]
    lets = base.lets  # kept and extended: the fused chain is never copied
    elements: dict[Var, Var] = {}
    sizes: dict[Var, Term] = {}
    for lt, f in producers:
        if f is not base:
            lets.append((f.var, base.var))
            lets.extend(f.lets)
        elements[lt.var] = names.var(lt.var.name + "_e", f.result.type)
        sizes[lt.var] = f.size
        lets.append((elements[lt.var], f.result))

    def replace(n: Term) -> Term | None:
        v = _index_of(n, consumer.var, elements)
        if v is not None:
            return elements[v]
        v = _size_of(n, sizes)
        return None if v is None else sizes[v]
    # the consumer's index is the fused build's, its reads of the producers their elements
    own = renamed_apart(consumer.body, names, {consumer.var: base.var}, replace)
    body_lets, result = let_chain(own)
    lets.extend((lt.var, lt.rhs, lt.loc) for lt in body_lets)
    return _Fused(base.size, base.var, lets, result, consumer.loc)
