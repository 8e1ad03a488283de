"""The loop-of-bodies backend (vectorise=False, and the Python-loop fallback) on a reverse program
whose loops build zero cotangents: a projection of a run-time tuple that is the zero tangent
('_Zero' object is not subscriptable) and a build of zero tangents over a length the code must
not read (zero_tangent_length) both raised once. The program is the random one that found them."""
import math

import numpy as np

from backend_programs import Programs


def _pair(a, b):
    return a * b + 1.0, math.sin(a) - b


def f(x, y, v):
    p1 = ((_pair(_pair(-0.75, float(len(v)))[1], (y) / (1.0 + (3.0) * (3.0)))[0]) ** 2, (2 * math.sin((3 * y))))
    if (2 * _pair((len(v) * x), (2 * y))[1]) >= _pair((v[0]) ** 2, (v[-1] + 2.0))[0]:
        t3, t4 = p1
        s = sum([math.sin(w5 * (float(len(v)) + v[-1])) for w5 in v])
        y = (_pair((t3 * 1.0), (v[0] - float(len(v))))[1]) / (1.0 + s * s)
        j2 = math.sqrt(((v[1] * (t4 if v[1] < t4 else float(len(v))))) ** 2 + 1.0)
    else:
        y = _pair(sum([(w6 - _pair(w6, x)[0]) ** 2 for w6 in v]), ((v[1] * v[0]) + np.sin(v[0])))[1]
        c = (x * 2.0) * sum([(3.0 + w8) for w8 in v])
        j2 = (sum(math.sin(w7 * np.cos(v[1])) for w7 in v if w7 > v[0])) / (1.0 + c * c)
    y += sum(((_pair(v[1], v[i9])[1]) / (1.0 + ((y * 0.5)) * ((y * 0.5))) + v[i9]) for i9 in range(len(v)))
    return np.sqrt(((2 * sum([(w10 * j2) for w10 in v]))) ** 2 + 1.0)


def test_zero_cotangents_in_loops_of_bodies():
    args = (-1.1255793430838303, -1.46854002982773, np.array([-8.285875882477769e-283, 0.566731996678945,
                                                              1.1334138689042916]))
    for vectorise in (False, True):
        Programs(f, args, vectorise).check(np.random.default_rng(642), rtol=1e-9, atol=1e-9)
