"""np.where and np.select of numbers give NumPy's array of no axes, not a number: y += 1.0 then
changes it in place, and every other name for it sees the change (s = y; y += 1.0 changes s).
catad took it for a number, which += rebinds, and gave s's old value (the loop fuzzer's seed 63241:
x = np.where(...) in a while loop, s3 = x, then x += ... in a for loop; 27.39 where Python gives
175.32). Such an update is now refused unless y owns its array, as for any array; without a second
name it computes as before."""
import numpy as np
import pytest

import catad
from located import agrees, refused


def aliased_where(x):
    y = np.where(x > 0, x, 1.0)
    s = y
    y += 1.0  # ERR
    return s * 1.0


def aliased_select(x):
    y = np.select([x > 0], [x], 1.0)
    s = y
    y *= 3.0  # ERR
    return s + 0.0


def aliased_in_a_list(x):
    y = np.where(x > 0, x, 1.0)
    pair = [y, y]
    y += 1.0  # ERR
    return pair[0] * 1.0


def aliased_after_loops(w, v, x):
    k = 0
    while k < len(w):
        k += 1
        x = np.where(x > -2.0, 3 * np.sum(w), 1.0)
    s3 = x
    for e in v:
        x += sum(s3 for _ in v)  # ERR
    return x


def aliased_after_an_if(x):
    if x > 1.0:
        y = np.where(x > 2.0, x, 0.5)
    else:
        y = x * 2.0
    s = y
    y -= 1.0  # ERR
    return s


def not_aliased(x):
    y = np.where(x > 0, x, 1.0)
    y += 1.0
    y *= x
    return y * 2.0


def rebound_not_changed(x):
    y = np.where(x > 0, x, 1.0)
    s = y
    y = y + 1.0
    return s * y


@pytest.mark.parametrize("f", [aliased_where, aliased_select, aliased_in_a_list, aliased_after_an_if],
                         ids=lambda f: f.__name__)
def test_an_update_seen_by_another_name_is_refused(f):
    refused(f, (0.5,), "may share its memory with another value")


def test_an_update_after_loops_seen_by_another_name_is_refused():
    w, v = np.array([0.5, 0.9]), np.array([0.4, 1.9, -1.6])
    assert aliased_after_loops(w, v, 0.23) == pytest.approx(4.0 ** 3 * 3 * np.sum(w))  # x grows 4-fold: s3 is x
    refused(aliased_after_loops, (w, v, 0.23), "may share its memory with another value")


@pytest.mark.parametrize("f", [not_aliased, rebound_not_changed], ids=lambda f: f.__name__)
@pytest.mark.parametrize("x", [0.5, -0.7])
def test_without_a_second_name_it_computes_as_python(f, x):
    agrees(f, x)


def test_an_int_array_of_no_axes_keeps_its_dtype():
    def f(x):
        n = np.where(x > 0, 1, 2)
        n += 0.5
        return x * n
    with pytest.raises(Exception, match="same_kind"):
        f(0.5)
    with pytest.raises(catad.CatadError, match="same_kind"):
        catad.grad(f)(0.5)


def max_with_a_builtin_sum(x, v):
    # max of np.where's array of no axes and sum(v) (Python's 0 where v is empty: a mark whose
    # test is computed first) is that array itself; acc10 += ... changes it, and x with it
    x = max(np.where(x <= v[0], -1.25, -0.75), sum(v))
    for e9 in v:
        acc10 = x
        for e12 in v:
            acc10 += e12  # ERR
    return -1.0 * x


def test_an_array_of_no_axes_chosen_by_max_beside_a_sum_is_refused():
    # fuzzer seed 3341352: catad gave 0.75 where Python gives 18.262 (the array changed in place)
    v = np.array([-0.183, -1.766, -2.237, -0.192])
    assert max_with_a_builtin_sum(0.332, v) == pytest.approx(18.262)
    refused(max_with_a_builtin_sum, (0.332, v), "acc10", "share its memory")
