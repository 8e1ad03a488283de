"""Python idioms of real numeric code that trials of catad found refused (round 8): map, filter,
list() and tuple(), np.errstate, imports inside a function, parameters held in named tuples and
dataclasses, math.isclose, a dict comprehension."""
from __future__ import annotations

import math
from collections import namedtuple
from dataclasses import dataclass

import numpy as np

from ._registry import case


# Multinomial logistic regression, the mean negative log-likelihood of the samples, one per
# (row, label) pair taken with map and zip; Bishop, "Pattern Recognition and Machine Learning"
# (2006) eq. 4.108.
def softmax_nll_by_map(W, X, y):
    def nll(x, label):
        z = x @ W
        z = z - np.max(z)
        return np.log(np.sum(np.exp(z))) - z[label]
    return sum(map(nll, X, y)) / len(y)


# A trimmed least-squares loss: the squared residuals below a cutoff, kept with filter
# (least trimmed squares); Rousseeuw, "Least median of squares regression", JASA 79 (1984) 871.
def trimmed_squares_by_filter(beta, t, y):
    residuals = y - (beta[0] + beta[1] * t)
    kept = list(filter(lambda r: abs(r) < 1.5, residuals))
    return sum(r * r for r in kept) / max(len(kept), 1)


# The Bernoulli log-likelihood with probabilities that may be exactly 0 or 1, its log taken under
# np.errstate(divide='ignore') and the zero-probability terms masked (the scikit-learn idiom of
# sklearn.metrics.log_loss before clipping); Bishop (2006) eq. 4.90.
def bernoulli_loglik_errstate(logits, y):
    p = 1.0 / (1.0 + np.exp(-logits))
    with np.errstate(divide="ignore"):
        logp, log1mp = np.log(p), np.log(1.0 - p)
    return -np.sum(np.where(y > 0.5, logp, log1mp))


# A mixture's log-likelihood by the log-sum-exp trick, with scipy imported inside the function as
# scripts often do; McLachlan & Peel, "Finite Mixture Models" (2000) eq. 1.1.
def mixture_loglik_local_import(mu, x):
    from scipy.special import logsumexp
    import numpy as numpy_again
    comps = -0.5 * (x[:, None] - mu[None, :]) ** 2 - 0.5 * numpy_again.log(2 * numpy_again.pi)
    return -np.sum(logsumexp(comps, axis=1) - np.log(len(mu)))


Layer = namedtuple("Layer", "W b")


# A two-layer perceptron whose layers are named tuples (the flax.linen / haiku style of keeping
# parameters in named containers); Goodfellow, Bengio & Courville, "Deep Learning" (2016) 6.1.
def mlp_named_tuple_layers(layers, X, y):
    h = X
    for k, layer in enumerate(layers):
        h = h @ layer.W + layer.b
        if k < len(layers) - 1:
            h = np.tanh(h)
    return np.mean((h[:, 0] - y) ** 2)


@dataclass
class Linear:
    w: np.ndarray
    b: float


# The loss after one gradient step of a linear model whose parameters are a dataclass, the step
# made inside the function (the "unrolled optimisation" of meta-learning); Finn, Abbeel & Levine,
# "Model-Agnostic Meta-Learning", ICML 2017, eq. 1.
def loss_after_a_step_dataclass(p, X, y):
    r = X @ p.w + p.b - y
    step = Linear(p.w - 0.1 * (X.T @ r) / len(y), p.b - 0.1 * np.mean(r))
    r2 = X @ step.w + step.b - y
    return 0.5 * np.mean(r2 ** 2)


# The relative change of a quantity with the removable singularity at equal arguments taken by
# math.isclose (the log mean of heat-exchanger design, (a - b) / log(a / b), equal to a at a = b);
# Incropera, DeWitt, Bergman & Lavine, "Fundamentals of Heat and Mass Transfer" (6th ed., 2007),
# eq. 11.15.
def log_mean_isclose(a, b):
    if math.isclose(a, b, rel_tol=1e-12):
        return a
    return (a - b) / math.log(a / b)


# Features standardised over the rows of a design matrix whose shape is taken with tuple(); Hastie,
# Tibshirani & Friedman, "The Elements of Statistical Learning" (2009) 3.4.
def standardised_ridge_tuple_shape(w, X, y):
    n, d = tuple(X.shape)
    Z = (X - X.mean(axis=0)) / X.std(axis=0)
    return np.sum((Z @ w - y) ** 2) / n + 0.1 * np.sum(w ** 2) / d


# The loss after one step of gradient descent on a dict of parameters, the step a dict
# comprehension over its keys (the JAX tree_map idiom written in plain Python); Nesterov,
# "Introductory Lectures on Convex Optimization" (2004) 1.2.3, the gradient method.
def loss_after_a_dict_step(p, X, y):
    r = X @ p["w"] + p["b"] - y
    g = {"w": X.T @ r / len(y), "b": np.mean(r)}
    q = {k: p[k] - 0.1 * g[k] for k in p}
    return 0.5 * np.mean((X @ q["w"] + q["b"] - y) ** 2)


CASES = [
    case(softmax_nll_by_map, lambda rng: (rng.normal(size=(3, 4)), rng.normal(size=(6, 3)),
                                          rng.integers(0, 4, size=6)), argnums=(0,)),
    case(trimmed_squares_by_filter, lambda rng: (rng.normal(size=2), np.linspace(0, 1, 12),
                                                 np.linspace(0, 1, 12) + rng.normal(scale=0.8, size=12))),
    case(bernoulli_loglik_errstate, lambda rng: (rng.normal(size=8), (rng.uniform(size=8) > 0.5).astype(float))),
    case(mixture_loglik_local_import, lambda rng: (rng.normal(size=3), rng.normal(size=10))),
    case(mlp_named_tuple_layers, lambda rng: ((Layer(rng.normal(size=(3, 4)), rng.normal(size=4)),
                                               Layer(rng.normal(size=(4, 1)), rng.normal(size=1))),
                                              rng.normal(size=(5, 3)), rng.normal(size=5))),
    case(loss_after_a_step_dataclass, lambda rng: (Linear(rng.normal(size=3), 0.3), rng.normal(size=(7, 3)),
                                                   rng.normal(size=7))),
    case(log_mean_isclose, lambda rng: (rng.uniform(1.0, 2.0), rng.uniform(2.5, 4.0)), argnums=(0, 1)),
    case(loss_after_a_dict_step, lambda rng: ({"w": rng.normal(size=3), "b": 0.2}, rng.normal(size=(7, 3)),
                                              rng.normal(size=7))),
    case(standardised_ridge_tuple_shape, lambda rng: (rng.normal(size=3), rng.normal(size=(8, 3)), rng.normal(size=8))),
]
