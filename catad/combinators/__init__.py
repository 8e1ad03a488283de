"""The combinator language CL (notes Section 7, Fig. 9-11)."""
from .convert import from_cl_def, from_cl_program, to_cl_def, to_cl_program
from .evaluate import CLEvaluator, eval_cl_program
from .terms import (CL, Build, Call, CLDef, CLProgram, Compose, Fold, Identity, If, Konst, Let, Proj, Prune,
                    Scan, Tuple, WhileCount, compose)
from .typing import check_cl_program, cl_type

__all__ = ["CL", "Build", "Call", "CLDef", "CLProgram", "Compose", "Fold", "Identity", "If", "Konst", "Let",
           "Proj", "Prune", "Scan", "Tuple", "WhileCount", "compose", "to_cl_program", "to_cl_def", "from_cl_program",
           "from_cl_def", "CLEvaluator", "eval_cl_program", "check_cl_program", "cl_type"]
