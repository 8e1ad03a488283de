"""Lists that grow (catad/frontend/lists.py): xs = [], xs.append(e), xs.extend(ys), xs += ys and
xs + ys, outside loops and in folded loops (a buffer of the final length and a count), then used
as Python and NumPy use lists (np.array, np.stack, np.concatenate, np.vstack, np.hstack, sum, len,
indexing, iteration); and lists and tuples of items of different shapes indexed and sliced by
values known while compiling (layers[:-1], layers[-1], layers[i] in an unrolled range loop).

Every value is checked against calling the function itself, every gradient against central
differences (reverse mode, and forward mode by jvp), every refusal for its location and advice,
every run-time error against Python's or NumPy's."""
import math

import numpy as np
import pytest

import catad
from catad import CatadTypeError, ShapeError, UnsupportedSyntax
from backend_programs import central_difference as central
from located import agrees, marked_line, refused
from benchmark_modules import bench_corpus

biquad = bench_corpus.signal.biquad
bezier_length = bench_corpus.geometry.bezier_length

RNG = np.random.default_rng(1601)
X = np.array([0.3, -1.2, 0.8, 2.0, 0.1, -0.4])


# ---------------------------------------------------------------- outside loops

def straight(x):
    a = []
    a.append(x[0])
    a += [x[1], x[2] * 2.0]
    a.extend(x[3:])
    b = a + [x[0] * 3.0]
    return sum(b) * len(b) + b[-2] * b[1]


def tuple_list(x):
    parts = [x[0], x]  # a number and an array: a list of values of different types
    parts.append(x * 2.0)
    parts = parts + [np.sin(x)]
    return parts[0] * np.sum(parts[2]) + np.sum(parts[3] * parts[1])


def penalty_i(x, a=1e-5):
    # Gill, Murray & Pitfield (1972); Moré, Garbow & Hillstrom (1981) problem 23
    f = [math.sqrt(a) * (xi - 1.0) for xi in x]
    f.append(sum(xi ** 2 for xi in x) - 0.25)
    return sum(fi ** 2 for fi in f)


def maybe_longer(x):
    out = [x[1]]
    if x[0] > 0:
        out.append(x[0])  # the list's length depends on the data
    return sum(out) * len(out)


def test_appends_outside_loops():
    agrees(straight, X)
    agrees(tuple_list, X)
    agrees(penalty_i, X)
    agrees(maybe_longer, np.array([1.0, 2.0]))
    agrees(maybe_longer, np.array([-1.0, 2.0]))


# ---------------------------------------------------------------- in loops

def test_a_recurrence_s_outputs():
    coeffs = np.array([0.2, 0.4, 0.2, -0.5, 0.2])
    agrees(biquad, coeffs, RNG.normal(size=9), argnums=(0, 1))
    assert catad.value_and_grad(biquad)(coeffs, np.zeros(0))[0] == 0.0  # no iteration: an empty list


def stacked_matrices(icf, x):
    d = x.shape[0]
    rows, cols = np.tril_indices(d, -1)
    qs = []
    for j in range(icf.shape[0]):
        q = np.diag(np.exp(icf[j, :d]))
        q[rows, cols] = icf[j, d:]
        qs.append(q)
    qs = np.stack(qs)
    return np.sum(np.einsum("kij,j->ki", qs, x) ** 2)


def test_arrays_appended_in_independent_iterations_make_a_build():
    agrees(bezier_length, RNG.normal(size=(4, 2)), 9)
    icf, x = RNG.normal(size=(3, 6)), RNG.normal(size=3)
    agrees(stacked_matrices, icf, x, argnums=(0, 1))
    notes = catad.explain(stacked_matrices, icf, x).pipeline.loop_notes
    assert any("no Python loop" in n for n in notes), notes


def positives(x):
    out = []
    for v in x:
        if v > 0:
            out.append(v * v)
    return sum(out) + len(out) + out[-1]


def until_large(x):
    out = [0.5]
    for v in x:
        if v > 1.5:
            break
        out.append(np.sin(v))
        out += [v, -v]
    return np.sum(np.array(out) ** 2) * len(out)


def test_appends_under_an_if_make_a_list_of_the_appended_values():
    agrees(positives, X)
    agrees(until_large, X)
    assert catad.value_and_grad(until_large)(np.array([2.0, 1.0]))[0] == until_large(np.array([2.0, 1.0]))


