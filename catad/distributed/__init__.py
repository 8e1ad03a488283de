"""Gradients of objectives summed over large data, split by rows and run on Dask (issue 18):
:func:`value_and_grad`, :func:`grad` and :func:`explain` (the per-chunk and combine programs).
Dask is an optional dependency (``pip install 'catad[dask]'``), imported when a gradient is
computed."""
from .analysis import Split, split
from .api import explain, grad, value_and_grad

__all__ = ["Split", "explain", "grad", "split", "value_and_grad"]
