"""The items of a list display of Python's own numbers ([x, 2.0] of a float argument x) are
Python's numbers where read back (l[0], `for e in l`, zip, enumerate), as in Python: divided by
zero they raise ZeroDivisionError, where NumPy's numbers (an array's elements) give inf. They
were taken as NumPy's, and catad returned inf. Values and errors against the function itself."""
import numpy as np
import pytest

import catad
from located import agrees


def raises_as_python(error, f, *args):
    """f(*args) raises error, and so does catad's gradient of f there."""
    with pytest.raises(error):
        f(*args)
    with pytest.raises(error):
        catad.grad(f)(*args)


def indexed(x, y):
    l = [x, 2.0]
    return l[0] / y + l[-1] / (y + 1.0)


def iterated(x, y):
    l = [x * 2.0, y]
    s = 0.0
    for e in l:
        s = s + x / e
    return s


def zipped(x, y):
    s = 0.0
    for k, (e, f) in enumerate(zip([x, y], [y, x])):
        s = s + e / f * (k + 1)
    return s


def named_then_read(x, y):
    l = [x, y]
    m = l
    return x / m[1]


def counted(x, y):
    flags = [x > 0, y > 0]
    return (flags[0] + flags[1]) * x  # Python's bools: 0, 1 or 2


FUNCTIONS = [indexed, iterated, zipped, named_then_read, counted]


@pytest.mark.parametrize("f", FUNCTIONS, ids=lambda f: f.__name__)
def test_values_and_gradients(f):
    agrees(f, 1.5, 0.5, argnums=(0, 1))
    agrees(f, -0.75, 2.5, argnums=(0, 1))


@pytest.mark.parametrize("f", FUNCTIONS[:4], ids=lambda f: f.__name__)
def test_python_numbers_divided_by_zero_raise(f):
    raises_as_python(ZeroDivisionError, f, 1.0, 0.0)


@pytest.mark.parametrize("f", FUNCTIONS[:4], ids=lambda f: f.__name__)
def test_numpy_numbers_divided_by_zero_are_inf(f):
    x, y = np.float64(1.0), np.float64(0.0)
    with np.errstate(all="ignore"):
        expected = f(x, y)
        value = catad.value_and_grad(f, argnums=(0, 1))(x, y)[0]
    assert value == expected or np.isnan(value) and np.isnan(expected)


def test_counted_flags_are_ints():
    assert catad.grad(counted)(1.5, 0.5) == 2.0
    assert catad.grad(counted)(np.float64(1.5), np.float64(0.5)) == 1.0  # NumPy's bools: True + True is True


def tuple_items(x, y, a):
    t = (y, a[2] * 2.0, (x, a[0] + 1.0))
    s = t[0]
    return (s / x + t[2][0] / y) * t[1] + t[2][1]


def test_tuple_items_keep_their_kinds():
    """A tuple display with an item that is not a name keeps each item's kind: t[0] of t = (y,
    a[2] * 2.0) is Python's y (the tuple was bound whole, its items read back as NumPy's)."""
    a = np.array([0.5, 1.5, 2.0])
    agrees(tuple_items, 1.5, 0.5, a, argnums=(0, 1, 2))
    raises_as_python(ZeroDivisionError, tuple_items, 0.0, 0.5, a)
    with np.errstate(all="ignore"):
        x = np.float64(0.0)
        assert np.isnan(catad.value_and_grad(tuple_items)(x, np.float64(0.0), a)[0]) == np.isnan(tuple_items(x, np.float64(0.0), a))


def summed(x, y):
    l = [x, y * 2.0]
    s = sum(l) // y  # Python's float: // 0.0 raises, even where s is not used
    return sum(l) * x + max(l) / y


def test_sum_of_a_list_of_python_numbers_is_python_s():
    agrees(summed, 1.5, 0.5, argnums=(0, 1))
    raises_as_python(ZeroDivisionError, summed, 1.5, 0.0)


def kinds_through_calls(x, y):
    l = [x, y * 2.0]
    a = pow(y, 2)  # builtin pow of Python's numbers: Python's
    b = [e * 2.0 for e in l][1]  # a comprehension over Python's numbers makes Python's
    c = (y // round(x + 1.0)) - (divmod(x, 2.0)[0] % min(l))  # divmod's item under an earlier check
    return (1.0 / a + 1.0 / b + c) * x


def test_python_numbers_through_pow_comprehensions_and_divmod():
    agrees(kinds_through_calls, 1.5, 0.5, argnums=(0, 1))
    for x, y in [(1.5, 0.0), (0.0, 3.0)]:
        raises_as_python(ZeroDivisionError, kinds_through_calls, x, y)


def appended(x, y):
    q = []
    q.append(y)
    q.append(x * 2.0)  # (bound to a name of its own before it is appended)
    return (1.0 / q[0] + 1.0 / q[1]) * x


def test_a_list_appended_python_numbers_holds_python_numbers():
    agrees(appended, 1.5, 0.5, argnums=(0, 1))
    for x, y in [(1.5, 0.0), (0.0, 1.0)]:
        raises_as_python(ZeroDivisionError, appended, x, y)


def mixed(x, y, a):
    q = []
    q.append(y)
    q.append(a[0])
    m = [a[1], x]
    return (1.0 / q[0] + 1.0 / q[1] + 1.0 / m[-1] + 1.0 / m[0]) * x


@pytest.mark.parametrize("x, y, a0, a1", [(1.5, 0.0, 0.5, 1.0), (1.5, 2.0, 0.0, 1.0), (0.0, 2.0, 1.0, 1.0),
                                          (1.5, 2.0, 1.0, 0.0), (1.5, 2.0, 1.0, 4.0)])
def test_a_list_of_python_and_numpy_numbers_keeps_each_item_kind(x, y, a0, a1):
    """l[k] with k written as a literal is Python's number where the display or the append put
    one there, NumPy's where it put one of those (a NumPy zero divides to inf)."""
    a = np.array([a0, a1])
    try:
        with np.errstate(all="ignore"):
            expected = mixed(x, y, a)
    except ZeroDivisionError:
        with pytest.raises(ZeroDivisionError):
            catad.grad(mixed)(x, y, a)
        return
    with np.errstate(all="ignore"):
        assert catad.value_and_grad(mixed)(x, y, a)[0] == expected
