"""The core language: types, terms, type checker, A-normal form, printer, evaluator."""
from .types import Bool, Float, Int, Scalar, Tuple as TupleType, Type, Unit, Vec
from .terms import (Build, Call, Const, Def, Get, If, Let, Program, Term, Tuple, Var,
                    free_vars, let_chain, make_lets)

__all__ = ["Bool", "Float", "Int", "Scalar", "TupleType", "Type", "Unit", "Vec", "Build", "Call",
           "Const", "Def", "Get", "If", "Let", "Program", "Term", "Tuple", "Var", "free_vars",
           "let_chain", "make_lets"]
