"""Linear maps (notes Fig. 3-5): terms, reference semantics, printers."""
from .semantics import (ZERO, Acc, OneHot, apply, apply_reverse, densify, flatten, is_zero, tadd,
                        tangent_size, to_matrix, transpose, unflatten)
from .terms import (LM, LMFold, LMScan, Broadcast, Compose, HCat, HCatV, Index, IndexUpdate, One, Plus, Scale, ScaleVec,
                    Sum, Transpose, VCat, VCatV, Zero)

__all__ = ["ZERO", "Acc", "OneHot", "apply", "apply_reverse", "densify", "flatten", "is_zero", "tadd",
           "tangent_size", "to_matrix", "transpose", "unflatten", "LM", "LMFold", "LMScan", "Broadcast", "Compose", "HCat",
           "HCatV", "Index", "IndexUpdate", "One", "Plus", "Scale", "ScaleVec", "Sum", "Transpose", "VCat",
           "VCatV", "Zero"]