def running(x):
    out = [x[0]]
    for k in range(1, len(x)):
        out.append(out[-1] * 0.5 + x[k])  # the list read in the loop that fills it
    s = 0.0
    for v in out:
        s = s + v * v
    return s + out[1] * len(out)


def mixed_numbers(x):
    out = [1, 2]  # Ints, then Floats: NumPy makes the list an array of Floats
    for v in x:
        out.append(v)
    return np.sum(np.array(out) ** 2)


def two_lists(x):
    a, b = [], []
    for v in x:
        a.append(v)
        b.append(v * 2.0)
        a.append(-v)
    return np.sum(np.array(a[:len(b)]) * np.array(b)) + np.sum(a)


def rows_of_rows(m):
    rows = []
    for i in range(m.shape[0]):
        row = []  # a list made anew each iteration, filled by the inner loop
        for j in range(m.shape[1]):
            row.append(m[i, j] * (i + j))
        rows.append(np.array(row))
    return np.sum(np.stack(rows) ** 2)


def test_lists_read_in_their_loop_mixed_numbers_and_nested_lists():
    agrees(running, X)
    agrees(mixed_numbers, X)
    agrees(two_lists, X)
    agrees(rows_of_rows, RNG.normal(size=(3, 4)))


def joined(x):
    rows = []
    for i in range(x.shape[0]):
        rows.append(np.sin(x[i]) * (i + 1.0))
    a, b = np.stack(rows), np.stack(rows, axis=1)
    c, d, e = np.concatenate(rows), np.vstack(rows), np.hstack(rows)
    return np.sum(a * b.T) + np.sum(c * np.arange(len(c))) + np.sum(d ** 2) + np.sum(e ** 3)


def joined_matrices(x):
    mats = []
    for i in range(x.shape[0]):
        mats.append(np.outer(x[i], x[i]) * (i + 1.0))
    a, b, c = np.concatenate(mats, axis=1), np.vstack(mats), np.hstack(mats)
    return np.sum(a * np.cos(np.arange(a.size).reshape(a.shape))) + np.sum(b ** 2) + np.sum(c[:, 0])


def test_numpy_joins_a_list_filled_in_a_loop():
    agrees(joined, RNG.normal(size=(3, 4)))
    agrees(joined_matrices, RNG.normal(size=(3, 2)))


# ---------------------------------------------------------------- what Python and NumPy raise

def stack_of(x, n):
    rows = []
    for i in range(n):
        rows.append(x * i)
    return np.sum(np.stack(rows))


def array_of(x, n):
    rows = []
    for i in range(n):
        rows.append(x * i)
    return np.sum(np.array(rows))


def shapes_differ(x, n):
    rows = [x]
    for i in range(2):
        rows.append(x[:n] * i)
    return np.sum(np.array(rows))


def test_run_time_errors():
    assert catad.grad(stack_of)(X, 2) == pytest.approx(np.ones(len(X)))
    with pytest.raises(ValueError) as numpy_error:
        stack_of(X, 0)
    with pytest.raises(ShapeError) as ours:
        catad.grad(stack_of)(X, 0)
    assert str(numpy_error.value) in str(ours.value)  # need at least one array to stack
    with pytest.raises(ShapeError, match="empty list of arrays"):  # NumPy makes the shape (0,), not (0, 6)
        catad.grad(array_of)(X, 0)
    assert catad.grad(shapes_differ)(X, 6) == pytest.approx(np.full(len(X), 2.0))
    with pytest.raises(ShapeError, match="must have one shape"):
        catad.grad(shapes_differ)(X, 3)


def in_while(x):
    out = []
    while x < 10.0:  # ERR
        out.append(x)
        x = x * 2.0
    return sum(out)


def in_inner_loop(m):
    out = []
    for i in range(m.shape[0]):
        for j in range(m.shape[1]):  # ERR
            out.append(m[i, j])
    return sum(out)


def lengths_from_data(x, n):
    out = []
    for k in range(3):  # ERR
        out.append(x[:n + k])  # the lengths grow: not one array
    return np.sum(out[0])


def extend_by_array(x):
    out = []
    for v in x:
        out.extend(x[:2] * v)  # ERR
    return sum(out)


