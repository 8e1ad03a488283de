"""Automatic differentiation of CL into linear maps (notes Sections 2-5, Fig. 6-8)."""
from .transform import jacobian_name, jacobian_program

__all__ = ["jacobian_name", "jacobian_program"]
