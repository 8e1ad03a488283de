"""Physics: potential energies of particle systems, molecular-mechanics terms, Hamiltonians and
Lagrangians, time integrators and continuum energies, written as simulation code is."""
import math

import numpy as np

from ._registry import case


def pairwise_distances(X):
    diff = X[:, None, :] - X[None, :, :]
    return np.sqrt(np.sum(diff ** 2, axis=-1))


# Lennard-Jones potential; Lennard-Jones, "On the determination of molecular fields", Proc. R. Soc.
# A 106, 1924; Allen & Tildesley, "Computer Simulation of Liquids" (1987) eq. 1.6:
# 4 eps ((sigma/r)^12 - (sigma/r)^6) summed over pairs i < j.
def lennard_jones(X, eps=1.0, sigma=1.0):
    n = X.shape[0]
    i, j = np.triu_indices(n, k=1)
    r = np.linalg.norm(X[i] - X[j], axis=1)
    sr6 = (sigma / r) ** 6
    return np.sum(4 * eps * (sr6 ** 2 - sr6))


# The Lennard-Jones potential (Lennard-Jones 1924; Allen & Tildesley 1987, eq. 1.6) with double loops
# over pairs, as a first simulation code is written.
def lennard_jones_loops(X, eps=1.0, sigma=1.0):
    energy = 0.0
    n = len(X)
    for i in range(n):
        for j in range(i + 1, n):
            d = X[i] - X[j]
            r2 = np.dot(d, d)
            s6 = (sigma * sigma / r2) ** 3
            energy += 4.0 * eps * (s6 * s6 - s6)
    return energy


# Morse potential; Morse, "Diatomic molecules according to the wave mechanics. II. Vibrational
# levels", Phys. Rev. 34, 1929: D (1 - exp(-a (r - r_e)))^2, summed over all pairs.
def morse_cluster(X, D=1.0, a=1.5, re=1.0):
    r = pairwise_distances(X)
    iu = np.triu_indices(X.shape[0], 1)
    return np.sum(D * (1.0 - np.exp(-a * (r[iu] - re))) ** 2)


# Coulomb energy of point charges; Jackson, "Classical Electrodynamics" 3rd ed. (1999), eq. 1.52
# (Gaussian units, k = 1): 1/2 sum_{i != j} q_i q_j / |x_i - x_j|.
def coulomb_energy(X, q):
    n = len(q)
    r = pairwise_distances(X)
    inv_r = np.where(np.eye(n, dtype=bool), 0.0, 1.0 / (r + np.eye(n)))
    return 0.5 * q @ inv_r @ q


# Gravitational potential energy of N bodies; Wikipedia "Gravitational energy" / "n-body
# problem": -G sum_{i<j} m_i m_j / r_ij, with Plummer softening (Aarseth, "Gravitational N-Body
# Simulations", 2003, section 2.2).
def gravitational_energy(X, m, G=1.0, soft=0.01):
    n = X.shape[0]
    total = 0.0
    for i in range(n - 1):
        d = X[i + 1:] - X[i]
        r = np.sqrt(np.sum(d * d, axis=1) + soft ** 2)
        total -= G * m[i] * np.sum(m[i + 1:] / r)
    return total


# Harmonic spring network (elastic network model); Tirion, "Large amplitude elastic motions in
# proteins from a single-parameter, atomic analysis", PRL 77, 1996: sum_k k/2 (|x_i - x_j| - l0)^2
# over the springs (edges as an int array).
def spring_network(X, edges, rest, k=1.0):
    d = X[edges[:, 0]] - X[edges[:, 1]]
    length = np.linalg.norm(d, axis=1)
    return 0.5 * k * np.sum((length - rest) ** 2)


