"""The papers' worked examples, written as plain Python functions catad compiles.

Used by tests/test_papers.py. Sources (plain-text extractions in /work/shared/seeds/):

* seed 000 (Smeding and Vakar), Fig. 1(a): ``let z = x + y in x * z``; Fig. 2: the
  doubling chain ``x_i = x_{i-1} + x_{i-1}`` whose naive reverse derivative is exponential;
* seed 001 (the same authors, other version), Section 6.1: the example program
  ``t_ex`` over ``x : (R, R)``;
* seed 004 (the Knossos working notes), Section 9: ``f2``;
* seed 002 (Krawiec et al.), Fig. 12: rotating a vector by a quaternion, written with
  tuples for the OCaml records ``vec3 = {x; y; z}`` and ``quaternion = {x; y; z; w}``.
"""
import math


# ---------------------------------------------------------------- seed 000, Fig. 1(a)

def fig1(x, y):
    z = x + y
    return x * z


# ---------------------------------------------------------------- seed 001, Section 6.1

def t_ex(x):
    """t_ex = let x1 = fst(x) in let x2 = snd(x) in let x3 = x1 + x2 in x3 * x1 + x3."""
    x1 = x[0]
    x2 = x[1]
    x3 = x1 + x2
    return x3 * x1 + x3


def t_ex_unpacked(x):
    """The same program with the pair unpacked."""
    x1, x2 = x
    x3 = x1 + x2
    return x3 * x1 + x3


# ---------------------------------------------------------------- seed 004, Section 9

def f2(x):
    y = x * x
    z = x + y
    return y * z


def f2_notes_printed_derivative(x):
    """The 'full Jacobian (optimised)' the notes print for f2 (it is wrong)."""
    y = x * x
    return (x + y) * (x + x) + (x + y) * (x + x)


# ---------------------------------------------------------------- seed 002, Fig. 12

def q_to_vec(q):
    return (q[0], q[1], q[2])


def dot(p, q):
    return p[0] * q[0] + p[1] * q[1] + p[2] * q[2]


def vadd(p, q):
    """The figure's (++): vector addition."""
    return (p[0] + q[0], p[1] + q[1], p[2] + q[2])


def scale(k, v):
    return (k * v[0], k * v[1], k * v[2])


def cross(a, b):
    return (a[1] * b[2] - a[2] * b[1],
            a[2] * b[0] - a[0] * b[2],
            a[0] * b[1] - a[1] * b[0])


def norm(x):
    return math.sqrt(dot(x, x))


def rotate_vec_by_quat(v, q):
    """v : vec3 as (x, y, z), q : quaternion as (x, y, z, w)."""
    u = q_to_vec(q)
    s = q[3]
    return vadd(vadd(scale(2.0 * dot(u, v), u), scale(s * s - dot(u, u), v)),
                scale(2.0 * s, cross(u, v)))


def fig12_e(q, v):
    """The figure's e = fun q v -> (rotate_vec_by_quat v q).x."""
    return rotate_vec_by_quat(v, q)[0]


def rotated_norm(q, v):
    """A float-valued function through the figure's norm: |rotate(v, q)|."""
    return norm(rotate_vec_by_quat(v, q))


# The Delta the figure prints for e at q0 = (1.1, 2.2, 3.3, 4.4), v0 = (5.5, 6.6, 7.7):
# each let is a list of (scale, variable) summed (Add of Scales / Vars; Zero is []).
# The extraction's "Var yy" in x23 is the figure's Var vy.
FIG12_Q0 = (1.1, 2.2, 3.3, 4.4)
FIG12_V0 = (5.5, 6.6, 7.7)
FIG12_INPUTS = ("qx", "qy", "qz", "qw", "vx", "vy", "vz")
FIG12_DELTA = [
    ("x1", [(5.5, "qy"), (2.2, "vx")]),
    ("x2", [(6.6, "qx"), (1.1, "vy")]),
    ("x3", [(1.0, "x2"), (-1.0, "x1")]),
    ("x4", [(7.7, "qx"), (1.1, "vz")]),
    ("x5", [(5.5, "qz"), (3.3, "vx")]),
    ("x6", [(1.0, "x5"), (-1.0, "x4")]),
    ("x7", [(6.6, "qz"), (3.3, "vy")]),
    ("x8", [(7.7, "qy"), (2.2, "vz")]),
    ("x9", [(1.0, "x8"), (-1.0, "x7")]),
    ("x10", []),
    ("x11", [(4.4, "x10"), (2.0, "qw")]),
    ("x12", [(-4.84, "x11"), (8.8, "x3")]),
    ("x13", [(9.68, "x11"), (8.8, "x6")]),
    ("x14", [(-4.84, "x11"), (8.8, "x9")]),
    ("x15", [(3.3, "qz"), (3.3, "qz")]),
    ("x16", [(2.2, "qy"), (2.2, "qy")]),
    ("x17", [(1.1, "qx"), (1.1, "qx")]),
    ("x18", [(1.0, "x17"), (1.0, "x16")]),
    ("x19", [(1.0, "x18"), (1.0, "x15")]),
    ("x20", [(4.4, "qw"), (4.4, "qw")]),
    ("x21", [(1.0, "x20"), (-1.0, "x19")]),
    ("x22", [(7.7, "x21"), (2.42, "vz")]),
    ("x23", [(6.6, "x21"), (2.42, "vy")]),
    ("x24", [(5.5, "x21"), (2.42, "vx")]),
    ("x25", [(7.7, "qz"), (3.3, "vz")]),
    ("x26", [(6.6, "qy"), (2.2, "vy")]),
    ("x27", [(5.5, "qx"), (1.1, "vx")]),
    ("x28", [(1.0, "x27"), (1.0, "x26")]),
    ("x29", [(1.0, "x28"), (1.0, "x25")]),
    ("x30", []),
    ("x31", [(45.98, "x30"), (2.0, "x29")]),
    ("x32", [(3.3, "x31"), (91.96, "qz")]),
    ("x33", [(2.2, "x31"), (91.96, "qy")]),
    ("x34", [(1.1, "x31"), (91.96, "qx")]),
    ("x35", [(1.0, "x32"), (1.0, "x22")]),
    ("x36", [(1.0, "x33"), (1.0, "x23")]),
    ("x37", [(1.0, "x34"), (1.0, "x24")]),
    ("x38", [(1.0, "x35"), (1.0, "x12")]),
    ("x39", [(1.0, "x36"), (1.0, "x13")]),
    ("x40", [(1.0, "x37"), (1.0, "x14")]),
]
FIG12_RESULT = "x40"


def eval_delta(delta, inputs, result):
    """The gradient the Delta denotes: each let's coefficients on the inputs (forward, exact)."""
    coeffs = {name: {name: 1.0} for name in inputs}
    for name, terms in delta:
        acc = {}
        for k, var in terms:
            for leaf, c in coeffs[var].items():
                acc[leaf] = acc.get(leaf, 0.0) + k * c
        coeffs[name] = acc
    return tuple(coeffs[result].get(name, 0.0) for name in inputs)
