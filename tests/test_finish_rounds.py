"""finish removes the zero tangents its single-use inliner writes where they are used, round after
round: a random program (Hypothesis, tests/test_backend.py) kept tsum(build(size(0), \\j. 0[j]))
in its reverse program, whose size(0) the reference evaluator cannot take (the rules remove it,
but finish optimised only once after the inliner). Another (session 18) needed five rounds, where
finish stopped after four: finish now goes on while a round removes something (ROUNDS at most)."""
import numpy as np

from backend_programs import Programs, load_source
from catad._node import walk
from catad.lang.terms import Call, Const
from catad.tangents import ZERO

SOURCE = """import math
import numpy as np


def _pair(a, b):
    return a * b + 1.0, math.sin(a) - b


def _scaled(w, k):
    return w * k


def _shifted(w, k):
    return w + k


def f(x, y, v):
    if (math.sin(3.0) if math.sqrt((v[1]) * (v[1]) + 1.0) <= v[0] else np.dot(v, v)) >= x:
        j1 = sum([(w3 - (v[-1] if not (-0.75 < w3) else w3)) ** 2 for w3 in v])
        j2 = sum(math.sin(v[i4] * _pair(float(len(v)), v[i4])[1]) for i4 in range(len(v)))
    else:
        l5 = [math.sin(v[w6] * y) for w6 in range(len(v))]
        j1 = ((v[-1]) ** 2 if ((1.5 >= l5[-1]) or (1.0 <= l5[0])) and ((y < float(len(v))) and (x >= float(len(v)))) else -(float(len(v))))
        j2 = sum([math.sin(w7 * np.sin(float(len(v)))) for w7 in v])
    p8 = (3.0, (_pair(-1.25, j1)[0] - np.cos(x)))
    if sum((w9 * math.tanh(v[-1])) for w9 in v if w9 <= y) >= (v[1]) ** 2:
        return ((3 * 1.5) if _pair(p8[1], y)[1] >= float(len(v)) else np.cos(j1))
    t10, t11 = p8
    if np.cos((1.5 if p8[1] >= -1.25 else t11)) <= (p8[0] * float(len(v))):
        j2 = _pair(_pair(v[-2], v[-2])[1], -0.75)[1]
    t12 = (-(t11) - (t10 + v[-2]))
    l13 = [(v[w14] - (v[w14] if p8[1] >= float(len(v)) else p8[1])) ** 2 for w14 in range(len(v))]
    return (_pair(y, l13[0])[1] if ((float(len(v)) >= l13[1]) or (j1 > float(len(v)))) or (float(len(v)) >= p8[0]) else _pair(float(len(v)), p8[0])[0])
"""


def test_no_zero_tangent_is_left_where_it_is_used(tmp_path):
    fn = load_source(SOURCE, tmp_path)
    x, y = -3.436994991488373e-81, -0.17041810587827877
    v = np.array([-7.546993507624256e-67, 1.3028235395739358, 4.440164272283937e-293, -0.608988808044435])
    p = Programs(fn, (x, y, v), True)
    zero_sizes = [n for n in walk(p.pl.reverse.body) if isinstance(n, Call) and n.fn == "size"
                  and isinstance(n.args[0], Const) and n.args[0].value is ZERO]
    assert zero_sizes == []
    p.check(np.random.default_rng(356), rtol=1e-9, atol=1e-9)


FIVE_ROUNDS = """import math
import numpy as np


def _pair(a, b):
    return a * b + 1.0, math.sin(a) - b


def f(x, y, v):
    a1 = np.cos((v * v))
    l2 = [math.sin(a1[w3] * (float(len(v)) - a1[1])) for w3 in range(len(v))]
    if (sum(l2) * (len(v) * x)) > _pair(float(len(a1)), 1.5)[1]:
        t4, t5 = _pair((float(len(a1))) / (1.0 + (l2[-1]) * (l2[-1])), (3 * x))
        x = np.sqrt((np.arctan(t4)) ** 2 + 1.0)
    p6 = (math.sin((l2[1] if a1[-1] > l2[1] else a1[-2])), ((-1.25 * 0.5) - _pair(v[-2], 0.5)[0]))
    return (3 * p6[1])
"""


def test_as_many_rounds_as_the_program_needs(tmp_path):
    fn = load_source(FIVE_ROUNDS, tmp_path)
    x, y, v = -0.8097209574348447, 0.2542308734772978, np.array([1.4187923863528704, 3.9001024074995294e-54])
    p = Programs(fn, (x, y, v), True)
    zero_sizes = [n for n in walk(p.pl.reverse.body) if isinstance(n, Call) and n.fn == "size"
                  and isinstance(n.args[0], Const) and n.args[0].value is ZERO]
    assert zero_sizes == []
    p.check(np.random.default_rng(607162142), rtol=1e-9, atol=1e-9)
