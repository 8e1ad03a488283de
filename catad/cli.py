"""The `catad` command.

  catad demo [EXAMPLE]               each stage of the pipeline on a built-in example
  catad rules [NAME...]              the rewrite-rule catalogue (text, LaTeX or JSON)
  catad explain FILE.py:FUNC         the derivation of one of your functions, stage by stage

Errors in the input (a missing file or function, bad --args, an unsupported construct,
an unknown rule or stage) print one line starting with "catad: " and exit with status 2.
"""
from __future__ import annotations

import argparse
import difflib
import fnmatch
import inspect
import json
import os
import re
import sys
import traceback
from typing import Any, Callable

from .errors import CatadError
from .explain import explain, latex_escape

FORMATS = ("text", "latex", "json")


class CliError(Exception):
    """A user error found by the command line itself; the message is one line."""


def _demo(args: argparse.Namespace) -> int:
    """The notes' Section 9 demo: every stage of differentiating an example, then a check
    of the derivative by every route against the known answer."""
    from .differentiate import grad, jvp, value_and_grad
    from .examples import EXAMPLES

    fn, example = EXAMPLES[args.example]
    print(explain(fn, *example), end="\n\n")
    shown = ", ".join(map(repr, example))
    print("-" * 60)
    print(f"Checks at ({shown})")
    print("-" * 60)
    print(f"value: catad {value_and_grad(fn)(*example)[0]!r}, Python {fn(*example)!r}")
    for k in range(len(example)):
        tangents = tuple(1.0 if j == k else 0.0 for j in range(len(example)))
        forward = jvp(fn, example, tangents)[1]
        reverse = grad(fn, argnums=k)(*example)
        print(f"d/d{_param(fn, k)}: forward mode {forward!r}, reverse mode {reverse!r}")
    if fn.__name__ == "f2":
        x = example[0]
        print(f"expected 3x^2 + 4x^3 = {3 * x ** 2 + 4 * x ** 3!r} (the notes' printed optimised Jacobian, "
              f"2((x + x^2)(2x)), is wrong: it would give {2 * (x + x * x) * (2 * x)!r})")
    return 0


def _param(fn, k: int) -> str:
    return fn.__code__.co_varnames[k]


# ====================================================================== shared helpers

def _one_line(text: str) -> str:
    return " ".join(part.strip() for part in str(text).splitlines() if part.strip())


def _close_matches(word: str, names: list[str], n: int = 3) -> list[str]:
    close = difflib.get_close_matches(word, names, n=n, cutoff=0.6)
    if not close:
        close = [x for x in names if word.lower() in x.lower()][:n]
    return close


def _did_you_mean(word: str, names: list[str]) -> str:
    close = _close_matches(word, names)
    return f"did you mean {', '.join(close)}?" if close else ""


# ====================================================================== catad rules

def _select_rules(rules: list, names: list[str]) -> list:
    """The rules named (exactly or by a glob such as 'lm-compose-*'), in catalogue order;
    CliError naming every unknown name and its close matches."""
    if not names:
        return list(rules)
    all_names = [r.name for r in rules]
    wanted: set[str] = set()
    problems = []
    for name in names:
        if name in all_names:
            wanted.add(name)
        elif any(c in name for c in "*?["):
            hits = fnmatch.filter(all_names, name)
            if hits:
                wanted.update(hits)
            else:
                problems.append(f"no rule matches {name!r}")
        else:
            hint = _did_you_mean(name, all_names)
            problems.append(f"unknown rule {name!r} ({hint or 'catad rules lists them all'})")
    if problems:
        raise CliError("; ".join(problems))
    return [r for r in rules if r.name in wanted]


def _grouped(rules: list) -> list[tuple[str, list]]:
    groups: dict[str, list] = {}
    for r in rules:
        groups.setdefault(r.group, []).append(r)
    return list(groups.items())


