"""ADBench GMM and BA for catad's benchmarks (benchmarks/adbench_gmm.py, benchmarks/adbench_ba.py).

io            loaders of the ADBench text files (/work/shared/data/adbench/README.md)
gmm_index     the GMM objective index-style, as Knossos' gmm.ks (catad compiles it)
gmm_numpy     the GMM objective numpy-style: whole-array operations (catad compiles it)
gmm_xp        the GMM objective hand-written against the NumPy API: NumPy itself, and the
              same code run by JAX, autograd and PyTorch
ba            the BA reprojection residual for catad, the same in the NumPy API, and the
              per-observation Jacobian blocks (catad's by two vjps, central differences)
peers         JAX / PyTorch / autograd gradients and Jacobians, imported lazily
"""