# Molecular-mechanics bond, angle and dihedral terms of a chain; Cornell et al., "A second
# generation force field" (AMBER), JACS 117, 1995, eq. 1: K_r (r - r0)^2 + K_t (theta - t0)^2 +
# V_n/2 (1 + cos(n phi - gamma)); the dihedral by atan2 (Blondel & Karplus, J. Comput. Chem. 17, 1996).
def amber_chain_energy(X, kr=300.0, r0=1.5, kt=50.0, t0=1.9, vn=1.0, n=3, gamma=0.0):
    e = 0.0
    for i in range(len(X) - 1):
        r = np.linalg.norm(X[i + 1] - X[i])
        e += kr * (r - r0) ** 2
    for i in range(len(X) - 2):
        u, v = X[i] - X[i + 1], X[i + 2] - X[i + 1]
        cos_t = np.dot(u, v) / (np.linalg.norm(u) * np.linalg.norm(v))
        e += kt * (np.arccos(cos_t) - t0) ** 2
    for i in range(len(X) - 3):
        b1, b2, b3 = X[i + 1] - X[i], X[i + 2] - X[i + 1], X[i + 3] - X[i + 2]
        n1, n2 = np.cross(b1, b2), np.cross(b2, b3)
        m1 = np.cross(n1, b2 / np.linalg.norm(b2))
        phi = np.arctan2(np.dot(m1, n2), np.dot(n1, n2))
        e += 0.5 * vn * (1 + np.cos(n * phi - gamma))
    return e


# Simple pendulum, Hamiltonian; Goldstein, Poole & Safko, "Classical Mechanics" 3rd ed. (2002),
# section 8.1: H = p^2 / (2 m l^2) - m g l cos(q), over a batch of states.
def pendulum_hamiltonian(q, p, m=1.0, g=9.81, l=1.0):
    return np.sum(p ** 2 / (2 * m * l ** 2) - m * g * l * np.cos(q))


# Double pendulum, Lagrangian; Goldstein et al. (2002) section 1.6 exercise / Wikipedia "Double
# pendulum": L = T - V with T = (m1+m2)/2 l1^2 w1^2 + m2/2 l2^2 w2^2 + m2 l1 l2 w1 w2 cos(t1 - t2).
def double_pendulum_lagrangian(state, m1=1.0, m2=1.0, l1=1.0, l2=1.0, g=9.81):
    t1, t2, w1, w2 = state
    T = (0.5 * (m1 + m2) * l1 ** 2 * w1 ** 2 + 0.5 * m2 * l2 ** 2 * w2 ** 2
         + m2 * l1 * l2 * w1 * w2 * math.cos(t1 - t2))
    V = -(m1 + m2) * g * l1 * math.cos(t1) - m2 * g * l2 * math.cos(t2)
    return T - V


# Kepler problem: energy drift of leapfrog (velocity Verlet) integration; Hairer, Lubich & Wanner,
# "Geometric numerical integration: illustrated by the Störmer-Verlet method", Acta Numerica 12,
# 2003, eq. 1.4; H = |p|^2/2 - 1/|q|.
def kepler_verlet_energy(q0, p0, dt=0.05, steps=20):
    def accel(q):
        r = np.linalg.norm(q)
        return -q / r ** 3

    q, p = q0.copy(), p0.copy()
    for _ in range(steps):
        p_half = p + 0.5 * dt * accel(q)
        q = q + dt * p_half
        p = p_half + 0.5 * dt * accel(q)
    return 0.5 * p @ p - 1.0 / np.linalg.norm(q)


# Lorenz system integrated by classical Runge-Kutta; Lorenz, "Deterministic nonperiodic flow",
# J. Atmos. Sci. 20, 1963, eqs. 25-27 (sigma = 10, rho = 28, beta = 8/3); RK4: Press et al.,
# "Numerical Recipes" 3rd ed., eq. 17.1.3.
def lorenz_rk4(state0, params, dt=0.01, steps=15):
    sigma, rho, beta = params

    def f(s):
        x, y, z = s[0], s[1], s[2]
        return np.array([sigma * (y - x), x * (rho - z) - y, x * y - beta * z])

    s = state0
    for _ in range(steps):
        k1 = f(s)
        k2 = f(s + 0.5 * dt * k1)
        k3 = f(s + 0.5 * dt * k2)
        k4 = f(s + dt * k3)
        s = s + dt / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
    return np.sum(s ** 2)


# Lotka-Volterra predator-prey by forward Euler, fitted to observations; Lotka (1925), Volterra
# (1926); Wikipedia "Lotka-Volterra equations": dx = a x - b x y, dy = d x y - c y.
def lotka_volterra_fit(log_params, x0, y0, obs, dt=0.1):
    a, b, c, d = np.exp(log_params)
    x, y = x0, y0
    loss = 0.0
    for t in range(obs.shape[0]):
        x, y = x + dt * (a * x - b * x * y), y + dt * (d * x * y - c * y)
        loss += (np.log(x) - np.log(obs[t, 0])) ** 2 + (np.log(y) - np.log(obs[t, 1])) ** 2
    return loss