def rules_text(rules: list) -> str:
    out = []
    for group, members in _grouped(rules):
        title = f"{group} ({len(members)} rule{'s' if len(members) != 1 else ''})"
        out.append(f"{title}\n{'=' * len(title)}\n")
        for r in members:
            lines = [r.name,
                     f"  law:   {r.law}",
                     f"  rule:  {r.lhs}  ->  {r.rhs}"]
            if r.condition:
                lines.append(f"  when:  {r.condition}")
            lines.append(f"  doc:   {r.doc}")
            out.append("\n".join(lines) + "\n")
    return "\n".join(out).rstrip("\n")


def rules_latex(rules: list) -> str:
    out = [f"% catad rewrite rules ({len(rules)}), from `catad rules --format latex`; needs amsmath"]
    for group, members in _grouped(rules):
        out.append(f"\n\\subsection*{{{latex_escape(group)}}}")
        for r in members:
            doc = r.doc[:1].upper() + r.doc[1:]
            text = f"\\texttt{{{latex_escape(r.law)}}}. {latex_escape(doc)}."
            if r.condition:
                text += f" When {latex_escape(r.condition)}."
            out.append(f"\n\\paragraph{{{latex_escape(r.name)}}} {text}\n\\[ {r.latex} \\]")
    return "\n".join(out)


def rules_json(rules: list) -> str:
    return json.dumps([r.describe() for r in rules], indent=2, ensure_ascii=False)


def _rules(args: argparse.Namespace) -> int:
    from .rewrite.catalogue import ALL_RULES as RULES

    selected = _select_rules(RULES, args.names)
    render = {"text": rules_text, "latex": rules_latex, "json": rules_json}[args.format]
    print(render(selected))
    return 0


# ====================================================================== catad explain: loading

def _split_target(target: str) -> tuple[str, str]:
    path, sep, name = target.rpartition(":")
    if not sep or not path or not name or not re.fullmatch(r"[A-Za-z_][\w.]*", name):
        if os.path.isdir(target):
            raise CliError(f"{target} is a directory; expected FILE.py:FUNC")
        if os.path.isfile(target):
            fns = _function_names(load_module(target))
            which = f"; it defines {', '.join(fns[:8])}" if fns else ""
            raise CliError(f"name the function to explain as FILE.py:FUNC, e.g. {target}:"
                           f"{fns[0] if fns else 'f'}{which}")
        raise CliError(f"expected FILE.py:FUNC, got {target!r}")
    return path, name


def load_module(path: str):
    """The module in the Python file at `path`, imported with the file's directory on sys.path."""
    import importlib.machinery
    import importlib.util
    import zlib

    if not os.path.exists(path):
        raise CliError(f"no such file: {path}")
    if os.path.isdir(path):
        raise CliError(f"{path} is a directory, not a Python file")
    full = os.path.abspath(path)
    stem = os.path.splitext(os.path.basename(full))[0]
    name = stem if stem.isidentifier() and stem not in sys.modules else \
        f"_catad_explain_{zlib.crc32(full.encode()):08x}"
    loader = importlib.machinery.SourceFileLoader(name, full)
    spec = importlib.util.spec_from_file_location(name, full, loader=loader)
    module = importlib.util.module_from_spec(spec)
    directory = os.path.dirname(full)
    sys.path.insert(0, directory)
    sys.modules[name] = module
    try:
        loader.exec_module(module)
    except SyntaxError as e:
        sys.modules.pop(name, None)
        where = f"{e.filename or path}:{e.lineno}" if e.lineno else (e.filename or path)
        raise CliError(f"{where}: syntax error: {e.msg}") from None
    except (Exception, SystemExit) as e:
        sys.modules.pop(name, None)
        line = next((f.lineno for f in reversed(traceback.extract_tb(e.__traceback__))
                     if os.path.abspath(f.filename) == full), None)
        where = f"{path}:{line}" if line else path
        raise CliError(f"{where}: importing the file raised {type(e).__name__}: "
                       f"{_one_line(e) or '(no message)'}") from None
    finally:
        if sys.path and sys.path[0] == directory:
            del sys.path[0]
        elif directory in sys.path:
            sys.path.remove(directory)
    return module


