"""list(...), map and filter (catad/frontend/iterators.py), against the user's function itself:
its value, central differences of it (located.agrees) and, for refusals, where Python and catad
part ways.

- list(it) is [x for x in it]: a list's copy, an array's elements or rows, a range's ints, a
  zip's pairs, a tuple's items, a generator's items; list() the empty list;
- map(f, a, ...) and filter(p, a) where their items are taken as Python's iterator makes them:
  the argument of sum, max, min, any, all, sorted or list, and what a for loop runs over;
- a map stored in a variable is refused (Python's is empty when read again);
- a list of a matrix's rows holds views of it: writing into the matrix afterwards is refused,
  as it was for a display of its rows. For a list comprehension over the rows ([r for r in m])
  catad gave the rows as they were before the write, where Python's views show it (fails on
  main: the value was 1.41 where Python gives 7.89)."""
import math

import numpy as np
import pytest

import catad
from located import agrees, refused


def square_less_half(t):
    return t * t - 0.5


def map_summed(x, v):
    return sum(map(lambda t: t * t * x, v))


def map_of_two(x, v, w):
    return sum(map(lambda a, b: a * b + x, v, w))  # stops at the shorter


def map_of_functions(x, v):
    return max(map(square_less_half, v)) + min(map(math.sin, v)) * x


def map_listed(x, v):
    return np.sum(np.array(list(map(math.sin, v * x))))


def filter_summed(x, v):
    return sum(filter(lambda t: t > 0.1, v * x))


def filter_of_none(x, v):
    return sum(filter(None, v * x - 1.0)) + sum(filter(None, [0.0, x, 0.0]))


def any_all_of_maps(x, v):
    return x * (any(map(lambda t: t > 1.0, v)) + 2 * all(map(lambda t: t > -3.0, v)))


def sorted_map(x, v):
    s = sorted(map(lambda t: (t - x) ** 2, v))
    return s[0] + 0.5 * s[-1]


def sorted_generator(x, v):
    return sorted(t * x for t in v)[1]


def loop_over_map(x, v):
    s = 0.0
    for y in map(lambda t: t * x, v):
        if y > 1.0:
            break
        s = s + y
    else:
        s = s * 2.0
    return s + y


def loop_over_filter(x, v):
    s = x
    for y in filter(lambda t: t > -0.2, v):
        if y > 2.0:
            continue
        s = s * 0.5 + math.sin(y)
    return s


def loop_over_map_of_two(x, v, w):
    s = x
    for a in map(lambda p, q: p * q, v, w):
        s = s * 0.5 + a
    return s


def list_of_an_array(x, v):
    items = list(v * x)
    return items[0] * items[-1] + sum(items)


def list_of_rows(x, m):
    rows = list(m * x)
    return sum(np.sum(r ** 2) for r in rows) + rows[-1][0]


def list_of_a_range(x, v):
    idx = list(range(len(v)))
    return sum(v[i] * i * x for i in idx)


def list_of_a_generator(x, v):
    items = list(t * t * x for t in v)
    return sum(items) / len(items)


def list_of_a_tuple(x):
    items = list((x, 2.0 * x, 3.0))
    items.append(x * x)
    return sum(items) * items[1]


def list_of_zip(x, v, w):
    pairs = list(zip(v, w))
    return sum(a * b for a, b in pairs) * x


def list_copied(x, v):
    a = [x, x * 2.0, v[0]]
    b = list(a)
    b[0] = 10.0
    return a[0] + b[0] * a[1]


def list_filtered(x, v):
    kept = list(filter(lambda t: t > 0.0, v * x))
    return sum(kept) / (1.0 + len(kept))


V = np.array([0.3, -0.7, 1.1, 0.4, 2.5])
W = np.array([1.5, 0.2, -0.9, 0.6])
M = np.array([[0.2, -0.4], [0.9, -1.3], [0.6, 0.25]])


