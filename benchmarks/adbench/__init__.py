"""ADBench GMM and BA for catad's benchmarks (benchmarks/adbench_gmm.py, benchmarks/adbench_ba.py).

io            where the ADBench data is, and the BA loader (/work/shared/data/adbench/README.md)
gmm           the GMM objective index-style, as Knossos' gmm.ks (catad compiles it), and the GMM
              loader: shared with the tests (NumPy only)
gmm_numpy     the GMM objective numpy-style: whole-array operations (catad compiles it)
gmm_xp        the GMM objective hand-written against the NumPy API: NumPy itself, and the
              same code run by JAX, autograd and PyTorch
ba            the BA reprojection residual for catad, the same in the NumPy API, and the
              per-observation Jacobian blocks (catad's by two vjps, central differences)
peers         JAX / PyTorch / autograd gradients and Jacobians, imported lazily
"""