def _function_names(module) -> list[str]:
    return [n for n, v in vars(module).items()
            if inspect.isfunction(v) and getattr(v, "__module__", None) == module.__name__
            and not n.startswith("_")]


def load_function(target: str) -> Callable:
    """The function FUNC of FILE.py:FUNC (FUNC may be dotted, e.g. Class.method)."""
    path, name = _split_target(target)
    module = load_module(path)
    obj: Any = module
    for part in name.split("."):
        if not hasattr(obj, part):
            fns = _function_names(module)
            hint = _did_you_mean(part, fns) if obj is module else ""
            defines = f"it defines {', '.join(fns[:8])}" if fns else "it defines no functions"
            where = path if obj is module else f"{path}:{name.rsplit('.', 1)[0]}"
            raise CliError(f"{where} has no function {part!r} ({hint + ' ' if hint else ''}{defines})")
        obj = getattr(obj, part)
    if not callable(obj) or inspect.isclass(obj):
        kind = "a class" if inspect.isclass(obj) else f"a {type(obj).__name__}"
        raise CliError(f"{name} in {path} is {kind}, not a function")
    return obj


# ====================================================================== catad explain: output

def render_derivation(d, fmt: str, stage: str | None, trace: bool) -> str:
    """What `catad explain` prints: the derivation's own rendering (LaTeX and JSON always
    carry the rewrite steps; --trace adds them to the text)."""
    if fmt == "json":
        return d.to_json(stage)
    if fmt == "latex":
        return d.latex(stage)
    return d.text(stage, trace)


def _explain(args: argparse.Namespace) -> int:
    from .cli_args import ArgsError, example_arguments

    fn = load_function(args.target)
    try:
        types, values = example_arguments(fn, args.args)
    except ArgsError as e:
        raise CliError(f"--args: {e}" if args.args is not None else str(e)) from None
    name = getattr(fn, "__qualname__", args.target)
    for kind in (args.of or "").split(",") if args.of else ():  # innermost first: --of grad,grad
        fn = _transform(kind.strip(), fn)
    try:
        d = explain(fn, *values)
    except (CatadError, CliError):
        raise
    except Exception as e:
        if os.environ.get("CATAD_TRACEBACK"):
            raise
        shown = ", ".join(map(str, types))
        print(f"catad: explaining {name} at example arguments of types ({shown}) failed with "
              f"{type(e).__name__}: {_one_line(e) or '(no message)'} "
              f"(set CATAD_TRACEBACK=1 to see where)", file=sys.stderr)
        return 1
    print(render_derivation(d, args.format, args.stage, args.trace))
    return 0


_TRANSFORMS = ("grad", "value_and_grad", "jacfwd", "jacrev", "jacobian", "hessian")


def _transform(kind: str, fn):
    """catad.<kind>(fn): explain then shows the derivation of that derivative (issue 17)."""
    import catad
    if kind not in _TRANSFORMS:
        raise CliError(f"--of: {kind!r} is not one of {', '.join(_TRANSFORMS)}")
    return getattr(catad, kind)(fn)


# ====================================================================== the parser

class _Parser(argparse.ArgumentParser):
    """Usage errors as one line on stderr, like every other catad error."""

    def error(self, message: str):
        self.exit(2, f"catad: {_one_line(message)} (see '{self.prog} --help')\n")


_EPILOG = """\
examples:
  catad demo                                   the notes' Section 9 example, stage by stage
  catad rules                                  every rewrite rule, grouped
  catad rules lm-compose-one-left --format latex
  catad explain model.py:loss --args "float, vec, mat"
  catad explain model.py:loss --stage core --trace

errors in the input print one line starting with "catad: " and exit with status 2.
"""

_ARGS_HELP = """\
the example arguments' types, comma-separated: float (a value in [0.5, 1.5]), int (3),
bool (True), vec (a float array of length 4), vec[n], mat (a 3x4 float array), mat[m,n],
and tuples such as "(float, vec)". Values are deterministic (np.random.default_rng(0)).
Without --args the types come from FUNC's annotations: float, int, bool, np.ndarray (a vec),
"vec", "mat", "vec[n]", "mat[m,n]" and tuple[...]."""