def of_tuples(x):
    out = []
    for v in x:  # ERR
        out.append((v, v * 2.0))
    return sum(a * b for a, b in out)


def callers_list(xs, x):
    xs.append(x)  # ERR
    return x


def empty_in_one_branch(x):
    out = []
    if x > 0:
        out.append(x)
    return sum(out)  # ERR


def read_empty(x):
    out = []
    return len(out) + x  # ERR


def test_located_refusals():
    refused(in_while, (0.7,), "'out'", "while loop", "np.zeros(n_max)", cls=UnsupportedSyntax)
    refused(in_inner_loop, (np.ones((2, 2)),), "'out'", "a loop inside the loop", "comprehension", cls=UnsupportedSyntax)
    refused(extend_by_array, (X,), "extending a list in a loop by a value whose length is not "
            "written out", "one by one", cls=UnsupportedSyntax)
    refused(of_tuples, (X,), "'out'", "(Float, Float)", "arrays of one shape", cls=CatadTypeError)
    with pytest.raises(UnsupportedSyntax) as info:  # a list argument: compiled through the API (catad.trees)
        catad.grad(callers_list, argnums=1)([1.0, 2.0], 1.0)
    assert info.value.loc.line == marked_line(callers_list) and "'xs'" in str(info.value), str(info.value)
    assert "make a new list" in str(info.value)
    refused(read_empty, (1.0,), "'out' is empty here", "np.zeros(0)", cls=UnsupportedSyntax)
    refused(empty_in_one_branch, (1.0,), "'out' is empty after one branch", "first element", cls=UnsupportedSyntax)


def test_element_lengths_computed_in_the_loop_are_refused_at_the_loop():
    refused(lengths_from_data, (X, 2), "'out'", "lengths computed in the loop", "comprehension", cls=UnsupportedSyntax)


# ---------------------------------------------------------------- lists of items of different shapes

def mlp_layers(layers, x):
    h = x
    for w, b in layers[:-1]:
        h = np.maximum(h @ w + b, 0.0)
    w, b = layers[-1]
    return np.sum(np.tanh(h @ w + b))


def mlp_indexed(layers, x):
    h = x
    for i in range(len(layers) - 1):
        w, b = layers[i]
        h = np.tanh(h @ w + b) * layers[i + 1][1][0]
    w, b = layers[len(layers) - 1]
    return np.sum(h @ w + b) + sum(np.sum(layers[i][0] ** 2) for i in range(len(layers)))


def every_other(layers, x):
    return sum(np.sum(w) for w, _ in layers[::2]) * np.sum(x) + np.sum(layers[1:][0][1])


def make_layers():
    sizes = [3, 4, 5, 2]
    return [(RNG.normal(size=(m, n)) * 0.5, RNG.normal(size=n)) for m, n in zip(sizes, sizes[1:])]


def test_lists_of_layers_sliced_and_indexed_while_compiling():
    layers, x = make_layers(), RNG.normal(size=(5, 3))
    for f in (mlp_layers, mlp_indexed, every_other):
        value, grad = catad.value_and_grad(f, argnums=(0, 1))(layers, x)
        assert value == pytest.approx(f(layers, x), rel=1e-12)
        assert isinstance(grad[0], list) and len(grad[0]) == 3
        np.testing.assert_allclose(grad[1], central(f, (layers, x), 1), rtol=1e-6, atol=1e-7)
        for k, (w, b) in enumerate(layers):
            for j, leaf in enumerate((w, b)):
                def g(v, k=k, j=j):
                    ls = [list(p) for p in layers]
                    ls[k][j] = v
                    return f([tuple(p) for p in ls], x)
                np.testing.assert_allclose(grad[0][k][j], central(g, (leaf,), 0), rtol=1e-6, atol=1e-7)


def index_from_data(layers, x, k):
    return np.sum(layers[k][0]) * x  # ERR


def test_a_list_index_computed_at_run_time_is_refused():
    with pytest.raises(UnsupportedSyntax) as info:
        catad.grad(index_from_data, argnums=1)(make_layers(), 1.0, 1)
    e = info.value
    assert e.loc.file == __file__ and e.loc.line == marked_line(index_from_data), str(e)
    assert "list" in str(e) and "known while compiling" in str(e) and "np.array" in str(e)
