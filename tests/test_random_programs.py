"""Random Python source functions (tests/gen_programs.py) through catad: the value equals
the Python function's, the gradient w.r.t. both floats and the array equals central
differences, and jvp agrees with the gradient.

Each program is written to a module file under a temporary directory and imported, so
catad reads its source as it reads a user's. Points closer than 1e-3 to a branch boundary
(measured on every comparison the function evaluates) are rejected.
"""
import hashlib
import re
import importlib.util
import sys

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, note, settings
from hypothesis import strategies as st

import catad
from gen_programs import instrument, programs

MARGIN = 1e-3
H = 1e-6


@pytest.fixture(scope="module")
def module_dir(tmp_path_factory):
    return tmp_path_factory.mktemp("gen_programs")


def load(source, directory):
    name = "gen_prog_" + hashlib.sha1(source.encode()).hexdigest()[:16]
    if name in sys.modules:
        return sys.modules[name].f
    path = directory / f"{name}.py"
    path.write_text(source)
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module.f


def _derivative(g, t):
    """dg/dt by central differences with one Richardson step: the error is O(H^4) times the
    fifth derivative rather than O(H^2) times the third, which fails where a generated
    program takes sin of a large square."""
    d = lambda h: (g(t + h) - g(t - h)) / (2 * h)
    return (4 * d(H / 2) - d(H)) / 3


def central(fn, x, y, v):
    gx = _derivative(lambda t: fn(t, y, v), x)
    gy = _derivative(lambda t: fn(x, t, v), y)
    gv = np.zeros_like(v)
    for i in range(len(v)):
        def along(t, i=i):
            w = v.copy()
            w[i] = t
            return fn(x, y, w)
        gv[i] = _derivative(along, v[i])
    return gx, gy, gv


coordinate = st.floats(-1.5, 1.5, allow_nan=False, allow_infinity=False)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.filter_too_much,
                                                                    HealthCheck.too_slow,
                                                                    HealthCheck.function_scoped_fixture])
@given(source=programs(), x=coordinate, y=coordinate,
       v=st.integers(2, 4).flatmap(lambda n: st.lists(coordinate, min_size=n, max_size=n)))
def test_random_program_gradient(module_dir, source, x, y, v):
    note(source)
    v = np.array(v, dtype=float)
    probe, margins = instrument(source)
    expected_value = probe(x, y, v)
    assume(all(m > MARGIN for m in margins))
    assume(np.isfinite(expected_value) and abs(expected_value) < 1e3)
    gx_cd, gy_cd, gv_cd = central(probe, x, y, v)
    assume(max(abs(gx_cd), abs(gy_cd), np.max(np.abs(gv_cd))) < 1e4)

    fn = load(source, module_dir)
    assert fn(x, y, v) == expected_value
    value, (gx, gy, gv) = catad.value_and_grad(fn, argnums=(0, 1, 2))(x, y, v)
    assert isinstance(value, float)
    assert value == pytest.approx(float(expected_value), rel=1e-12, abs=1e-12)
    assert isinstance(gx, float) and isinstance(gy, float)
    assert isinstance(gv, np.ndarray) and gv.shape == v.shape
    np.testing.assert_allclose([gx, gy], [gx_cd, gy_cd], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(gv, gv_cd, rtol=1e-5, atol=1e-6)

    tangent = (0.3, -0.7, np.linspace(-1.0, 1.0, len(v)))
    out, t = catad.jvp(fn, (x, y, v), tangent)
    assert out == pytest.approx(value, rel=1e-12, abs=1e-12)
    expected_t = gx * tangent[0] + gy * tangent[1] + float(np.dot(gv, tangent[2]))
    assert t == pytest.approx(expected_t, rel=1e-9, abs=1e-9)


def test_generator_covers_the_constructs():
    """The strategy does produce every construct the test is meant to exercise."""
    seen = []

    @settings(max_examples=300, database=None, deadline=None, derandomize=True)
    @given(programs())
    def collect(source):
        seen.append(source.split("def f", 1)[1])

    collect()
    text = "\n".join(seen)
    for needle in ["if ", "else:", " if ", " else ", "return", "sum(", " for ", "range(len(v))", "sum([",
                   "math.sin", "math.cos", "math.tanh", "math.atan", "math.sqrt", "math.log", "np.sum(",
                   "np.dot(", "np.sin(", "p1[", "elif ", "_pair(", "_scaled(", "_shifted(", ", t", "+=", "-=", "float(len",
                   " and ", " or ", "not ", "**"]:
        assert needle in text, needle
    assert re.search(r"t\d+, t\d+ = _pair\(", text)  # a tuple result unpacked
    assert sum("\n    if " in s and "\n    else:" in s for s in seen) >= 30
    assert sum(s.count("return") >= 2 for s in seen) >= 10