def _fill(text: str) -> str:
    import textwrap
    return textwrap.fill(text, width=78)


def build_parser() -> argparse.ArgumentParser:
    from .examples import EXAMPLES

    parser = _Parser(prog="catad", formatter_class=argparse.RawDescriptionHelpFormatter,
                     description="Differentiate Python functions through the Knossos combinator "
                                 "language, showing every stage.",
                     epilog=_EPILOG)
    try:
        from . import __version__
        parser.add_argument("--version", action="version", version=f"catad {__version__}")
    except ImportError:
        pass
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    demo = sub.add_parser("demo", help="show each stage of the pipeline on an example (notes Section 9)",
                          description="Show each stage of the pipeline on a built-in example "
                                      "(default f2, the notes' Section 9 example).")
    demo.add_argument("example", nargs="?", default="f2", choices=sorted(EXAMPLES),
                      help="which example (default: f2)")
    demo.set_defaults(run=_demo)

    rules = sub.add_parser(
        "rules", help="print the rewrite-rule catalogue",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description=_fill("Print the rewrite rules catad uses, grouped as in the notes: each rule's "
                          "name, law, left and right sides, side condition and description."),
        epilog="examples:\n  catad rules\n  catad rules fwd-vcat lm-compose-hcat\n"
               "  catad rules 'lm-compose-*' --format latex\n  catad rules --format json")
    rules.add_argument("names", nargs="*", metavar="NAME",
                       help="only these rules (exact names or globs like 'fwd-*'; default: all)")
    rules.add_argument("-f", "--format", choices=FORMATS, default="text",
                       help="text (default), latex (a fragment: \\paragraph and \\[...\\] per rule; "
                            "needs amsmath) or json (a list of objects)")
    rules.set_defaults(run=_rules)

    explain = sub.add_parser(
        "explain", help="show the derivation of a function in a Python file, stage by stage",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description=_fill("Load FILE.py (with its directory on sys.path), take its function FUNC, make "
                          "example arguments and print catad.explain's derivation: every stage of "
                          "the pipeline, optionally with the rewrite steps."),
        epilog='examples:\n  catad explain model.py:f\n  catad explain model.py:f --args "float, vec[3]"\n'
               "  catad explain model.py:f --stage core --format latex\n"
               "  catad explain model.py:f --trace\n  catad explain model.py:f --format json\n"
               "  catad explain model.py:f --of grad --stage forward   (a Hessian-vector product)")
    explain.add_argument("target", metavar="FILE.py:FUNC", help="the file and the function in it")
    explain.add_argument("--args", metavar="TYPES", default=None, help=_ARGS_HELP)
    explain.add_argument("--stage", metavar="NAME", default=None,
                         help="print only this stage (its name, ignoring case and punctuation, or a "
                              "unique prefix; an unknown name lists the stages)")
    explain.add_argument("--trace", action="store_true",
                         help="also print the rewrite steps: rule, stage, before -> after (LaTeX and "
                              "JSON always include them)")
    explain.add_argument("-f", "--format", choices=FORMATS, default="text",
                         help="text (default), latex or json (with --stage: only that stage)")
    explain.add_argument("--of", metavar="TRANSFORM", default=None,
                         help="explain catad.TRANSFORM(FUNC) instead (grad, value_and_grad, jacfwd, jacrev, "
                              "jacobian, hessian; comma-separated, innermost first: --of grad,grad): its core "
                              "stage is FUNC's derivative program, its forward and reverse stages the second "
                              "derivatives")
    explain.set_defaults(run=_explain)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return args.run(args)
    except (CatadError, CliError) as e:
        print(f"catad: {_one_line(e)}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # e.g. `catad rules | head`
        try:
            sys.stdout = open(os.devnull, "w")
        except OSError:
            pass
        return 0


if __name__ == "__main__":
    sys.exit(main())
