"""ADBench's GMM objective index-style, as Knossos' gmm.ks writes it: builds and sums over
points, components and dimensions; the strictly-lower part of each Q_k is read column by
column from its packed vector without forming a matrix. catad compiles this module's
`gmm_objective` (the formulation of tests/corpus.py, copied here).

Arguments: alphas (K,), means (K, D), qs (K, D) log-diagonals of Q_k, ls (K, D(D-1)/2)
strictly-lower entries of Q_k column by column, x (N, D), wishart = (gamma, m).
"""
import math


def tri(n):
    """Number of strictly-lower entries of an n x n matrix."""
    return n * (n - 1) // 2


def qtimesx(q, l, x):
    """Q @ x for Q = diag(exp(q)) + strictly-lower L, l holding L column by column."""
    d = len(q)
    return [math.exp(q[i]) * x[i]
            + sum(l[tri(d) - tri(d - j) + i - j - 1] * x[j] for j in range(i))
            for i in range(d)]


def logsumexp(v):
    m = max(v)
    return m + math.log(sum(math.exp(x - m) for x in v))


def sqnorm(v):
    return sum(x * x for x in v)


def log_gamma_distrib(a, p):
    return 0.25 * p * (p - 1) * math.log(math.pi) + sum(math.lgamma(a + 0.5 * (1 - j)) for j in range(1, p + 1))


def log_wishart_prior(wishart, q, l):
    gamma, m = wishart
    p = len(q)
    n = p + m + 1
    frobenius = sum(math.exp(qi) ** 2 for qi in q) + sum(li * li for li in l)
    c = n * p * (math.log(gamma) - 0.5 * math.log(2.0)) - log_gamma_distrib(0.5 * n, p)
    return 0.5 * gamma * gamma * frobenius - m * sum(q) - c


def gmm_objective(alphas, means, qs, ls, x, wishart):
    """ADBench's GMM negative log-likelihood with a Wishart prior."""
    n, d = x.shape
    k = len(alphas)
    const = -n * d * 0.5 * math.log(2.0 * math.pi)
    main = sum(logsumexp([alphas[j] + sum(qs[j]) - 0.5 * sqnorm(qtimesx(qs[j], ls[j], x[i] - means[j]))
                          for j in range(k)])
               for i in range(n))
    prior = sum(log_wishart_prior(wishart, qs[j], ls[j]) for j in range(k))
    return const + main - n * logsumexp(alphas) + prior