# The XY model (classical planar spins) on a periodic chain in a field; Kosterlitz & Thouless,
# J. Phys. C 6, 1973: H = -J sum cos(theta_i - theta_{i+1}) - h sum cos(theta_i); np.roll for the
# periodic neighbour.
def xy_model_energy(theta, J=1.0, h=0.3):
    return -J * np.sum(np.cos(theta - np.roll(theta, -1))) - h * np.sum(np.cos(theta))


# Discrete elastic rod bending energy (planar); Bergou et al., "Discrete elastic rods", SIGGRAPH
# 2008, eq. 3 with kappa b_i = 2 tan(phi_i / 2) and the Voronoi length l_i: sum (kappa_i)^2 / l_i.
def rod_bending_energy(P, alpha=1.0):
    e = np.diff(P, axis=0)
    lengths = np.linalg.norm(e, axis=1)
    cross = e[:-1, 0] * e[1:, 1] - e[:-1, 1] * e[1:, 0]
    dot = np.einsum("ij,ij->i", e[:-1], e[1:])
    phi = np.arctan2(cross, dot)
    kappa = 2.0 * np.tan(phi / 2.0)
    voronoi = 0.5 * (lengths[:-1] + lengths[1:])
    return alpha * np.sum(kappa ** 2 / voronoi)


# Compressible neo-Hookean strain energy of one deformation gradient; Bonet & Wood, "Nonlinear
# Continuum Mechanics for Finite Element Analysis" 2nd ed. (2008), eq. 6.28:
# mu/2 (tr(C) - 3) - mu ln J + lambda/2 (ln J)^2, C = F^T F, J = det F.
def neo_hookean(F, mu=1.0, lam=2.0):
    C = F.T @ F
    J = np.linalg.det(F)
    return mu / 2 * (np.trace(C) - 3) - mu * np.log(J) + lam / 2 * np.log(J) ** 2


# Linear triangle (P1) finite-element Dirichlet energy of a 2-D mesh function plus a load;
# Braess, "Finite Elements" 3rd ed. (2007), chapter II section 4: element stiffness from the
# gradient of the barycentric coordinates.
def p1_dirichlet_energy(u, verts, tris, load):
    e = 0.0
    for t in tris:
        p = verts[t]
        B = np.array([p[1] - p[0], p[2] - p[0]]).T
        area = 0.5 * abs(np.linalg.det(B))
        grads = np.linalg.inv(B).T @ np.array([[-1.0, 1.0, 0.0], [-1.0, 0.0, 1.0]])
        gu = grads @ u[t]
        e += 0.5 * area * gu @ gu
    return e - load @ u


# 1-D heat equation, explicit finite differences, and the final temperature's squared error;
# LeVeque, "Finite Difference Methods for ODEs and PDEs" (2007), eq. 9.5 (forward Euler in time).
def heat_equation_explicit(u0, kappa, target, dx=0.1, dt=0.004, steps=20):
    u = u0.copy()
    r = kappa * dt / dx ** 2
    for _ in range(steps):
        lap = np.zeros_like(u)
        lap[1:-1] = u[2:] - 2 * u[1:-1] + u[:-2]
        u = u + r * lap
    return np.sum((u - target) ** 2)


# Planck's law of black-body radiation fitted to a spectrum (temperature and scale);
# Planck (1901); Wikipedia "Planck's law": B(nu, T) = 2 h nu^3 / c^2 / (exp(h nu / k T) - 1),
# in reduced units (h = c = k = 1).
def planck_fit(params, nu, spectrum):
    T, scale = params
    model = scale * 2.0 * nu ** 3 / np.expm1(nu / T)
    return np.sum((model - spectrum) ** 2)


# Van der Waals equation of state fitted to (V, T, P) data; van der Waals (1873); Atkins, "Physical
# Chemistry" (2006) eq. 1.21: P = R T / (V - b) - a / V^2.
def van_der_waals_fit(ab, V, T, P, R=0.08314):
    a, b = ab[0], ab[1]
    return np.sum((R * T / (V - b) - a / V ** 2 - P) ** 2)


def _cluster(rng, n=5, spacing=1.2):
    # points on a jittered grid: no two closer than ~0.7
    g = np.array([[i, j, k] for i in range(2) for j in range(2) for k in range(2)], dtype=float)[:n]
    return g * spacing + rng.uniform(-0.15, 0.15, size=(n, 3))