@pytest.mark.parametrize("f", [map_summed, map_of_functions, map_listed, filter_summed, filter_of_none,
                               any_all_of_maps, sorted_map, sorted_generator, loop_over_map, loop_over_filter,
                               list_of_an_array, list_of_a_range, list_of_a_generator, list_copied, list_filtered])
@pytest.mark.parametrize("x", [0.7, -1.3])
def test_of_a_vector(f, x):
    agrees(f, x, V, argnums=(0, 1))


@pytest.mark.parametrize("f", [map_of_two, loop_over_map_of_two, list_of_zip])
def test_of_two_vectors(f):
    agrees(f, 0.4, V, W, argnums=(0, 1, 2))


def test_of_a_tuple():
    agrees(list_of_a_tuple, 0.7)


def test_of_rows():
    agrees(list_of_rows, 0.9, M, argnums=(0, 1))


def test_a_map_of_nothing():
    assert catad.grad(map_summed, argnums=(0, 1))(0.5, np.zeros(0))[1].shape == (0,)
    assert map_summed(0.5, np.zeros(0)) == catad.value_and_grad(map_summed)(0.5, np.zeros(0))[0] == 0


def stored_map(x, v):
    m = map(lambda t: t * x, v)  # ERR
    return sum(m) + sum(m)  # Python: the second sum is 0


def map_given_to_a_function(x, v):
    return np.sum(np.array(map(lambda t: t * x, v)))  # ERR (NumPy: an array of one object)


def comprehension_over_map(x, v):
    return sum([y * y for y in map(lambda t: t * x, v)])  # ERR


@pytest.mark.parametrize("f", [stored_map, map_given_to_a_function, comprehension_over_map])
def test_a_map_read_elsewhere_is_refused(f):
    refused(f, (0.5, V), "map() is supported where its items are taken as it makes them")


def writes_after_listing_rows(x, m):
    m = m * x
    rows = list(m)
    m[0, 0] = 7.0  # ERR
    return np.sum(rows[0])


def writes_after_a_comprehension_of_rows(x, m):
    m = m * x
    rows = [r for r in m]
    m[0, 0] = 7.0  # ERR
    return np.sum(rows[0])


def writes_after_mapping_rows(x, m):
    m = m * x
    rows = list(map(lambda r: r[1:], m))
    m[0, 1] = 7.0  # ERR
    return np.sum(rows[0])


@pytest.mark.parametrize("f", [writes_after_listing_rows, writes_after_a_comprehension_of_rows,
                               writes_after_mapping_rows])
def test_writing_into_listed_rows_is_refused(f):
    refused(f, (0.5, M), "which may share its memory with another value")


def writes_after_summing_rows(x, m):
    m = m * x
    sums = [np.sum(r) for r in m]
    m[0, 0] = 7.0
    return sum(sums) + np.sum(m)


def writes_after_listing_a_vector(x, m):
    v = m[:, 0] * x
    items = list(v)
    v[0] = 7.0
    return sum(items) + np.sum(v)


@pytest.mark.parametrize("f", [writes_after_summing_rows, writes_after_listing_a_vector])
def test_writing_where_no_view_was_kept(f):
    agrees(f, 0.5, M, argnums=(0, 1))


def writes_after_mapping_a_closure(x, m):
    a = m * x

    def row(i):
        return a[i]
    rows = list(map(row, range(2)))
    a[0, 0] = 9.0  # ERR
    return rows[0][0]


def writes_after_a_comprehension_of_a_closure(x, m):
    a = m * x
    pick = lambda i: a[i]  # noqa: E731
    rows = [pick(i) for i in range(2)]
    a[0, 0] = 9.0  # ERR
    return rows[0][0]


@pytest.mark.parametrize("f", [writes_after_mapping_a_closure, writes_after_a_comprehension_of_a_closure])
def test_writing_after_a_function_of_the_function_kept_a_view_is_refused(f):
    """A def or lambda of the function returning a view of an array it reads (a[i]) keeps a
    reference to the array in what it makes: catad gave the rows before the write (0.9 where
    Python gives 9.0), older than list() and map (the comprehension too)."""
    refused(f, (0.5, M), "which may share its memory with another value")