def _chain(rng, n=6):
    steps = rng.normal(size=(n - 1, 3))
    steps = 1.5 * steps / np.linalg.norm(steps, axis=1, keepdims=True)
    return np.vstack([np.zeros(3), np.cumsum(steps, axis=0)])


def _springs(rng):
    X = _cluster(rng, 6)
    edges = np.array([[0, 1], [1, 2], [2, 3], [3, 4], [4, 5], [0, 2], [1, 3], [2, 4]])
    rest = np.linalg.norm(X[edges[:, 0]] - X[edges[:, 1]], axis=1) * rng.uniform(0.8, 1.2, size=8)
    return (X, edges, rest)


def _mesh(rng):
    verts = np.array([[x, y] for y in range(3) for x in range(3)], dtype=float)
    verts = verts + rng.uniform(-0.1, 0.1, size=verts.shape)
    tris = []
    for j in range(2):
        for i in range(2):
            a = 3 * j + i
            tris += [[a, a + 1, a + 4], [a, a + 4, a + 3]]
    return (rng.normal(size=9), verts, np.array(tris), rng.normal(size=9) * 0.1)


def _planck(rng):
    nu = np.linspace(0.5, 6.0, 12)
    spectrum = 2.0 * nu ** 3 / np.expm1(nu / 1.3) * (1 + 0.02 * rng.normal(size=12))
    return (np.array([1.2, 0.9]), nu, spectrum)


def _vdw(rng):
    V = rng.uniform(0.5, 3.0, size=10)
    T = rng.uniform(250, 400, size=10)
    P = 0.08314 * T / (V - 0.04) - 3.6 / V ** 2
    return (np.array([3.0, 0.05]), V, T, P + rng.normal(size=10) * 0.1)


CASES = [
    case(lennard_jones, lambda rng: (_cluster(rng),)),
    case(lennard_jones_loops, lambda rng: (_cluster(rng),)),
    case(morse_cluster, lambda rng: (_cluster(rng, 6),)),
    case(coulomb_energy, lambda rng: (_cluster(rng, 5), rng.choice([-1.0, 1.0], size=5)), argnums=(0, 1)),
    case(gravitational_energy, lambda rng: (_cluster(rng, 6), rng.uniform(0.5, 2.0, size=6)), argnums=(0, 1)),
    case(spring_network, _springs),
    case(amber_chain_energy, lambda rng: (_chain(rng),)),
    case(pendulum_hamiltonian, lambda rng: (rng.uniform(-2, 2, size=6), rng.normal(size=6)), argnums=(0, 1)),
    case(double_pendulum_lagrangian, lambda rng: (rng.uniform(-1, 1, size=4),)),
    case(kepler_verlet_energy, lambda rng: (np.array([1.0, 0.0]) + rng.normal(size=2) * 0.05,
                                            np.array([0.0, 1.1]) + rng.normal(size=2) * 0.05), argnums=(0, 1)),
    case(lorenz_rk4, lambda rng: (rng.normal(size=3) + np.array([1.0, 1.0, 20.0]), np.array([10.0, 28.0, 8.0 / 3.0])),
         argnums=(0, 1)),
    case(lotka_volterra_fit, lambda rng: (np.log(np.array([1.0, 0.5, 1.0, 0.4])) + rng.normal(size=4) * 0.05, 2.0, 1.0,
                                          rng.uniform(0.5, 2.5, size=(8, 2))), argnums=(0, 1, 2)),
    case(xy_model_energy, lambda rng: (rng.uniform(-np.pi, np.pi, size=10),)),
    case(rod_bending_energy, lambda rng: (np.cumsum(np.column_stack([np.ones(7), rng.normal(size=7) * 0.4]), axis=0),)),
    case(neo_hookean, lambda rng: (np.eye(3) + rng.normal(size=(3, 3)) * 0.15,)),
    case(p1_dirichlet_energy, _mesh, argnums=(0, 1)),
    case(heat_equation_explicit, lambda rng: (np.sin(np.linspace(0, np.pi, 11)) + 0.1 * rng.normal(size=11), 1.0,
                                              np.zeros(11)), argnums=(0, 1)),
    case(planck_fit, _planck),
    case(van_der_waals_fit, _vdw),
]
